"""`pufferlib.cpu.cores`: the usable cores are the affinity mask capped by the cgroup CPU quota, and
every part that sizes itself to the machine asks it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import pufferlib.cpu.cores as cores
from pufferlib.cpu.cores import cgroup_cpu_limit, usable_cores


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_cgroup_v2_quota_is_the_smallest_of_the_cgroup_and_its_ancestors(tmp_path):
    mount = tmp_path / "fs"
    tree(mount, {"a/b/cpu.max": "150000 100000\n", "a/cpu.max": "max 100000\n", "cpu.max": "max 100000\n"})
    tree(tmp_path, {"cgroup": "0::/a/b\n"})
    assert cgroup_cpu_limit(tmp_path / "cgroup", mount) == pytest.approx(1.5)
    (mount / "a/cpu.max").write_text("50000 100000\n")  # a parent's limit binds its children
    assert cgroup_cpu_limit(tmp_path / "cgroup", mount) == pytest.approx(0.5)


def test_cgroup_v1_quota_of_the_cpu_controller(tmp_path):
    mount = tmp_path / "fs"
    tree(mount, {"cpu,cpuacct/docker/x/cpu.cfs_quota_us": "200000\n",
                 "cpu,cpuacct/docker/x/cpu.cfs_period_us": "100000\n"})
    tree(tmp_path, {"cgroup": "12:memory:/docker/x\n4:cpu,cpuacct:/docker/x\n0::/\n"})
    assert cgroup_cpu_limit(tmp_path / "cgroup", mount) == pytest.approx(2.0)
    (mount / "cpu,cpuacct/docker/x/cpu.cfs_quota_us").write_text("-1\n")  # no quota
    assert cgroup_cpu_limit(tmp_path / "cgroup", mount) is None


@pytest.mark.parametrize("files", [{}, {"cpu.max": "max 100000\n"}, {"cpu.max": "garbage\n"},
                                   {"cpu.max": "100000 0\n"}], ids=["no-file", "max", "garbage", "zero-period"])
def test_no_readable_quota_is_no_limit(tmp_path, files):
    tree(tmp_path / "fs", files)
    tree(tmp_path, {"cgroup": "0::/\n"})
    assert cgroup_cpu_limit(tmp_path / "cgroup", tmp_path / "fs") is None
    assert cgroup_cpu_limit(tmp_path / "missing", tmp_path / "fs") is None


def test_usable_cores_rounds_the_quota_down_to_at_least_one(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    for limit, expected in ((None, 8), (1.5, 1), (0.5, 1), (4.0, 4), (16.0, 8)):
        monkeypatch.setattr(cores, "cgroup_cpu_limit", lambda limit=limit: limit)
        assert usable_cores() == expected


def test_usable_cores_on_this_machine():
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    limit = cgroup_cpu_limit()
    assert usable_cores() == max(1, min(affinity, int(limit) if limit is not None else affinity))


def test_worker_counts_and_thread_counts_follow_the_usable_cores(monkeypatch):
    import pufferlib
    import pufferlib.pufferl
    import pufferlib.vector.multiprocessing as mp
    from pufferlib.train.dashboard import Dashboard

    monkeypatch.setattr(mp, "usable_cores", lambda: 2)
    assert mp.resolve_layout(8, None, None, None)[0] == 2
    monkeypatch.setattr(mp, "usable_cores", lambda: 1)
    assert mp.resolve_layout(8, None, None, None)[0] == 1
    # cpu_threads = 0: one gradient worker per usable core, none with one core
    for usable, workers in ((1, None), (2, 2)):
        monkeypatch.setattr(pufferlib.pufferl, "usable_cores", lambda usable=usable: usable)
        trainer = pufferlib.PuffeRL(env=pufferlib.make("gym-CartPole-v1", num_envs=2), device="cpu", cpu_threads=0,
                                    batch_size=8192, minibatch_size=8192, microbatch_size=4096,
                                    dashboard=Dashboard(interval=1e9, rich=False))
        got = trainer.gradient.workers
        trainer.close()
        assert (got.count if got is not None else None) == workers
        assert trainer.thread_tuner is not None and trainer.thread_tuner.counts == list(range(1, usable + 1))
