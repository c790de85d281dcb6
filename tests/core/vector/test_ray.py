"""The Ray backend on a local Ray instance: equality with serial, async batches, faults, shutdown.

One Ray instance serves the module (starting Ray takes tens of seconds on a small machine);
it is started by the backend's own `connect()`, which confines it to 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

import pufferlib
import pufferlib.registry
import pufferlib.vector
from pufferlib.errors import APIUsageError, WorkerError
from tests.core.mp_envs import NestedEnv, Tagged, tagged_creators
from tests.core.signals import default_sigint
from tests.core.vector.test_multiprocessing import (
    assert_same,
    check_async_batches_serve_the_fastest,
    rollout,
    slow_and_fast_tagged_envs,
)

LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}
pytestmark = pytest.mark.slow  # the module's Ray start takes tens of seconds


#: Children this test process had before Ray started (e.g. multiprocessing's resource tracker,
#: started by earlier tests): not Ray's.
_OLDER_CHILDREN: set[int] = set()


def ray_processes() -> list[psutil.Process]:
    """Live processes of the Ray instance this test process started (its descendants since then)."""
    return descendants(_OLDER_CHILDREN)


def live(processes) -> list[psutil.Process]:
    """Those of `processes` that still run (not ended, nor ended and waiting to be reaped)."""
    out = []
    for p in processes:
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def descendants(older: set[int]) -> list[psutil.Process]:
    """Live processes this test process started (directly or not), except `older` ones."""
    return live(p for p in psutil.Process().children(recursive=True) if p.pid not in older)


@contextlib.contextmanager
def ray_environment(prefix: str):
    """Run a Ray started inside in its own RAY_TMPDIR, its workers able to import tests.core;
    yields the pids of the processes that were there before. On exit (after the caller shut
    Ray down): wait up to 20 s for Ray's processes to end, kill any left by pid, restore the
    environment, remove the folder, and fail if any process was left."""
    older = {p.pid for p in psutil.Process().children(recursive=True)}
    saved = {k: os.environ.get(k) for k in ("PYTHONPATH", "RAY_TMPDIR")}
    root = str(Path(__file__).resolve().parents[3])
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [root, saved["PYTHONPATH"]]))
    # Ray keeps its sockets and session logs under RAY_TMPDIR (short: socket paths are limited)
    temp_dir = tempfile.mkdtemp(prefix=prefix, dir="/tmp")
    os.makedirs(os.path.join(temp_dir, "ray"))
    os.environ["RAY_TMPDIR"] = temp_dir
    try:
        yield older
    finally:
        deadline = time.monotonic() + 20
        while descendants(older) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [(p.pid, p.name()) for p in descendants(older)]
        for p in descendants(older):  # never leave Ray behind, even when the check below fails
            with contextlib.suppress(psutil.Error):
                p.kill()
        shutil.rmtree(temp_dir, ignore_errors=True)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        assert not left, f"Ray processes left behind: {left}"


@pytest.fixture(scope="module")
def ray_instance():
    import ray

    from pufferlib.vector.ray import connect

    with ray_environment("puffer-ray-") as older:
        _OLDER_CHILDREN.clear()
        _OLDER_CHILDREN.update(older)
        try:
            connect(num_cpus=4)
            yield ray
        finally:
            ray.shutdown()


def actor_processes() -> list[psutil.Process]:
    """Ray's live actor processes of the `_Block` class (one that ends while it is looked at is not)."""
    out = []
    for p in ray_processes():
        try:
            if p.name().startswith("ray::_Block"):
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def listening_addresses(processes: list[psutil.Process]) -> set[str]:
    """The addresses of these processes' listening sockets."""
    addresses = set()
    for p in processes:
        try:
            addresses |= {c.laddr.ip for c in p.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN}
        except psutil.Error:
            pass
    return addresses


