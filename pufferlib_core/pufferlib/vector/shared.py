"""The shared-memory block of the multiprocessing vectorizer and the loop of its workers.

The block holds, in order: the synchronisation slots of `pufferlib.vector._sync` (two
64-byte header slots, then one per worker) and the six batch arrays of
`pufferlib.environment.Buffers` for every agent row, each 64-byte aligned. The main
process creates it (a `SharedBlock`), workers inherit it and step their block of envs
straight into it, so observations, rewards, dones, masks and actions are
never pickled. Only non-empty infos and errors travel, pickled, through a pipe.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import RawArray
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from pufferlib._emulation import step_group
from pufferlib.cpu.probe import Prober
from pufferlib.emulation import step_pairs
from pufferlib.environment import Buffers
from pufferlib.vector import _sync
from pufferlib.vector.base import create_env

if TYPE_CHECKING:
    from pufferlib.environment import PufferEnv
    from pufferlib.protocols import EnvCreator, Info

SLOT = _sync.SLOT_BYTES
HEADER = _sync.HEADER_BYTES
ALIGN = 64
#: How often an idle worker checks that the main process is still alive.
PARENT_CHECK_MS = 1000.0
#: How often a worker's watcher thread checks it (also while an env is stuck in step or __init__).
PARENT_WATCH_MS = 200.0


@dataclass(frozen=True)
class Layout:
    """Where every array lives in the block: field -> (shape, dtype str, byte offset)."""

    num_workers: int
    arrays: tuple[tuple[str, tuple[int, ...], str, int], ...]
    nbytes: int

    @classmethod
    def plan(cls, obs_space: spaces.Space[object], act_space: spaces.Space[object], num_agents: int,
             num_workers: int) -> Layout:
        """Lay out the slots and the batch arrays of `num_agents` rows."""
        specs: list[tuple[tuple[int, ...], np.dtype]] = []

        def record(shape: tuple[int, ...], dtype: npt.DTypeLike) -> np.ndarray:
            specs.append((tuple(shape), np.dtype(dtype)))
            return np.empty(0, dtype)

        Buffers.allocate(obs_space, act_space, num_agents, alloc=record)
        offset, arrays = HEADER + SLOT * num_workers, []
        for field, (shape, dtype) in zip(fields(Buffers), specs):
            offset = -(-offset // ALIGN) * ALIGN
            arrays.append((field.name, shape, dtype.str, offset))
            offset += int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        return cls(num_workers, tuple(arrays), max(offset, 1))

    def buffers(self, buf: np.ndarray) -> Buffers:
        """The batch arrays as views of the block `buf`."""
        return Buffers(**{name: np.ndarray(shape, np.dtype(dtype), buffer=buf, offset=offset)
                          for name, shape, dtype, offset in self.arrays})

    def slot_field(self, buf: np.ndarray, offset: int, dtype: npt.DTypeLike) -> np.ndarray:
        """One field of every worker slot as a strided array (index = worker)."""
        return np.ndarray((self.num_workers,), np.dtype(dtype), buffer=buf, offset=HEADER + offset,
                          strides=(SLOT,))


class SharedBlock:
    """Shared memory without a name, for fork, spawn and forkserver workers alike.

    It comes from multiprocessing's shared heap: a file that is unlinked as soon as it
    is created and travels to spawned workers as a file descriptor. Nothing is left in
    /dev/shm even if every process is killed, and no resource-tracker process is needed.
    The mapping is freed with the last array that uses it.
    """

    def __init__(self, nbytes: int):
        self.nbytes = nbytes
        self._raw = RawArray(ctypes.c_uint8, nbytes + ALIGN)
        self._array: np.ndarray | None = None

    @property
    def array(self) -> np.ndarray:
        """The block as 64-byte aligned bytes (uint8) of this process's mapping."""
        if self._array is None:
            raw = np.frombuffer(memoryview(self._raw), np.uint8)  # numpy's types take no ctypes array
            start = -raw.ctypes.data % ALIGN
            self._array = raw[start:start + self.nbytes]
        return self._array

    def __getstate__(self) -> dict[str, object]:
        return {"nbytes": self.nbytes, "_raw": self._raw, "_array": None}


# Field offsets inside a worker slot (see _sync.c).
STATE, SEQ, SEED, HAS_SEED = 0, 8, 16, 24


