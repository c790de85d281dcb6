"""The self-play pool's records: the learner's game counts, the snapshots, the ratings, and how
snapshots are drawn and evicted (data and arithmetic only; `pufferlib.train.selfplay` plays the
games, `pufferlib.league` rates a run's pool). The rules they implement are stated in
`pufferlib.train.selfplay`'s docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

POOL_DIR = "pool"
POOL_FILE = "pool.json"
SAMPLERS = ("recency", "pfsp")
#: Weight ratio between consecutive snapshots under the "recency" sampler.
RECENCY_DECAY = 0.7
START_ELO = 1000.0


class Counts:
    """Wins, draws and losses (of the learner, or of A in a match), with the games they make (those
    with a result) and the score: (wins + draws / 2) / games."""

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

    def metrics(self, prefix: str) -> dict[str, float]:
        """{prefix + "score", "win_rate", "draw_rate", "loss_rate"}; empty without games."""
        if not self.games:
            return {}
        return {f"{prefix}score": self.score, f"{prefix}win_rate": self.wins / self.games,
                f"{prefix}draw_rate": self.draws / self.games, f"{prefix}loss_rate": self.losses / self.games}

    def add(self, outcome: float) -> None:
        """Count one game of result `outcome` (1, 0.5 or 0)."""
        if outcome == 1.0:
            self.wins += 1
        elif outcome == 0.5:
            self.draws += 1
        else:
            self.losses += 1


@dataclass
class Snapshot(Counts):
    """One frozen policy of the pool: its file, the step it was taken at, the learner's games
    against it and its rating."""

    file: str
    step: int
    elo: float = START_ELO
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def learner_score(self) -> float:
        """The learner's score against this snapshot, with one win and one loss as a prior."""
        return (self.wins + 0.5 * self.draws + 1) / (self.games + 2)


@dataclass
class Tally(Counts):
    """The learner's games against the pool (since the last log or snapshot)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0


@dataclass
class PoolState:
    """What pool.json holds."""

    snapshots: list[Snapshot] = field(default_factory=list)
    learner_elo: float = START_ELO
    anchor_elo: dict[str, float] = field(default_factory=dict)
    last_snapshot_step: int = 0
    since_snapshot: Tally = field(default_factory=Tally)


def elo_update(learner: float, opponent: float, score: float, k: float) -> tuple[float, float]:
    """Both ratings after one game in which the learner scored `score` (1, 0.5 or 0)."""
    expected = 1.0 / (1.0 + 10.0 ** ((opponent - learner) / 400.0))
    delta = k * (score - expected)
    return learner + delta, opponent - delta


def sampling_weights(snapshots: list[Snapshot], sampler: str) -> np.ndarray:
    """The probability of drawing each snapshot (oldest first) under `sampler` (module docstring)."""
    if sampler == "recency":
        weights = RECENCY_DECAY ** np.arange(len(snapshots) - 1, -1, -1, dtype=np.float64)
    else:
        weights = np.array([(1.0 - s.learner_score()) ** 2 for s in snapshots], np.float64)
    return weights / weights.sum()


def eviction_index(steps: list[int]) -> int:
    """Which snapshot to drop from a pool of `steps` (oldest first, at least 3): never the oldest or
    the newest; the one whose neighbours are closest in steps (the earlier one on ties)."""
    gaps = [steps[i + 1] - steps[i - 1] for i in range(1, len(steps) - 1)]
    return 1 + int(np.argmin(gaps))
