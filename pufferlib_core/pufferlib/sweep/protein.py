"""Search methods: `Random` (scrambled Sobol) and `Protein` (cost-aware Bayesian search).

Contract: both work in the unit cube of a `Space` and are stateless between calls:
`suggest(index, observations, failures, pending)` gets every result so far and returns the
same point for the same arguments, so a resumed sweep continues exactly where its store says.
Scores are oriented "higher is better" (the driver negates them for goal = minimize).

Protein:
1. Sobol warm start for the first `num_random` suggestions.
2. One point (x, score, cost) per trial (its last report; an early-stopped trial counts with
   the score it had reached) fits a GP of the score and a GP of the log cost over x
   (`gp.GP`: Matern-5/2, a length scale per parameter). Failed trials (crash, NaN) enter
   the score GP below the worst score, which steers the search away.
3. The Pareto front of score against cost over every report of every trial (each trial
   reports several times while it trains).
4. Candidates are sampled around the front points (Gaussian steps of random width) plus a
   few uniform ones; those whose predicted cost exceeds `max_suggestion_cost` are dropped.
5. A target cost is drawn between the front's cheapest and dearest point. Candidates are
   ranked by their optimistic score (GP mean + kappa * std, scaled to [0, 1]) plus a mild
   pull (`cost_weight`) towards those whose predicted cost is near the target, so that the
   search walks the whole front without giving up score. Running trials enter the score GP
   as fantasies at their predicted mean, so parallel workers get different suggestions.

`should_stop` is the early-stopping rule: a running trial whose latest score is below a
quantile regression of score on log cost (fitted to the other trials' reports) is stopped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from pufferlib.cpu.threads import set_torch_threads
from pufferlib.sweep.gp import GP, quantile_line


@dataclass
class Observation:
    """A trial's point x in [0, 1]^d, its last score and cost, every (score, cost) it reported."""

    x: list[float]
    score: float
    cost: float
    reports: list[tuple[float, float]] = field(default_factory=list)


def sobol_point(dim: int, index: int, seed: int) -> list[float]:
    """Point `index` of the scrambled Sobol sequence of `seed` in [0, 1]^dim."""
    engine = torch.quasirandom.SobolEngine(dim, scramble=True, seed=seed)
    if index:
        engine.fast_forward(index)
    return engine.draw(1, dtype=torch.float64)[0].tolist()