def test_ray_listens_on_loopback_only(ray_instance):
    addresses = listening_addresses(ray_processes())
    assert addresses, "no listening socket found: the check proves nothing"
    assert addresses <= LOOPBACK, addresses
    assert [n["NodeManagerAddress"] for n in ray_instance.nodes()] == ["127.0.0.1"]


#: Both ways actions and results travel (pufferlib.vector.ray.TRANSPORTS); a local node uses
#: shared memory by default.
transports = pytest.mark.parametrize("transport", ["shared_memory", "object_store"])


@transports
@pytest.mark.parametrize("creator, kwargs, workers", [
    (NestedEnv, {}, 2),
    (Tagged, {"num_agents": 3}, 4),
], ids=["nested-obs", "native-multiagent"])
def test_sync_equals_serial(ray_instance, creator, kwargs, workers, transport):
    with pufferlib.vector.make(creator, env_kwargs=kwargs, num_envs=4, seed=3) as serial:
        expected = rollout(serial, 200)
    with pufferlib.vector.make(creator, env_kwargs=kwargs, backend="ray", num_envs=4, num_workers=workers,
                               seed=3, transport=transport) as vecenv:
        assert vecenv.transport == transport
        got = rollout(vecenv, 200)
    assert_same(expected, got)


def test_float64_actions_reach_object_store_actors_as_their_float32(ray_instance):
    """The object store carries actions as raw bytes of the actors' action dtype."""
    actions = np.random.default_rng(0).uniform(-2, 2, (30, 4, 1))  # float64
    results = []
    spec = pufferlib.registry.spec("gym-Pendulum-v1")
    for backend, extra in (("serial", {}), ("ray", {"num_workers": 2, "transport": "object_store"})):
        with pufferlib.vector.make(spec.load_creator(), env_kwargs=spec.kwargs, num_envs=4, backend=backend,
                                   seed=2, **extra) as vecenv:
            vecenv.reset()
            results.append(np.stack([vecenv.step(a)[1].copy() for a in actions]))
    np.testing.assert_array_equal(results[0], results[1])


def test_actor_with_several_cpus_runs_its_block_in_processes(ray_instance):
    with pufferlib.vector.make(NestedEnv, num_envs=4, seed=1) as serial:
        expected = rollout(serial, 50)
    with pufferlib.vector.make(lambda: NestedEnv(), backend="ray", num_envs=4, num_workers=1,
                               cpus_per_worker=2, seed=1) as vecenv:
        got = rollout(vecenv, 50)
    assert_same(expected, got)


@transports
def test_async_batches_serve_the_fastest_actors_with_their_env_ids(ray_instance, transport):
    creators, args, kwargs = slow_and_fast_tagged_envs()
    with pufferlib.vector.make(creators, args, kwargs, backend="ray", num_envs=4, num_workers=4,
                               batch_size=2, transport=transport) as vecenv:
        check_async_batches_serve_the_fastest(vecenv)


@transports
def test_killed_actor_gives_worker_error_naming_node_and_envs(ray_instance, transport):
    vecenv = pufferlib.vector.make(Tagged, backend="ray", num_envs=4, num_workers=2, timeout=30,
                                   transport=transport)
    vecenv.reset()
    os.kill(vecenv.actor_pids[1], 9)
    start = time.monotonic()
    with pytest.raises(WorkerError, match=r"actor 1 \(envs 2\.\.3 on node \w{8} at 127\.0\.0\.1\) died"):
        for _ in range(3):
            vecenv.step(np.zeros(8, np.int64))
    assert time.monotonic() - start < 30
    assert vecenv.closed


@transports
def test_env_exception_gives_its_traceback(ray_instance, transport):
    creators, args, kwargs = tagged_creators(2, num_agents=1)
    kwargs[0]["fail_at"] = 2  # env 0 only: which of two failing workers is reported first is a race
    vecenv = pufferlib.vector.make(creators, args, kwargs, backend="ray", num_envs=2, num_workers=2,
                                   transport=transport)
    vecenv.reset()
    vecenv.step(np.zeros(2, np.int64))
    with pytest.raises(WorkerError, match=r"(?s)envs 0\.\.0 on node \w{8} at 127\.0\.0\.1\) raised.*fails at step 2"):
        vecenv.step(np.zeros(2, np.int64))


