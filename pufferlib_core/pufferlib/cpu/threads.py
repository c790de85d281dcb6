"""Choosing torch's CPU thread count from measured training speed (`train.cpu_threads = 0`).

Several intra-op threads speed up a large network on an idle machine, and slow it down
badly on a busy one: when another process takes a core, the threads that still run wait
at each operation's barrier for the one that does not. No count is best everywhere, and
the load changes during a run (parallel sweep trials, a user's other jobs), so
`ThreadTuner` measures instead of guessing.

Contract: `step(work)` is called once per training iteration (collect + update) with the
agent steps it covered. The tuner starts with all candidate threads, times iterations with
the count in use, keeps the fastest count measured, and now and then tries another for one
iteration (a probe): a count not measured yet, else the runner-up. Probes come every
`probe_every` iterations, the probe's own included (doubling up to `max_probe_every` while the
choice stands, back to `probe_every` when a probe wins): the schedule of
`pufferlib.cpu.probe.Prober`, which `SpinPolicy` of the multiprocessing backend shares. A probe
of a count not measured yet under the current load neither doubles nor resets the interval.
Speeds are kept apart by load: whether other processes take at least `busy_cores` of CPU
(`OtherLoad`, on Linux). When that changes, the tuner switches at
once to the best count it measured under the new load, or, with none measured, to one thread
beside load and all of them on a quiet machine. `follow_load` makes that switch; `step` calls
it, and so does the trainer before every acting step, so a machine that turns busy costs a
window of `OtherLoad` (0.25 s) at the wrong count, and a load that comes back costs nothing.
A probe of a slower count costs one iteration. The choice is applied with `set_threads`
(`set_torch_threads`) when it changes.

`set_torch_threads` is the one place in the core that calls `torch.set_num_threads`.

`WorkerThreads` is the other answer to the same barrier problem: coarse jobs (a minibatch's
microbatches, `pufferlib.train.gradient`) on threads of few intra-op threads each (one on a small
machine), which share the cores dynamically: a thread that the scheduler delays simply takes
fewer jobs. torch's intra-op count is per thread, so the tuner's count (the main thread's) and
the workers' do not interfere.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import torch

from pufferlib.cpu.probe import Prober


def set_torch_threads(count: int) -> int:
    """Set torch's intra-op thread count of the calling thread to `count`; returns the count it had.

    The core's one caller of `torch.set_num_threads`. It calls it even when the count is
    already `count`: the call also sets the process-wide count that threads started later begin
    with, which the calling thread's own count does not show (see `WorkerThreads`). It reads the
    count before (`torch.get_num_threads`) first, which also gives a thread that never used
    torch its count from the process-wide one before it sets its own (see `_own_intra_op`).
    """
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    return before


def candidate_counts(cores: int) -> list[int]:
    """Thread counts worth trying on `cores` cores: 1, the powers of two below, and all of them."""
    counts, n = [], 1
    while n < cores:
        counts.append(n)
        n *= 2
    return counts + [cores]


class OtherLoad:
    """CPU used by other processes (all but this one), in cores, between calls.

    From the machine's busy time in /proc/stat (user, nice, system, irq, softirq and steal:
    a hypervisor's steal is a taken core too) less this process's own CPU time (all its
    threads). Returns None where /proc/stat does not exist, and until `min_seconds` have
    passed since the last reading (the counters tick every 10 ms: a shorter window reads
    noise), which then spans the calls in between. Child processes (e.g. the
    multiprocessing backend's env workers) count as others.
    """

    _TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def __init__(self, min_seconds: float = 0.25) -> None:
        self.min_seconds = min_seconds
        self._last = self._sample()

    def _sample(self) -> tuple[float, float, float] | None:
        try:
            with open("/proc/stat") as f:
                fields = [int(x) for x in f.readline().split()[1:9]]
        except (OSError, ValueError):
            return None
        busy = (sum(fields[0:3]) + sum(fields[5:8])) / self._TICKS
        own = os.times()
        return busy, own.user + own.system, time.monotonic()

    def __call__(self) -> float | None:
        """Cores taken by other processes, on average since the last reading; None as the class doc says."""
        last = self._last
        if last is None or time.monotonic() - last[2] < self.min_seconds:  # cheap when called often
            return None
        now = self._sample()
        if now is None:
            return None
        self._last = now
        return max(0.0, (now[0] - last[0]) - (now[1] - last[1])) / (now[2] - last[2])


class ThreadTuner:
    """Keeps the fastest of `counts` threads by measured agent steps per second (see module doc).

    `probe_every`, `max_probe_every`: iterations from one probe to the next at first and after a
    won probe, and at most after lost ones (`prober`). `set_threads` applies a count, `clock`
    times iterations, `others` reads the cores other processes take (`OtherLoad`; None: load is
    not followed), `busy_cores` is the load from which the machine counts as busy.
    """

    def __init__(self, counts: Sequence[int], probe_every: int = 8, max_probe_every: int = 32,
                 set_threads: Callable[[int], object] = set_torch_threads,
                 clock: Callable[[], float] = time.perf_counter,
                 others: Callable[[], float | None] | None = None, busy_cores: float = 0.5) -> None:
        if not counts or min(counts) < 1:
            raise ValueError(f"thread counts must be positive, got {list(counts)}")
        self.counts = sorted(set(counts))
        # Speeds measured on a quiet machine say nothing of speeds beside other load, and back:
        # one table each, and `rates` is the table of the load seen last.
        self._rates_by_load: dict[bool, dict[int, float | None]] = {
            busy: dict.fromkeys(self.counts) for busy in (False, True)}
        self._busy = False  # whether other processes took at least busy_cores, last we looked
        self.rates = self._rates_by_load[self._busy]
        self.prober = Prober(probe_every, max_probe_every)  # an iteration is the measurement
        self._set, self._clock = set_threads, clock
        self.current = self.counts[-1]
        self._best = self.current
        self._last: float | None = None
        self._others, self.busy_cores = others, busy_cores
        self._load_moved = False  # the load changed during the iteration being timed
        self._set(self.current)

    def step(self, work: int) -> int:
        """Record one iteration of `work` agent steps with the current count; returns the next count."""
        now = self._clock()
        last, self._last = self._last, now
        self.follow_load()
        if self._load_moved:  # the iteration ran under both loads: no figure for either
            self._load_moved = False
            return self.current
        if last is None or now <= last:  # the first call starts the clock
            return self.current
        rate = work / (now - last)
        probed = self.current != self._best and self.rates[self.current] is not None
        old = self.rates[self.current]
        # A count's estimate is the mean of its last two iterations, or the last alone after a probe
        # or a change of more than a quarter (the load changed unseen: the old figure is stale).
        if old is not None and not probed and abs(rate - old) <= 0.25 * old:
            rate = 0.5 * (old + rate)
        self.rates[self.current] = rate
        best = max(self.counts, key=lambda n: self.rates[n] or 0.0)
        if probed:  # the probe's answer: it won if it is now the fastest; a lost one waits longer for the next
            self.prober.settle(won=best != self._best)
        self._best = best
        if self.prober.due():  # this iteration counted, the probe's own included
            return self._use(self._probe(best))
        return self._use(best)

    @property
    def probe_every(self) -> int:
        """Iterations from the last probe's beginning to the next's, as the schedule stands now."""
        return self.prober.interval

    def follow_load(self) -> bool:
        """If other processes started or stopped taking `busy_cores` since the last look, switch
        at once to the best count known under the new load; True if it changed. `step` calls it,
        and the trainer before every acting step: a load that arrives costs at most a window of
        `OtherLoad` (0.25 s) at the wrong count, not the rest of an iteration. An iteration in
        which the load changed gives no speed figure."""
        if not self._load_changed():
            return False
        self.rates = self._rates_by_load[self._busy]
        self._best = self._known_best()
        self.prober.restart()
        self._use(self._best)
        self._load_moved = True
        return True

    def _known_best(self) -> int:
        """The fastest count measured under the current load; before any, the fewest threads
        beside other load (which makes threads wait on each other) and all of them on a quiet machine."""
        measured = [n for n in self.counts if self.rates[n] is not None]
        if measured:
            return max(measured, key=lambda n: self.rates[n] or 0.0)
        return self.counts[0] if self._busy else self.counts[-1]

    def _load_changed(self) -> bool:
        """Whether other processes started or stopped taking `busy_cores` since the last look."""
        shared = self._others() if self._others is not None else None
        if shared is None or (shared >= self.busy_cores) == self._busy:
            return False
        self._busy = not self._busy
        return True

    def _probe(self, best: int) -> int:
        """The count to try next instead of `best`: one not measured yet, else the runner-up."""
        if len(self.counts) == 1:
            return best
        unmeasured = [n for n in self.counts if self.rates[n] is None and n != best]
        if unmeasured:
            return unmeasured[-1]
        return max((n for n in self.counts if n != best), key=lambda n: self.rates[n] or 0.0)

    def _use(self, count: int) -> int:
        if count != self.current:
            self.current = count
            self._set(count)
        return count


@contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """torch's intra-op thread count of the calling thread set to `count` inside the block."""
    before = set_torch_threads(count)
    try:
        yield
    finally:
        set_torch_threads(before)


class WorkerThreads(ThreadPoolExecutor):
    """A `ThreadPoolExecutor` of `count` threads, all started at once, each with `intra_op` torch
    intra-op threads of its own. `shutdown()` (or collection) stops them."""

    def __init__(self, count: int, intra_op: int = 1) -> None:
        if count < 1 or intra_op < 1:
            raise ValueError(f"WorkerThreads needs count and intra_op >= 1, got {count} and {intra_op}")
        super().__init__(count, "pufferlib-worker", initializer=_own_intra_op, initargs=(intra_op,))
        self.count = count
        own = torch.get_num_threads()
        ready = threading.Barrier(count + 1)
        for _ in range(count):  # a busy thread per job submitted: the pool starts all of its threads
            self.submit(ready.wait)
        ready.wait()
        # The workers' set_torch_threads also set the count that threads started later begin with.
        set_torch_threads(own)


def _own_intra_op(count: int) -> None:
    # torch sets a thread's count from the process-wide one when the thread first uses it:
    # set_torch_threads uses it first (reading the count), then sets this thread's own.
    set_torch_threads(count)
