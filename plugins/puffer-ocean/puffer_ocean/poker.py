"""Kuhn and Leduc poker (`ocean-kuhn_poker`, `ocean-leduc_poker`): two-seat games of hidden cards,
small enough that the exact best response to a policy is a walk of the game tree (`exploitability`).
Python envs (a few thousand games a second), beside Ocean's C ones.

Rules (`Rules`; `KUHN`, `LEDUC`): a deck of `ranks` x `suits` cards; each seat antes 1 chip and is
dealt one card. Each betting round seat 0 acts first; the actions are 0 fold (legal only facing a
bet), 1 check or call, 2 bet or raise by the round's bet size (`bets`, at most `max_raises` bets a
round). A round ends on a call, or on two checks; a fold ends the game, the other seat winning the
pot. Leduc deals a public card between its two rounds. At the showdown a card that pairs the public
card wins, else the higher rank; equal ranks split the pot. Kuhn: 3 cards (J, Q, K), one round, bet
1, one bet. Leduc: 6 cards (J, Q, K of two suits), bets 2 then 4, two bets a round. An illegal
action (a fold with nothing to call, a raise past the cap) plays check or call.

The game contract (`pufferlib.environment`): `game_seats` 2, rows 2g and 2g + 1 are seats 0 and 1
of game g; both seats are agents; the seat to move is the one unmasked row of its game. When a game
ends both rows get their chips won or lost as reward (the other steps reward 0), end (terminal),
and hold their outcome (1 win, 0.5 split pot, 0 loss); the next game is dealt in the same step. Its
info: `episode_return` (seat 0's chips), `episode_length` (the game's actions), `chips` (the pot won).
`builtin_players` {"random": 1}: a row whose `players` entry is 1 plays uniformly random legal
actions (self-play's anchor, `puffer match ... random`). `opponent` takes only "none".

A row's observation is the Dict {"action_mask": (3,), "observation": ...} of its seat's information
set: its own rank, the public rank (none yet: zeros), its seat, and every action so far, one-hot per
round and slot. The mask is all 0 while the seat waits.

`exploitability(probs)`: with the policy's action probabilities at each information set
(`information_sets()`, the observations in a fixed order), the exact best response values of both
seats against it, walking the game tree with the deals' probabilities. Exploitability is their
mean, (BR_0 + BR_1) / 2 in chips per game (half of NashConv): 0 exactly at a Nash equilibrium, and
what a perfect opponent wins per game on average over both seats.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from pufferlib import ObsLayout
from pufferlib.environment import PufferEnv
from pufferlib.errors import APIUsageError

FOLD, CALL, RAISE = 0, 1, 2
NUM_ACTIONS = 3
RANK_NAMES = "JQKA23456789"
ACTION_NAMES = ("fold", "check/call", "bet/raise")
#: A position: (each seat's rank, the public rank or -1, the actions of each round so far).
State = tuple[tuple[int, int], int, tuple[tuple[int, ...], ...]]


@dataclass(frozen=True)
class Rules:
    """A poker of one private card per seat: see the module docstring."""

    ranks: int
    suits: int
    bets: tuple[int, ...]  # the bet size of each round (their number: the rounds)
    max_raises: int
    ante: int = 1

    @property
    def slots(self) -> int:
        """The most actions a round can hold: check, the raises, and the call or fold."""
        return self.max_raises + 2

    @property
    def obs_size(self) -> int:
        return 2 * self.ranks + 2 + len(self.bets) * self.slots * NUM_ACTIONS

    def mover(self, state: State) -> int:
        return len(state[2][-1]) % 2

    def contributions(self, state: State) -> tuple[list[int], int]:
        """(each seat's chips in the pot, the raises of the current round)."""
        chips, raises = [self.ante, self.ante], 0
        for rnd, actions in enumerate(state[2]):
            raises = 0
            for i, action in enumerate(actions):
                seat = i % 2
                if action == CALL:
                    chips[seat] = chips[1 - seat]
                elif action == RAISE:
                    chips[seat] = chips[1 - seat] + self.bets[rnd]
                    raises += 1
        return chips, raises

    def legal(self, state: State) -> list[int]:
        chips, raises = self.contributions(state)
        seat = self.mover(state)
        facing = chips[1 - seat] > chips[seat]
        return ([FOLD] if facing else []) + [CALL] + ([RAISE] if raises < self.max_raises else [])

    def round_over(self, state: State) -> bool:
        actions = state[2][-1]
        return len(actions) >= 2 and actions[-1] == CALL

    def terminal(self, state: State) -> bool:
        actions = state[2][-1]
        return bool(actions) and actions[-1] == FOLD or (self.round_over(state) and len(state[2]) == len(self.bets))

    def needs_public(self, state: State) -> bool:
        return self.round_over(state) and not self.terminal(state)

    def play(self, state: State, action: int) -> State:
        return state[0], state[1], state[2][:-1] + (state[2][-1] + (action,),)

    def deal_public(self, state: State, rank: int) -> State:
        return state[0], rank, state[2] + ((),)

    def payoff(self, state: State) -> float:
        """Seat 0's chips won (negative: lost) at a terminal state."""
        chips, _ = self.contributions(state)
        actions = state[2][-1]
        if actions[-1] == FOLD:
            folder = (len(actions) - 1) % 2
            return float(chips[1] if folder == 1 else -chips[0])
        strength = [(hand == state[1], hand) for hand in state[0]]
        return 0.0 if strength[0] == strength[1] else float(chips[1] if strength[0] > strength[1] else -chips[0])

    def public_chances(self, state: State) -> list[tuple[int, float]]:
        """(public rank, probability) given both private cards."""
        left = self.ranks * self.suits - 2
        return [(r, (self.suits - state[0].count(r)) / left) for r in range(self.ranks)
                if self.suits - state[0].count(r) > 0]

    def deals(self) -> list[tuple[tuple[int, int], float]]:
        """(both private ranks, probability) of every deal."""
        cards = self.ranks * self.suits
        return [((a, b), (1 / self.ranks) * (self.suits - (a == b)) / (cards - 1))
                for a in range(self.ranks) for b in range(self.ranks) if self.suits - (a == b) > 0]

    def key(self, state: State) -> tuple:
        """The mover's information set: its seat, its rank, the public rank, the actions."""
        seat = self.mover(state)
        return seat, state[0][seat], state[1], state[2]

    def encode(self, out: np.ndarray, seat: int, rank: int, public: int, history: tuple[tuple[int, ...], ...],
               to_move: bool, legal: list[int]) -> None:
        """Write seat `seat`'s observation (mask, then the information set) into the flat row `out`."""
        out[:] = 0
        if to_move:
            out[legal] = 1
        base = NUM_ACTIONS
        out[base + rank] = 1
        if public >= 0:
            out[base + self.ranks + public] = 1
        out[base + 2 * self.ranks + seat] = 1
        base += 2 * self.ranks + 2
        for rnd, actions in enumerate(history):
            for slot, action in enumerate(actions):
                out[base + (rnd * self.slots + slot) * NUM_ACTIONS + action] = 1


KUHN = Rules(ranks=3, suits=1, bets=(1,), max_raises=1)
LEDUC = Rules(ranks=3, suits=2, bets=(2, 4), max_raises=2)


@functools.cache
def information_sets(rules: Rules) -> tuple[list[tuple], np.ndarray]:
    """(the information sets' keys, their observations as the policy sees them: (n, 3 + obs) float32),
    every information set where a seat is to move, in a fixed order."""
    keys: dict[tuple, State] = {}

    def walk(state: State) -> None:
        if rules.terminal(state):
            return
        if rules.needs_public(state):
            for rank, _ in rules.public_chances(state):
                walk(rules.deal_public(state, rank))
            return
        keys.setdefault(rules.key(state), state)
        for action in rules.legal(state):
            walk(rules.play(state, action))

    for hands, _ in rules.deals():
        walk((hands, -1, ((),)))
    order = sorted(keys)
    obs = np.zeros((len(order), NUM_ACTIONS + rules.obs_size), np.float32)
    for row, key in zip(obs, order):
        state = keys[key]
        rules.encode(row, key[0], key[1], key[2], key[3], True, rules.legal(state))
    return order, obs


def exploitability(rules: Rules, probs: np.ndarray) -> float:
    """(BR_0 + BR_1) / 2 in chips per game: the exact best response values of both seats against the
    policy whose action probabilities at `information_sets(rules)` are the rows of `probs` (n, 3);
    probabilities of illegal actions are dropped and the rest renormalised."""
    keys, obs = information_sets(rules)
    probs, legal = np.asarray(probs, np.float64), obs[:, :NUM_ACTIONS]
    if probs.shape != (len(keys), NUM_ACTIONS) or not np.isfinite(probs).all() or (probs < 0).any():
        raise APIUsageError(f"exploitability takes ({len(keys)}, {NUM_ACTIONS}) finite action probabilities >= 0, one "
                            f"row per information set; got shape {probs.shape}.")
    probs = probs * legal
    total = probs.sum(1, keepdims=True)
    # a row with no weight on a legal action plays them uniformly
    probs = np.where(total > 0, probs / np.where(total > 0, total, 1), legal / legal.sum(1, keepdims=True))
    policy = dict(zip(keys, probs))
    return (best_response(rules, policy, 0) + best_response(rules, policy, 1)) / 2


def best_response(rules: Rules, policy: dict[tuple, np.ndarray], seat: int) -> float:
    """The chips per game that seat `seat` wins with its best response to `policy` (the other seat's
    action probabilities by information set)."""
    sign = 1.0 if seat == 0 else -1.0
    visits: dict[tuple, list[tuple[State, float]]] = {}  # the seat's information sets: (state, reach) pairs

    def collect(state: State, reach: float) -> None:
        if rules.terminal(state) or reach == 0:
            return
        if rules.needs_public(state):
            for rank, p in rules.public_chances(state):
                collect(rules.deal_public(state, rank), reach * p)
            return
        key = rules.key(state)
        if key[0] == seat:
            visits.setdefault(key, []).append((state, reach))
        for action in rules.legal(state):
            collect(rules.play(state, action), reach if key[0] == seat else reach * policy[key][action])

    deals = rules.deals()
    for hands, p in deals:
        collect((hands, -1, ((),)), p)
    choice: dict[tuple, int] = {}

    @functools.cache
    def value(state: State) -> float:
        if rules.terminal(state):
            return sign * rules.payoff(state)
        if rules.needs_public(state):
            return sum(p * value(rules.deal_public(state, rank)) for rank, p in rules.public_chances(state))
        key = rules.key(state)
        if key[0] == seat:
            return value(rules.play(state, choice[key]))
        return sum(policy[key][a] * value(rules.play(state, a)) for a in rules.legal(state) if policy[key][a] > 0)

    # deeper information sets first: a state's value depends only on the choices below it
    for key in sorted(visits, key=lambda k: -sum(len(r) for r in k[3])):
        legal = rules.legal(visits[key][0][0])
        gains = [sum(reach * value(rules.play(state, a)) for state, reach in visits[key]) for a in legal]
        choice[key] = legal[int(np.argmax(gains))]
    return sum(p * value((hands, -1, ((),))) for hands, p in deals)


class PokerEnv(PufferEnv):
    """`num_envs` games of `rules` poker; see the module docstring."""

    rules: Rules = KUHN
    name = "ocean-kuhn_poker"
    metadata = {"render_modes": ["ansi"]}
    builtin_players = {"random": 1}

    def __init__(self, num_envs: int = 1, buf: Any = None, opponent: str = "none", render_mode: str | None = None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise APIUsageError(f"{self.name}: num_envs must be an int >= 1, got {num_envs!r}.")
        if opponent != "none":
            raise APIUsageError(f"{self.name}: opponent={opponent!r}: both seats are agents (opponent 'none'); a "
                                "built-in player takes a seat through the players input (builtin_players: "
                                f"{list(self.builtin_players)}).")
        if render_mode not in (None, "ansi"):
            raise APIUsageError(f"{self.name}: render_mode must be None or 'ansi', got {render_mode!r}.")
        self.render_mode = render_mode
        self.num_envs = int(num_envs)
        self.num_agents = 2 * self.num_envs
        self.game_seats = 2
        self.obs_layout = ObsLayout(spaces.Dict({
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.float32),
            "observation": spaces.Box(0, 1, (self.rules.obs_size,), np.float32),
        }))
        self.single_observation_space = self.obs_layout.flat_space
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        super().__init__(buf)
        self._rng = np.random.default_rng()
        self._states: list[State] = []

    def _deal(self) -> State:
        cards = self._rng.choice(self.rules.ranks * self.rules.suits, 3, replace=False) // self.rules.suits
        return (int(cards[0]), int(cards[1])), -1 - int(cards[2]), ((),)  # the public card, face down: -1 - rank

    def _visible(self, state: State) -> State:
        return state[0], (state[1] if state[1] >= 0 else -1), state[2]

    def _observe(self, game: int) -> None:
        state = self._visible(self._states[game])
        mover, legal = self.rules.mover(state), self.rules.legal(state)
        for seat in (0, 1):
            row = 2 * game + seat
            self.rules.encode(self.observations[row], seat, state[0][seat], state[1], state[2], seat == mover, legal)
            self.masks[row] = seat == mover

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[dict]]:
        self._rng = np.random.default_rng(seed)
        self._states = [self._deal() for _ in range(self.num_envs)]
        for game in range(self.num_envs):
            self._observe(game)
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        return self.observations, []

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        self.actions[:] = np.asarray(actions).reshape(self.actions.shape)
        chosen = self.actions.reshape(-1)
        self.rewards[:] = 0
        self.terminals[:] = False
        infos: list[dict] = []
        for game in range(self.num_envs):
            state = self._states[game]
            visible = self._visible(state)
            row = 2 * game + self.rules.mover(visible)
            legal = self.rules.legal(visible)
            action = int(chosen[row]) if self.players[row] == 0 else int(self._rng.choice(legal))
            state = self.rules.play(state, action if action in legal else CALL)
            if self.rules.terminal(self._visible(state)):
                won = self.rules.payoff(self._visible(state))
                self.rewards[2 * game:2 * game + 2] = (won, -won)
                self.terminals[2 * game:2 * game + 2] = True
                self.outcomes[2 * game] = 0.5 + 0.5 * np.sign(won)
                self.outcomes[2 * game + 1] = 0.5 - 0.5 * np.sign(won)
                moves = sum(len(actions) for actions in state[2])
                infos.append({"episode_return": won, "episode_length": moves, "chips": abs(won)})
                state = self._deal()
            elif self.rules.round_over(state):
                state = self.rules.deal_public(state, -1 - state[1])
            self._states[game] = state
            self._observe(game)
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def render(self) -> str | None:
        """Game 0 as its seat to move sees it: the public card (Leduc), the chips in the pot, the actions so
        far, and that seat's own card (the other's stays hidden); then what the actions mean."""
        if self.render_mode != "ansi":
            return None
        state = self._visible(self._states[0])
        chips, _ = self.rules.contributions(state)
        rounds = "\n".join(f"round {r + 1}: " + (", ".join(ACTION_NAMES[a] for a in acts) or "-")
                           for r, acts in enumerate(state[2]))
        public = ("" if len(self.rules.bets) == 1 else
                  f"public card: {RANK_NAMES[state[1]] if state[1] >= 0 else 'not dealt yet'}; ")
        mover = self.rules.mover(state)
        return (f"{public}pot {sum(chips)} (seat 0: {chips[0]}, seat 1: {chips[1]})\n{rounds}\n"
                f"seat {mover} to move holds {RANK_NAMES[state[0][mover]]}\n"
                + ", ".join(f"{a} {name}" for a, name in enumerate(ACTION_NAMES)))

    def close(self) -> None:
        """Nothing to free."""

    def information_sets(self) -> np.ndarray:
        """Every information set's observation (n, obs), in the order `exploitability` takes probabilities."""
        return information_sets(self.rules)[1]

    def exploitability(self, probs: np.ndarray) -> float:
        """The exploitability (chips per game) of the policy with action probabilities `probs` (n, 3) at
        `information_sets()`: see the module docstring."""
        return exploitability(self.rules, probs)


class KuhnPoker(PokerEnv):
    """Kuhn poker: 3 cards, one betting round (12 information sets)."""

    rules = KUHN
    name = "ocean-kuhn_poker"


class LeducPoker(PokerEnv):
    """Leduc poker: 6 cards, a public card, two betting rounds."""

    rules = LEDUC
    name = "ocean-leduc_poker"
