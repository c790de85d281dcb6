"""Folder locks: one process at a time writes a folder (a sweep, a training run), or one file
of it (a league's database).

Contract: `folder_lock(folder, what)` holds an exclusive OS lock (`fcntl.flock`) on the file
`LOCK_FILE` inside `folder` (both created if missing; `name=` another lock file, for a writer of
one file that may work beside the folder's writer) for the duration of the block, and
writes the holder's PID into it. The operating system releases the lock when the holder
closes it or dies, however it dies (`kill -9` included), so a lock is never stale and nothing
needs cleaning up; the file itself stays. A second holder, in this process or any other, gets
an `APIUsageError` at once (it never waits) naming the folder and the PID that holds it.
The lock is advisory: it keeps out the writers that take it, nothing else. Processes forked
(not exec'd) while it is held share it: it is free once they have all exited.

POSIX only (`fcntl`), as the core is (Linux is its platform).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from pufferlib.errors import APIUsageError

#: The lock file's name inside a locked folder.
LOCK_FILE = ".lock"


def _holder(fd: int) -> str:
    """Who holds the lock: 'another process (PID N)' from the PID in the lock file, if it is there yet."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return f"another process (PID {text})" if text.isdigit() else "another process"


@contextlib.contextmanager
def folder_lock(folder: str | Path, what: str, name: str = LOCK_FILE) -> Iterator[Path]:
    """Hold the lock of `folder` (creating the folder) for the block; yields the lock file's path.

    `what` names what the holder writes there, for the error a second holder gets, e.g.
    "a sweep". `name`: the lock file's name in `folder`. Raises APIUsageError when another
    holder has the lock.
    """
    path = Path(folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise APIUsageError(f"{folder} is in use: {_holder(fd)} is writing {what} there (it holds the lock "
                                f"{path}); wait for it to end or stop it, then try again.") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield path
        finally:
            os.ftruncate(fd, 0)  # no PID left behind once the lock is free
    finally:
        os.close(fd)  # releases the lock
