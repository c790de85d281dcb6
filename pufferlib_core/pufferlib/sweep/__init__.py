"""Hyperparameter sweeps: `puffer sweep ENV`, and a small API for sweeping your own script.

    from pufferlib.sweep import Sweeper
    sweeper = Sweeper({"train.learning_rate": {"distribution": "log_normal", "min": 1e-4, "max": 1e-1}},
                      config={"train": {"learning_rate": 3e-4}}, method="protein")
    for _ in range(20):
        params = sweeper.suggest()               # {"train.learning_rate": 0.0031}
        score, cost = my_training(params)        # any script
        sweeper.observe(params, score, cost)
    sweeper.best                                  # (params, score)

Modules: `space` (distributions, the unit cube), `gp` and `protein` (search methods),
`store` (the SQLite state of a CLI sweep), `runner` and `driver` (trials as processes or
Ray tasks), `plot` (`puffer plot --sweep`). Torch is imported on first use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pufferlib.config import set_dotted
from pufferlib.sweep.space import DISTRIBUTIONS, Param, Space

__all__ = ["Sweeper", "Space", "Param", "DISTRIBUTIONS"]


class Sweeper:
    """Suggest/observe loop over a search space, for a user's own training script.

    `space`: {dotted key: {distribution, min, max}}; `config`: a nested config holding the
    swept keys (their types are checked against the distributions; their values are the
    first suggestion, so a sweep starts where you are). Without a config every key is
    treated as a float, int_uniform/uniform_pow2 as an int, and the first suggestion is
    the middle of the space. `goal`: "maximize" or "minimize".
    """

    def __init__(self, space: Mapping[str, Mapping], config: Mapping | None = None, method: str = "protein",
                 goal: str = "maximize", seed: int = 0, num_random: int = 0, max_suggestion_cost: float = 0.0):
        from pufferlib.errors import APIUsageError
        from pufferlib.sweep import protein
        from pufferlib.sweep.space import INT_DISTRIBUTIONS, apply

        if goal not in ("maximize", "minimize"):
            raise APIUsageError(f"goal = {goal!r}; choose 'maximize' or 'minimize'.")
        if config is None:
            config = {}
            for key, table in space.items():
                value = 1 if table.get("distribution") in INT_DISTRIBUTIONS else 0.5
                config = set_dotted(config, key, value)
        self.space = Space.from_tables(space, config)
        self._first = self.space.point(config)
        self.sign = 1.0 if goal == "maximize" else -1.0
        self.method = protein.make_method(method, self.space.dim, seed, num_random, max_suggestion_cost)
        self.observations: list = []
        self.failures: list[list[float]] = []
        self.pending: list[list[float]] = []
        self.count = 0
        self._apply = apply

    def suggest(self) -> dict[str, Any]:
        """The next parameters to try: {dotted key: value}. The first is the given config's."""
        x = self._first if self.count == 0 else self.method.suggest(self.count, self.observations,
                                                                       self.failures, self.pending)
        self.count += 1
        self.pending.append(x)
        return self.space.values(x)

    def observe(self, params: Mapping[str, Any], score: float | None, cost: float = 1.0,
                reports: list[tuple[float, float]] | None = None) -> None:
        """Record a result. score None or NaN marks a failure (steers the search away).

        `reports`: optional (score, cost) points the run reported while training.
        """
        from pufferlib.sweep.protein import Observation

        x = self.space.point(params)
        self.pending = [p for p in self.pending if p != x and self.space.values(p) != dict(params)]
        if score is None or (isinstance(score, float) and math.isnan(score)):
            self.failures.append(x)
            return
        reps = [(self.sign * s, c) for s, c in (reports or [(score, cost)])]
        self.observations.append(Observation(x, self.sign * float(score), float(cost), reps))

    @property
    def best(self) -> tuple[dict[str, Any], float] | None:
        """(params, score) of the best observation so far, or None."""
        if not self.observations:
            return None
        top = max(self.observations, key=lambda o: o.score)
        return self.space.values(top.x), self.sign * top.score