class SpinPolicy:
    """Whether the waits of the main process and of its workers spin, chosen from measured cycles.

    Spinning saves the wake-up latency of a sleeping process, but pays only while the process
    waited for runs on another core, and only when both sides spin: a spinning main process
    waits just as long for a sleeping worker as a sleeping one does. A policy on each side,
    judging its own waits, locks both into sleeping once either backs off (each side's probe
    fails because the other sleeps). So one policy, in the main process, decides for both sides
    and publishes the spin in the shared block (`publish`, i.e. `Flags.set_spin`); the workers
    read it at every wait.

    It measures what the user pays: the cycle, from one wait of the main process for its
    workers to the next (a recv/send pair with all that happens between), over windows of at
    least WINDOW_CYCLES cycles and WINDOW_S seconds. It keeps the mode (spin up to `spin_us`,
    or sleep at once) whose last window was faster, and after `stint` windows times the other
    mode over as many cycles as that window held. The probe takes over when it is faster by
    MARGIN (spinning must win by MARGIN; sleeping wins ties, as it leaves the cores to
    others). It ends, lost, as soon as it can no longer win, or when its mean cycle is slower
    after WINDOW_CYCLES cycles, so that a losing probe costs at most the lesser of one window
    and WINDOW_CYCLES slow cycles. Each lost probe doubles `stint` (up to MAX_STINT); a won
    one resets it to one window. That schedule, margin and back-off are those of
    `pufferlib.cpu.probe.Prober` (a window is the measurement; a probe is not a window).
    On a loaded machine, where any spin is slow, that keeps the time spent probing to about one
    window in MAX_STINT.
    Cycles over MAX_CYCLE_S are the user's pauses, not the vectorizer's, and are not counted.
    With `adaptive=False` every wait spins `spin_us`.

    It also counts, for diagnosis (`benchmarks/bench_multiprocessing.py` prints them): the
    main process's waits, how many spun, how many of those ended within the spin, the seconds
    waited, the probes and the switches of mode.
    """

    WINDOW_CYCLES = 16
    WINDOW_S = 0.01
    MARGIN = 0.05
    MAX_STINT = 64
    MAX_CYCLE_S = 0.1

    def __init__(self, publish: Callable[[float], None], spin_us: float, adaptive: bool = True) -> None:
        self.spin_us = float(spin_us)
        self.adaptive = adaptive and self.spin_us > 0
        self.current = self.spin_us  # what every wait spins now, in microseconds
        self._publish = publish
        # `stint` windows of the chosen mode between probes: one at first and after a won probe
        self._prober = Prober(1, self.MAX_STINT, self.MARGIN)
        self._probing = False
        self._bound = 0.0  # while probing: the probe wins by running _best_cycles cycles in less
        self._last: float | None = None  # when the previous cycle began
        self._cycles, self._elapsed = 0, 0.0  # of the window (or the probe) being measured
        self._best_cycles, self._best_elapsed = 0, 0.0  # of the chosen mode's last window
        self.waits = self.spun = self.paid = self.probes = self.switches = 0
        self.waited_s = 0.0
        publish(self.current)

    @property
    def stint(self) -> int:
        """Windows of the chosen mode from the end of one probe to the beginning of the next."""
        return self._prober.interval

    def record(self, waited_s: float) -> None:
        """Account one finished wait of the main process that lasted `waited_s` seconds."""
        self.waits += 1
        self.waited_s += waited_s
        if self.current > 0:
            self.spun += 1
            self.paid += waited_s * 1e6 <= self.current

    def cycle(self, now: float) -> None:
        """Mark the start of a cycle (a wait of the main process for its workers) at time `now`
        (`time.perf_counter()`); at the end of a window, keep, probe or switch the mode."""
        last, self._last = self._last, now
        if not self.adaptive or last is None or now - last > self.MAX_CYCLE_S:
            return
        self._cycles += 1
        self._elapsed += now - last
        if self._probing:
            bound = self._bound
            slower = self._elapsed * self._best_cycles > bound * self._cycles
            if self._elapsed >= bound or (slower and self._cycles >= self.WINDOW_CYCLES):  # it has lost
                self._end_probe(won=False)
            elif self._cycles >= self._best_cycles:
                self._best_elapsed = self._elapsed
                self.switches += 1
                self._end_probe(won=True)
        elif self._cycles >= self.WINDOW_CYCLES and self._elapsed >= self.WINDOW_S:
            self._best_cycles, self._best_elapsed = self._cycles, self._elapsed
            self._cycles, self._elapsed = 0, 0.0
            if self._prober.due():
                self._start_probe()

    def _start_probe(self) -> None:
        """Switch to the other mode and set the time its probe must beat."""
        self._probing = True
        self.probes += 1
        self._flip()
        self._bound = self._prober.deadline(self._best_elapsed, favoured=not self.current > 0)

    def _end_probe(self, won: bool) -> None:
        self._probing = False
        self._cycles, self._elapsed = 0, 0.0
        self._prober.settle(won)
        if not won:
            self._flip()

    def _flip(self) -> None:
        """Change mode (spinning <-> sleeping) and publish it."""
        self.current = 0.0 if self.current > 0 else self.spin_us
        self._publish(self.current)


