"""Checks on the places a command will write, made before its work starts.

Contract: `check_writable(path, what)` returns when `path` can be written and raises
`APIUsageError` naming the place and why not otherwise. It imports nothing heavy (no torch),
so that a command that writes no checkpoint (`puffer plot`) starts without it.
"""

from __future__ import annotations

import os
from pathlib import Path

from pufferlib.errors import APIUsageError


def check_writable(path: str | Path, what: str) -> None:
    """APIUsageError unless `path` (a folder, or a file's path) can be written: it is a writable
    folder, or a writable file, or it does not exist yet and its nearest existing parent is a
    writable folder. Checked before work starts, so that a run does not fail at its first save."""
    path = Path(path)
    target = path
    while not target.exists():
        if target.parent == target:
            break
        target = target.parent
    problem = None
    if target != path and not target.is_dir():
        problem = f"{target} is not a folder"
    elif not os.access(target, os.W_OK | (os.X_OK if target.is_dir() else 0)):
        problem = f"{target} is not writable"
    if problem:
        raise APIUsageError(f"Cannot write {what} {str(path)!r}: {problem}. Choose another place (or fix its "
                            "permissions).")
