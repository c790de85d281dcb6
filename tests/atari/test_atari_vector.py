"""puffer-atari through pufferlib.make: native (ale-py's C++ vector env), serial, multiprocessing."""

import numpy as np
import pytest

import pufferlib
from puffer_atari.vector import AtariVector, copy_seeds
from pufferlib import APIUsageError


def run_episodes(env, steps: int, seed: int = 0):
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    infos = []
    for _ in range(steps):
        obs, rewards, terminals, truncations, step_infos = env.step(
            rng.integers(0, env.single_action_space.n, env.num_agents))
        infos += step_infos
    return obs, infos


def test_native_vector_matches_ale_py_vector_env_with_same_seeds_and_actions():
    from ale_py.vector_env import AtariVectorEnv

    ref = AtariVectorEnv("pong", 3, repeat_action_probability=0.25, reward_clipping=False,
                         use_fire_reset=False, autoreset_mode="SameStep")
    ours = AtariVector("pong", num_envs=3)
    try:
        obs_ref, _ = ref.reset(seed=copy_seeds(5, 3))
        obs, _ = ours.reset(seed=5)
        np.testing.assert_array_equal(obs, obs_ref)
        rng = np.random.default_rng(0)
        for _ in range(200):
            actions = rng.integers(0, 6, 3)
            obs_ref, rew_ref, term_ref, trunc_ref, info = ref.step(actions)
            obs, rew, term, trunc, _ = ours.step(actions.reshape(3, 1).astype(np.int32))
            order = np.argsort(info["env_id"])
            np.testing.assert_array_equal(obs, obs_ref[order])
            np.testing.assert_array_equal(rew, rew_ref[order])
            np.testing.assert_array_equal(term, term_ref[order])
    finally:
        ref.close()
        ours.close()


def test_copy_seeds_of_neighbouring_seeds_do_not_overlap():
    seeds = [copy_seeds(s, 8) for s in range(4)]
    assert all(len(np.unique(x)) == 8 and x.min() >= 0 for x in seeds)
    assert len(np.unique(np.concatenate(seeds))) == 32
    np.testing.assert_array_equal(copy_seeds(2, 8), seeds[2])


def test_make_native_is_the_default_backend():
    env = pufferlib.make("atari-breakout", num_envs=4, seed=1)
    try:
        assert isinstance(env.driver_env, AtariVector)
        assert env.single_observation_space.shape == (4, 84, 84) and env.num_agents == 4
        obs, infos = run_episodes(env, 400, seed=1)
        assert obs.dtype == np.uint8 and obs.max() > 0
        assert infos and all(i["episode_length"] > 0 for i in infos)
    finally:
        env.close()


def test_serial_and_multiprocessing_give_the_same_episodes_for_the_same_seed():
    runs = []
    for backend, workers in (("serial", None), ("multiprocessing", 2)):
        env = pufferlib.make("atari-breakout", num_envs=2, backend=backend, num_workers=workers, seed=3,
                             render_mode="rgb_array")
        try:
            assert env.single_observation_space.shape == (4, 84, 84)
            runs.append(run_episodes(env, 400, seed=3))
            if backend == "serial":
                assert env.render(0).shape == (210, 160, 3)
        finally:
            env.close()
    (obs_serial, infos_serial), (obs_mp, infos_mp) = runs
    assert infos_serial and {"episode_return", "episode_length", "lives"} <= set(infos_serial[0])
    np.testing.assert_array_equal(obs_serial, obs_mp)
    assert sorted(i["episode_length"] for i in infos_serial) == sorted(i["episode_length"] for i in infos_mp)
    assert not np.array_equal(obs_serial[0], obs_serial[1])  # each copy has its own seed


def test_native_backend_across_workers_and_rendering():
    env = pufferlib.make("atari-pong", num_envs=4, num_workers=2, seed=0)
    try:
        obs, _ = run_episodes(env, 50)
        assert obs.shape == (4, 4, 84, 84)
    finally:
        env.close()
    native = AtariVector("pong", num_envs=2, render_mode="rgb_array")
    try:
        native.reset(seed=0)
        frame = native.render()
        assert frame.shape == (84, 84, 3) and frame.dtype == np.uint8
    finally:
        native.close()
    with pytest.raises(APIUsageError, match="grayscale"):
        AtariVector("pong", num_envs=2, grayscale=False)
    bad = AtariVector("pong", num_envs=2)
    try:
        bad.reset(seed=0)
        for actions in ([[0], [6]], [[-1], [0]], [[0]]):
            with pytest.raises(APIUsageError, match="actions"):
                bad.step(np.array(actions))
    finally:
        bad.close()


def test_final_observations_are_the_last_frames_of_ended_episodes():
    env = AtariVector("pong", num_envs=3, max_episode_frames=40)  # truncated after 10 agent steps
    assert env.writes_final_observations
    env.reset(seed=1)
    ended_once = False
    for _ in range(25):
        before = env.observations.copy()
        obs, _, terminals, truncations, _ = env.step(np.zeros(3, np.int32))
        ended = terminals | truncations
        if ended.any():
            ended_once = True
            final = env.final_observations[ended]
            np.testing.assert_array_equal(final[:, :-1], before[ended][:, 1:])  # one more frame on the stack
            assert not np.array_equal(final, obs[ended])  # obs is already the next episode's
    assert ended_once
    env.close()


@pytest.mark.timeout(60)  # without the checks, screen_size=0 or stack_num=0 hang reset() in C++ for ever
@pytest.mark.parametrize("kwargs, message", [
    (dict(screen_size=0), "screen_size must be an int >= 1"),
    (dict(stack_num=0), "stack_num must be an int >= 1"),
    (dict(frameskip=0), "frameskip must be an int >= 1"),
    (dict(noop_max=-1), "noop_max must be an int >= 0"),
    (dict(max_episode_frames=-5), "max_episode_frames must be an int >= 0"),
    (dict(repeat_action_probability=2.0), r"repeat_action_probability must be a number in \[0, 1\]"),
    (dict(screen_size=84.5), "screen_size must be an int"),
])
@pytest.mark.parametrize("backend", ["native", "serial"])
def test_bad_options_are_rejected_alike_by_native_and_serial_paths(kwargs, message, backend):
    with pytest.raises(APIUsageError, match=message):
        env = pufferlib.make("atari-pong", num_envs=1, backend=None if backend == "native" else backend, **kwargs)
        env.reset(seed=0)  # (hung here before)
        env.close()


def test_native_vector_rejects_actions_that_would_wrap_or_truncate():
    env = AtariVector("pong", num_envs=2)
    try:
        env.reset(seed=0)
        with pytest.raises(APIUsageError, match="out of range"):
            env.step(np.array([0, 2**32]))
        with pytest.raises(APIUsageError, match="non-integer"):
            env.step(np.array([0.5, 0.0]))
        env.step(np.array([0, 1]))
    finally:
        env.close()
    with pytest.raises(APIUsageError, match="closed"):
        env.reset(seed=0)
