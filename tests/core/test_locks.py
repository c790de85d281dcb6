"""pufferlib._locks: one writer per folder; the lock dies with its holder."""

import os
import signal
import subprocess
import sys

import pytest

from pufferlib._locks import LOCK_FILE, folder_lock
from pufferlib.errors import APIUsageError

HOLDER = """
import sys
from pufferlib._locks import folder_lock
with folder_lock(sys.argv[1], "a test"):
    print("held", flush=True)
    sys.stdin.read()  # until the test kills it
"""


def test_a_second_holder_is_refused_at_once_naming_the_folder_and_the_holders_pid(tmp_path):
    folder = tmp_path / "new" / "folder"
    with folder_lock(folder, "a sweep") as path:
        assert path == folder / LOCK_FILE and path.read_text() == f"{os.getpid()}\n"
        with pytest.raises(APIUsageError) as refused, folder_lock(folder, "a sweep"):
            pass
    message = str(refused.value)
    assert "\n" not in message and str(folder) in message and f"PID {os.getpid()}" in message
    assert "a sweep" in message
    with folder_lock(folder, "a sweep"):  # free again once the block has ended
        pass
    assert path.read_text() == ""  # no PID left behind


def test_the_lock_is_free_once_its_holder_is_killed(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(APIUsageError, match=f"another process \\(PID {holder.pid}\\)"), \
                folder_lock(tmp_path, "a test"):
            pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.communicate()
    with folder_lock(tmp_path, "a test"):  # nothing to clean up: the OS freed it
        pass
