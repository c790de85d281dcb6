"""Emulation of Gymnasium and PettingZoo envs: flattening, auto-reset, masks, infos."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import ParallelEnv

from pufferlib import APIUsageError
from pufferlib.emulation import GymnasiumPufferEnv, PettingZooPufferEnv
from tests.core.envs import ComeAndGo, CountingEnv


def test_gymnasium_cartpole_matches_the_raw_env():
    raw = gym.make("CartPole-v1")
    env = GymnasiumPufferEnv(lambda: gym.make("CartPole-v1"))
    expected, _ = raw.reset(seed=3)
    obs, _ = env.reset(seed=3)
    np.testing.assert_array_equal(obs[0], expected)
    rng = np.random.default_rng(0)
    for _ in range(30):
        action = int(rng.integers(2))
        expected, reward, term, trunc, _ = raw.step(action)
        if term or trunc:
            break
        obs, rewards, terminals, truncations, _ = env.step(np.array([[action]], np.int32))
        np.testing.assert_array_equal(obs[0], expected)
        assert rewards[0] == reward and not terminals[0]


def test_auto_reset_semantics_and_episode_stats():
    env = GymnasiumPufferEnv(CountingEnv, env_kwargs=dict(length=3))
    obs, infos = env.reset()
    assert obs[0, 0] == 0 and infos == [{"reset": True}]
    for t in (1, 2):
        obs, rewards, terminals, _, infos = env.step(np.array([[2]], np.int32))
        assert obs[0, 0] == t and not terminals[0] and infos == []
    # The step that ends the episode: its reward and terminal, the next episode's first
    # observation, and the final info with episode stats.
    obs, rewards, terminals, truncations, infos = env.step(np.array([[1]], np.int32))
    assert terminals[0] and not truncations[0] and rewards[0] == 1
    assert obs[0, 0] == 0
    assert infos == [{"t": 3, "episode_return": 5.0, "episode_length": 3}]
    assert env.writes_final_observations and env.final_observations[0, 0] == 3  # the ended episode's last
    # The step after a done is an ordinary first step of the new episode.
    obs, _, terminals, _, infos = env.step(np.array([[0]], np.int32))
    assert obs[0, 0] == 1 and not terminals[0] and infos == []


def test_truncation_is_reported_separately():
    env = GymnasiumPufferEnv(lambda: gym.wrappers.TimeLimit(CountingEnv(length=100), max_episode_steps=2))
    env.reset()
    env.step(np.array([[0]], np.int32))
    _, _, terminals, truncations, infos = env.step(np.array([[0]], np.int32))
    assert truncations[0] and not terminals[0] and infos[0]["episode_length"] == 2


def test_final_observation_of_a_nested_space_is_flat_like_the_others():
    env = GymnasiumPufferEnv(CountingEnv, env_kwargs=dict(length=2, nested=True))
    env.reset()
    env.step(np.array([[0]], np.int32))
    obs, *_ = env.step(np.array([[0]], np.int32))
    final = env.obs_layout.unflatten(env.final_observations[0])
    assert final["count"][0] == 2 and final["extra"][0] == 2
    assert env.obs_layout.unflatten(obs[0])["count"][0] == 0  # already the next episode


def test_nested_observation_is_flattened_and_recoverable():
    env = GymnasiumPufferEnv(CountingEnv, env_kwargs=dict(nested=True))
    obs, _ = env.reset()
    env.step(np.array([[0]], np.int32))
    obs, *_ = env.step(np.array([[0]], np.int32))
    nested = env.obs_layout.unflatten(obs[0])
    assert nested["count"][0] == 2
    assert nested["extra"][0] == 2
    np.testing.assert_array_equal(nested["extra"][1], [1, 0, 0])
    assert np.shares_memory(nested["count"], obs)


def test_structured_actions_reach_the_env_unflattened():
    seen = []

    class DictAction(gym.Env):
        observation_space = spaces.Box(0, 1, (1,), np.float32)
        action_space = spaces.Dict({"move": spaces.Discrete(3, start=-1), "fire": spaces.MultiBinary(2)})

        def reset(self, seed=None, options=None):
            return np.zeros(1, np.float32), {}

        def step(self, action):
            seen.append(action)
            return np.zeros(1, np.float32), 0.0, False, False, {}

    env = GymnasiumPufferEnv(DictAction())
    # Dict keys are sorted by gymnasium: fire (2 x MultiBinary), then move.
    assert env.single_action_space == spaces.MultiDiscrete([2, 2, 3])
    env.reset()
    env.step(np.array([[1, 0, 0]], np.int32))
    assert seen[0]["move"] == -1
    np.testing.assert_array_equal(seen[0]["fire"], [1, 0])
    assert DictAction.action_space.contains(seen[0])


def test_box_actions():
    env = GymnasiumPufferEnv(lambda: gym.make("Pendulum-v1"))
    assert env.actions.dtype == np.float32 and env.single_action_space.shape == (1,)
    env.reset(seed=0)
    _, rewards, *_ = env.step(np.array([[0.5]], np.float32))
    assert rewards[0] < 0


def test_pettingzoo_agents_come_and_go():
    env = PettingZooPufferEnv(ComeAndGo())
    obs, _ = env.reset(seed=0)
    assert env.num_agents == 2
    np.testing.assert_array_equal(env.masks, [True, False])
    np.testing.assert_array_equal(obs[1], 0)
    obs, rewards, terminals, _, infos = env.step(np.array([[1], [3]], np.int32))
    np.testing.assert_array_equal(env.masks, [True, True])  # b arrived
    np.testing.assert_array_equal(rewards, [1, 0])  # b was absent when acting
    obs, rewards, terminals, _, _ = env.step(np.array([[2], [3]], np.int32))
    np.testing.assert_array_equal(terminals, [True, False])
    np.testing.assert_array_equal(rewards, [2, 3])
    np.testing.assert_array_equal(env.masks, [False, True])  # a's reward closes its last transition
    np.testing.assert_array_equal(env.final_observations[0], [2, 0])  # a's last observation
    obs, rewards, terminals, _, infos = env.step(np.array([[2], [1]], np.int32))
    np.testing.assert_array_equal(rewards, [0, 1])
    np.testing.assert_array_equal(terminals, [False, True])
    # Episode over: reset in the same step; the new episode's agents (a) act.
    assert infos == [{"episode_return": 3.5, "episode_length": 3}]
    np.testing.assert_array_equal(env.final_observations[1], [3, 0])  # b's last, before the reset
    np.testing.assert_array_equal(obs[0], [1, 0])
    np.testing.assert_array_equal(env.masks, [True, False])
    env.step(np.array([[0], [0]], np.int32))
    np.testing.assert_array_equal(env.masks, [True, True])


def test_pettingzoo_different_spaces_name_the_agents():
    class Uneven(ComeAndGo):
        def __init__(self):
            self.possible_agents = ["a", "b", "c"]

        def observation_space(self, agent):
            return spaces.Box(-1, 1, (3 if agent == "c" else 2,), np.float32)

    with pytest.raises(APIUsageError, match=r"\['c'\] differ"):
        PettingZooPufferEnv(Uneven())


def test_pettingzoo_aec_env_is_converted():

    import pettingzoo

    env = PettingZooPufferEnv(pettingzoo.make("aec", "butterfly/knights_archers_zombies-v11"))
    obs, _ = env.reset(seed=0)
    assert isinstance(env.env, ParallelEnv) or hasattr(env.env, "agents")
    assert obs.shape[0] == env.num_agents == 4
    env.close()


# ---- observations and agents that do not fit the declared spaces -----------------------

class Emits(gym.Env):
    """Returns `bad` as its observation at reset (when `at_reset`) or at its second step."""

    def __init__(self, space, good, bad, at_reset=True):
        self.observation_space, self.action_space = space, spaces.Discrete(2)
        self.good, self.bad, self.at_reset, self.t = good, bad, at_reset, 0

    def reset(self, seed=None, options=None):
        self.t = 0
        return (self.bad if self.at_reset else self.good), {}

    def step(self, action):
        self.t += 1
        return (self.bad if self.t == 2 else self.good), 0.0, False, False, {}


BOX3 = spaces.Box(-1, 1, (3,), np.float32)
BYTES = spaces.Box(0, 255, (2,), np.uint8)
DICT = spaces.Dict({"a": spaces.Box(0, 1, (2,), np.float32), "b": spaces.Discrete(4)})


@pytest.mark.parametrize("space, good, bad, message", [
    (BOX3, np.zeros(3, np.float32), np.zeros(1, np.float32), r"has shape \(1,\), expected \(3,\)"),
    (BOX3, np.zeros(3, np.float32), None, "is None"),
    (BYTES, np.zeros(2, np.uint8), np.array([300, 1]), "cannot hold .*wrap"),
    (BYTES, np.zeros(2, np.uint8), np.array([1.5, 1.0]), "non-integer"),
    (DICT, {"a": np.zeros(2, np.float32), "b": 1}, {"a": np.zeros(2, np.float32)}, r"lacks the key\(s\) \['b'\]"),
    (DICT, {"a": np.zeros(2, np.float32), "b": 1}, {"a": np.zeros(2, np.float32), "b": 1, "c": 2},
     r"key\(s\) \['c'\] that the space does not declare"),
], ids=["shape", "none", "uint8-wrap", "fraction-into-int", "missing-key", "extra-key"])
@pytest.mark.parametrize("at_reset", [True, False], ids=["reset", "step"])
def test_observation_that_does_not_fit_its_space_names_env_and_space(space, good, bad, message, at_reset):
    env = GymnasiumPufferEnv(Emits(space, good, bad, at_reset))
    with pytest.raises(APIUsageError, match=f"Emits returned an observation that does not fit .*{message}"):
        env.reset(seed=0)
        for _ in range(3):
            env.step(np.zeros((1, 1), np.int32))


def test_observation_outside_the_bounds_warns_once_like_gymnasiums_checker(monkeypatch):
    import warnings

    from pufferlib import emulation

    monkeypatch.setattr(emulation, "_WARNED", set())
    env = GymnasiumPufferEnv(Emits(BOX3, np.zeros(3, np.float32), np.full(3, 5.0, np.float32)))
    with pytest.warns(UserWarning, match="outside its observation_space"):
        obs, _ = env.reset(seed=0)
    assert obs[0].tolist() == [5.0, 5.0, 5.0]  # written as given
    other = GymnasiumPufferEnv(Emits(BOX3, np.zeros(3, np.float32), np.full(3, 5.0, np.float32)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        other.reset(seed=0)  # a second copy of the same env says nothing more


def test_observations_are_checked_only_on_the_first_steps(monkeypatch):
    from pufferlib.emulation import OBS_CHECKS

    checked = []
    check = GymnasiumPufferEnv._check_obs
    monkeypatch.setattr(GymnasiumPufferEnv, "_check_obs",
                        lambda self, obs, agent=None: (checked.append(obs), check(self, obs, agent))[1])
    env = GymnasiumPufferEnv(Emits(BOX3, np.zeros(3, np.float32), np.zeros(3, np.float32)))
    env.reset(seed=0)
    for _ in range(2 * OBS_CHECKS):
        env.step(np.zeros((1, 1), np.int32))
    assert len(checked) == OBS_CHECKS  # the reset's and the first steps'; later ones are written unchecked


class Stranger(ComeAndGo):
    """Reports an agent at step 1 that is not in possible_agents."""

    def step(self, actions):
        obs, rewards, terms, truncs, infos = super().step(actions)
        obs["zed"] = np.zeros(2, np.float32)
        rewards["zed"] = 0.0
        return obs, rewards, terms, truncs, infos


def test_pettingzoo_agent_not_in_possible_agents_is_named():
    env = PettingZooPufferEnv(Stranger())
    env.reset(seed=0)
    with pytest.raises(APIUsageError, match=r"agent\(s\) \['zed'\] that are not in its possible_agents"):
        env.step(np.zeros((2, 1), np.int32))
