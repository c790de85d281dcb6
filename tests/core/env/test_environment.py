"""PufferEnv: validation, in-place buffers, and the simple authoring style."""

import numpy as np
import pytest
from gymnasium import spaces

import pufferlib
from pufferlib import APIUsageError, Buffers, PufferEnv
from tests.core.envs import NativeEnv


def make_native(**attrs):
    class Env(PufferEnv):
        def __init__(self, buf=None):
            for key, value in attrs.items():
                setattr(self, key, value)
            super().__init__(buf)

    return Env


BOX = spaces.Box(0, 1, (3,), np.float32)


def test_native_env_allocates_buffers():
    env = NativeEnv(num_agents=4)
    assert env.observations.shape == (4, 2) and env.observations.dtype == np.float32
    assert env.rewards.dtype == np.float32 and env.terminals.dtype == np.bool_
    assert env.actions.shape == (4, 1) and env.actions.dtype == np.int32
    assert env.masks.all()
    obs, infos = env.reset(seed=7)
    assert obs is env.observations and infos == []


def test_native_env_binds_given_buffers_without_copy():
    buf = Buffers.allocate(spaces.Box(0, 1e6, (2,), np.float32), spaces.Discrete(5), 6)
    env = NativeEnv(num_agents=3, buf=buf.slice(3, 6))
    env.reset(seed=1)
    assert np.shares_memory(env.observations, buf.observations)
    np.testing.assert_array_equal(buf.observations[3:, 0], [0, 1, 2])
    np.testing.assert_array_equal(buf.observations[:3], 0)


@pytest.mark.parametrize("attrs, message", [
    (dict(single_action_space=spaces.Discrete(2), num_agents=1), "single_observation_space"),
    (dict(single_observation_space=BOX, single_action_space=spaces.Discrete(2)), "num_agents"),
    (dict(single_observation_space=BOX, single_action_space=spaces.Discrete(2), num_agents=0), "num_agents"),
    (dict(single_observation_space=spaces.Discrete(3), single_action_space=spaces.Discrete(2), num_agents=1),
     "must be a Box"),
    (dict(single_observation_space=BOX, single_action_space=spaces.Text(3), num_agents=1),
     "Discrete, MultiDiscrete or Box"),
])
def test_validation_errors(attrs, message):
    with pytest.raises(APIUsageError, match=message):
        make_native(**attrs)()


def test_wrong_buffer_shape_and_dtype():
    env_cls = make_native(single_observation_space=BOX, single_action_space=spaces.Discrete(2), num_agents=2)
    good = Buffers.allocate(BOX, spaces.Discrete(2), 2)
    env_cls(buf=good)
    bad = Buffers.allocate(BOX, spaces.Discrete(2), 3)
    with pytest.raises(APIUsageError, match=r"observations has shape \(3, 3\)"):
        env_cls(buf=bad)
    wrong_dtype = Buffers.allocate(BOX, spaces.Discrete(2), 2)
    wrong_dtype.rewards = wrong_dtype.rewards.astype(np.float64)
    with pytest.raises(APIUsageError, match="rewards .* dtype float64"):
        env_cls(buf=wrong_dtype)
    with pytest.raises(APIUsageError, match="missing the arrays"):
        env_cls(buf={"observations": good.observations})


class Simple(PufferEnv):
    """The user guide's authoring style: spaces after super().__init__, 4-tuple step."""

    def __init__(self, buf=None):
        super().__init__(buf)
        self.observation_space = self.make_space((4,))
        self.action_space = self.make_discrete(4)
        self.position = 0
        self.reset()

    def reset(self):
        self.position = 0
        return np.zeros(4, dtype=np.float32)

    def step(self, action):
        self.position += int(action) - 1
        obs = np.full(4, self.position, dtype=np.float32)
        done = abs(self.position) >= 3
        return obs, float(action == 2), done, {}


def test_simple_style_is_detected_and_emulated():
    env = Simple()
    assert env.is_simple_style
    vec = pufferlib.emulate(Simple, num_envs=3)
    obs, _ = vec.reset()
    assert obs.shape == (3, 4)
    actions = np.full(3, 2)
    for _step in range(3):
        obs, rewards, terminals, truncations, infos = vec.step(actions)
    np.testing.assert_array_equal(terminals, True)
    np.testing.assert_array_equal(obs, 0)  # auto-reset on the step that ended the episode
    assert [i["episode_length"] for i in infos] == [3, 3, 3]
    vec.close()


def test_simple_style_rejects_vectorizer_buffer():
    buf = Buffers.allocate(BOX, spaces.Discrete(2), 1)
    with pytest.raises(APIUsageError, match="emulate"):
        Simple(buf=buf)


def test_episode_stats_report_and_restart_the_rows_that_end():
    from pufferlib.environment import EpisodeStats

    stats = EpisodeStats(3)
    assert stats.step(np.array([1.0, 2.0, 0.5]), np.zeros(3, bool)) == []
    infos = stats.step(np.array([1.0, 1.0, 1.0]), np.array([False, True, True]))
    assert infos == [{"episode_return": 3.0, "episode_length": 2}, {"episode_return": 1.5, "episode_length": 2}]
    assert stats.step(np.ones(3), np.ones(3, bool)) == [
        {"episode_return": 3.0, "episode_length": 3},  # row 0 went on
        {"episode_return": 1.0, "episode_length": 1},  # rows 1 and 2 started over
        {"episode_return": 1.0, "episode_length": 1}]
    stats.reset()
    assert stats.step(np.ones(3), np.array([True, False, False])) == [{"episode_return": 1.0, "episode_length": 1}]
