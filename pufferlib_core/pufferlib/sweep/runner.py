"""Trials of a sweep: one interface, `Trial`, with a local and a Ray implementation.

Contract:

- A trial is an ordinary `puffer train` run in its own process. Its folder
  (SWEEP_DIR/trials/trial_NNNN) holds `trial.toml` (the trial's full config), `train.log` (its
  output: plain lines, no live dashboard) and the run folder that `puffer train` creates
  there (metrics.jsonl, checkpoints). Its reports are read from metrics.jsonl while it trains
  (`ReportReader`).
- `LocalTrial.start(spec)` runs it as a child process of this one: the process dies with its
  parent (PR_SET_PDEATHSIG on Linux), so a crash or `kill -9` of the driver leaves no trial
  behind. `RayTrial.start(spec, ray)` runs it as a Ray task (`run_to_end`: a `LocalTrial` on
  the node Ray chose), reserving its torch threads as CPUs.
- Both are `Trial`s: `poll(below_line)` returns the reports written since the last call and,
  once the trial has ended, its `Outcome` (status and error); `kill()` ends it now.
- How a trial ends is decided in one place, `LocalTrial.outcome`, for local trials and inside
  Ray tasks alike. A Ray task's reports and outcome reach the driver together when it ends,
  so early stopping (`below_line`, which needs the other trials' reports) applies to local
  trials only.
- A trial has failed when its process did: it exited with an error, or logged no score. The
  trainer is the judge of divergence (its own check of the losses stops the run with
  NonFiniteError), so a NaN among the logged diagnostics, such as the explained variance of
  a batch whose returns are all equal, fails nothing. A failure's error is one line: the
  exception the run ended with (type and message, or `puffer train`'s own error line), cut to
  `pufferlib.config.messages.short` length.
- Nothing here writes the sweep's database: reports and outcomes go back to the driver.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from pufferlib import config as cfglib
from pufferlib.config.messages import short
from pufferlib.train.metrics import SCORE_KEYS
from pufferlib.train.trust import TRUST_FLAG, own_code

#: The bytes of a failed trial's log read to find why it failed (its end: the traceback).
LOG_TAIL_BYTES = 64 * 1024
#: The characters of a log line that a failure's error keeps.
LINE_LIMIT = 500


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


@dataclass(frozen=True)
class Outcome:
    """How a trial ended: status ("done", "failed", "timeout" or "stopped") and why, if not done."""

    status: str
    error: str | None = None


#: The early-stop rule of the driver: given a running trial's new reports, whether it must stop.
StopRule = Callable[[list[Report]], bool]


def never_stop(new: list[Report]) -> bool:
    """The stop rule of a trial that runs to its end."""
    return False


class Trial(Protocol):
    """A started trial, as the driver sees it (see the module docstring)."""

    def poll(self, below_line: StopRule = never_stop) -> tuple[list[Report], Outcome | None]:
        """The reports written since the last call, and the outcome once the trial has ended."""
        ...

    def kill(self) -> None:
        """End the trial now; the caller records it (e.g. as interrupted)."""
        ...


def _set_pdeathsig() -> None:  # runs in the child before exec
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def failure_line(log: str) -> str:
    """The line of a failed `puffer train`'s output that says why it failed: the exception its
    last traceback ends with ("ValueError: ..."), or its own one-line error ("puffer train:
    error: ...", how it reports bad input and divergence), whichever came last; else its last line."""
    lines = [line for line in log.splitlines() if line.strip()]
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("puffer train: error: "):
            return short(lines[i], LINE_LIMIT)
        if lines[i].startswith("Traceback (most recent call last)"):
            raised = next((line for line in lines[i + 1:] if not line[0].isspace()), "a traceback cut short")
            return short(raised, LINE_LIMIT)
    return short(lines[-1], LINE_LIMIT) if lines else "no output"


class ReportReader:
    """Reads a trial folder's metrics.jsonl incrementally: reports and the keys logged."""

    def __init__(self, folder: str | Path, metric: str, cost: str, start: float):
        self.folder, self.metric, self.cost, self.start = Path(folder), metric, cost, start
        self._offset = 0
        self._path: Path | None = None
        self.logged_keys: set[str] = set()

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
            metric = self.metric or next((k for k in SCORE_KEYS if k in row), "")
            if metric and row.get(metric) is not None:
                self.metric = metric
                seconds = float(row["time"]) - self.start
                cost = float(row["step"]) if self.cost == "steps" else seconds
                out.append(Report(int(row["step"]), seconds, float(row[metric]), cost))
        return out


class LocalTrial:
    """A trial as a child process of this one. `LocalTrial(spec)` prepares it; `start` runs it."""

    def __init__(self, spec: TrialSpec):
        self.spec = spec
        self.folder = Path(spec.folder)
        self.started = time.time()
        self.reader = ReportReader(self.folder, spec.metric, spec.cost, self.started)
        self.reported = False  # whether any report of the metric came
        self.proc: subprocess.Popen | None = None
        self._log: IO[bytes] | None = None

    @classmethod
    def start(cls, spec: TrialSpec) -> LocalTrial:
        """Write the trial's folder and start its `puffer train` process."""
        trial = cls(spec)
        trial.folder.mkdir(parents=True, exist_ok=True)
        config = json.loads(json.dumps(spec.config))
        config["train"]["data_dir"] = str(trial.folder.resolve())
        (trial.folder / "trial.toml").write_text(cfglib.dump_toml(config))
        threads = max(1, int(config["train"].get("cpu_threads") or 1))
        env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
               "PYTHONUNBUFFERED": "1"}
        # the config passed this process's checks (pufferlib.train.trust): a class it names is the user's
        trusted = [TRUST_FLAG] if own_code(config) else []
        trial._log = open(trial.folder / "train.log", "ab")
        trial.started = trial.reader.start = time.time()
        trial.proc = subprocess.Popen(
            [sys.executable, "-m", "pufferlib", "train", spec.env_id, "--config", str(trial.folder / "trial.toml"),
             *trusted],
            stdout=trial._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True, preexec_fn=_set_pdeathsig if sys.platform == "linux" else None)
        return trial

    def poll(self, below_line: StopRule = never_stop) -> tuple[list[Report], Outcome | None]:
        """The trial's new reports and, once it has ended or must end (then it is killed), its outcome."""
        assert self.proc is not None, "LocalTrial.start() runs the trial"
        exit_code = self.proc.poll()
        new = self.reader.poll()  # read after the exit status: everything the process wrote
        self.reported |= bool(new)
        outcome = self.outcome(exit_code, new, below_line)
        if outcome is not None:
            self.kill()
        return new, outcome

    def timed_out(self) -> bool:
        """Whether the trial has run past its time limit."""
        return self.spec.timeout > 0 and time.time() - self.started > self.spec.timeout

    def outcome(self, exit_code: int | None, new: list[Report], below_line: StopRule) -> Outcome | None:
        """How the trial ends, from one look at it; None while it runs on.

        The one place a trial's status is decided. `exit_code`: its exit status, None while it
        runs; `new`: the reports of this look. In order: exited with status 0 after reporting its
        metric: done; exited otherwise: failed (the error it ended with, or why it logged no
        score); running past its time limit: timeout; new reports and `below_line(new)`: stopped.
        """
        if exit_code is not None:
            if exit_code != 0:
                return Outcome("failed", self._crash(exit_code))
            if not self.reported:
                return Outcome("failed", self._no_score())
            return Outcome("done")
        if self.timed_out():
            return Outcome("timeout", f"killed after the time limit of {self.spec.timeout:g} s")
        if new and below_line(new):
            return Outcome("stopped", "below the score-on-cost quantile line: stopped early")
        return None

    def _crash(self, exit_code: int) -> str:
        """Why the trial's process ended with `exit_code`, from the end of its log."""
        try:
            with open(self.folder / "train.log", "rb") as f:
                f.seek(max(0, f.seek(0, os.SEEK_END) - LOG_TAIL_BYTES))
                line = failure_line(f.read().decode("utf-8", "replace"))
        except OSError as exc:
            line = f"its log is unreadable ({exc.strerror})"
        if exit_code < 0:  # killed by a signal (Popen's convention), e.g. SIGKILL from the OOM killer
            try:
                name = signal.Signals(-exit_code).name
            except ValueError:
                name = f"signal {-exit_code}"
            return f"killed by {name} (its last output: {line})"
        return f"exit status {exit_code}: {line}"

    def _no_score(self) -> str:
        """Why a trial that exited with status 0 has no score."""
        episode_keys = sorted(k for k in self.reader.logged_keys if k.startswith("environment/"))
        if not episode_keys:
            steps = self.spec.config.get("train", {}).get("total_timesteps")
            budget = f"its budget of {steps:,} steps" if isinstance(steps, int) else "its budget"
            return (f"no episode ended within {budget}, so the run logged no score (no environment/* key); raise "
                    f"train.total_timesteps (--train.total-timesteps) or make the env's episodes shorter")
        wanted = short(self.spec.metric) if self.spec.metric else " or ".join(SCORE_KEYS)
        return (f"the run never logged {wanted}; set sweep.metric to one of the episode keys it logged: "
                f"{short(', '.join(episode_keys), LINE_LIMIT)}")

    def kill(self) -> None:
        """Kill the trial's process group (if it still runs), wait for it and close its log."""
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait()
        if self._log is not None and not self._log.closed:
            self._log.close()


