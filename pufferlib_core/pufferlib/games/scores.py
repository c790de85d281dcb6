"""Outcome tallies: a player's wins, draws and losses, its score and the score's 95% Wilson interval.

The one place games are counted (self-play's pool, `pufferlib.match`, evaluation). An outcome is
what `pufferlib.environment`'s game contract writes per seat: 1 win, 0.5 draw, 0 loss; NaN is a
game that ended without a result (cut short), which a tally counts apart and does not score.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pufferlib.errors import APIUsageError

#: The outcomes a game may have, by kind.
OUTCOMES = {1.0: "wins", 0.5: "draws", 0.0: "losses"}


def outcome_kind(outcome: float, source: str = "a game") -> str:
    """"wins", "draws", "losses" or "no_result" (NaN) for one game's `outcome`; APIUsageError naming
    `source` for anything else."""
    if math.isnan(outcome):
        return "no_result"
    kind = OUTCOMES.get(outcome)
    if kind is None:
        raise APIUsageError(f"{source}: outcome {outcome!r} of a game is not 1, 0.5, 0 or NaN "
                            "(pufferlib.environment's contract).")
    return kind


def wilson(score: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a mean `score` over `games` games (95% for z = 1.96); (0, 1)
    without games."""
    if not games:
        return 0.0, 1.0
    center = (score + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, center - half), min(1.0, center + half)


class Counts:
    """Wins, draws and losses (of the learner, or of A in a match), with the games they make (those
    with a result), the score, (wins + draws / 2) / games, and its Wilson interval. A base of
    dataclasses that declare the three counts."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """(wins + draws / 2) / games; NaN without games."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The Wilson score interval of `score` (95% for z = 1.96); (0, 1) without games."""
        return wilson(self.score, self.games, z)

    def metrics(self, prefix: str) -> dict[str, float]:
        """{prefix + "score", "win_rate", "draw_rate", "loss_rate"}; empty without games."""
        if not self.games:
            return {}
        return {f"{prefix}score": self.score, f"{prefix}win_rate": self.wins / self.games,
                f"{prefix}draw_rate": self.draws / self.games, f"{prefix}loss_rate": self.losses / self.games}

    def add(self, outcome: float) -> None:
        """Count one game of result `outcome` (1, 0.5 or 0)."""
        kind = outcome_kind(outcome)
        if kind != "no_result":
            setattr(self, kind, getattr(self, kind) + 1)


@dataclass
class Tally(Counts):
    """A running count of games (`add`), from zero."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @classmethod
    def of(cls, outcomes: Iterable[float]) -> Tally:
        """The tally of `outcomes` (NaN: no result, left out)."""
        tally = cls()
        for outcome in outcomes:
            tally.add(outcome)
        return tally
