"""Ratings of players from their games: the Elo update of self-play's pool (`elo_update`), the
Bradley-Terry fit of a league (`fit`) and Spearman's rank correlation (`rank_correlation`).

`fit` gives Bradley-Terry ratings on the Elo scale (a 400-point gap: 10 to 1 odds; a draw counts
half a win to each side) from every game given, by Newton's method on the log-likelihood with a
weak Gaussian prior (precision `PRIOR` per player, only so that a player who won or lost every
game keeps a finite rating), and 95% intervals from the inverse Hessian. Ratings are relative:
their mean is 1000, and the intervals are those of each rating minus the mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pufferlib.errors import APIUsageError

#: Precision of the prior on each rating (on the natural scale): weak; see the module docstring.
PRIOR = 1e-6
#: Elo points per unit of the natural (logistic) scale.
ELO = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Rating:
    """One player's rating (Elo scale, mean 1000), its 95% half-interval, games and score."""

    player: str
    elo: float
    ci95: float
    games: int
    score: float


def elo_update(learner: float, opponent: float, score: float, k: float) -> tuple[float, float]:
    """Both ratings after one game in which the learner scored `score` (1, 0.5 or 0)."""
    expected = 1.0 / (1.0 + 10.0 ** ((opponent - learner) / 400.0))
    delta = k * (score - expected)
    return learner + delta, opponent - delta


def fit(matches: Sequence[tuple[str, str, int, int, int]], iterations: int = 50) -> list[Rating]:
    """Bradley-Terry ratings of the players of `matches` (module docstring), best first."""
    names = sorted({m[0] for m in matches} | {m[1] for m in matches})
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    if n < 2:
        raise APIUsageError(f"ratings need games between two players or more; the league has {n}.")
    wins = np.zeros((n, n))  # wins[i, j]: i's wins over j, draws counted half
    for a, b, w, d, loss in matches:
        i, j = index[a], index[b]
        wins[i, j] += w + 0.5 * d
        wins[j, i] += loss + 0.5 * d
    games = wins + wins.T
    theta = np.zeros(n)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
        grad = (wins - games * p).sum(axis=1) - PRIOR * theta
        w = games * p * (1.0 - p)
        hessian = w - np.diag(w.sum(axis=1)) - PRIOR * np.eye(n)
        step = np.linalg.solve(hessian, grad)
        theta = theta - step
        if np.abs(step).max() < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    w = games * p * (1.0 - p)
    covariance = np.linalg.inv(np.diag(w.sum(axis=1)) - w + PRIOR * np.eye(n))
    centre = np.eye(n) - np.ones((n, n)) / n  # each rating minus the mean
    relative = centre @ covariance @ centre.T
    elo = (theta - theta.mean()) * ELO + 1000.0
    half = 1.96 * np.sqrt(np.clip(np.diag(relative), 0.0, None)) * ELO
    played = games.sum(axis=1)
    scores = wins.sum(axis=1) / np.maximum(played, 1)
    ratings = [Rating(names[i], float(elo[i]), float(half[i]), int(round(played[i])), float(scores[i]))
               for i in range(n)]
    return sorted(ratings, key=lambda r: -r.elo)


def rank_correlation(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation of two sequences (average ranks for ties); NaN under 2 points."""
    if len(x) < 2:
        return math.nan

    def ranks(values: Sequence[float]) -> np.ndarray:
        array = np.asarray(values, dtype=np.float64)
        order = array.argsort(kind="stable")
        out = np.empty(len(array))
        out[order] = np.arange(len(array), dtype=np.float64)
        for value in np.unique(array):  # ties share their mean rank
            tied = array == value
            out[tied] = out[tied].mean()
        return out

    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])