def run_to_end(spec: TrialSpec, poll_seconds: float = 0.5) -> dict[str, Any]:
    """Run a trial to its end (time limit included), the body of a `RayTrial`'s task: its outcome
    is `LocalTrial.outcome`'s, as for a local trial.

    Returns {"status", "error", "reports"} (the `Outcome`'s fields, reports as dicts).
    """
    trial = LocalTrial.start(spec)
    reports: list[Report] = []
    try:
        while True:
            new, outcome = trial.poll()
            reports += new
            if outcome is not None:
                return {**dataclasses.asdict(outcome), "reports": [dataclasses.asdict(r) for r in reports]}
            time.sleep(poll_seconds)
    finally:
        trial.kill()


class RayTrial:
    """A trial as a Ray task (`run_to_end` on the node Ray picks), reserving its torch threads as CPUs."""

    def __init__(self, ray: Any, handle: Any):
        self._ray, self._handle = ray, handle

    @classmethod
    def start(cls, spec: TrialSpec, ray: Any) -> RayTrial:
        """Submit the trial's task to `ray` (the module, connected by `pufferlib.vector.ray.connect`)."""
        task = ray.remote(run_to_end).options(num_cpus=spec.config["train"]["cpu_threads"])
        return cls(ray, task.remote(spec))

    def poll(self, below_line: StopRule = never_stop) -> tuple[list[Report], Outcome | None]:
        """Nothing while the task runs; its reports and outcome once it has ended (`below_line`
        is not applied: the task runs to its end)."""
        ready, _ = self._ray.wait([self._handle], timeout=0)
        if not ready:
            return [], None
        result = self._ray.get(self._handle)
        return [Report(**r) for r in result["reports"]], Outcome(result["status"], result["error"])

    def kill(self) -> None:
        """Cancel the task (Ray kills its worker, and with it the trial's process)."""
        self._ray.cancel(self._handle, force=True)