def pareto_front(scores: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """Indices of the points no other point beats (score >= and cost <=, one strictly), by cost."""
    order = np.lexsort((-scores, costs))  # cost ascending, best score first among equal costs
    front, best = [], -math.inf
    for i in order:
        if scores[i] > best:
            front.append(i)
            best = scores[i]
    return np.array(front, dtype=int)


class Random:
    """Scrambled Sobol points: an even cover of the space, no model."""

    def __init__(self, dim: int, seed: int = 0):
        self.dim, self.seed = dim, seed

    def suggest(self, index: int, observations: list[Observation], failures: list[list[float]],
                pending: list[list[float]]) -> list[float]:
        """The `index`-th Sobol point (index: how many suggestions the sweep made before)."""
        return sobol_point(self.dim, index, self.seed)


class Protein:
    """Cost-aware Bayesian search over [0, 1]^dim (see the module docstring)."""

    kappa = 1.0         # optimism: candidates are ranked by mean + kappa * std of the score GP
    cost_weight = 0.15  # pull towards the target cost, against 1.0 for the whole range of optimism
    max_width = 0.5     # widest Gaussian step around a front point, in the unit cube

    def __init__(self, dim: int, seed: int = 0, num_random: int = 0, max_suggestion_cost: float = 0.0,
                 num_candidates: int = 512):
        self.dim, self.seed = dim, seed
        self.num_random = num_random or max(3, min(8, dim))
        self.max_suggestion_cost = max_suggestion_cost
        self.num_candidates = num_candidates

    def suggest(self, index: int, observations: list[Observation], failures: list[list[float]],
                pending: list[list[float]]) -> list[float]:
        """The next point to try, given the finished trials, the failed ones and the running ones."""
        if index < self.num_random or len(observations) < 2:
            return sobol_point(self.dim, index, self.seed)
        threads = set_torch_threads(1)  # matrices of a few hundred rows: threads cost more than they give
        try:
            return self._suggest(index, observations, failures, pending)
        finally:
            set_torch_threads(threads)

    def _suggest(self, index: int, observations: list[Observation], failures: list[list[float]],
                 pending: list[list[float]]) -> list[float]:
        gen = torch.Generator().manual_seed(self.seed * 100_003 + index)
        n = len(observations)
        X = torch.tensor([o.x for o in observations] + failures + pending, dtype=torch.float64).view(-1, self.dim)
        y = torch.tensor([o.score for o in observations], dtype=torch.float64)
        logc = torch.tensor([math.log(max(o.cost, 1e-9)) for o in observations], dtype=torch.float64)
        cost_gp = GP().fit(X[:n], logc)
        m = n + len(failures)
        if failures:
            floor = float(y.min() - 0.25 * max(float(y.max() - y.min()), 1e-6))
            y = torch.cat([y, torch.full((len(failures),), floor, dtype=torch.float64)])
        score_gp = GP().fit(X[:m], y)
        if pending:
            fantasy = score_gp.predict(X[m:])[0]
            score_gp = GP().fit(X, torch.cat([y, fantasy]), like=score_gp)

        reports = [(s, c) for o in observations for s, c in (o.reports or [(o.score, o.cost)])]
        owners = [i for i, o in enumerate(observations) for _ in (o.reports or [(o.score, o.cost)])]
        front = pareto_front(np.array([s for s, _ in reports]), np.array([c for _, c in reports]))
        centers = torch.tensor([observations[owners[i]].x for i in front], dtype=torch.float64)
        cands = self._candidates(centers, gen)

        mu, sd = score_gp.predict(cands)
        pred_logc, _ = cost_gp.predict(cands)
        keep = torch.ones(len(cands), dtype=torch.bool)
        if self.max_suggestion_cost > 0:
            keep = pred_logc <= math.log(self.max_suggestion_cost)
            if not keep.any():  # nothing predicted affordable: the cheapest tenth
                keep = pred_logc <= torch.quantile(pred_logc, 0.1)
        front_logc = torch.tensor([math.log(max(reports[i][1], 1e-9)) for i in front], dtype=torch.float64)
        lo, hi = float(front_logc.min()), float(front_logc.max())
        if self.max_suggestion_cost > 0:
            hi = min(hi, math.log(self.max_suggestion_cost))
        target = lo + float(torch.rand(1, generator=gen, dtype=torch.float64)) * max(hi - lo, 0.0)
        width = max(hi - lo, 1e-3) / 2.0 + 0.1
        weight = torch.exp(-0.5 * ((pred_logc - target) / width) ** 2)
        acq = mu + self.kappa * sd
        acq = (acq - acq[keep].min()) / max(float(acq[keep].max() - acq[keep].min()), 1e-12)
        value = torch.where(keep, acq + self.cost_weight * weight, torch.full_like(acq, -1.0))
        return cands[int(torch.argmax(value))].tolist()

    def _candidates(self, centers: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        n_local = self.num_candidates * 3 // 4
        pick = torch.randint(len(centers), (n_local,), generator=gen)
        log_width = torch.empty(n_local, 1, dtype=torch.float64)
        width = torch.exp(log_width.uniform_(math.log(0.02), math.log(self.max_width), generator=gen))
        local = centers[pick] + width * torch.randn(n_local, self.dim, generator=gen, dtype=torch.float64)
        uniform = torch.rand(self.num_candidates - n_local, self.dim, generator=gen, dtype=torch.float64)
        return torch.cat([local.clamp(0.0, 1.0), uniform])


def make_method(name: str, dim: int, seed: int = 0, num_random: int = 0,
                max_suggestion_cost: float = 0.0) -> Random | Protein:
    """The search method called `name` (sweep.method: "random" or "protein"; APIUsageError else)."""
    from pufferlib.config import load_default
    from pufferlib.config.validation import validate

    validate({"sweep": {"method": name}}, load_default())
    if name == "random":
        return Random(dim, seed)
    return Protein(dim, seed, num_random, max_suggestion_cost)


def should_stop(reports: list[tuple[float, float]], others: list[tuple[float, float]], quantile: float,
                min_points: int = 12) -> bool:
    """Whether a running trial whose (score, cost) reports so far are `reports` should stop early.

    `others`: the reports of the other trials. The trial stops when its latest score lies
    below the `quantile` regression line of score on log cost of `others`. Never with
    fewer than `min_points` other reports, fewer than 2 own reports, or quantile <= 0.
    """
    if quantile <= 0 or len(others) < min_points or len(reports) < 2:
        return False
    score, cost = reports[-1]
    y = torch.tensor([s for s, _ in others], dtype=torch.float64)
    x = torch.log(torch.tensor([max(c, 1e-9) for _, c in others], dtype=torch.float64))
    if float(x.max() - x.min()) < 1e-9 or cost > math.exp(float(x.max())):
        return False  # no spread of costs to regress on, or beyond what the others reached
    a, b = quantile_line(x, y, quantile)
    return score < a + b * math.log(max(cost, 1e-9))
