"""pufferlib._emulation: the C step of emulated Gymnasium envs, the group loop and the action range check.

The C step is checked against `reference_step`, the emulation contract written out in
Python (what `GymnasiumPufferEnv.step` did before it moved to C), on an env whose
observations, rewards, flags and infos take every form an env may return.
"""

import gc
import weakref
from types import MappingProxyType

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import pufferlib.vector
from pufferlib import APIUsageError
from pufferlib._emulation import GymStep, in_range, step_group
from pufferlib.emulation import GymnasiumPufferEnv, step_pairs
from pufferlib.environment import Buffers
from tests.core.envs import CountingEnv

BOX = spaces.Box(-10, 10, (2, 3), np.float32)


class Varied(gym.Env):
    """Observations, rewards, terminals, truncations and infos of every form, by a seeded draw."""

    observation_space, action_space = BOX, spaces.Discrete(3)

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def _obs(self):
        values = self.rng.uniform(-1, 1, (2, 3))
        form = int(self.rng.integers(5))
        if form == 0:
            return values.astype(np.float32)  # the row's own format: copied in C
        if form == 1:
            return values  # float64: cast by numpy
        if form == 2:
            return values.tolist()  # not an array
        if form == 3:
            return np.asfortranarray(values.astype(np.float32))  # not C-contiguous
        return (values * 10).astype(np.int32)  # integers: cast by numpy

    def reset(self, seed=None, options=None):
        return self._obs(), {"reset": True}

    def step(self, action):
        r = self.rng
        reward = [1, 0.25, np.float32(0.5), np.float64(-2.0), True][int(r.integers(5))]
        flag = [False, True, np.bool_(False), np.bool_(True), 0, 1]
        terminal = flag[int(r.integers(6))] if r.random() < 0.15 else False
        truncated = flag[int(r.integers(6))] if r.random() < 0.1 else np.bool_(False)
        info = [{}, None, {"a": int(action)}, MappingProxyType({"m": 1})][int(r.integers(4))]
        return self._obs(), reward, terminal, truncated, info


class ReferenceEnv:
    """The emulation contract of one single-agent env, in Python, on its own arrays."""

    def __init__(self, env: gym.Env, max_steps: int | None):
        self.env, self.max_steps = env, max_steps
        self.buf = Buffers.allocate(BOX, env.action_space, 1)
        self.episode_return, self.episode_length = 0.0, 0

    def reset(self):
        obs, _ = self.env.reset()
        self.buf.observations[0] = obs

    def step(self, action: int):
        obs, reward, terminal, truncated, info = self.env.step(np.int32(action))
        self.episode_return += float(reward)
        self.episode_length += 1
        if self.episode_length == self.max_steps:
            truncated = True
        b = self.buf
        b.rewards[0], b.terminals[0], b.truncations[0] = reward, terminal, truncated
        infos = []
        if terminal or truncated:
            info = dict(info) if info else {}
            info.update(episode_return=self.episode_return, episode_length=self.episode_length)
            infos.append(info)
            b.final_observations[0] = obs
            obs, _ = self.env.reset()
            self.episode_return, self.episode_length = 0.0, 0
        b.observations[0] = obs
        return infos


@pytest.mark.parametrize("max_steps", [None, 7])
def test_c_step_matches_the_python_contract(max_steps):
    make = (lambda: Varied(1)) if max_steps is None else (lambda: gym.wrappers.TimeLimit(Varied(1), max_steps))
    env, ref = GymnasiumPufferEnv(make), ReferenceEnv(Varied(1), max_steps)
    env.reset()
    ref.reset()
    actions = np.random.default_rng(2).integers(0, 3, 600)
    ended = 0
    for action in actions:
        obs, rewards, terminals, truncations, infos = env.step(np.array([[action]], np.int32))
        expected = ref.step(int(action))
        for name in ("observations", "rewards", "terminals", "truncations", "final_observations"):
            np.testing.assert_array_equal(getattr(env, name), getattr(ref.buf, name), err_msg=name)
        assert obs is env.observations and rewards is env.rewards
        assert terminals is env.terminals and truncations is env.truncations
        assert infos == expected and all(type(i) is dict for i in infos)
        assert (env.episode_return, env.episode_length) == (ref.episode_return, ref.episode_length)
        ended += bool(infos)
    assert ended > 20  # episodes ended by terminals, truncations and (with max_steps) the step limit


