"""The run's local metrics record: RUN_DIR/metrics.jsonl, one JSON object per line.

The first line holds the run's config and env id; every later line the metrics of one
log step (`step` is the global agent step, `time` seconds since the epoch). A resumed run
appends to the same file, after moving the rows logged past its checkpoint's step (whose
training was lost) to metrics.jsonl.superseded: the steps of the file never go backwards.
No service is needed to plot a run: `puffer plot RUN_DIR`.

A run killed mid-write can leave a torn last line (no newline at its end): appending first
cuts that tail off, and reading skips undecodable lines, with a warning in both cases.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path

from pufferlib.errors import APIUsageError, OutputError

FILE_NAME = "metrics.jsonl"
#: The score of a run: the first of these keys that it logs (a plot's or a sweep's default metric).
SCORE_KEYS = ("environment/score", "environment/episode_return")


def _plain(value: object) -> object:
    """JSON-safe: numpy/torch scalars as Python numbers, NaN/inf as None, other objects as text."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)


class MetricsFile:
    """Appends one line per log step to RUN_DIR/metrics.jsonl (created with a config line)."""

    def __init__(self, run_dir: str | Path, config: Mapping, env_id: str | None, resumed_step: int | None = None):
        self.path = Path(run_dir) / FILE_NAME
        with self._writing():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            new = not self.path.exists() or _repair(self.path) == 0
            if not new and resumed_step is not None:
                _set_aside_after(self.path, resumed_step)
            self._file = open(self.path, "a", encoding="utf-8")
            if new:
                self._file.write(json.dumps({"config": config, "env_id": env_id}, default=_plain) + "\n")
                self._file.flush()

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """OSErrors of the block as an OutputError naming the file (permissions, a full disk)."""
        try:
            yield
        except OSError as exc:
            raise OutputError(f"Cannot write {self.path}: {exc.strerror or exc}.") from None

    def write(self, step: int, metrics: Mapping[str, object]) -> None:
        """Append the metrics of one log step."""
        row = {"step": int(step), "time": time.time(), **{k: _plain(v) for k, v in metrics.items()}}
        with self._writing():
            self._file.write(json.dumps(row) + "\n")
            self._file.flush()

    def close(self) -> None:
        """Close the file; safe to call more than once."""
        self._file.close()


def _repair(path: Path) -> int:
    """Cut a torn last line (bytes after the last newline) off `path`; returns the size kept."""
    with open(path, "rb+") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        block, end = 4096, size
        while end > 0:  # find the last newline, reading backwards
            start = max(0, end - block)
            f.seek(start)
            chunk = f.read(end - start)
            if start + len(chunk) == size and chunk.endswith(b"\n"):
                return size  # intact
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                keep = start + cut + 1
                break
            end = start
        else:
            keep = 0
        f.truncate(keep)
    warnings.warn(f"{path}: cut off a torn last line ({size - keep} bytes, from a run killed mid-write) "
                  "before appending.", stacklevel=3)
    return keep


#: Where the rows of a resumed run's file that lie past the resumed checkpoint go.
SUPERSEDED_SUFFIX = ".superseded"


def _set_aside_after(path: Path, step: int) -> None:
    """Move the rows of `path` past agent step `step` to `path` + SUPERSEDED_SUFFIX: a run resumed
    from the checkpoint of `step` logs those steps again, and its file must not go backwards."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    keep: list[str] = []
    later: list[str] = []
    for line in lines:
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            row = None
        row_step = row.get("step") if isinstance(row, dict) else None
        (later if isinstance(row_step, (int, float)) and row_step > step else keep).append(line)
    if not later:
        return
    with open(str(path) + SUPERSEDED_SUFFIX, "a", encoding="utf-8") as aside:
        aside.writelines(later)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(keep), encoding="utf-8")
    os.replace(tmp, path)
    warnings.warn(f"{path}: moved {len(later)} row(s) logged after step {step:,} (the resumed checkpoint's) to "
                  f"{path.name}{SUPERSEDED_SUFFIX}: the resumed run logs those steps again.", stacklevel=3)


def read_metrics(run_dir: str | Path) -> tuple[dict, list[dict]]:
    """(first line: config and env id, metric rows) of a run directory; undecodable lines
    (a torn last line of a killed run) are skipped with a warning, and a file that is mostly
    undecodable (not a metrics file at all) is an APIUsageError."""
    path = Path(run_dir) / FILE_NAME
    if not path.exists():
        raise APIUsageError(f"{path} does not exist: is {str(run_dir)!r} a run directory written by `puffer train`?")
    lines, skipped = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            lines.append(value)
        else:
            skipped.append(number)
    if skipped and (not lines or len(skipped) > max(1, len(lines) // 10)):
        raise APIUsageError(f"{path} is not a metrics file written by `puffer train`: {len(skipped)} of "
                            f"{len(skipped) + len(lines)} lines are not JSON objects (a run killed mid-write tears "
                            "one line at most).")
    if skipped:
        warnings.warn(f"{path}: skipped {len(skipped)} undecodable line(s) (line {', '.join(map(str, skipped))}; "
                      "a torn write of a killed run).", stacklevel=2)
    head = lines[0] if lines and "step" not in lines[0] else {}
    return head, lines[1:] if head else lines
