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
    assert quota_read_here(str(tmp_path / "cgroup"), str(mount)) == pytest.approx(2.0)  # the test's own reader agrees
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


def quota_read_here(proc_cgroup: str = "/proc/self/cgroup", mount: str = "/sys/fs/cgroup") -> float | None:
    """This process's CPU quota in cores, read without `pufferlib.cpu.cores`: the smallest
    `cpu.max` (cgroup v2) or `cpu.cfs_quota_us / cpu.cfs_period_us` (v1, the cpu controller's
    hierarchy) of its cgroup and the cgroups above it."""
    try:
        with open(proc_cgroup) as f:
            entries = [line.rstrip("\n").split(":", 2) for line in f]
    except OSError:
        return None
    quotas = []
    for entry in entries:
        if len(entry) != 3:
            continue
        if entry[1] == "":
            roots, names = [mount], ["cpu.max"]
        elif "cpu" in entry[1].split(","):
            roots = [os.path.join(mount, d) for d in (entry[1], "cpu") if os.path.isdir(os.path.join(mount, d))][:1]
            names = ["cpu.cfs_quota_us", "cpu.cfs_period_us"]
        else:
            continue
        for root in roots:
            parts = [p for p in entry[2].split("/") if p]
            for depth in range(len(parts), -1, -1):  # the cgroup itself, then each parent up to the root
                directory = os.path.join(root, *parts[:depth])
                try:
                    text = " ".join(Path(directory, name).read_text() for name in names).split()
                    if text[0] not in ("max", "-1") and float(text[1]) > 0:
                        quotas.append(int(text[0]) / float(text[1]))
                except (OSError, ValueError, IndexError):
                    pass
    return min(quotas) if quotas else None


def test_usable_cores_on_this_machine():
    """The expectation is worked out here, from the affinity mask and the cgroup files."""
    cores_here = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    quota = quota_read_here()
    expected = cores_here if quota is None else max(1, min(cores_here, int(quota)))
    assert usable_cores() == expected


def test_usable_cores_reads_the_affinity_mask_and_the_cgroup_files(tmp_path, monkeypatch):
    """Faked inputs end to end: 6 cores in the mask, a v2 quota of 2.5 CPUs on a parent cgroup."""
    mount = tmp_path / "fs"
    tree(mount, {"cpu.max": "max 100000\n", "job/cpu.max": "250000 100000\n", "job/step/cpu.max": "max 100000\n"})
    tree(tmp_path, {"cgroup": "0::/job/step\n"})
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4, 5}, raising=False)
    real = cores.cgroup_cpu_limit
    monkeypatch.setattr(cores, "cgroup_cpu_limit", lambda: real(tmp_path / "cgroup", mount))
    assert quota_read_here(str(tmp_path / "cgroup"), str(mount)) == 2.5
    assert usable_cores() == 2
    (mount / "job/cpu.max").write_text("max 100000\n")  # no quota: the mask alone
    assert usable_cores() == 6
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    assert usable_cores() == 1


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
