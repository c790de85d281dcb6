"""The sweep driver: runs the trials its search suggests, and records everything in the sweep's store.

Contract:

- `SweepDriver(env_id, config, space, sweep_dir).run(resume)` runs trials of `config` (a full
  config with a `[sweep]` section, validated up front; an `eval/*` sweep.metric needs `[eval]`
  on) until `sweep.max_runs` have finished
  (done, stopped, failed or timeout), `sweep.workers` at a time, and returns the best
  finished trial's row (None when none finished with a score).
- The store (SWEEP_DIR/sweep.db, see `store`) is the single source of truth for the trials'
  states, and the driver its only writer: it holds the folder's lock (`pufferlib._locks`)
  while it runs, so a second driver of the same folder (two `--resume` at once) stops with
  an error naming the first one's PID before it changes anything. Its `Sweeper` (the
  search) is fed from the store before each suggestion (`Sweeper.sync`), the early-stop rule
  reads the reports from it and the best trial is read from it.
- Trials are `runner.Trial`s: child processes (`sweep.backend = "local"`) or Ray tasks
  ("ray", on the Ray that `pufferlib.vector.ray.connect` joins or starts, shut down at the
  end); how each ends is decided by `runner.LocalTrial.outcome`.
- Trial 0 is always the unswept config, so a sweep never reports worse than where it started.
- `--resume` reopens the store: finished trials are kept and never rerun; trials left running
  by a crash, `kill -9` or Ctrl-C are marked interrupted and run again with the same
  parameters (new rows whose `retry_of` names them). A sweep keeps the env and the search
  space it was started with: resuming with another raises APIUsageError saying what changed.
  Ctrl-C or an error marks the running trials interrupted and kills them.
- Whenever the best finished trial changes, SWEEP_DIR/best.toml is rewritten atomically; it is
  a full config for `puffer train ENV --config best.toml`.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pufferlib._locks import folder_lock
from pufferlib.config import dump_toml, load_default
from pufferlib.config.messages import short
from pufferlib.config.validation import validate
from pufferlib.cpu.cores import usable_cores
from pufferlib.errors import APIUsageError
from pufferlib.sweep import Sweeper, protein, runner
from pufferlib.sweep.space import Space, apply, changes
from pufferlib.sweep.store import FILE_NAME, FINISHED, Store, check_resumable

if TYPE_CHECKING:
    from rich.live import Live
    from rich.table import Table

#: Seconds between two looks at the running trials: a local look reads files, a Ray look is
#: one cheap `ray.wait`.
POLL_SECONDS = {"local": 0.25, "ray": 0.05}


class SweepDriver:
    """Runs the trials of one sweep over `space` (see the module docstring)."""

    def __init__(self, env_id: str, config: dict, space: Space, sweep_dir: str | Path, quiet: bool = False):
        self.env_id, self.config, self.space = env_id, config, space
        self.settings = config["sweep"]
        self.dir = Path(sweep_dir)
        validate(config, load_default())  # the [sweep] settings' ranges and choices: config.validation.CONSTRAINTS
        self._check_metric(config)
        s = self.settings
        self.sweeper = Sweeper(space, config, s["method"], s["goal"], s["seed"], s["num_random"],
                               s["max_suggestion_cost"])
        self.quiet = quiet
        self.store: Store | None = None
        self.running: dict[int, runner.Trial] = {}  # trial id -> its LocalTrial or RayTrial
        self.table: Live | None = None
        self.last_error: str | None = None
        self._best_written: int | None = None  # the id of the trial whose config best.toml holds

    def _check_metric(self, config: dict) -> None:
        """APIUsageError when `sweep.metric` is an `eval/*` metric and the trials would log none:
        evaluations during training log them, and `[eval]` is off (no trial could report a score)."""
        metric = self.settings["metric"]
        if not metric.startswith("eval/"):
            return
        from pufferlib.train.eval_during_training import enabled

        if not enabled(config["eval"]):
            raise APIUsageError(f"sweep.metric = {short(repr(metric))} is logged by evaluations during training, "
                                "and [eval] is off (eval.interval and eval.interval_steps are 0): set --eval.interval "
                                "N (every N epochs) or --eval.interval-steps N.")

    # -- the loop ---------------------------------------------------------------------------
    def run(self, resume: bool = False) -> dict | None:
        """Run (or resume) the sweep to `max_runs` finished trials; returns the best trial's row."""
        if resume:
            check_resumable(self.dir)  # before the lock creates the folder
        with folder_lock(self.dir, "a sweep"):
            return self._run(resume)

    def _run(self, resume: bool) -> dict | None:
        retries = self._open(resume)
        self._write_best()
        ray: ModuleType | None = None
        start: Callable[[runner.TrialSpec], runner.Trial] = runner.LocalTrial.start
        if self.settings["backend"] == "ray":
            from pufferlib.vector.ray import connect

            ray = connect(self.config.get("ray", {}).get("address") or None)
            start = functools.partial(runner.RayTrial.start, ray=ray)
        self._start_table()
        try:
            self._loop(start, retries)
        except BaseException:
            self._stop_table()
            self._interrupt()
            self._store.close()
            raise
        finally:
            self._stop_table()
            if ray is not None:
                ray.shutdown()
        best = self.best_trial()
        self._store.close()
        return best

    def _open(self, resume: bool) -> list[dict]:
        """Open the store (a new one, or the one to resume); returns the trials to run again."""
        if not resume and (self.dir / FILE_NAME).exists():
            raise APIUsageError(f"{self.dir} already holds a sweep; continue it with --resume {self.dir}.")
        self.store = Store(self.dir)
        if not resume:
            self.store.set_meta("env_id", self.env_id)
            self.store.set_meta("config", self.config)
            self.store.set_meta("space", self.space.tables())
            return []
        env_id, changed = self.store.meta("env_id"), changes(self.store.space(), self.space.tables())
        if env_id != self.env_id or changed:
            self.store.close()
        if env_id != self.env_id:
            raise APIUsageError(f"{self.dir} is a sweep of {short(repr(env_id))}, not {short(repr(self.env_id))}.")
        if changed:
            raise APIUsageError(f"--resume {self.dir}: the search space differs from the sweep's "
                                f"({short('; '.join(changed), 400)}); its trials were placed in the space it started "
                                f"with, so it cannot change. Resume without the changed [sweep.*] tables or flags, "
                                f"or start a new sweep with --dir NEW_FOLDER.")
        return self.store.interrupt_running()

    def _loop(self, start: Callable[[runner.TrialSpec], runner.Trial], retries: list[dict]) -> None:
        """Keep `workers` trials running until `max_runs` have finished and no retry is left."""
        pause = POLL_SECONDS[self.settings["backend"]]
        while True:
            started = len([t for t in self._store.trials() if t["status"] in FINISHED]) + len(self.running)
            while len(self.running) < self.settings["workers"] and (retries or started < self.settings["max_runs"]):
                self._launch(start, retries.pop(0) if retries else None)
                started += 1
            if not self.running:
                return
            self._poll()
            self._refresh_table()
            time.sleep(pause)

    def _launch(self, start: Callable[[runner.TrialSpec], runner.Trial], retry: dict | None) -> None:
        """Record and start one trial: `retry` again, or the Sweeper's next suggestion."""
        trials = self._store.trials()
        if retry is not None:
            idx, x, values = retry["idx"], retry["x"], self._retried_params(retry)
        else:
            self.sweeper.sync(trials, self._reports())
            idx, x, values = self.sweeper.next_trial()
        folder = self.dir / "trials" / f"trial_{len(trials) + 1:04d}"  # the id the row gets
        trial_id = self._store.add_trial(idx, values, x, str(folder), retry["id"] if retry else None)
        spec = runner.TrialSpec(self.env_id, self._trial_config(values), str(folder), self.settings["metric"],
                                self.settings["cost"], float(self.settings["trial_timeout"]))
        self.running[trial_id] = start(spec)

    def _retried_params(self, row: dict) -> dict:
        """The parameters of a trial to run again, as the store holds them: the sweep's swept keys
        with finite numbers only (the store is a file: it names no other key, such as a policy class
        or a folder); APIUsageError naming the sweep's database otherwise."""
        params, keys = row["params"], set(self.space.keys)
        bad = [k for k, v in (params.items() if isinstance(params, dict) else [("params", params)])
               if k not in keys or isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)]
        if bad:
            raise APIUsageError(f"{self.dir / FILE_NAME}: trial {row['id']} holds {short(repr(bad))}, not swept keys "
                                f"({', '.join(sorted(keys))}) with finite numbers: the database is not this sweep's "
                                "own; start a new sweep with --dir NEW_FOLDER.")
        return params

    def _poll(self) -> None:
        """Record each running trial's new reports; finish the trials that ended."""
        for trial_id, trial in list(self.running.items()):
            new, outcome = trial.poll(functools.partial(self._below_line, trial_id))
            for r in new:
                self._store.add_report(trial_id, r.step, r.seconds, r.score, r.cost)
            if outcome is not None:
                self._finish(trial_id, outcome)

    def _reports(self) -> dict[int, list[tuple[float, float]]]:
        """trial id -> its (score, cost) reports, raw scores, from the store."""
        out: dict[int, list[tuple[float, float]]] = {}
        for r in self._store.reports():
            out.setdefault(r["trial_id"], []).append((r["score"], r["cost"]))
        return out

    def _below_line(self, trial_id: int, new: list[runner.Report]) -> bool:
        """The early-stop rule (`protein.should_stop`) for a running trial with `new` reports."""
        reports = self._reports()
        sign = self.sweeper.sign
        own = [(sign * s, c) for s, c in reports.get(trial_id, []) + [(r.score, r.cost) for r in new]]
        others = [(sign * s, c) for t, rs in reports.items() if t != trial_id for s, c in rs]
        return protein.should_stop(own, others, float(self.settings["early_stop_quantile"]),
                                   int(self.settings["early_stop_min_reports"]))

    def _finish(self, trial_id: int, outcome: runner.Outcome) -> None:
        """Record how a trial ended: score and cost of its last report (score only if done or stopped)."""
        del self.running[trial_id]
        status, error = outcome.status, outcome.error
        reports = self._store.reports(trial_id)
        cost = reports[-1]["cost"] if reports else None
        score = reports[-1]["score"] if reports and status in ("done", "stopped") else None
        self._store.finish(trial_id, status, score, cost, error)
        if status == "done":
            self._write_best()
        if error:
            self.last_error = f"trial {trial_id} ({status}): {error}"
        if self.table is None:
            msg = f"trial {trial_id}: {status}" + (f" score {score:.4g}" if score is not None else "")
            print(msg + (f" ({error})" if error else ""), flush=True)

    def _interrupt(self) -> None:
        for trial_id, trial in list(self.running.items()):
            trial.kill()
            self._store.finish(trial_id, "interrupted", None, None, "the sweep stopped while this trial ran")
        self.running.clear()

    def _trial_config(self, values: dict) -> dict:
        """The full config of a trial: the sweep's without [sweep], `values` set, its share of the cores."""
        config = apply({k: v for k, v in self.config.items() if k != "sweep"}, values)
        share = max(1, usable_cores() // self.settings["workers"])
        wanted = config["train"].get("cpu_threads", 1)
        config["train"]["cpu_threads"] = share if not wanted else min(wanted, share)
        for section in config.values():  # logger plugins with a run group (e.g. [wandb] group): the sweep
            if isinstance(section, dict) and section.get("group") == "":
                section["group"] = self.dir.name
        return config

    # -- the best trial and best.toml -------------------------------------------------------
    @property
    def _store(self) -> Store:
        """The sweep's store; opened by `run`, before any trial is launched or read."""
        assert self.store is not None, "SweepDriver.run() opens the store first"
        return self.store

    def best_trial(self) -> dict | None:
        """The done trial with the best score (the first of equals; None before any), from the store."""
        done = [t for t in self._store.trials("done") if t["score"] is not None]
        return max(done, key=lambda t: self.sweeper.sign * t["score"], default=None)

    def _write_best(self) -> None:
        """Rewrite best.toml (atomically) when the best trial is not the one it holds."""
        row = self.best_trial()
        if row is None or row["id"] == self._best_written:
            return
        self._best_written = row["id"]
        config = apply({k: v for k, v in self.config.items() if k != "sweep"}, row["params"])
        head = (f"# best trial {row['id']} of the sweep in {self.dir}: {self.settings['metric'] or 'score'} = "
                f"{row['score']:.6g}\n# puffer train {self.env_id} --config {self.dir / 'best.toml'}\n")
        tmp = self.dir / "best.toml.tmp"
        tmp.write_text(head + dump_toml(config))
        os.replace(tmp, self.dir / "best.toml")

    # -- the live table ---------------------------------------------------------------------
    def _start_table(self) -> None:
        if self.quiet or not sys.stdout.isatty():
            return
        from rich.live import Live

        self.table = Live(auto_refresh=False)
        self.table.start()

    def _refresh_table(self) -> None:
        if self.table is not None:
            trials, reports = self._store.trials(), self._reports()
            for t in trials:  # running trials show their latest report
                if t["status"] == "running" and reports.get(t["id"]):
                    t["score"], t["cost"] = reports[t["id"]][-1]
            best = self.best_trial()
            self.table.update(render_table(trials, best["id"] if best else None), refresh=True)

    def _stop_table(self) -> None:
        if self.table is not None:
            self._refresh_table()
            self.table.stop()
            self.table = None


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.4g}"
    return "-" if value is None else str(value)


def render_table(trials: list[dict], best_id: int | None, last: int = 20) -> Table:
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
