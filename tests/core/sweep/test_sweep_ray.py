"""`puffer sweep --sweep.backend ray`: trials as Ray tasks on a local Ray bound to 127.0.0.1 only."""

import importlib.util
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

# find_spec, not importorskip: importing Ray takes about 2.5 s, paid by every xdist worker at collection
pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="the Ray path needs the optional extra: pip install 'puffer-core[ray]'")

SPACE = """
[sweep.train.learning_rate]
distribution = "log_normal"
min = 1e-3
max = 3e-2
"""


def _descendants(root: int) -> set[int]:
    out = subprocess.run(["ps", "-eo", "pid,ppid"], capture_output=True, text=True).stdout.split("\n")[1:]
    children: dict[int, list[int]] = {}
    for line in out:
        if line.strip():
            pid, ppid = map(int, line.split())
            children.setdefault(ppid, []).append(pid)
    found, stack = set(), [root]
    while stack:
        pid = stack.pop()
        found.add(pid)
        stack += children.get(pid, [])
    return found


def _listening(pids: set[int]) -> list[str]:
    """Local addresses of the TCP/UDP sockets that processes in `pids` listen on."""
    out = subprocess.run(["ss", "-ltnupH"], capture_output=True, text=True).stdout
    return [line.split()[4] for line in out.splitlines() if any(f"pid={p}," in line for p in pids)]


def _using(tmp: str) -> list[int]:
    """Processes whose command line or environment names `tmp` (Ray's processes of this test)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                blob = (proc / "cmdline").read_bytes() + (proc / "environ").read_bytes()
            except OSError:
                continue
            if tmp.encode() in blob:
                found.append(int(proc.name))
    return found


@pytest.mark.slow
def test_ray_backend_runs_trials_on_a_loopback_only_ray(tmp_path):
    ray_tmp = tempfile.mkdtemp(prefix="swr", dir="/tmp")  # short: Ray's unix socket paths have a length limit
    space = tmp_path / "space.toml"
    space.write_text(SPACE)
    sweep_dir = tmp_path / "sweep"
    env = {**os.environ, "RAY_TMPDIR": ray_tmp, "RAY_USAGE_STATS_ENABLED": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "pufferlib", "sweep", "gym-CartPole-v1", "--config", str(space),
                             "--dir", str(sweep_dir), "--quiet", "--sweep.backend", "ray", "--sweep.max-runs", "2",
                             "--sweep.workers", "2", "--train.total-timesteps", "4096", "--vec.num-envs", "2",
                             "--train.checkpoint-interval", "0"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    addresses, seen = set(), set()
    try:
        while proc.poll() is None:
            pids = _descendants(proc.pid) | set(_using(ray_tmp))
            seen |= pids
            addresses.update(_listening(pids))
            time.sleep(0.5)
        out = proc.communicate()[0]
        print("Ray listening sockets:", sorted(addresses))
        hosts = {a.rsplit(":", 1)[0].strip("[]") for a in addresses}
        assert hosts <= {"127.0.0.1", "::ffff:127.0.0.1"}, addresses  # checked first: also when Ray fails
        assert proc.returncode == 0, out
        assert addresses, "no Ray socket was seen listening"
        db = sqlite3.connect(sweep_dir / "sweep.db")
        rows = db.execute("SELECT status, score FROM trials").fetchall()
        reports = db.execute("SELECT count(*) FROM reports").fetchone()[0]
        db.close()
        assert [r[0] for r in rows] == ["done"] * 2 and reports >= 2
        assert (sweep_dir / "best.toml").exists()
        time.sleep(2.0)
        left = [p for p in _using(ray_tmp) if p != os.getpid()]
        assert not left, f"Ray processes left after the sweep: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _using(ray_tmp):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(ray_tmp, ignore_errors=True)
