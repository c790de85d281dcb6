"""Hyperparameter sweeps: `puffer sweep ENV`, and `Sweeper`, the search, for your own script.

    from pufferlib.sweep import Sweeper
    sweeper = Sweeper({"train.learning_rate": {"distribution": "log_normal", "min": 1e-4, "max": 1e-1}},
                      config={"train": {"learning_rate": 3e-4}}, method="protein")
    for _ in range(20):
        params = sweeper.suggest()               # {"train.learning_rate": ...}
        score, cost = my_training(params)        # any script
        sweeper.observe(params, score, cost)
    sweeper.best                                  # (params, score)

Contract: `Sweeper` suggests points of a search space and learns from their results; it runs
nothing and stores nothing. `puffer sweep` wraps it in `driver.SweepDriver`, which runs the
suggested trials and feeds the Sweeper from the sweep's store before each suggestion.

Modules: `space` (distributions, the unit cube), `config` (which config layer's space
applies), `gp` and `protein` (search methods), `store` (the SQLite state of a CLI sweep),
`runner` (trials: local processes or Ray tasks) and `driver` (the loop of a CLI sweep); long
values in their errors are cut by `pufferlib.config.messages`.
`pufferlib.plot.plot_sweep` draws a sweep. Torch is imported on first use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pufferlib.config import get_dotted, set_dotted
from pufferlib.sweep.space import DISTRIBUTIONS, INT_DISTRIBUTIONS, Param, Space, check_nesting

__all__ = ["Sweeper", "Space", "Param", "DISTRIBUTIONS"]


class Sweeper:
    """The search: suggests points of a space (`suggest`) and learns from their results (`observe`).

    `space`: {dotted key: {distribution, min, max}}, or a `Space`; `config`: a nested config
    holding the swept keys (their types are checked against the distributions; their values
    are the first suggestion, so a sweep starts where you are). Without a config every key
    starts at 0.5 (int_uniform and uniform_pow2 at 1), clipped into its range. `method`,
    `goal`, `seed`, `num_random` and `max_suggestion_cost` are the [sweep] settings of the
    same names, checked against `pufferlib.config.validation.CONSTRAINTS`.

    What it knows: `observations` (results with a score), `failures` (points whose run
    failed), `pending` (suggested, no result yet) and `count` (suggestions made, the index of
    the next). `observe` adds to it; `sync` replaces it by the trials of a sweep's store.
    """

    def __init__(self, space: Mapping[str, Mapping] | Space, config: Mapping | None = None,
                 method: str = "protein", goal: str = "maximize", seed: int = 0, num_random: int = 0,
                 max_suggestion_cost: float = 0.0):
        from pufferlib.config import load_default
        from pufferlib.config.validation import validate
        from pufferlib.sweep import protein

        validate({"sweep": {"method": method, "goal": goal, "seed": seed, "num_random": num_random,
                            "max_suggestion_cost": max_suggestion_cost}}, load_default())
        if config is None:
            if not isinstance(space, Space):
                check_nesting(space)  # before its keys go into a config, where "a" and "a.b" would clash
            config = {}
            dists = {p.key: p.distribution for p in space.params} if isinstance(space, Space) else \
                {key: table.get("distribution") for key, table in space.items()}
            for key, dist in dists.items():
                set_dotted(config, key, 1 if dist in INT_DISTRIBUTIONS else 0.5)
        self.space = space if isinstance(space, Space) else Space.from_tables(space, config)
        self.config = config
        self._first = self.space.point(config)
        self.sign = 1.0 if goal == "maximize" else -1.0
        self.method = protein.make_method(method, self.space.dim, seed, num_random, max_suggestion_cost)
        self.observations: list[protein.Observation] = []
        self.failures: list[list[float]] = []
        self.pending: list[list[float]] = []
        self.count = 0

    def _next_point(self) -> list[float]:
        x = self._first if self.count == 0 else self.method.suggest(self.count, self.observations,
                                                                       self.failures, self.pending)
        self.count += 1
        self.pending.append(x)
        return x

    def suggest(self) -> dict[str, Any]:
        """The next parameters to try: {dotted key: value}. The first is the given config's."""
        return self.space.values(self._next_point())

    def next_trial(self) -> tuple[int, list[float], dict[str, Any]]:
        """(index, point, values) of the next suggestion, for a sweep's store. As `suggest`, except
        that suggestion 0 has the config's own values (not clipped into the ranges, not rounded)."""
        index = self.count
        x = self._next_point()
        if index == 0:
            return index, x, {key: get_dotted(self.config, key) for key in self.space.keys}
        return index, x, self.space.values(x)

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

    def sync(self, trials: list[dict], reports: Mapping[int, list[tuple[float, float]]]) -> None:
        """Replace what the search knows by the trials of a sweep's store.

        `trials`: `Store.trials()` rows, in id order; `reports`: trial id -> its (score, cost)
        reports. Finished trials with a score (done, stopped) are observations, failed and timed
        out ones failures, running ones pending (interrupted ones count for nothing); the next
        suggestion's index follows the highest `idx`.
        """
        from pufferlib.sweep.protein import Observation

        self.observations, self.failures, self.pending = [], [], []
        for t in trials:
            if t["status"] in ("done", "stopped") and t["score"] is not None:
                reps = [(self.sign * s, c) for s, c in reports.get(t["id"], [])]
                self.observations.append(Observation(t["x"], self.sign * t["score"], t["cost"], reps))
            elif t["status"] in ("failed", "timeout"):
                self.failures.append(t["x"])
            elif t["status"] == "running":
                self.pending.append(t["x"])
        self.count = max((t["idx"] for t in trials), default=-1) + 1

    @property
    def best(self) -> tuple[dict[str, Any], float] | None:
        """(params, score) of the best observation so far, or None."""
        if not self.observations:
            return None
        top = max(self.observations, key=lambda o: o.score)
        return self.space.values(top.x), self.sign * top.score