def test_step_group_mixes_c_steps_and_python_steps_and_keeps_info_order():
    class Plain(GymnasiumPufferEnv):  # its own step: stepped through a Python call
        def step(self, actions):
            return super().step(actions)

    envs = [GymnasiumPufferEnv(CountingEnv, env_kwargs=dict(length=2)),
            Plain(CountingEnv, env_kwargs=dict(length=1)),
            GymnasiumPufferEnv(CountingEnv, env_kwargs=dict(length=1))]
    for env in envs:
        env.reset()
    pairs = step_pairs(envs)
    assert [type(step) for step, _ in pairs] == [GymStep, type(envs[1].step), GymStep]
    infos: list = []
    step_group(pairs, infos)
    assert [i["episode_length"] for i in infos] == [1, 1]  # envs 1 and 2, in env order
    step_group(pairs, infos)
    assert [i["episode_length"] for i in infos] == [1, 1, 2, 1, 1]


class Broken(gym.Env):
    observation_space, action_space = spaces.Box(0, 1, (2,), np.float32), spaces.Discrete(2)

    def __init__(self, result):
        self.result = result

    def reset(self, seed=None, options=None):
        return np.zeros(2, np.float32), {}

    def step(self, action):
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


@pytest.mark.parametrize("result, error, match", [
    ((np.zeros(2, np.float32), 0.0, False, {}), ValueError, r"not enough values to unpack \(expected 5, got 4\)"),
    ((np.zeros(2, np.float32), 0.0, False, False, {}, 1), ValueError, r"too many values to unpack \(expected 5\)"),
    (None, TypeError, "cannot unpack non-iterable NoneType"),
    ((np.zeros(2, np.float32), "x", False, False, {}), TypeError, "must be real number"),
    ((np.zeros(2, np.float32), 0.0, True, False, 3), TypeError, "int"),
    (RuntimeError("env failed"), RuntimeError, "env failed"),
])
def test_c_step_raises_what_python_would(result, error, match):
    env = GymnasiumPufferEnv(Broken(result))
    env.reset()
    with pytest.raises(error, match=match):
        env.step(np.zeros((1, 1), np.int32))


def test_an_env_and_its_c_step_are_garbage_collected():
    env = GymnasiumPufferEnv(CountingEnv)  # env -> its GymStep -> env's bound methods: a cycle
    env.reset()
    alive = weakref.ref(env)
    del env
    gc.collect()
    assert alive() is None


def test_non_contiguous_buffers_are_refused_with_a_clear_error():
    env_like = GymnasiumPufferEnv(Varied)
    buf = Buffers.allocate(env_like.single_observation_space, env_like.single_action_space, 1)
    strided = Buffers(np.zeros((1, 2, 6), np.float32)[:, :, ::2], buf.rewards, buf.terminals, buf.truncations,
                      buf.masks, buf.actions)
    with pytest.raises(APIUsageError, match="C-contiguous"):
        GymnasiumPufferEnv(Varied, buf=strided)


def test_serial_rebinding_keeps_the_episode_counters_and_checks():
    vec = pufferlib.vector.make(CountingEnv, num_envs=2, backend="serial", env_kwargs=dict(length=100))
    vec.reset()
    for _ in range(2):
        vec.step(np.ones(2, np.int32))
    first = vec.envs[0]
    assert first.episode_length == 2 and first.episode_return == 2.0
    first.rebind(Buffers.allocate(first.single_observation_space, first.single_action_space, 1))
    assert first.episode_length == 2 and first.episode_return == 2.0
    vec.close()


INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.intp]


@pytest.mark.parametrize("dtype", INTS)
def test_in_range_reads_every_integer_type(dtype):
    assert in_range(np.array([0, 1, 4], dtype), 5) is True
    assert in_range(np.array([0, 5, 1], dtype), 5) is False  # high itself is out
    assert in_range(np.array([], dtype), 1) is True
    if np.dtype(dtype).kind == "i":
        assert in_range(np.array([0, -1], dtype), 5) is False  # negatives are out
    assert in_range(np.array([3], dtype), 0) is False


def test_in_range_declines_arrays_it_does_not_read():
    assert in_range(np.array([[0, 1], [1, 0]], np.int32).T, 2) is None  # not C-contiguous
    assert in_range(np.array([0, 1], ">i4"), 2) is None  # not native byte order
    assert in_range(np.array([0.0, 1.0]), 2) is None  # not integers
    assert in_range(np.zeros((2, 3), np.int64)[:, 1], 2) is None


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_an_emulated_env_copies_with_its_state_and_steps_into_its_own_arrays(how):
    import copy
    import pickle

    env = GymnasiumPufferEnv(CountingEnv, env_kwargs=dict(length=100))
    env.reset()
    for _ in range(3):
        env.step(np.ones((1, 1), np.int32))
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert (twin.episode_return, twin.episode_length) == (3.0, 3)
    obs = twin.step(np.ones((1, 1), np.int32))[0]
    assert obs is twin.observations and obs[0, 0] == 4  # written into the copy's own arrays
    assert env.observations[0, 0] == 3 and twin.episode_length == 4 and env.episode_length == 3
