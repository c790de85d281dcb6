"""How many CPU cores this process can use: its affinity mask, capped by its cgroup's CPU quota.

A container started with a CPU limit (`docker run --cpus 2`, a Kubernetes CPU limit) sees every
core of its host in `os.cpu_count()` and in its affinity mask, but the kernel runs it for at
most its quota of CPU time per period and then stops all its threads until the next period.
Threads sized to the host's cores then spend most of each period stopped. `usable_cores()` is
what the trainer's thread counts, the multiprocessing backend's default worker count, `puffer
bench` and the sweep's trial sizes start from.

The quota is read from cgroup v2 (`cpu.max`) or v1 (`cpu.cfs_quota_us` / `cpu.cfs_period_us`)
of this process's cgroup and each of its ancestors under the mount (the smallest counts), and
rounded down: a quota of 1.5 CPUs gives 1 core (a thread more than the quota stalls the whole
process every period; a half core left idle costs less). No readable quota means no cap.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

__all__ = ["cgroup_cpu_limit", "usable_cores"]


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask, else `os.cpu_count()`), at most its
    cgroup's CPU quota (see module doc); at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    limit = cgroup_cpu_limit()
    if limit is not None:
        cores = min(cores, math.floor(limit))
    return max(1, cores)


def cgroup_cpu_limit(proc_cgroup: str | Path = "/proc/self/cgroup", mount: str | Path = "/sys/fs/cgroup",
                     ) -> float | None:
    """The CPU quota, in cores, of the cgroup that `proc_cgroup` names (this process's by
    default) and its ancestors under `mount`: the smallest, or None where none is set or
    readable (not Linux, no cgroup file system, no limit)."""
    try:
        lines = Path(proc_cgroup).read_text().splitlines()
    except OSError:
        return None
    limits = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # cgroup v2: one hierarchy, cpu.max = "QUOTA PERIOD" or "max PERIOD"
            limits += _limits(Path(mount), path, ("cpu.max",))
        elif "cpu" in controllers.split(","):  # cgroup v1: the cpu controller's own hierarchy
            for name in (controllers, "cpu"):
                if (Path(mount) / name).is_dir():
                    limits += _limits(Path(mount) / name, path, ("cpu.cfs_quota_us", "cpu.cfs_period_us"))
                    break
    return min(limits, default=None)


def _limits(root: Path, path: str, files: tuple[str, ...]) -> list[float]:
    """The quotas, in cores, set in `files` of the cgroup at `path` under `root` and of its ancestors."""
    found = []
    directory = root / path.strip("/")
    while True:
        try:
            values = " ".join((directory / name).read_text() for name in files).split()
            quota, period = values[0], float(values[1])
            if quota not in ("max", "-1") and period > 0:
                found.append(float(quota) / period)
        except (OSError, ValueError, IndexError):
            pass
        if directory == root or root not in directory.parents:
            return found
        directory = directory.parent
