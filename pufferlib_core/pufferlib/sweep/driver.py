"""The sweep driver: suggests trials, runs them (local processes or Ray tasks), records everything.

The driver is the only writer of SWEEP_DIR/sweep.db (see `store`). Trial 0 is always the
unswept config, so a sweep never reports worse than where it started. `--resume` reopens
the database: finished trials are kept and never rerun, trials left running by a crash,
`kill -9` or Ctrl-C are marked interrupted and run again with the same parameters. Whenever
the best finished trial improves, SWEEP_DIR/best.toml is rewritten atomically; it is a full
config for `puffer train ENV --config best.toml`.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pufferlib.config import dump_toml, get_dotted, load_default
from pufferlib.config.validation import validate
from pufferlib.cpu.cores import usable_cores
from pufferlib.errors import APIUsageError
from pufferlib.sweep import protein, runner
from pufferlib.sweep.space import Space, apply
from pufferlib.sweep.store import FILE_NAME, FINISHED, Store

if TYPE_CHECKING:
    from rich.live import Live


class SweepDriver:
    """One sweep over `space` of the trials of `config` (a full config with a `[sweep]` section)."""

    def __init__(self, env_id: str, config: dict, space: Space, sweep_dir: str | Path, quiet: bool = False):
        self.env_id, self.config, self.space = env_id, config, space
        self.settings = config["sweep"]
        self.dir = Path(sweep_dir)
        validate(config, load_default())  # the [sweep] settings' ranges and choices: config.validation.CONSTRAINTS
        s = self.settings
        self.sign = 1.0 if s["goal"] == "maximize" else -1.0
        self.method = protein.make_method(s["method"], space.dim, s["seed"], s["num_random"],
                                          s["max_suggestion_cost"])
        self.quiet = quiet
        self.store: Store | None = None
        self.running: dict[int, runner.Trial] = {}  # trial id -> its LocalTrial or RayTrial
        self.trial_x: dict[int, list[float]] = {}
        self.reports: dict[int, list[tuple[float, float]]] = {}  # trial id -> (score, cost), raw scores
        self.best: tuple[float, int] | None = None
        self.table: Live | None = None
        self.last_error: str | None = None

    # -- the loop ---------------------------------------------------------------------------
    def run(self, resume: bool = False) -> dict | None:
        """Run (or resume) the sweep to `max_runs` finished trials; returns the best trial's row."""
        db_exists = (self.dir / FILE_NAME).exists()
        if resume and not db_exists:
            raise APIUsageError(f"--resume {self.dir}: no sweep.db there; is it a folder made by `puffer sweep`?")
        if not resume and db_exists:
            raise APIUsageError(f"{self.dir} already holds a sweep; continue it with --resume {self.dir}.")
        self.store = Store(self.dir)
        retries = []
        if resume:
            if self.store.meta("env_id") != self.env_id:
                raise APIUsageError(f"{self.dir} is a sweep of {self.store.meta('env_id')!r}, not {self.env_id!r}.")
            retries = self.store.interrupt_running()
        else:
            self.store.set_meta("env_id", self.env_id)
            self.store.set_meta("config", self.config)
            self.store.set_meta("space", self.space.keys)
        for row in self.store.trials():
            self.reports[row["id"]] = [(r["score"], r["cost"]) for r in self.store.reports(row["id"])]
            if row["status"] == "done":
                self._consider_best(row)
        ray = self._connect_ray() if self.settings["backend"] == "ray" else None
        self._start_table()
        try:
            while True:
                finished = len([t for t in self.store.trials() if t["status"] in FINISHED])
                started = finished + len(self.running)
                while len(self.running) < self.settings["workers"] and (retries or started < self.settings["max_runs"]):
                    self._launch(retries.pop(0) if retries else None, ray)
                    started += 1
                if not self.running:
                    break
                self._poll()
                self._refresh_table()
                time.sleep(0.05 if ray else 0.25)
        except BaseException:
            self._stop_table()
            self._interrupt()
            self.store.close()
            raise
        finally:
            self._stop_table()
            if ray is not None:
                ray.shutdown()
        best = self.best_trial()
        self.store.close()
        return best

    def _launch(self, retry: dict | None, ray: Any) -> None:
        trials = self._store.trials()
        if retry is not None:
            idx, values, x = retry["idx"], retry["params"], retry["x"]
        else:
            idx = max((t["idx"] for t in trials), default=-1) + 1
            if idx == 0:  # the unswept config first
                x = self.space.point(self.config)
                values = {k: get_dotted(self.config, k) for k in self.space.keys}
            else:
                x = self.method.suggest(idx, *self._history(trials))
                values = self.space.values(x)
        folder = self.dir / "trials" / f"trial_{len(trials) + 1:04d}"  # the id the row gets
        trial_id = self._store.add_trial(idx, values, x, str(folder), retry["id"] if retry else None)
        self.trial_x[trial_id], self.reports[trial_id] = x, []
        spec = runner.TrialSpec(self.env_id, self._trial_config(values), str(folder), self.settings["metric"],
                                self.settings["cost"], float(self.settings["trial_timeout"]))
        self.running[trial_id] = runner.LocalTrial(spec) if ray is None else runner.RayTrial(ray, spec)

    def _poll(self) -> None:
        """Take each running trial's new reports; finish the trials that ended or must stop early."""
        for trial_id, trial in list(self.running.items()):
            new, outcome = trial.step()
            for report in new:
                self._report(trial_id, report)
            if outcome is None and new and self._should_stop(trial_id):
                trial.kill()
                outcome = ("stopped", "below the score-on-cost quantile line: stopped early")
            if outcome is not None:
                self._finish(trial_id, *outcome)

    def _report(self, trial_id: int, r: runner.Report) -> None:
        self._store.add_report(trial_id, r.step, r.seconds, r.score, r.cost)
        self.reports[trial_id].append((r.score, r.cost))

    def _should_stop(self, trial_id: int) -> bool:
        own = [(self.sign * s, c) for s, c in self.reports[trial_id]]
        others = [(self.sign * s, c) for t, rs in self.reports.items() if t != trial_id for s, c in rs]
        return protein.should_stop(own, others, float(self.settings["early_stop_quantile"]),
                                   int(self.settings["early_stop_min_reports"]))

    def _finish(self, trial_id: int, status: str, error: str | None = None) -> None:
        del self.running[trial_id]
        last = self.reports[trial_id][-1] if self.reports[trial_id] else (None, None)
        score = last[0] if status in ("done", "stopped") else None
        self._store.finish(trial_id, status, score, last[1], error)
        if status == "done":
            self._consider_best(next(t for t in self._store.trials() if t["id"] == trial_id))
        if error:
            self.last_error = f"trial {trial_id} ({status}): {error}"
        if self.table is None:
            msg = f"trial {trial_id}: {status}" + (f" score {score:.4g}" if score is not None else "")
            print(msg + (f" ({error.splitlines()[0]})" if error else ""), flush=True)

    def _interrupt(self) -> None:
        for trial_id, trial in list(self.running.items()):
            trial.kill()
            self._store.finish(trial_id, "interrupted", None, None, "the sweep stopped while this trial ran")
        self.running.clear()

    # -- what the method sees ---------------------------------------------------------------
    def _history(self, trials: list[dict]):
        observations, failures, pending = [], [], []
        for t in trials:
            if t["status"] in ("done", "stopped") and t["score"] is not None:
                reps = [(self.sign * s, c) for s, c in self.reports.get(t["id"], [])]
                observations.append(protein.Observation(t["x"], self.sign * t["score"], t["cost"], reps))
            elif t["status"] in ("failed", "timeout"):
                failures.append(t["x"])
            elif t["status"] == "running":
                pending.append(t["x"])
        return observations, failures, pending

    def _trial_config(self, values: dict) -> dict:
        config = apply({k: v for k, v in self.config.items() if k != "sweep"}, values)
        share = max(1, usable_cores() // self.settings["workers"])
        wanted = config["train"].get("cpu_threads", 1)
        config["train"]["cpu_threads"] = share if not wanted else min(wanted, share)
        for section in config.values():  # logger plugins with a run group (e.g. [wandb] group): the sweep
            if isinstance(section, dict) and section.get("group") == "":
                section["group"] = self.dir.name
        return config

    # -- best.toml --------------------------------------------------------------------------
    def _consider_best(self, row: dict) -> None:
        if row["score"] is None:
            return
        if self.best is None or self.sign * row["score"] > self.sign * self.best[0]:
            self.best = (row["score"], row["id"])
            config = apply({k: v for k, v in self.config.items() if k != "sweep"}, row["params"])
            head = (f"# best trial {row['id']} of the sweep in {self.dir}: {self.settings['metric'] or 'score'} = "
                    f"{row['score']:.6g}\n# puffer train {self.env_id} --config {self.dir / 'best.toml'}\n")
            tmp = self.dir / "best.toml.tmp"
            tmp.write_text(head + dump_toml(config))
            os.replace(tmp, self.dir / "best.toml")

    @property
    def _store(self) -> Store:
        """The sweep's store; opened by `run`, before any trial is launched or read."""
        assert self.store is not None, "SweepDriver.run() opens the store first"
        return self.store

    def best_trial(self) -> dict | None:
        """The finished trial with the best score (None before any)."""
        if self.best is None:
            return None
        return next(t for t in self._store.trials() if t["id"] == self.best[1])

    # -- Ray --------------------------------------------------------------------------------
    def _connect_ray(self) -> Any:
        """The `ray` module, connected to the config's `ray.address` or to a local loopback-only instance."""
        from pufferlib.vector.ray import connect

        return connect(self.config.get("ray", {}).get("address") or None)

    # -- the live table ---------------------------------------------------------------------
    def _start_table(self) -> None:
        if self.quiet or not sys.stdout.isatty():
            return
        from rich.live import Live

        self.table = Live(auto_refresh=False)
        self.table.start()

    def _refresh_table(self) -> None:
        if self.table is not None:
            trials = self._store.trials()
            for t in trials:  # running trials show their latest report
                if t["status"] == "running" and self.reports.get(t["id"]):
                    t["score"], t["cost"] = self.reports[t["id"]][-1]
            self.table.update(render_table(trials, self.best[1] if self.best else None), refresh=True)

    def _stop_table(self) -> None:
        if self.table is not None:
            self._refresh_table()
            self.table.stop()
            self.table = None


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.4g}"
    return "-" if value is None else str(value)


def render_table(trials: list[dict], best_id: int | None, last: int = 20):
    """The rich table of the last `last` trials: id, status, score, cost, parameters, best mark."""
    from rich.table import Table

    best = next((t for t in trials if t["id"] == best_id), None)
    title = f"puffer sweep: {len(trials)} trials" + (f", best {_fmt(best['score'])} (trial {best_id})" if best else "")
    table = Table(title=title)
    for name in ("trial", "status", "score", "cost", "parameters", "best"):
        table.add_column(name, justify="right" if name in ("score", "cost") else "left")
    for t in trials[-last:]:
        params = " ".join(f"{k.split('.')[-1]}={_fmt(v)}" for k, v in t["params"].items())
        table.add_row(str(t["id"]), t["status"], _fmt(t["score"]), _fmt(t["cost"]), params,
                      "*" if t["id"] == best_id else "")
    return table
