"""Choosing torch's CPU thread count from measured training speed (`train.cpu_threads = 0`).

Several intra-op threads speed up a large network on an idle machine, and slow it down
badly on a busy one: when another process takes a core, the threads that still run wait
at each operation's barrier for the one that does not. No count is best everywhere, and
the load changes during a run (parallel sweep trials, a user's other jobs), so
`ThreadTuner` measures instead of guessing.

Contract: `step(work)` is called once per training iteration (collect + update) with the
agent steps it covered. The tuner times iterations with the count in use, tries each
candidate count once, then keeps the fastest, and now and then re-measures the runner-up
for one iteration (every `probe_every` iterations, doubling up to `max_probe_every` while
the choice stands, back to `probe_every` when a probe wins), so that it follows the load.
A probe of a slower count costs one iteration in `probe_every` or fewer. The choice is
applied with `set_threads` (torch.set_num_threads), never more often than once per
iteration.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

import torch


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def candidate_counts(cores: int) -> list[int]:
    """Thread counts worth trying on `cores` cores: 1, the powers of two below, and all of them."""
    counts, n = [], 1
    while n < cores:
        counts.append(n)
        n *= 2
    return counts + [cores]


class ThreadTuner:
    """Keeps the fastest of `counts` threads by measured agent steps per second (see module doc)."""

    def __init__(self, counts: Sequence[int], probe_every: int = 8, max_probe_every: int = 32,
                 set_threads: Callable[[int], None] = torch.set_num_threads,
                 clock: Callable[[], float] = time.perf_counter):
        if not counts or min(counts) < 1:
            raise ValueError(f"thread counts must be positive, got {list(counts)}")
        self.counts = sorted(set(counts))
        self.rates: dict[int, float | None] = dict.fromkeys(self.counts)
        self.probe_every = self.min_probe_every = probe_every
        self.max_probe_every = max_probe_every
        self._set, self._clock = set_threads, clock
        self.current = self.counts[-1]
        self._best = self.current
        self._since_probe = 0
        self._last: float | None = None
        self._set(self.current)

    def step(self, work: int) -> int:
        """Record one iteration of `work` agent steps with the current count; returns the next count."""
        now = self._clock()
        last, self._last = self._last, now
        if last is None or now <= last:  # the first call starts the clock
            return self.current
        rate = work / (now - last)
        probed = self.current != self._best and self.rates[self.current] is not None
        old = self.rates[self.current]
        # A count's estimate is the mean of its last two iterations, or the last alone after a probe
        # or a change of more than a quarter (the load changed: the old figure is stale).
        if old is not None and not probed and abs(rate - old) <= 0.25 * old:
            rate = 0.5 * (old + rate)
        self.rates[self.current] = rate
        unmeasured = [n for n in self.counts if self.rates[n] is None]
        if unmeasured:
            return self._use(unmeasured[-1])
        best = max(self.counts, key=lambda n: self.rates[n] or 0.0)
        if probed:  # the probe's answer: switch if it won, otherwise wait longer before the next
            self.probe_every = self.min_probe_every if best != self._best else min(
                2 * self.probe_every, self.max_probe_every)
        self._best = best
        self._since_probe += 1
        if self._since_probe >= self.probe_every and len(self.counts) > 1:
            self._since_probe = 0
            runner_up = max((n for n in self.counts if n != best), key=lambda n: self.rates[n] or 0.0)
            return self._use(runner_up)
        return self._use(best)

    def _use(self, count: int) -> int:
        if count != self.current:
            self.current = count
            self._set(count)
        return count
