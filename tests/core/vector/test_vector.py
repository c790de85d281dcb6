"""Serial vectorization: sync and async APIs, seeding, multi-agent rows, errors."""

import gymnasium as gym
import numpy as np
import pytest

import pufferlib
import pufferlib.vector
from pufferlib import APIUsageError
from tests.core.envs import ComeAndGo, CountingEnv, NativeEnv


def cartpole():
    return gym.make("CartPole-v1")


def rollout(vecenv, steps, seed):
    rng = np.random.default_rng(seed)
    obs, _ = vecenv.reset()
    frames = [obs.copy()]
    for _ in range(steps):
        actions = rng.integers(0, 2, vecenv.num_agents)
        obs, rewards, terminals, truncations, _ = vecenv.step(actions)
        frames.append(np.concatenate([obs.ravel(), rewards, terminals, truncations]))
    return frames


def test_same_seed_same_trajectories():
    runs = []
    for seed in (5, 5, 6):
        with pufferlib.vector.make(cartpole, num_envs=4, seed=seed) as vecenv:
            runs.append(rollout(vecenv, 200, seed=0))
    assert all(np.array_equal(a, b) for a, b in zip(runs[0], runs[1]))
    assert not np.array_equal(runs[0][0], runs[2][0])
    # Envs get distinct seeds within one vecenv.
    assert len({tuple(row) for row in runs[0][0]}) == 4


def test_sync_api_shapes_and_views():
    vecenv = pufferlib.vector.make(cartpole, num_envs=3)
    obs, infos = vecenv.reset(seed=0)
    assert obs.shape == (3, 4) and vecenv.num_agents == 3
    obs2, rewards, terminals, truncations, infos = vecenv.step(vecenv.action_space.sample())
    assert obs2 is not None and np.shares_memory(obs2, vecenv.observations)
    assert rewards.dtype == np.float32 and terminals.dtype == np.bool_
    vecenv.close()
    vecenv.close()  # idempotent
    with pytest.raises(APIUsageError, match="closed"):
        vecenv.step(np.zeros(3, np.int32))


def test_async_batches_round_robin():
    vecenv = pufferlib.vector.make(CountingEnv, env_kwargs=dict(length=1000), num_envs=4, batch_size=2,
                                   seed=None)
    vecenv.async_reset(seed=None)
    obs, rewards, terminals, truncations, infos, env_ids, masks = vecenv.recv()
    np.testing.assert_array_equal(env_ids, [0, 1])
    assert len(infos) == 2 and masks.all()
    vecenv.send(np.array([1, 2]))
    *_, env_ids, _ = vecenv.recv()
    np.testing.assert_array_equal(env_ids, [2, 3])
    vecenv.send(np.array([0, 0]))
    obs, rewards, *_, env_ids, _ = vecenv.recv()
    np.testing.assert_array_equal(env_ids, [0, 1])
    np.testing.assert_array_equal(rewards, [1, 2])
    np.testing.assert_array_equal(obs[:, 0], [1, 1])
    with pytest.raises(APIUsageError, match="recv\\(\\) was called twice"):
        vecenv.recv()
    with pytest.raises(APIUsageError, match="synchronous"):
        vecenv.step(np.zeros(2))
    vecenv.close()


def test_send_before_recv_is_an_error():
    with pufferlib.vector.make(cartpole, num_envs=2) as vecenv:
        with pytest.raises(APIUsageError, match="recv\\(\\) first"):
            vecenv.send(np.zeros(2, np.int32))


