"""Multiprocessing vectorization: worker processes step blocks of envs on shared memory.

`num_envs` envs are split into `num_workers` contiguous blocks of `envs_per_worker`.
Each worker steps its block one env after another (as `Serial` does), writing straight
into the shared batch arrays; the main process and the workers synchronise through
flags in the same shared block (`pufferlib.vector._sync`, a small C extension: atomics,
a brief spin, then a futex on Linux; whether both sides spin is chosen from measured
cycle times, `shared.SpinPolicy`). Infos are pickled only when non-empty.

Contract of the async API (EnvPool semantics), with `batch_size` counted in envs:

- `async_reset(seed)` resets every env (env i gets `seed + i`) and starts them all.
- `recv()` waits until `batch_size` envs (whole workers) hold a result and returns the
  batch `(obs, rewards, terminals, truncations, infos, env_ids, masks)` of the workers
  that finished first, in worker order; `env_ids` are the agent rows of the full batch.
- `send(actions)` takes one action per returned row, in that order, and starts those
  envs again. The other workers keep running meanwhile.
- `batch_size == num_envs` is the synchronous case (`reset`/`step`).
- With `zero_copy=True` (default) the arrays are views of the shared memory whenever
  the returned workers are contiguous (always in sync mode); otherwise, or with
  `zero_copy=False`, they are gathered into arrays owned by the vectorizer. Either way
  they are valid until the next `send()`/`recv()`; copy what you keep longer.

Hangs: with `timeout=` (seconds; `[vec] timeout` in configs) a reset or step that a
worker does not finish in time raises `WorkerError` naming the workers, their pids and
envs, and closes the vectorized env; creating the envs in the workers has its own
`init_timeout` (default INIT_TIMEOUT_S). Workers never outlive the main process: a C
thread in each (`_sync.exit_with_parent`) ends it once its parent is gone, even while an
env is stuck. (The first env is created in the main process to learn the spaces; a hang
there is not bounded.)

Start methods: `fork` is the default where Python offers it (Linux and other Unixes
except macOS): workers start fastest and env creators may be lambdas or closures.
`spawn` and `forkserver` work too (creators and their arguments must then be
picklable) and are the choice when the main process runs threads (e.g. CUDA) that
fork would copy in an unsafe state. macOS and Windows default to `spawn`.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import signal
import sys
import time
import weakref
from collections.abc import Sequence
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from pufferlib.cpu.cores import usable_cores
from pufferlib.errors import APIUsageError, WorkerError
from pufferlib.vector import _sync
from pufferlib.vector.base import Backend, check_seed, probe_env
from pufferlib.vector.shared import HAS_SEED, SEED, SEQ, STATE, Layout, SharedBlock, SpinPolicy, WorkerSpec, worker_main

if TYPE_CHECKING:
    from pufferlib.protocols import Batch, EnvCreator, Info

#: Seconds between liveness checks of busy workers while the main process waits.
LIVENESS_S = 0.2
#: Seconds a closing worker gets to close its envs before it is terminated.
CLOSE_GRACE_S = 2.0
#: Default seconds the workers get to create their envs (`init_timeout`).
INIT_TIMEOUT_S = 300.0
#: What a worker was doing, by the command it had not finished (for timeout errors).
_DOING = {_sync.INIT: "creating its envs", _sync.STEP: "step()", _sync.RESET: "reset()"}


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def resolve_layout(num_envs: int, num_workers: int | None, envs_per_worker: int | None,
                   batch_size: int | None) -> tuple[int, int, int]:
    """Check and complete (num_workers, envs_per_worker, batch_size); errors name valid values."""
    if num_workers is None:
        if envs_per_worker is not None:
            if envs_per_worker < 1 or num_envs % envs_per_worker:
                raise APIUsageError(
                    f"envs_per_worker={envs_per_worker} does not divide num_envs={num_envs}; "
                    f"valid values: {_divisors(num_envs)}.")
            num_workers = num_envs // envs_per_worker
        else:
            cores = usable_cores()
            num_workers = max(d for d in _divisors(num_envs) if d <= cores)
    if not isinstance(num_workers, int) or num_workers < 1 or num_workers > num_envs or num_envs % num_workers:
        reason = "is more than num_envs" if isinstance(num_workers, int) and num_workers > num_envs \
            else "does not divide num_envs"
        raise APIUsageError(
            f"num_workers={num_workers} {reason}={num_envs}: each worker needs the same number of envs. "
            f"Valid num_workers for num_envs={num_envs}: {_divisors(num_envs)} "
            f"(or change num_envs to a multiple of {num_workers}).")
    per_worker = num_envs // num_workers
    if envs_per_worker is not None and envs_per_worker != per_worker:
        raise APIUsageError(
            f"envs_per_worker={envs_per_worker} disagrees with num_envs={num_envs} / "
            f"num_workers={num_workers} = {per_worker}; give two of the three consistently.")
    batch_size = num_envs if batch_size is None else batch_size
    valid = list(range(per_worker, num_envs + 1, per_worker))
    if batch_size not in valid:
        raise APIUsageError(
            f"batch_size={batch_size} cannot be filled by whole workers of {per_worker} envs "
            f"(num_envs={num_envs}, num_workers={num_workers}). Valid batch_size values: {valid}.")
    return num_workers, per_worker, batch_size


def default_start_method() -> str:
    """`fork` where Python offers it, except on macOS; `spawn` elsewhere (see module doc)."""
    if sys.platform != "darwin" and "fork" in mp.get_all_start_methods():
        return "fork"
    return "spawn"


#: Default longest spin of a waiting process, in microseconds (adapted: see SpinPolicy). It
#: should outlast what the main process does between a recv and its send (a small policy's
#: acting), or the workers fall asleep every cycle and each pays a kernel wake-up, dearer
#: than the spin. Hence 200 rather than 50: on a quiet machine oversubscribed CartPole and
#: CartPole training both ran faster with it; beside a busy process the policy sleeps at
#: once, so there both values do the same (figures in the CHANGELOG).
SPIN_US = 200.0


class Multiprocessing(Backend):
    """Steps `num_envs` envs in `num_workers` processes through shared memory (see module doc).

    `spin_us`: how long a waiting process (main or worker) spins before it sleeps in the
    kernel. Default: SPIN_US or no spin, whichever makes recv/send cycles faster on this
    machine right now (`shared.SpinPolicy`); a number given here is used for every wait.
    `start_method`: 'fork', 'spawn' or 'forkserver' (default: see `default_start_method`).
    `timeout`: seconds a reset or step may take before the waiting call raises `WorkerError`
    naming the stuck workers and their envs, and closes the vectorized env (default None:
    wait forever). `init_timeout`: the same for creating the envs (default INIT_TIMEOUT_S;
    None: forever). Workers end by themselves when the main process dies, stuck or not.
    """

    def __init__(self, env_creators: Sequence[EnvCreator], env_args: Sequence[tuple[object, ...]],
                 env_kwargs: Sequence[dict[str, object]], num_envs: int, batch_size: int | None = None,
                 seed: int | None = 0, num_workers: int | None = None,
                 envs_per_worker: int | None = None, zero_copy: bool = True,
                 start_method: str | None = None, spin_us: float | None = None,
                 timeout: float | None = None, init_timeout: float | None = INIT_TIMEOUT_S):
        workers, per_worker, batch_size = resolve_layout(num_envs, num_workers, envs_per_worker, batch_size)
        self.timeout, init_timeout = check_timeout("timeout", timeout), check_timeout("init_timeout", init_timeout)
        start_method = start_method or default_start_method()
        if start_method not in mp.get_all_start_methods():
            raise APIUsageError(f"start_method={start_method!r} is not available here; "
                                f"choose one of {mp.get_all_start_methods()}.")
        self.num_workers, self.envs_per_worker, self.zero_copy = workers, per_worker, zero_copy
        self.start_method, self.seed = start_method, check_seed(seed)

        driver, in_place = probe_env(env_creators[0], env_args[0], env_kwargs[0])
        driver.close()
        self.driver_env = driver
        self._init_spaces(driver, num_envs, batch_size)
        self._rows_per_worker = per_worker * self.agents_per_env
        self._workers_per_batch = batch_size // per_worker
        self._worker_rows = np.arange(self.num_agents).reshape(workers, self._rows_per_worker)
        self._all_ids = np.arange(self.num_agents)

        layout = Layout.plan(self.single_observation_space, self.single_action_space,
                             self.num_agents, workers)
        self._block = self._new_block(layout.nbytes)
        buf = self._block.array
        self._flags = _sync.Flags(buf, workers)
        self._spin = SpinPolicy(self._flags.set_spin, SPIN_US if spin_us is None else spin_us,
                                adaptive=spin_us is None)
        self._procs: list[mp.process.BaseProcess] = []
        self._conns: list[Connection] = []
        self._finalizer = weakref.finalize(self, _shutdown, self._flags, self._procs, self._conns)
        self.buffers = layout.buffers(buf)
        self.buffers.masks[:] = True  # as Buffers.allocate does; emulated envs mask absent agents
        self.buffers.outcomes[:] = np.nan  # type: ignore[index]  # Layout.plan lays out every field
        self._bind_batch(self.buffers)
        self._states = layout.slot_field(buf, STATE, np.uint32)
        self._seqs = layout.slot_field(buf, SEQ, np.uint64)
        self._seeds = layout.slot_field(buf, SEED, np.int64)
        self._has_seed = layout.slot_field(buf, HAS_SEED, np.uint32)
        self._states[:] = _sync.INIT
        self._pending = np.ones(workers, np.uint8)  # command sent, result not yet returned
        self._in_flight = workers                   # == self._pending.sum()
        self._held = np.zeros(0, np.int64)          # workers of the batch the user holds
        self._held_mask = np.zeros(workers, np.uint8)
        self._all_mask = np.ones(workers, np.uint8)
        self._held_rows: slice | np.ndarray = slice(0, 0)
        self._all_workers = np.arange(workers)
        self._all_rows = slice(0, self.num_agents)
        self._all_views = tuple(getattr(self.buffers, name)[self._all_rows] for name in
                                ("observations", "rewards", "terminals", "truncations"))
        try:
            self._start_workers(env_creators, env_args, env_kwargs, in_place, layout)
            self._wait(workers, init_timeout)
        except BaseException:
            self.close()
            raise
        self._pending[:] = 0
        self._in_flight = 0

    def _new_block(self, nbytes: int) -> Any:
        """The shared memory of the slots and batch arrays (the Ray backend maps it by another way)."""
        return SharedBlock(nbytes)

    def _start_workers(self, creators: Sequence[EnvCreator], args: Sequence[tuple[object, ...]],
                       kwargs: Sequence[dict[str, object]], in_place: bool, layout: Layout) -> None:
        """Start one worker process per block of envs, each creating its envs on the shared block."""
        ctx = mp.get_context(self.start_method)
        if self.start_method != "fork":
            self._check_picklable(creators, args, kwargs)
        like = SimpleNamespace(single_observation_space=self.single_observation_space,
                               single_action_space=self.single_action_space, num_agents=self.agents_per_env)
        for w in range(self.num_workers):
            envs = slice(w * self.envs_per_worker, (w + 1) * self.envs_per_worker)
            spec = WorkerSpec(w, self._block, layout, creators[envs], args[envs], kwargs[envs], in_place,
                              envs.start, like, None if self.start_method == "forkserver" else os.getpid())
            parent_conn, child_conn = ctx.Pipe()
            # typeshed's BaseContext (what get_context(str) returns) lacks Process; every real context has it
            proc = ctx.Process(target=worker_main, args=(spec, child_conn), daemon=True,  # type: ignore[attr-defined]
                               name=f"pufferlib-worker-{w}")
            self._conns.append(parent_conn)
            try:
                proc.start()
            finally:
                child_conn.close()
            self._procs.append(proc)

    def _check_picklable(self, creators: Sequence[EnvCreator], args: Sequence[tuple[object, ...]],
                         kwargs: Sequence[dict[str, object]]) -> None:
        """Fail early, with the fix, when spawn/forkserver cannot send the creators to workers."""
        try:
            ForkingPickler.dumps((creators, args, kwargs))
        except Exception as exc:
            raise APIUsageError(
                f"start_method={self.start_method!r} pickles the env creators and arguments for "
                f"the workers, and that failed: {exc}. Use a module-level function, a class or "
                "functools.partial as creator, or start_method='fork'.") from exc

    # ---- waiting and errors -------------------------------------------------------

    def _wait(self, need: int, timeout: float | None | bool = False) -> int:
        """Block until `need` pending workers hold a result (return how many hold infos).

        Raises WorkerError when a pending worker reports an exception, has died, or when
        `timeout` seconds pass (default: `self.timeout`; None: no limit).
        """
        if timeout is False:
            timeout = self.timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        slice_ms = LIVENESS_S * 1000
        start = time.perf_counter()
        self._spin.cycle(start)
        while True:
            ready, with_infos = self._flags.wait_ready(self._pending, need, slice_ms)
            self._spin.record(time.perf_counter() - start)
            if ready >= need:
                return with_infos
            if ready < 0:
                failed = np.flatnonzero((self._states == _sync.ERROR) & (self._pending == 1))
                self._raise_worker_error(int(failed[0]))
            for w in np.flatnonzero(self._pending):
                if not self._procs[w].is_alive():
                    self._raise_dead(int(w))
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    assert timeout is not None  # there is a deadline
                    self._raise_timeout(timeout)
                slice_ms = min(LIVENESS_S, left) * 1000
            start = time.perf_counter()

    def _read(self, w: int) -> Any:
        """The next message of worker `w` (it is being written right now): its infos (a list of dicts)
        or its error text (a str), as its state flag says; unpickled, so typed by that flag alone."""
        conn, proc = self._conns[w], self._procs[w]
        while not conn.poll(LIVENESS_S):
            if not proc.is_alive() and not conn.poll(0):
                self._raise_dead(w)
        try:
            return pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            self._raise_dead(w)

    def _take_infos(self, workers: np.ndarray) -> list[Info]:
        """Receive the infos that these workers (just finished) announced."""
        infos: list[Info] = []
        for w in workers:
            if self._states[w] == _sync.READY_INFOS:
                infos.extend(self._read(int(w)))
        return infos

    def _raise_worker_error(self, w: int) -> None:
        text = self._read(w)
        self.close()
        raise WorkerError(f"Worker {w} ({self._envs_of(w)}) raised an exception; its traceback:\n\n{text}\n\n"
                          "The vectorized env is closed; fix the env and create a new one.")

    def _raise_timeout(self, timeout: float) -> None:
        stuck = [int(w) for w in np.flatnonzero(self._pending & (self._states >= _sync.INIT))]
        what = "; ".join(f"worker {w} (pid {self._procs[w].pid}, {self._envs_of(w)}): "
                         f"{_DOING.get(int(self._states[w]), 'its command')}" for w in stuck)
        self.close()
        raise WorkerError(
            f"{len(stuck)} worker(s) did not finish within {timeout:g} s: {what}. An env hangs or is far "
            "slower than expected. The vectorized env is closed (its workers were ended); fix the env, or "
            "create a new one with a larger timeout (timeout=None waits forever).")

    def _raise_dead(self, w: int) -> None:
        proc = self._procs[w]
        proc.join(0.1)
        code = proc.exitcode
        how = f"killed by signal {_signal_name(-code)}" if code is not None and code < 0 \
            else f"exited with code {code}"
        self.close()
        raise WorkerError(
            f"Worker {w} (pid {proc.pid}, {self._envs_of(w)}) died unexpectedly ({how}). Something "
            "outside Python ended it (a crash in native env code, the out-of-memory killer, or a kill "
            "signal). The vectorized env is closed; create a new one.")

    # ---- the async API ------------------------------------------------------------

    def async_reset(self, seed: int | None = None) -> None:
        """Reset every env (env i gets `seed + i`) and start them all; results in flight are dropped."""
        seed = self._reset_seed(seed)
        self._wait(self._in_flight)
        self._take_infos(np.flatnonzero(self._pending))  # results nobody will receive
        for w in range(self.num_workers):
            self._has_seed[w] = seed is not None
            self._seeds[w] = 0 if seed is None else seed + w * self.envs_per_worker
        self._pending[:] = 1
        self._in_flight = self.num_workers
        self._flags.send_many(self._pending, _sync.RESET)
        self._recv_pending = False

    def recv(self) -> Batch:
        """The batch of the first `batch_size` envs (whole workers) to finish, in worker order."""
        need = self._workers_per_batch
        self._check_recv(need <= self._in_flight)
        with_infos = self._wait(need)
        self._recv_pending = True
        if need == self.num_workers:  # synchronous: every worker, always one block
            infos = self._take_infos(self._all_workers) if with_infos else []
            self._pending.fill(0)
            self._in_flight = 0
            self._held, self._held_mask = self._all_workers, self._all_mask
            if not self.zero_copy:
                return self._gather(self._all_workers, infos)
            self._held_rows = self._all_rows
            return (*self._all_views, infos, self._all_ids, self.masks)
        held = np.flatnonzero(self._pending & (self._states < _sync.INIT))
        if len(held) > need:  # the first to finish
            held = np.sort(held[np.argsort(self._seqs[held], kind="stable")[:need]])
        infos = self._take_infos(held)  # checked per worker: one may have finished after the count
        self._pending[held] = 0
        self._in_flight -= need
        self._held, self._held_mask = held, np.zeros(self.num_workers, np.uint8)
        self._held_mask[held] = 1
        first, last = int(held[0]), int(held[-1])
        if not self.zero_copy or last - first + 1 != need:
            return self._gather(held, infos)
        rows = self._held_rows = slice(first * self._rows_per_worker, (last + 1) * self._rows_per_worker)
        return (self.observations[rows], self.rewards[rows], self.terminals[rows],
                self.truncations[rows], infos, self._all_ids[rows], self.masks[rows])

    def _gather(self, held: np.ndarray, infos: list[Info]) -> Batch:
        """The batch of these workers, copied into arrays owned by the vectorizer."""
        rows = self._held_rows = self._worker_rows[held].ravel()
        return self._gather_rows(rows, infos)

    def send(self, actions: npt.ArrayLike) -> None:
        """Act for the rows of the last recv() and start those workers again."""
        self._check_send()
        if self._held_rows is self._all_rows:
            self._write_actions(0, actions)  # the whole batch (group 0): the base class's path
        else:
            self.actions[self._held_rows] = self._act_check(actions, self._batch_act_shape)
        self._recv_pending = False
        self._pending |= self._held_mask
        self._in_flight += len(self._held)
        self._flags.send_many(self._held_mask, _sync.STEP)

    def close(self) -> None:
        """End every worker and free the shared memory; safe to call more than once."""
        if self.closed:
            return
        self.closed = True
        self._finalizer()


def check_timeout(name: str, value: object) -> float | None:
    """`value` as seconds (a number > 0) or None (wait forever); APIUsageError naming `name` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise APIUsageError(f"{name} must be a number of seconds > 0, or None to wait forever; got {value!r}.")
    return float(value)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _shutdown(flags: _sync.Flags, procs: list[mp.process.BaseProcess], conns: list[Connection]) -> None:
    """Ask every worker to close, then terminate stragglers and reap them."""
    try:
        for w in range(len(procs)):
            flags.send(w, _sync.CLOSE)
        deadline = time.monotonic() + CLOSE_GRACE_S
        for proc in procs:
            proc.join(max(0.0, deadline - time.monotonic()))
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
                proc.join(1.0)
            if proc.is_alive():
                proc.kill()
                proc.join()
    finally:
        for conn in conns:
            conn.close()
        flags.release()