@dataclass
class WorkerSpec:
    """Everything a worker needs; pickled under spawn/forkserver, inherited under fork."""

    index: int
    block: SharedBlock
    layout: Layout
    creators: Sequence[EnvCreator]
    args: Sequence[tuple[object, ...]]
    kwargs: Sequence[dict[str, object]]
    in_place: bool
    first_env: int
    like: SimpleNamespace  # single_observation_space, single_action_space, num_agents of env 0
    parent_pid: int | None = None  # the main process; None when another process starts workers (forkserver)


def worker_main(spec: WorkerSpec, conn: Connection) -> None:
    """Entry point of a worker process: create its envs, then serve commands until CLOSE.

    Ctrl-C is left to the main process (which closes the workers); a worker also exits
    by itself when its parent process disappears, even while one of its envs hangs
    (`_sync.exit_with_parent`: a C thread that needs no GIL).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    if spec.parent_pid is not None and parent != spec.parent_pid:
        return  # the main process died before this worker started
    _sync.exit_with_parent(parent, PARENT_WATCH_MS)
    block = spec.block.array
    flags = _sync.Flags(block, spec.layout.num_workers)
    seeds = spec.layout.slot_field(block, SEED, np.int64)
    has_seed = spec.layout.slot_field(block, HAS_SEED, np.uint32)
    envs: list[PufferEnv] = []
    w, cmd = spec.index, _sync.INIT
    try:
        buffers = spec.layout.buffers(block)
        n = spec.like.num_agents
        for k in range(len(spec.creators)):
            i = spec.first_env + k
            envs.append(create_env(spec.creators[k], spec.args[k], spec.kwargs[k],
                                   buffers.slice(i * n, (i + 1) * n), spec.in_place, spec.like, i))
        steps = step_pairs(envs)
        while True:
            payload = b""
            if cmd == _sync.STEP:
                infos: list[Info] = []
                step_group(steps, infos)
                payload = pickle.dumps(infos, pickle.HIGHEST_PROTOCOL) if infos else b""
            elif cmd == _sync.RESET:
                seed = int(seeds[w]) if has_seed[w] else None
                infos = []
                for k, env in enumerate(envs):
                    infos.extend(env.reset(seed=None if seed is None else seed + k)[1] or ())
                payload = pickle.dumps(infos, pickle.HIGHEST_PROTOCOL) if infos else b""
            if not flags.post(w, cmd, _sync.READY_INFOS if payload else _sync.READY):
                break  # the main process replaced the command by CLOSE
            if payload:
                conn.send_bytes(payload)
            cmd = -1
            while cmd == -1:  # spinning as long as the main process's SpinPolicy says
                cmd = flags.wait_command(w, PARENT_CHECK_MS)
                if cmd == -1 and os.getppid() != parent:
                    return
            if cmd == _sync.CLOSE:
                break
    except Exception:
        text = traceback.format_exc().rstrip()
        if cmd >= 0 and flags.post(w, cmd, _sync.ERROR):
            conn.send_bytes(pickle.dumps(text))
    finally:
        for env in envs:
            try:
                env.close()
            except Exception:
                print(f"pufferlib worker {w}: env.close() failed:\n{traceback.format_exc()}", file=sys.stderr)
        flags.release()
        conn.close()

