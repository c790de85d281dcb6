"""Running one trial: an ordinary `puffer train` run in its own process.

A trial's folder (SWEEP_DIR/trials/trial_NNNN) holds `trial.toml` (the full config of the
trial), `train.log` (its output: plain lines, no live dashboard) and the run folder that
`puffer train` creates there (metrics.jsonl, checkpoints). The driver reads the reports
from metrics.jsonl while the trial trains. A separate process isolates crashes and hangs:
the process dies with the driver (PR_SET_PDEATHSIG on Linux) and is killed at the time
limit. `run_to_end` runs a trial start to finish and returns its reports: the body of a
Ray task, whose result goes back to the driver, the only writer of the database.

The driver sees every trial through one interface, `Trial`: `step()` returns the reports
written since the last call and, once the trial has ended, its outcome (status, error), which
`LocalTrial` decides in one place (`_outcome`); `kill()` ends it. `LocalTrial` is a child
process on this machine, `RayTrial` a Ray task running `run_to_end` (a `LocalTrial` on
whichever node Ray chose), whose reports and outcome arrive together when it ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pufferlib import config as cfglib
from pufferlib.train.metrics import SCORE_KEYS


@dataclass
class TrialSpec:
    """What a trial runs: env, full config, folder, which metric is its score and what its cost is."""

    env_id: str
    config: dict
    folder: str
    metric: str = ""           # "" picks the first of SCORE_KEYS that the run logs
    cost: str = "time"         # "time" (seconds since start) or "steps" (agent steps)
    timeout: float = 0.0       # seconds; 0: no limit


@dataclass
class Report:
    """One report: global step, seconds since the trial started, score and cost."""

    step: int
    seconds: float
    score: float
    cost: float


#: How a trial ended: (status, error text or None); status "done", "failed", "timeout" or "stopped".
Outcome = tuple[str, "str | None"]


class Trial(Protocol):
    """What the driver needs of a running trial (see module doc)."""

    def step(self) -> tuple[list[Report], Outcome | None]:
        """The reports written since the last call, and the outcome once the trial has ended."""

    def kill(self) -> None:
        """End the trial now (it is then recorded as stopped, interrupted or failed by the caller)."""


def _set_pdeathsig() -> None:  # runs in the child before exec
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class ReportReader:
    """Reads a trial folder's metrics.jsonl incrementally: reports, logged keys, NaN losses."""

    def __init__(self, folder: str | Path, metric: str, cost: str, start: float):
        self.folder, self.metric, self.cost, self.start = Path(folder), metric, cost, start
        self._offset = 0
        self._path: Path | None = None
        self.logged_keys: set[str] = set()
        self.nan: str | None = None

    def _metrics_file(self) -> Path | None:
        if self._path is None:
            found = sorted(self.folder.glob("*/metrics.jsonl"))
            self._path = found[0] if found else None
        return self._path

    def poll(self) -> list[Report]:
        """The reports written since the last call (complete lines only)."""
        path = self._metrics_file()
        if path is None:
            return []
        with open(path, "rb") as f:
            f.seek(self._offset)
            chunk = f.read()
        end = chunk.rfind(b"\n") + 1
        self._offset += end
        out = []
        for line in chunk[:end].decode("utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if "step" not in row:
                continue  # the header line (config)
            self.logged_keys.update(row)
            nan = [k for k, v in row.items() if k.startswith("losses/") and v is None]
            if nan and self.nan is None:
                self.nan = f"NaN in {', '.join(nan)} at step {row['step']}"
            metric = self.metric or next((k for k in SCORE_KEYS if k in row), "")
            if metric and row.get(metric) is not None:
                self.metric = metric
                seconds = float(row["time"]) - self.start
                cost = float(row["step"]) if self.cost == "steps" else seconds
                out.append(Report(int(row["step"]), seconds, float(row[metric]), cost))
        return out


class LocalTrial:
    """A trial running as a child process; `poll()` returns its new reports."""

    def __init__(self, spec: TrialSpec):
        self.spec = spec
        self.folder = Path(spec.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        config = json.loads(json.dumps(spec.config))
        config["train"]["data_dir"] = str(self.folder.resolve())
        (self.folder / "trial.toml").write_text(cfglib.dump_toml(config))
        threads = max(1, int(config["train"].get("cpu_threads") or 1))
        env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
               "PYTHONUNBUFFERED": "1"}
        self._log = open(self.folder / "train.log", "ab")
        self.start = time.time()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pufferlib", "train", spec.env_id, "--config", str(self.folder / "trial.toml")],
            stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True, preexec_fn=_set_pdeathsig if sys.platform == "linux" else None)
        self.reader = ReportReader(self.folder, spec.metric, spec.cost, self.start)
        self.reported = False  # whether any report of the metric came

    @property
    def nan(self) -> str | None:
        """The NaN-loss message, once a report had one."""
        return self.reader.nan

    def step(self) -> tuple[list[Report], Outcome | None]:
        """The trial's new reports and, once it has ended or must end, its outcome."""
        reports = self.reader.poll()
        self.reported |= bool(reports)
        code = self.proc.poll()
        if code is not None:
            reports += self.reader.poll()  # what it wrote before exiting
            self.reported |= bool(reports)
            self.close()
        elif self.nan or self._timed_out():
            self.kill()
        else:
            return reports, None
        return reports, self._outcome(code)

    def _timed_out(self) -> bool:
        return self.spec.timeout > 0 and time.time() - self.start > self.spec.timeout

    def _outcome(self, code: int | None) -> Outcome:
        """How the ended trial went: `code` is its exit status, None when it was killed running."""
        if code is None and not self.nan:
            return "timeout", f"killed after the time limit of {self.spec.timeout:g} s"
        if self.nan:
            return "failed", self.nan
        if code != 0:
            tail = (self.folder / "train.log").read_text(errors="replace").strip().splitlines()[-8:]
            return "failed", f"exit status {code}: " + "\n".join(tail)
        if not self.reported:
            wanted = self.spec.metric or " or ".join(SCORE_KEYS)
            return "failed", (f"the run never logged {wanted}; logged keys: "
                              f"{', '.join(sorted(self.reader.logged_keys)) or 'none'} (set sweep.metric)")
        return "done", None

    def kill(self) -> None:
        """Kill the trial's process group and wait for it."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.close()

    def close(self) -> None:
        """Release the log file (after the process ended)."""
        self.proc.wait()
        if not self._log.closed:
            self._log.close()


def run_to_end(spec: TrialSpec, poll_seconds: float = 0.5) -> dict[str, Any]:
    """Run a trial to its end (time limit and NaN included): {"status", "error", "reports"}
    (reports as dicts), the result of a `RayTrial`'s task."""
    trial = LocalTrial(spec)
    reports: list[Report] = []
    try:
        while True:
            new, outcome = trial.step()
            reports += new
            if outcome is not None:
                break
            time.sleep(poll_seconds)
    finally:
        trial.kill()
    status, error = outcome
    return {"status": status, "error": error, "reports": [r.__dict__ for r in reports]}


class RayTrial:
    """A trial as a Ray task (`run_to_end` on a node Ray picks), reserving its torch threads as CPUs."""

    def __init__(self, ray: Any, spec: TrialSpec):
        self._ray = ray
        task = ray.remote(run_to_end).options(num_cpus=spec.config["train"]["cpu_threads"])
        self._handle = task.remote(spec)

    def step(self) -> tuple[list[Report], Outcome | None]:
        """Nothing while the task runs; its reports and outcome once it has ended."""
        ready, _ = self._ray.wait([self._handle], timeout=0)
        if not ready:
            return [], None
        result = self._ray.get(self._handle)
        return [Report(**r) for r in result["reports"]], (result["status"], result["error"])

    def kill(self) -> None:
        """Cancel the task (Ray kills its worker, and with it the trial's process)."""
        self._ray.cancel(self._handle, force=True)
