"""benchmarks/bench_learning.py stopped by SIGTERM (a queue's `kill`, a job scheduler) leaves nothing behind:
its `puffer train` child is gone and its temp dir removed, as after Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def processes_naming(text: str) -> list[int]:
    """Pids of the processes whose command line contains `text`."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def test_sigterm_kills_the_training_and_removes_the_temp_dir(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "bench_learning.py"), "ocean-squared",
                             "--seeds", "1", "--steps", "50000000"], cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not processes_naming(str(tmp)) and time.monotonic() < deadline:  # the training has started
            time.sleep(0.1)
        assert processes_naming(str(tmp)), "the training never started"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        proc.kill()
        proc.wait()
    assert not processes_naming(str(tmp))
    assert list(tmp.iterdir()) == []
