"""The run's local metrics record: RUN_DIR/metrics.jsonl, one JSON object per line.

The first line holds the run's config and env id; every later line the metrics of one
log step (`step` is the global agent step, `time` seconds since the epoch). A resumed run
appends to the same file. No service is needed to plot a run: `puffer plot RUN_DIR`.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Mapping

FILE_NAME = "metrics.jsonl"


def _plain(value: Any) -> Any:
    """JSON-safe: numpy/torch scalars as Python numbers, NaN/inf as None, other objects as text."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)


class MetricsFile:
    """Appends one line per log step to RUN_DIR/metrics.jsonl (created with a config line)."""

    def __init__(self, run_dir: str | Path, config: Mapping, env_id: str | None):
        run_dir = Path(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        self.path = run_dir / FILE_NAME
        new = not self.path.exists()
        self._file = open(self.path, "a", encoding="utf-8")
        if new:
            self._file.write(json.dumps({"config": config, "env_id": env_id}, default=_plain) + "\n")
            self._file.flush()

    def write(self, step: int, metrics: Mapping[str, Any]) -> None:
        """Append the metrics of one log step."""
        row = {"step": int(step), "time": time.time(), **{k: _plain(v) for k, v in metrics.items()}}
        self._file.write(json.dumps(row) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file; safe to call more than once."""
        self._file.close()


def read_metrics(run_dir: str | Path) -> tuple[dict, list[dict]]:
    """(first line: config and env id, metric rows) of a run directory."""
    path = Path(run_dir) / FILE_NAME
    if not path.exists():
        from pufferlib.errors import APIUsageError

        raise APIUsageError(f"{path} does not exist: is {str(run_dir)!r} a run directory written by `puffer train`?")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines[0], lines[1:]
