"""Ray actors on the driver's node, served through shared memory like multiprocessing workers.

A remote call per actor per step costs about a millisecond on a small machine (submit,
object store, actor wake-up, result). Actors that Ray placed on the driver's own node need
none of that: the driver lays out the multiprocessing backend's shared block (slots and
batch arrays, `pufferlib.vector.shared.Layout`) in an anonymous memory file
(`memfd_create`), and each actor maps it through `/proc/<driver pid>/fd/<fd>` and runs the
multiprocessing worker loop (`shared.worker_main`) inside one long remote call. A step is
then a flag in shared memory and a futex wake-up, as in `Multiprocessing`, whose driver
side this class reuses unchanged: actions and observations never travel through Ray, and
infos and error tracebacks go through a pipe that the actor opens the same way.

Contract: the same as `pufferlib.vector.multiprocessing` (sync and async APIs, seeds, zero
copy). Linux only (memfd and /proc). The memory file is unnamed: nothing is left in
/dev/shm whatever dies. An actor that dies (or whose `serve` call fails) is seen within
LIVENESS_S by the waiting driver and gives a `WorkerError` naming the actor, its node and
envs; `close()` ends the worker loops and kills the actors. When the driver dies, Ray kills
its actors (their owner is gone).
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from types import SimpleNamespace
from typing import Any, cast

import numpy as np

from pufferlib.errors import WorkerError
from pufferlib.vector.multiprocessing import Multiprocessing
from pufferlib.vector.shared import WorkerSpec, worker_main


def available() -> bool:
    """Whether this platform can share memory with actors by /proc (Linux)."""
    return hasattr(os, "memfd_create") and os.path.isdir(f"/proc/{os.getpid()}/fd")


def _proc_path(fd: int) -> str:
    return f"/proc/{os.getpid()}/fd/{fd}"


def _identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _open_as(path: str, identity: tuple[int, int], flags: int) -> int:
    """Open the driver's descriptor at `path`; refuse any other file (e.g. were this actor on
    another host, or the driver's pid reused), rather than share memory with a stranger."""
    fd = os.open(path, flags)
    if _identity(fd) != identity:
        os.close(fd)
        raise RuntimeError(f"{path} is not the driver's shared memory: this actor does not run on the "
                           "driver's host. Use transport='object_store'.")
    return fd


