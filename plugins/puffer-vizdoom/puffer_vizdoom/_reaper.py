"""Ends the Doom engines of a process that died without closing its envs.

Each `vizdoom.DoomGame` runs the Doom engine as a child process (the `vizdoom` executable of
the package) and talks to it through three POSIX shared-memory objects named after the game's
instance id (`/dev/shm/ViZDoomSM<id>`, `ViZDoomMQCtr<id>`, `ViZDoomMQDoom<id>`). `game.close()`
ends the engine and removes them; a process killed before it closes its games (a worker process
ended by SIGKILL or SIGTERM, or exiting with its parent) leaves the engines running, orphaned,
and the shared memory behind.

So each process that holds games starts one reaper (`python -m puffer_vizdoom._reaper`, in a
session of its own so that a terminal's Ctrl-C does not reach it) and tells it, on the reaper's
stdin, which engines it holds: `add <pid> <start time> <instance id> <folder>` and `del <pid>`.
The reaper's stdin reaches end of file when the owner closed its last game (then nothing is left
to do) or died (then it SIGKILLs each engine still listed, if the pid still names the same
process, by its start time, and removes that engine's shared-memory objects and its env's private
folder, which holds the engine's configuration file). Linux only (it reads /proc); elsewhere
nothing is started.

The owner side (`watch`, `forget`) starts the reaper with the first game and closes its stdin
with the last, so that no process outlives the envs.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from typing import IO

#: Prefixes of the shared-memory objects of one ViZDoom instance (suffix: the instance id).
SHM_PREFIXES = ("ViZDoomSM", "ViZDoomMQCtr", "ViZDoomMQDoom")
SHM_DIR = "/dev/shm"
#: The name of every env's private folder starts so (`tempfile.mkdtemp(prefix=FOLDER_PREFIX)`);
#: the reaper removes no other folder.
FOLDER_PREFIX = "puffer-vizdoom-"


def start_time(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or None if no such process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()[19]  # fields after "(comm)" start at field 3


def find_engine(instance_id: str) -> int | None:
    """The pid of this process's child whose command line carries `+viz_instance_id <instance_id>`."""
    wanted = b"\0+viz_instance_id\0" + instance_id.encode() + b"\0"
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                children = f.read().split()
        except OSError:
            continue
        for child in children:
            try:
                with open(f"/proc/{child}/cmdline", "rb") as f:
                    if wanted in f.read():
                        return int(child)
            except OSError:
                continue
    return None


def _reap(engines: dict[int, tuple[str, str, str]]) -> None:
    for pid, (started, instance_id, folder) in engines.items():
        if start_time(pid) == started:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for prefix in SHM_PREFIXES:
            try:
                os.unlink(os.path.join(SHM_DIR, prefix + instance_id))
            except OSError:
                pass
        if os.path.basename(folder).startswith(FOLDER_PREFIX):
            shutil.rmtree(folder, ignore_errors=True)


def main(stream: IO[str]) -> None:
    """Read `add`/`del` lines until end of file, then end the engines still listed."""
    engines: dict[int, tuple[str, str, str]] = {}
    for line in stream:
        parts = line.rstrip("\n").split(" ", 4)
        if len(parts) == 5 and parts[0] == "add":
            engines[int(parts[1])] = (parts[2], parts[3], parts[4])
        elif len(parts) == 2 and parts[0] == "del":
            engines.pop(int(parts[1]), None)
    _reap(engines)


# ---- the owner's side ---------------------------------------------------------------------------

_lock = threading.Lock()
_state: dict = {"proc": None, "pid": None, "count": 0}


def _send(line: str) -> None:
    proc = _state["proc"]
    try:
        proc.stdin.write(line)
        proc.stdin.flush()
    except (OSError, ValueError):  # the reaper is gone: nothing watches; the envs still work
        pass


def watch(instance_id: str, folder: str) -> int | None:
    """Tell this process's reaper (started if needed) about the engine of `instance_id` and the env's
    private `folder` (no newline in it); returns the engine's pid, or None when nothing watches it."""
    if not sys.platform.startswith("linux"):
        return None
    pid = find_engine(instance_id)
    started = start_time(pid) if pid is not None else None
    if pid is None or started is None or "\n" in folder:
        return None
    with _lock:
        if _state["pid"] != os.getpid():  # first game here, or a forked child with its parent's state
            if _state["proc"] is not None and _state["proc"].stdin is not None:
                try:
                    _state["proc"].stdin.close()  # this process's copy of the parent's pipe
                except OSError:
                    pass
            _state.update(proc=None, pid=os.getpid(), count=0)
        if _state["proc"] is None:
            _state["proc"] = subprocess.Popen(
                [sys.executable, "-m", "puffer_vizdoom._reaper"], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, text=True, start_new_session=True)
        _state["count"] += 1
        _send(f"add {pid} {started} {instance_id} {folder}\n")
    return pid


def forget(pid: int | None) -> None:
    """The engine `pid` was closed; with the last one, let the reaper exit."""
    if pid is None:
        return
    with _lock:
        if _state["pid"] != os.getpid() or _state["proc"] is None:
            return
        _send(f"del {pid}\n")
        _state["count"] -= 1
        if _state["count"] <= 0:
            proc = _state["proc"]
            _state.update(proc=None, count=0)
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:  # it exits at end of file; not waited on longer (a closing worker has a deadline)
                proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass


if __name__ == "__main__":
    main(sys.stdin)