def test_multi_agent_rows():
    vecenv = pufferlib.vector.make(ComeAndGo, num_envs=3)
    obs, _ = vecenv.reset()
    assert vecenv.num_agents == 6 and vecenv.agents_per_env == 2 and obs.shape == (6, 2)
    np.testing.assert_array_equal(vecenv.masks, [True, False] * 3)
    vecenv.close()
    native = pufferlib.vector.make(NativeEnv, env_kwargs=dict(num_agents=3), num_envs=2, batch_size=1)
    native.async_reset(seed=10)
    obs, *_, env_ids, _ = native.recv()
    np.testing.assert_array_equal(env_ids, [0, 1, 2])
    np.testing.assert_array_equal(obs[:, 1], 10)
    native.send(np.array([1, 2, 3]))
    obs, *_, env_ids, _ = native.recv()
    np.testing.assert_array_equal(env_ids, [3, 4, 5])
    np.testing.assert_array_equal(obs[:, 1], 11)  # env 1 was reset with seed + 1
    native.close()


def test_native_envs_share_one_batch():
    vecenv = pufferlib.vector.make(NativeEnv, env_kwargs=dict(num_agents=2), num_envs=3)
    vecenv.reset(seed=0)
    _, rewards, *_ = vecenv.step(np.arange(6) % 5)
    np.testing.assert_array_equal(rewards, np.arange(6) % 5)
    for env in vecenv.envs:
        assert np.shares_memory(env.observations, vecenv.observations)
    vecenv.close()


@pytest.mark.parametrize("kwargs, message", [
    (dict(num_envs=4, batch_size=3), r"Valid values: \[1, 2, 4\]"),
    (dict(num_envs=0), "num_envs"),
    (dict(num_envs=2, backend="nope"), "Unknown backend"),
    (dict(num_envs=2, num_workers=2), "multiprocessing"),
])
def test_bad_arguments(kwargs, message):
    kwargs.setdefault("backend", "serial")
    with pytest.raises(APIUsageError, match=message):
        pufferlib.vector.make(cartpole, **kwargs)


def test_mismatched_envs_are_rejected():
    creators = [cartpole, lambda: gym.make("MountainCar-v0")]
    with pytest.raises(APIUsageError, match="must match"):
        pufferlib.vector.make(creators, num_envs=2)


def test_per_env_kwargs():
    vecenv = pufferlib.vector.make([CountingEnv, CountingEnv], env_kwargs=[dict(length=1), dict(length=2)],
                                   num_envs=2, seed=None)
    vecenv.reset()
    _, _, terminals, _, _ = vecenv.step(np.zeros(2, np.int32))
    np.testing.assert_array_equal(terminals, [True, False])
    vecenv.close()


# ---- misuse leaves the vectorizer usable, or fails clearly ------------------------------

@pytest.mark.parametrize("backend", ["serial", "multiprocessing"])
def test_rejected_actions_leave_the_env_usable(backend):
    kwargs = dict(num_workers=2) if backend == "multiprocessing" else {}
    with pufferlib.vector.make(cartpole, num_envs=2, backend=backend, **kwargs) as vecenv:
        vecenv.reset(seed=0)
        for bad, why in ((np.array([0, 2]), "out of range"), (np.zeros(3, np.int32), "shape"),
                         (np.array([0.5, 1.0]), "non-integer")):
            with pytest.raises(APIUsageError, match=why):
                vecenv.step(bad)
            obs, rewards, *_ = vecenv.step(np.array([0, 1]))  # the same batch, with good actions
            assert rewards.tolist() == [1.0, 1.0]


def test_rejected_actions_leave_a_native_env_made_by_make_usable():
    with pufferlib.make("ocean-bandit", num_envs=4) as vecenv:
        vecenv.reset(seed=0)
        with pytest.raises(APIUsageError, match="out of range"):
            vecenv.step(np.full(4, 99))
        vecenv.step(np.zeros(4, np.int32))


class FailsToClose(CountingEnv):
    closed = 0

    def close(self):
        FailsToClose.closed += 1
        raise RuntimeError(f"close failed #{FailsToClose.closed}")