class MemfdBlock:
    """A shared block in an anonymous memory file, mapped by other processes through /proc.

    Same interface as `shared.SharedBlock` (`nbytes`, `array`). Pickled, it carries the
    /proc path of the driver's descriptor; `release_fd()` closes that descriptor once every
    actor has mapped the block, after which the memory lives as long as its mappings.
    """

    def __init__(self, nbytes: int):
        self.nbytes = nbytes
        self._fd: int | None = os.memfd_create("pufferlib-ray", os.MFD_CLOEXEC)
        os.ftruncate(self._fd, nbytes)
        self.path, self.identity = _proc_path(self._fd), _identity(self._fd)
        self._array: np.ndarray | None = None

    @property
    def array(self) -> np.ndarray:
        """The block as bytes (uint8) of this process's mapping (page-aligned)."""
        if self._array is None:
            fd = self._fd if self._fd is not None else _open_as(self.path, self.identity, os.O_RDWR)
            try:
                self._array = np.frombuffer(mmap.mmap(fd, self.nbytes), np.uint8)
            finally:
                if fd != self._fd:
                    os.close(fd)
        return self._array

    def release_fd(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __getstate__(self) -> dict:
        return {"nbytes": self.nbytes, "path": self.path, "identity": self.identity, "_fd": None, "_array": None}


def serve(spec: WorkerSpec, pipe_path: str, pipe_identity: tuple[int, int]) -> None:
    """Run in an actor: the multiprocessing worker loop over the driver's block until CLOSE."""
    worker_main(spec, Connection(_open_as(pipe_path, pipe_identity, os.O_WRONLY), readable=False))


class _ActorProcess:
    """What `Multiprocessing` needs of a worker process, for an actor running `serve`."""

    exitcode = None

    def __init__(self, ray: Any, actor: Any, serving: Any, pid: int):
        self._ray, self.actor, self.serving, self.pid = ray, actor, serving, pid

    def is_alive(self) -> bool:
        return not self._ray.wait([self.serving], timeout=0)[0]

    def join(self, timeout: float | None = None) -> None:
        self._ray.wait([self.serving], timeout=timeout)

    def terminate(self) -> None:
        self._ray.kill(self.actor)

    kill = terminate


class SharedMemoryActors(Multiprocessing):
    """`Multiprocessing` whose workers are Ray actors on this node (see module doc): the
    shared-memory transport of `pufferlib.vector.ray.Ray`.

    `actors`: one started actor per worker (with a `serve` method that calls `serve` above);
    `pids`/`nodes`: their process ids and node names, for error messages. `timeout`: longest
    wait for a step or reset, and for the actors to create their envs.
    """

    transport = "shared_memory"

    def __init__(self, ray: Any, actors: list, pids: list[int], nodes: list[str],
                 env_creators: Sequence[Callable], env_args: Sequence[tuple], env_kwargs: Sequence[dict],
                 num_envs: int, batch_size: int | None, seed: int | None, timeout: float | None):
        self._ray, self._actors, self._actor_pids, self._nodes = ray, actors, pids, nodes
        #: Node and process id of each actor (as `ObjectStoreActors` has them).
        self.actor_nodes, self.actor_pids = nodes, pids
        self._write_ends: list[int] = []
        try:
            super().__init__(env_creators, env_args, env_kwargs, num_envs, batch_size, seed,
                             num_workers=len(actors), timeout=timeout, init_timeout=timeout)
        finally:
            self._release_fds()  # every actor has its own descriptors now (or has failed)

    def _new_block(self, nbytes: int) -> MemfdBlock:
        return MemfdBlock(nbytes)

    def _start_workers(self, creators, args, kwargs, in_place, layout) -> None:
        like = SimpleNamespace(single_observation_space=self.single_observation_space,
                               single_action_space=self.single_action_space, num_agents=self.agents_per_env)
        for w, actor in enumerate(self._actors):
            envs = slice(w * self.envs_per_worker, (w + 1) * self.envs_per_worker)
            spec = WorkerSpec(w, self._block, layout, creators[envs], args[envs], kwargs[envs], in_place,
                              envs.start, like, None)
            read_end, write_end = os.pipe()
            self._conns.append(Connection(read_end, writable=False))
            self._write_ends.append(write_end)
            serving = actor.serve.remote(spec, _proc_path(write_end), _identity(write_end))
            # what Multiprocessing uses of a process, _ActorProcess has
            self._procs.append(cast(Any, _ActorProcess(self._ray, actor, serving, self._actor_pids[w])))

    def _release_fds(self) -> None:
        if hasattr(self, "_block"):
            self._block.release_fd()
        for fd in self._write_ends:  # from now on a dead actor's pipe reads as closed
            os.close(fd)
        self._write_ends.clear()

    def _envs_of(self, w: int) -> str:
        return f"{super()._envs_of(w)} on node {self._nodes[w]}"

    def _raise_dead(self, w: int) -> None:
        proc = cast(_ActorProcess, self._procs[w])
        try:
            self._ray.get(proc.serving, timeout=1.0)
            why = "its worker loop returned"
        except Exception as exc:  # noqa: BLE001 - whatever ended it goes into the message
            why = f"{type(exc).__name__}: {exc}".splitlines()[0]
        self.close()
        raise WorkerError(f"Ray actor {w} ({self._envs_of(w)}) died (pid {proc.pid}; {why}): the actor "
                          "process or its node ended. The vectorized env is closed; create a new one.")

    def close(self) -> None:
        """End the worker loops, then kill the actors; safe to call more than once."""
        if self.closed:
            return
        try:
            super().close()
        finally:
            self._release_fds()
            for actor in self._actors:
                self._ray.kill(actor)
