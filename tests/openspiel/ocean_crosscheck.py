"""Ocean's poker strategies as OpenSpiel tabular policies: the same strategy measured by both exact
exploitabilities (`puffer_ocean.poker.exploitability`, OpenSpiel's `exploitability.exploitability`).

Ocean's information set keys are (seat, rank, public rank or -1, the actions of each round), with actions
0 fold, 1 check/call, 2 bet/raise. OpenSpiel's Leduc has the same three actions; its cards 0..5 are ranks
card // 2 (J, J, Q, Q, K, K). OpenSpiel's Kuhn has two actions, 0 pass and 1 bet: facing a bet, pass is
Ocean's fold and bet its call; otherwise pass is Ocean's check and bet its bet.
"""

from __future__ import annotations

import numpy as np


def ocean_key(game_name: str, state) -> tuple[tuple, bool]:
    """(Ocean's key of the information set of the seat to move in the OpenSpiel state, whether it faces a bet)."""
    seat = state.current_player()
    kuhn = game_name == "kuhn_poker"
    cards, public, rounds = [], -1, [[]]
    for step in state.full_history():
        if step.player < 0:
            if len(cards) < 2:
                cards.append(step.action if kuhn else step.action // 2)
            else:
                public = step.action // 2
                rounds.append([])
        else:
            rounds[-1].append(step.action)
    facing = False
    if kuhn:  # pass/bet -> fold, check/call, bet/raise
        actions, facing = [], False
        for action in rounds[0]:
            actions.append((0 if facing else 1) if action == 0 else (1 if facing else 2))
            facing = action == 1 and not facing
        rounds = [actions]
    return (seat, cards[seat], public, tuple(tuple(r) for r in rounds)), facing


def to_openspiel(game_name: str, table, ocean_keys: list[tuple], ocean_probs: np.ndarray) -> np.ndarray:
    """OpenSpiel's action probability array (rows of `table.states`) of Ocean's strategy `ocean_probs`
    (rows of `ocean_keys`, over fold, check/call, bet/raise; zero on illegal actions)."""
    by_key = dict(zip(ocean_keys, np.asarray(ocean_probs, np.float64)))
    out = np.zeros_like(table.action_probability_array)
    for i, state in enumerate(table.states):
        key, facing = ocean_key(game_name, state)
        row = by_key[key] / by_key[key].sum()
        if game_name == "kuhn_poker":
            out[i] = (row[0], row[1]) if facing else (row[1], row[2])
        else:
            out[i] = row
    return out


def random_strategy(legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random strategy: Dirichlet(1) probabilities over each row's legal actions, zero elsewhere."""
    probs = rng.dirichlet(np.ones(legal.shape[1]), size=len(legal)) * legal
    return probs / probs.sum(1, keepdims=True)
