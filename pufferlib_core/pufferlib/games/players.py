"""The built-in players of turn-based PettingZoo games, and the game-tree helpers they search with.

A player picks the move of the seat to move in a PettingZoo AEC env: `PLAYERS[name](aec, seat,
moves, rng, returns) -> move`, where `moves` maps each seat to its Discrete moves, `rng` is the
caller's seeded generator and `returns` the game returns so far per seat. Which players an env
offers, and under what names and codes, is the env's own declaration (`builtin_players`, see
`pufferlib.environment`); the core hard-codes none of them.

- "random": a uniformly random legal move (legal: the "action_mask" of the seat's observation
  or info, when it has one; every move where the env allows none).
- "tactical": a two-ply search on copies of the game (`copy_game`): a move that wins the game
  at once if there is one; else a random legal move after which no reply of the next seat wins
  at once (it blocks a line the opponent would complete, and never opens one); else a random
  legal move. It punishes every blunder that loses in one move, where random play does so only
  by chance. Its cost per move is up to (legal moves + legal moves x replies) copies and steps
  of the env (the replies of a move are tried until one wins, the moves in a random order until
  one is safe), so it suits small games; an env whose state cannot be deep-copied makes it raise.

A seat's outcome (`result`): win 1, draw 0.5, loss 0, as its game return is above, equal to or
below the best of the other seats'.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from pufferlib.errors import APIUsageError

if TYPE_CHECKING:
    from pettingzoo import AECEnv

#: Game returns so far, per seat.
Returns = dict[Hashable, float]
#: A built-in player: (aec, seat to move, moves per seat, rng, returns) -> its move.
Player = Callable[["AECEnv", Hashable, Mapping[Hashable, np.ndarray], np.random.Generator, Returns], int]
#: Attributes of an AEC env that its copies share (`copy_game`).
_FIXED = frozenset({"possible_agents", "metadata", "_ezpickle_args", "_ezpickle_kwargs"})


def discrete_moves(aec: AECEnv) -> dict[Hashable, np.ndarray]:
    """The moves of each seat of `aec` whose action space is Discrete."""
    return {seat: int(space.start) + np.arange(int(space.n)) for seat in aec.possible_agents
            if isinstance(space := aec.action_space(seat), spaces.Discrete)}


def legal_moves(aec: AECEnv, seat: Hashable, moves: np.ndarray) -> np.ndarray:
    """The legal moves of `seat` in `aec` among `moves` (all of them when the env gives no mask, or
    allows nothing)."""
    obs = aec.observe(seat)
    mask = obs.get("action_mask") if isinstance(obs, dict) else None
    if mask is None:
        mask = aec.infos.get(seat, {}).get("action_mask")
    legal = moves if mask is None else moves[np.asarray(mask, bool)]
    return legal if legal.size else moves  # the env allows nothing: any move, for the env to judge


def advance(game: AECEnv, move: object, *totals: Returns,
            on_end: Callable[[Hashable, bool, bool], object] | None = None) -> tuple[set[Hashable], Hashable | None]:
    """Play `move` in `game` and step out the seats that ended (action None, as the AEC API
    requires), adding the rewards to each of `totals`: (the seats that ended, the seat to move
    next, None when the game is over). `on_end(seat, terminated, truncated)` is called for each seat
    that ends, before it is stepped out. The env's attributes are read once per step: through its
    wrappers, each read costs a chain of `__getattr__`s."""
    game.step(move)
    ended: set[Hashable] = set()
    while True:
        for seat, reward in game.rewards.items():
            for total in totals:
                total[seat] += reward
        live, terms, truncs = game.agents, game.terminations, game.truncations
        for seat in live:
            if seat not in ended and (terms[seat] or truncs[seat]):
                ended.add(seat)
                if on_end is not None:
                    on_end(seat, bool(terms[seat]), bool(truncs[seat]))
        to_move = game.agent_selection if live else None
        if to_move not in ended:
            return ended, to_move
        game.step(None)


def result(seat: Hashable, returns: Mapping[Hashable, float]) -> dict[str, float]:
    """`seat`'s outcome (module doc) from the game returns: {"outcome", "win", "draw", "loss"}."""
    mine, best_other = returns[seat], max(r for s, r in returns.items() if s != seat)
    win, draw = float(mine > best_other), float(mine == best_other)
    return {"outcome": win + 0.5 * draw, "win": win, "draw": draw, "loss": 1.0 - win - draw}


def won(seat: Hashable, returns: Mapping[Hashable, float]) -> bool:
    """Whether `seat` wins on these game returns."""
    return result(seat, returns)["win"] == 1.0


def copy_game(aec: AECEnv) -> AECEnv:
    """A copy of the game's state: the instance attributes of `aec` and of every env it wraps, deep-copied,
    but for what the AEC API declares fixed (spaces, `possible_agents`, `metadata`) and the constructor's
    arguments, which are shared. Not `copy.deepcopy(aec)`: PettingZoo's envs pickle as their constructor's
    arguments (EzPickle), so that a deep copy is a new game, not this one."""
    chain = [aec]
    while isinstance(chain[-1], BaseWrapper):
        chain.append(chain[-1].env)
    memo: dict[int, Any] = {id(env): object.__new__(type(env)) for env in chain}
    for env in chain:
        for name, value in vars(env).items():
            if name in _FIXED or isinstance(value, spaces.Space) or (
                    isinstance(value, dict) and value and all(isinstance(v, spaces.Space) for v in value.values())):
                memo[id(value)] = value
    try:
        for env in chain:
            vars(memo[id(env)]).update(copy.deepcopy(vars(env), memo))
    except Exception as error:  # whatever the env's state holds that cannot be copied
        raise APIUsageError(f"the 'tactical' player searches on copies of the env, but the state of "
                            f"{type(aec.unwrapped).__name__} cannot be deep-copied ({type(error).__name__}: "
                            f"{error}). Use the 'random' player.") from error
    return memo[id(aec)]


def random_move(aec: AECEnv, seat: Hashable, moves: Mapping[Hashable, np.ndarray], rng: np.random.Generator,
                returns: Returns) -> int:
    """The "random" player's move for `seat` (module doc)."""
    return int(rng.choice(legal_moves(aec, seat, moves[seat])))


def tactical_move(aec: AECEnv, seat: Hashable, moves: Mapping[Hashable, np.ndarray], rng: np.random.Generator,
                  returns: Returns) -> int:
    """The "tactical" player's move for `seat`: a move that wins at once, else one after which no reply
    wins at once, else a random one (module doc)."""
    order = rng.permutation(legal_moves(aec, seat, moves[seat]))
    searched = []
    for move in order:
        game, after = copy_game(aec), dict(returns)
        ended, _ = advance(game, move, after)
        if seat in ended and won(seat, after):
            return int(move)
        searched.append((move, None if seat in ended else game, after))
    for move, game, after in searched:  # a move that ends the game (a draw) leaves no reply
        if game is None or not _a_reply_wins(game, seat, moves, after):
            return int(move)
    return int(order[0])


def _a_reply_wins(game: AECEnv, seat: Hashable, moves: Mapping[Hashable, np.ndarray], returns: Returns) -> bool:
    """Whether the seat to move in `game`, if not `seat`, has a move that wins the game at once."""
    opponent = game.agent_selection
    if not game.agents or opponent == seat:
        return False
    for reply in legal_moves(game, opponent, moves[opponent]):
        after = dict(returns)
        if opponent in advance(copy_game(game), reply, after)[0] and won(opponent, after):
            return True
    return False


#: The built-in players, by name.
PLAYERS: dict[str, Player] = {"random": random_move, "tactical": tactical_move}
