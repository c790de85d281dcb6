"""Log steps: when the trainer's metrics reach metrics.jsonl and the logger hooks, and what a
log step holds.

The trainer hands every `mean_and_log()` result to `LogSteps.add`. A log step is written every
`interval_s` seconds and every `interval_steps` agent steps, rather than every epoch: that keeps
logging off the training time (benchmarks/bench_loggers.py), and a short run still gets its
points. A log step is the mean of the results since the previous one, key by key over every
result that has the key (env stats come only from results in which an episode ended), with the
last result's global step and epoch. `write` writes one now (the trainer does at close, after
adding the episode stats the envs still held); `last` is then metrics.jsonl's last line.

Distributed runs average their metrics across ranks first (`all_reduce_mean`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import numpy as np
import torch

from pufferlib.train.metrics import MetricsFile


class LogSteps:
    """The log steps of one run (rank 0's); see the module docstring.

    `open_file` makes the run's MetricsFile on the first write (the run folder is created
    then); `on_write(step, metrics)` is called after each write (the logger hooks).
    """

    def __init__(self, interval_s: float, interval_steps: int, open_file: Callable[[], MetricsFile],
                 on_write: Callable[[int, dict[str, float]], None]):
        self.interval_s, self.interval_steps = interval_s, max(1, interval_steps)
        self._open_file, self._on_write = open_file, on_write
        self._file: MetricsFile | None = None
        self._rows: list[Mapping[str, float]] = []  # results not yet in a log step
        self._written_at = -float("inf")  # the first result is a log step
        self._next_step = 0  # and so is the first at or past this step
        self.last: dict[str, float] = {}  # the last log step written

    def keep(self, metrics: Mapping[str, float]) -> None:
        """Keep one result for the next log step."""
        self._rows.append(metrics)

    def add(self, metrics: Mapping[str, float], global_step: int) -> None:
        """Keep one result; write a log step when one is due."""
        self.keep(metrics)
        if time.perf_counter() - self._written_at >= self.interval_s or global_step >= self._next_step:
            self.write(global_step)

    def write(self, global_step: int) -> None:
        """Write the log step of the results kept since the last one (none kept: nothing written)."""
        rows, self._rows = self._rows, []
        self._written_at = time.perf_counter()
        self._next_step = (global_step // self.interval_steps + 1) * self.interval_steps
        if not rows:
            return
        merged: dict[str, float] = {}
        for key in dict.fromkeys(key for row in rows for key in row):
            values = [row[key] for row in rows if key in row]
            numeric = all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in values)
            merged[key] = float(np.mean(values)) if numeric and len(values) > 1 else values[-1]
        merged["global_step"], merged["epoch"] = rows[-1]["global_step"], rows[-1]["epoch"]
        if self._file is None:
            self._file = self._open_file()
        self._file.write(global_step, merged)
        self.last = merged
        self._on_write(global_step, merged)

    def close(self) -> None:
        """Close the metrics file (after the last `write`); safe to call more than once."""
        if self._file is not None:
            self._file.close()


def all_reduce_mean(metrics: dict[str, float], world_size: int, device: torch.device) -> dict[str, float]:
    """Metrics averaged over the ranks that have them (SPS summed); ranks may differ in keys."""
    import torch.distributed as dist

    mine = sorted(k for k in metrics if k not in ("global_step", "epoch"))
    gathered: list = [None] * world_size
    dist.all_gather_object(gathered, mine)
    keys = sorted(set().union(*gathered))
    # NCCL reduces device tensors only; gloo takes either.
    pairs = torch.tensor([[float(metrics.get(k, 0.0)), float(k in metrics)] for k in keys],
                         dtype=torch.float64, device=device)
    dist.all_reduce(pairs)
    out = dict(metrics)
    for key, (total, count) in zip(keys, pairs.tolist()):
        out[key] = total if key == "SPS" else total / max(count, 1.0)
    return out
