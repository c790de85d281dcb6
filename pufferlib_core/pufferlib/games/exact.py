"""The exact solver: a deterministic player's exact probabilities of winning, drawing and losing a
turn-based PettingZoo game against random play (`exact_against_random`), and the estimate of its
cost (`estimate_exact_positions`), which refuses a game too big to walk before the walk;
`ExactResult`, an agent's outcomes over every seat (what `puffer match ENV A random --exact` prints).

From a new game of the AEC env (`reset(seed)`), every line of the random moves (the "random"
player of `pufferlib.games.players`) is walked once on copies of the game (`copy_game`), each
weighted by its probability, and the player's seat is scored (`players.result`) at the move it
ends. The game must have no chance of its own (its next state a function of the moves, as in the
classic board games): a random step would be walked as one line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pufferlib.errors import APIUsageError
from pufferlib.games.players import advance, copy_game, discrete_moves, legal_moves, result

if TYPE_CHECKING:
    from pettingzoo import AECEnv

#: A deterministic player: (observation, state) -> (move, state), as `pufferlib.Agent.act` with
#: deterministic=True.
Choose = Callable[[Any, Any], tuple[Any, Any]]
#: `exact_against_random` stops past this many moves played.
MAX_EXACT_POSITIONS = 2_000_000
#: Random lines of play that `estimate_exact_positions` averages over.
EXACT_ESTIMATE_LINES = 32


@dataclass(frozen=True)
class ExactOutcome:
    """A seat's exact probabilities of winning, drawing and losing against random play
    (`exact_against_random`); `games`: the distinct games walked (lines of the random moves),
    `positions`: the moves played to walk them."""

    win: float
    draw: float
    loss: float
    games: int
    positions: int


def estimate_exact_positions(aec: AECEnv, choose: Choose, seat: Hashable, state: Any = None, *,
                             seed: int | None = 0, lines: int = EXACT_ESTIMATE_LINES,
                             stop_above: float = math.inf) -> float:
    """About how many moves `exact_against_random` would play to walk this game: Knuth's estimate of
    the size of a tree, from `lines` random lines of play (`choose` on `seat`, a random legal move on
    every other seat): a line's estimate adds, at each depth, the product of the branchings above it
    (the random player's legal moves; 1 where `choose` moves), and the lines' estimates are averaged.
    Unbiased, and cheap: `lines` games played. A line stops once its estimate passes `lines` times
    `stop_above` (the mean is then above `stop_above` whatever the other lines give): the result is
    then a lower bound of the estimate. `aec`'s game in progress is lost (`reset(seed)`)."""
    moves = discrete_moves(aec)
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    start = copy_game(aec)
    total = 0.0
    for _ in range(lines):
        game, returns, line_state = copy_game(start), dict.fromkeys(aec.possible_agents, 0.0), state
        width, estimate = 1.0, 0.0  # the product of the branchings so far; the line's estimate
        while estimate <= lines * stop_above:
            mover = game.agent_selection
            if mover == seat:
                move, line_state = choose(game.observe(seat), line_state)
            else:
                legal = legal_moves(game, mover, moves[mover])
                width *= len(legal)
                move = legal[int(rng.integers(len(legal)))]
            estimate += width
            ended, to_move = advance(game, move, returns)
            if seat in ended or to_move is None:
                break
        total += estimate
    return total / lines


def exact_against_random(aec: AECEnv, choose: Choose, seat: Hashable, state: Any = None, *, seed: int | None = 0,
                         max_positions: int = MAX_EXACT_POSITIONS, name: str | None = None) -> ExactOutcome:
    """The exact probabilities that `choose` playing `seat` of the AEC env `aec` wins, draws or loses a
    game whose every other seat plays random legal moves (module doc).

    `choose(observation, state) -> (move, state)` must be deterministic (a greedy agent: `Agent.act`
    with deterministic=True; `state` its LSTM state, carried along each line). `aec`'s game in progress
    is lost. Too big a game (`estimate_exact_positions` above `max_positions`) raises APIUsageError
    before the walk; so does a walk that still plays more than `max_positions` moves. `name`: the
    game's name in messages (default: its PettingZoo metadata name).
    """
    seats = list(aec.possible_agents)
    if seat not in seats:
        raise APIUsageError(f"seat {seat!r} is not one of the game's seats {seats}.")
    moves = discrete_moves(aec)
    if len(moves) < len(seats):
        raise APIUsageError("exact play against random play needs Discrete actions on every seat "
                            f"(the random player's moves); this env has {aec.action_space(seats[0])}.")
    name = name or getattr(aec, "metadata", {}).get("name") or type(aec.unwrapped).__name__
    estimate = estimate_exact_positions(aec, choose, seat, state, seed=seed, stop_above=max_positions)
    if estimate > max_positions:
        raise APIUsageError(f"{name} has an estimated {estimate:.2g} or more positions to walk on seat {seat} "
                            f"against every line of random play (from {EXACT_ESTIMATE_LINES} random lines): "
                            f"more than {max_positions:,} positions, too big a game for exact play. Play a match "
                            "of N games instead.")
    aec.reset(seed=seed)
    totals = {"win": 0.0, "draw": 0.0, "loss": 0.0}
    games = positions = 0
    stack = [(copy_game(aec), dict.fromkeys(seats, 0.0), 1.0, state)]
    while stack:
        game, returns, weight, state = stack.pop()
        mover = game.agent_selection
        if mover == seat:
            move, state = choose(game.observe(seat), state)
            branches = [move]
        else:
            branches = list(legal_moves(game, mover, moves[mover]))
        for i, move in enumerate(branches):  # the last branch plays on `game` itself
            child, child_returns = (game, returns) if i == len(branches) - 1 else (copy_game(game), dict(returns))
            ended, to_move = advance(child, move, child_returns)
            positions += 1
            if positions > max_positions:
                raise APIUsageError(f"{name} has more than {max_positions:,} positions to walk on seat {seat} "
                                    "against every line of random play: too big a game for exact play. Play a "
                                    "match of N games instead.")
            if seat in ended or to_move is None:
                games += 1
                outcome = result(seat, child_returns)
                for key in totals:
                    totals[key] += weight / len(branches) * outcome[key]
            else:
                stack.append((child, child_returns, weight / len(branches), state))
    return ExactOutcome(totals["win"], totals["draw"], totals["loss"], games, positions)


@dataclass(frozen=True)
class ExactResult:
    """A greedy agent's exact probabilities against random play, per seat (`pufferlib.match.exact_match`)."""

    a: str
    env_id: str
    seats: dict[str, ExactOutcome]

    @property
    def score(self) -> float:
        """The expected score with seats alternating: the mean over seats of win + draw / 2."""
        return sum(o.win + 0.5 * o.draw for o in self.seats.values()) / len(self.seats)

    @property
    def loss(self) -> float:
        """The probability of losing a game, seats alternating."""
        return sum(o.loss for o in self.seats.values()) / len(self.seats)

    def summary(self) -> str:
        """One line: the loss probability (per 1,000 games), the score, each seat's, and how it was measured."""
        seats = "; ".join(f"seat {seat}: win {o.win:.4f}, draw {o.draw:.4f}, loss {o.loss:.4f}"
                          for seat, o in self.seats.items())
        games = sum(o.games for o in self.seats.values())
        losses = "never loses (no line of random play wins)" if self.loss == 0 else \
            f"loses {1000 * self.loss:.3f} games per 1,000"
        return (f"{self.a} (greedy) vs random on {self.env_id}, exact over every line of random play "
                f"({games:,} distinct games): {losses}, score {self.score:.4f}, seats alternating ({seats})")

    def as_dict(self) -> dict[str, Any]:
        """The per-seat probabilities, the loss probability and the score, for JSON."""
        return {"a": self.a, "b": "random", "env_id": self.env_id, "exact": True, "loss": self.loss,
                "score": self.score, "seats": {seat: asdict(o) for seat, o in self.seats.items()}}
