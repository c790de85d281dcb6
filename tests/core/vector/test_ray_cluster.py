"""The Ray backend on two simulated nodes (`ray.cluster_utils.Cluster`), bound to 127.0.0.1.

Both nodes run on this host, each with its own raylet and CPUs; the driver is connected to
the head node. Actors on the other node cannot share memory with the driver, so the backend
uses the object store (as it would across machines). One cluster serves the module; the
node-killing test runs last. Every Ray process the module started is gone at its end
(killed by pid if Ray's shutdown leaves one).
"""

from __future__ import annotations

import os
import time

import numpy as np
import psutil
import pytest

import pufferlib.vector
from pufferlib.errors import WorkerError
from tests.core.mp_envs import Tagged
from tests.core.vector.test_multiprocessing import assert_same, rollout
from tests.core.vector.test_ray import LOOPBACK, descendants, listening_addresses, ray_environment

pytestmark = pytest.mark.slow  # starting two nodes takes tens of seconds

CPUS_PER_NODE = 2


@pytest.fixture(scope="module")
def cluster():
    import ray
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    from pufferlib.vector.ray import connect

    loopback = {"node_ip_address": "127.0.0.1", "num_cpus": CPUS_PER_NODE}
    with ray_environment("puffer-rayc-") as older, pytest.MonkeyPatch.context() as patch:
        # node addresses stay 127.0.0.1 (see pufferlib.vector.ray); restored for later modules
        patch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
        nodes = None
        try:
            nodes = Cluster(initialize_head=True, head_node_args={
                **loopback, "include_dashboard": False,
                "_system_config": {"health_check_period_ms": 500, "health_check_failure_threshold": 4,
                                   "worker_niceness": 0}})
            worker = nodes.add_node(**loopback)
            connect(nodes.address)
            yield nodes, worker, older
        finally:
            ray.shutdown()
            if nodes is not None:
                nodes.shutdown()


def block_actors(older: set[int]) -> list[psutil.Process]:
    return [p for p in descendants(older) if p.name().startswith("ray::_Block")]


def test_two_nodes_listen_on_loopback_only(cluster):
    import ray

    _, _, older = cluster
    addresses = listening_addresses(descendants(older))
    assert addresses, "no listening socket found: the check proves nothing"
    assert addresses <= LOOPBACK, addresses
    alive = [n for n in ray.nodes() if n["Alive"]]
    assert [n["NodeManagerAddress"] for n in alive] == ["127.0.0.1"] * 2


def test_actors_on_both_nodes_equal_serial_and_close_leaves_none(cluster):
    _, worker, older = cluster
    with pufferlib.vector.make(Tagged, env_kwargs={"num_agents": 2}, num_envs=4, seed=5) as serial:
        expected = rollout(serial, 100)
    vecenv = pufferlib.vector.make(Tagged, env_kwargs={"num_agents": 2}, backend="ray", num_envs=4,
                                   num_workers=2 * CPUS_PER_NODE, seed=5)
    try:
        # four one-CPU actors fill both nodes' CPUs
        assert sum(worker.node_id[:8] in node for node in vecenv.actor_nodes) == CPUS_PER_NODE
        assert vecenv.transport == "object_store"
        assert {p.nice() for p in block_actors(older)} == {os.nice(0)}  # not Ray's 15: they starve
        got = rollout(vecenv, 100)
    finally:
        vecenv.close()
    assert_same(expected, got)
    deadline = time.monotonic() + 15
    while block_actors(older) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not block_actors(older)


def test_killed_node_gives_worker_error_naming_node_and_envs(cluster):
    """Runs last: it removes the second node."""
    nodes, worker, older = cluster
    vecenv = pufferlib.vector.make(Tagged, backend="ray", num_envs=4, num_workers=2 * CPUS_PER_NODE, timeout=60)
    try:
        vecenv.reset()
        lost = [w for w, node in enumerate(vecenv.actor_nodes) if worker.node_id[:8] in node]
        assert len(lost) == CPUS_PER_NODE
        nodes.remove_node(worker, allow_graceful=False)
        start = time.monotonic()
        # whichever of the lost actors a step waits on first is named
        named = "|".join(rf"actor {w} \(envs {w}\.\.{w} on node {worker.node_id[:8]} at 127\.0\.0\.1\)"
                         for w in lost)
        # Steps until Ray reports the death (health checks every 0.5 s, 4 missed): a fixed number
        # of steps ran out first on a quiet machine.
        with pytest.raises(WorkerError, match=rf"(?:{named}) died"):
            while time.monotonic() - start < 60:
                vecenv.step(np.zeros(8, np.int64))
        assert time.monotonic() - start < 60
        assert vecenv.closed
    finally:
        vecenv.close()
    deadline = time.monotonic() + 15
    while block_actors(older) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not block_actors(older)