def test_close_closes_every_env_then_raises_the_first_error():
    FailsToClose.closed = 0
    vecenv = pufferlib.vector.make(FailsToClose, num_envs=3)
    with pytest.raises(RuntimeError, match="close failed #1"):
        vecenv.close()
    assert FailsToClose.closed == 3 and vecenv.closed
    vecenv.close()  # once closed, closing again does nothing
    assert FailsToClose.closed == 3


def test_a_closed_vecenv_refuses_every_call():
    vecenv = pufferlib.vector.make(cartpole, num_envs=2)
    vecenv.reset()
    vecenv.close()
    for call in (vecenv.async_reset, vecenv.reset, vecenv.recv, vecenv.render,
                 lambda: vecenv.step(np.zeros(2, np.int32)), lambda: vecenv.send(np.zeros(2, np.int32))):
        with pytest.raises(APIUsageError, match="closed"):
            call()


@pytest.mark.parametrize("backend", ["serial", "multiprocessing"])
def test_recv_before_any_reset_says_to_reset_first(backend):
    kwargs = dict(num_workers=2) if backend == "multiprocessing" else {}
    with pufferlib.vector.make(cartpole, num_envs=2, backend=backend, **kwargs) as vecenv:
        with pytest.raises(APIUsageError, match="async_reset"):
            vecenv.recv()


@pytest.mark.parametrize("backend", ["serial", "multiprocessing"])
@pytest.mark.parametrize("seed", [1.5, -5, 2**32, "7", True, np.float64(3.0)])
def test_bad_seeds_are_rejected_alike_by_every_backend(backend, seed):
    kwargs = dict(num_workers=2) if backend == "multiprocessing" else {}
    with pytest.raises(APIUsageError, match=r"seed must be None or an int in \[0, 2\*\*32\)"):
        pufferlib.vector.make(cartpole, num_envs=2, backend=backend, seed=seed, **kwargs)
    with pufferlib.vector.make(cartpole, num_envs=2, backend=backend, **kwargs) as vecenv:
        with pytest.raises(APIUsageError, match=r"seed must be None or an int in \[0, 2\*\*32\)"):
            vecenv.reset(seed=seed)
        obs, _ = vecenv.reset(seed=2**32 - 3)  # the env still works, and large valid seeds are fine
        assert np.isfinite(obs).all()


@pytest.mark.filterwarnings("ignore:invalid value encountered in vdot")  # inf: numpy's note, then our error
def test_nan_and_inf_box_actions_are_rejected():
    with pufferlib.vector.make(lambda: gym.make("Pendulum-v1"), num_envs=2) as vecenv:
        vecenv.reset(seed=0)
        for bad in (np.nan, np.inf, -np.inf):
            with pytest.raises(APIUsageError, match="NaN or inf"):
                vecenv.step(np.array([[0.0], [bad]], np.float32))
        vecenv.step(np.zeros((2, 1), np.float32))


def test_discrete_actions_never_wrap_nor_truncate():
    with pufferlib.vector.make(cartpole, num_envs=2) as vecenv:
        vecenv.reset(seed=0)
        with pytest.raises(APIUsageError, match="out of range"):
            vecenv.step(np.array([0, 2**32], np.int64))
        with pytest.raises(APIUsageError, match="non-integer"):
            vecenv.step(np.array([0.0, 0.5]))


@pytest.mark.parametrize("option", [dict(start_method="spawn"), dict(timeout=5.0), dict(zero_copy=False)])
def test_serial_backend_rejects_options_of_worker_processes(option):
    with pytest.raises(APIUsageError, match=next(iter(option))):
        pufferlib.vector.make(cartpole, num_envs=2, backend="serial", **option)


@pytest.mark.parametrize("name, value", [("num_workers", "2"), ("num_envs", 2.0), ("batch_size", "1"),
                                         ("envs_per_worker", 0)])
def test_counts_that_are_not_positive_ints_say_so(name, value):
    with pytest.raises(APIUsageError, match=f"{name} must be a positive int"):
        pufferlib.make("gym-CartPole-v1", **{"num_envs": 2, name: value})
