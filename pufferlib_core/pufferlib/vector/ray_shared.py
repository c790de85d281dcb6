"""Ray actors on the driver's node, served through shared memory like multiprocessing workers.

A remote call per actor per step is dear (submit, object store, actor wake-up, result).
Actors that Ray placed on the driver's own node need none of that: the driver lays out the
multiprocessing backend's shared block (slots and batch arrays, `pufferlib.vector.shared.Layout`)
in an anonymous memory file (`memfd_create`), and each actor maps it through
`/proc/<driver pid>/fd/<fd>` and runs the multiprocessing worker loop (`shared.worker_main`)
inside one long remote call. A step is then a flag in shared memory and a futex wake-up, as in
`Multiprocessing`, whose driver side `SharedMemoryActors` reuses unchanged: actions and
observations never travel through Ray, and infos and error tracebacks go through a pipe that
the actor opens the same way.

This module holds the pieces (the memory file, the actor's `serve`, the process stand-in the
driver watches); `pufferlib.vector.ray.SharedMemoryActors`, a `Multiprocessing` and a `Ray`, is
the transport built from them, which `Ray(...)` returns when every actor is on this node.

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
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

import numpy as np

from pufferlib.vector.shared import WorkerSpec, worker_main

if TYPE_CHECKING:
    pass


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
        """Close the driver's descriptor (once every actor has mapped the block); idempotent."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __getstate__(self) -> dict:
        """The block as another process needs it: the /proc path and identity, no descriptor or mapping."""
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
        """Whether the actor's `serve` call is still running."""
        return not self._ray.wait([self.serving], timeout=0)[0]

    def join(self, timeout: float | None = None) -> None:
        """Wait up to `timeout` seconds (None: forever) for the `serve` call to end."""
        self._ray.wait([self.serving], timeout=timeout)

    def terminate(self) -> None:
        """Kill the actor (Ray ends its process)."""
        self._ray.kill(self.actor)

    kill = terminate