def test_close_leaves_no_actors(ray_instance):
    vecenv = pufferlib.vector.make(Tagged, backend="ray", num_envs=4, num_workers=4)
    vecenv.reset()
    assert len(actor_processes()) >= 4
    # at the driver's priority, not Ray's nice 15 (they starved beside busy processes)
    assert {p.nice() for p in actor_processes()} == {os.nice(0)}
    vecenv.close()
    vecenv.close()
    deadline = time.monotonic() + 15
    while actor_processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not actor_processes()
    with pytest.raises(APIUsageError, match="closed"):
        vecenv.reset()


def test_make_passes_its_timeout_and_refuses_the_multiprocessing_options(ray_instance):
    """pufferlib.make(timeout=) (and so `--vec.timeout`) reaches the Ray backend; options only the
    multiprocessing backend has are refused, not silently dropped."""
    with pufferlib.make("gym-CartPole-v1", backend="ray", num_envs=2, num_workers=2, timeout=90.5) as vecenv:
        assert vecenv.timeout == 90.5
        vecenv.reset()
    with pytest.raises(APIUsageError, match="start_method.*multiprocessing backend"):
        pufferlib.make("gym-CartPole-v1", backend="ray", num_envs=2, start_method="spawn")
    with pytest.raises(APIUsageError, match="spin_us"):
        pufferlib.vector.make(Tagged, backend="ray", num_envs=2, spin_us=10.0)
    with pytest.raises(APIUsageError, match="timeout must be a number of seconds"):
        pufferlib.vector.make(Tagged, backend="ray", num_envs=2, timeout=0)


def test_more_cpus_than_the_cluster_has_fails_at_once_with_the_numbers(ray_instance):
    """3 actors of 2 CPUs on a 4-CPU instance: refused before any actor starts, not after the timeout."""
    before = {p.pid for p in actor_processes()}
    with pytest.raises(APIUsageError, match=r"3 actors reserve 2 CPU\(s\) each \(6 in all\), but the Ray cluster "
                                            r"has 4 CPUs \([\d.]+ free\)\. Use fewer num_workers"):
        pufferlib.vector.make(Tagged, backend="ray", num_envs=3, num_workers=3, cpus_per_worker=2)
    assert {p.pid for p in actor_processes()} <= before


CTRL_C_SCRIPT = """
import sys, time, pufferlib.vector
from pufferlib.vector.ray import connect
from tests.core.mp_envs import Tagged
connect(sys.argv[1])
env = pufferlib.vector.make(Tagged, backend="ray", num_envs=2, num_workers=2)
env.reset()
print("ready", flush=True)
while True:
    env.step([0] * 4)
"""


def test_ctrl_c_of_the_driver_leaves_no_actors(ray_instance, tmp_path):
    before = {p.pid for p in actor_processes()}
    address = ray_instance.get_runtime_context().gcs_address
    log = tmp_path / "driver.log"
    with open(log, "w") as err:
        proc = subprocess.Popen([sys.executable, "-c", CTRL_C_SCRIPT, address], stdout=subprocess.PIPE,
                                stderr=err, text=True, cwd=tmp_path, preexec_fn=default_sigint)
    watchdog = threading.Timer(120, proc.kill)  # readline() must not wait forever
    watchdog.start()
    try:
        assert proc.stdout.readline().strip() == "ready", log.read_text()
        assert len({p.pid for p in actor_processes()} - before) == 2
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 15
    while {p.pid for p in actor_processes()} - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not {p.pid for p in actor_processes()} - before


def test_missing_ray_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if not installed
    with pytest.raises(APIUsageError, match=r"pip install 'puffer-core\[ray\]'"):
        pufferlib.vector.make(Tagged, backend="ray", num_envs=2)
