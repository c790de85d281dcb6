"""puffer-bsuite: the ids, the spaces, the dm_env -> Gymnasium adapter against bsuite's own envs, settings, seeds."""

import subprocess
import sys

import dm_env
import numpy as np
import pytest
from bsuite import bsuite, sweep

import pufferlib
from puffer_bsuite import specs
from puffer_bsuite.env import BsuiteEnv, make
from pufferlib import APIUsageError
from pufferlib.registry import spec


def test_one_id_per_bsuite_experiment_with_its_settings_and_tags():
    experiments = {bid.split("/")[0] for bid in sweep.SWEEP}
    assert set(specs.EXPERIMENTS) == experiments - set(specs.LEFT_OUT)
    assert set(specs.LEFT_OUT) == {"mnist", "mnist_noise", "mnist_scale"}
    for name, (count, tags, _) in specs.EXPERIMENTS.items():
        assert count == sum(bid.split("/")[0] == name for bid in sweep.SWEEP)
        assert set(tags) == {tag for tag, ids in sweep.TAGS.items() if f"{name}/0" in ids}
        s = spec(f"bsuite-{name}")
        assert s.kwargs == {"experiment": name, "setting": 0} and s.package == "puffer-bsuite"
        assert s.policy == "pufferlib.models:Default" and s.config["rnn"]["enabled"] is True


def test_the_entry_module_does_not_import_bsuite():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('bsuite-deep_sea'); "
            "assert 'bsuite' not in sys.modules and 'puffer_bsuite.env' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("experiment,setting,obs_size,actions", [
    ("deep_sea", 3, 16 * 16, 2), ("catch", 0, 50, 3), ("memory_size", 2, 5, 2),
    ("umbrella_length", 0, 23, 2), ("cartpole_swingup", 1, 8, 3), ("bandit_noise", 5, 1, 11)])
def test_spaces_are_bsuites_specs_flattened(experiment, setting, obs_size, actions):
    env = BsuiteEnv(experiment, setting)
    raw = bsuite.load(experiment, sweep.SETTINGS[f"{experiment}/{setting}"])
    assert int(np.prod(raw.observation_spec().shape)) == obs_size == env.observation_space.shape[0]
    assert env.observation_space.dtype == np.float32 and env.action_space.n == actions
    obs, info = env.reset(seed=1)
    assert obs.shape == (obs_size,) and obs.dtype == np.float32 and info == {}


@pytest.mark.parametrize("experiment,setting", [("catch", 0), ("memory_len", 2), ("deep_sea", 0)])
def test_steps_equal_bsuites_own_with_the_same_seed_and_actions(experiment, setting):
    kwargs = {**sweep.SETTINGS[f"{experiment}/{setting}"], "seed": 7}
    ref = bsuite.load(experiment, kwargs)
    env = BsuiteEnv(experiment, setting)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=7)
    timestep, ends = ref.reset(), 0
    for _ in range(120):
        np.testing.assert_array_equal(obs, timestep.observation.reshape(-1))
        action = int(rng.integers(env.action_space.n))
        timestep = ref.step(action)
        obs, reward, terminated, truncated, _ = env.step(action)
        assert reward == timestep.reward
        assert (terminated, truncated) == (timestep.last(), False)  # bsuite 0.3.6 ends episodes with discount 0
        if timestep.last():
            ends += 1
            obs, _ = env.reset()
            timestep = ref.reset()
    assert ends >= 10
    assert env.bsuite_info() == {k: float(v) for k, v in ref.bsuite_info().items()}


class _Cut(dm_env.Environment):
    """A dm_env environment whose episodes are cut off after 2 steps (LAST with discount 1)."""

    def reset(self):
        self.t = 0
        return dm_env.restart(np.zeros((1, 2), np.float32))

    def step(self, action):
        self.t += 1
        obs = np.full((1, 2), self.t, np.float32)
        return dm_env.truncation(0.5, obs) if self.t == 2 else dm_env.transition(0.5, obs)

    def observation_spec(self):
        raise NotImplementedError

    def action_spec(self):
        raise NotImplementedError

    def bsuite_info(self):
        return {"total_regret": 2.0 * self.t}


def test_last_with_discount_is_truncation_and_without_is_termination():
    env = BsuiteEnv("memory_len", 0)
    env.env = _Cut()
    env.reset()
    assert env.step(0)[1:4] == (0.5, False, False)
    obs, reward, terminated, truncated, info = env.step(1)
    assert (reward, terminated, truncated) == (0.5, False, True) and obs.tolist() == [2.0, 2.0]
    assert info == {"regret": 4.0}  # what the episode added to total_regret (from 0 at construction)
    env = BsuiteEnv("memory_len", 0)  # memory_len/0: 2 steps, ends with bsuite's termination
    env.reset(seed=0)
    env.step(0)
    _, _, terminated, truncated, info = env.step(0)
    assert (terminated, truncated) == (True, False) and set(info) == {"perfect", "regret"}
    assert info["perfect"] + info["regret"] / 2 == 1.0  # one episode: perfect, or a regret of 2


def test_setting_is_validated_against_the_sweep():
    assert BsuiteEnv("deep_sea", 20).observation_space.shape == (50 * 50,)  # deep_sea/20: size 50
    for bad in (-1, 21, True, 1.5, "3"):
        with pytest.raises(APIUsageError, match=r"setting must be an int from 0 to 20, an index into bsuite's "
                                                r"deep_sea sweep \(deep_sea/0: \{'size': 10"):
            BsuiteEnv("deep_sea", bad)
    with pytest.raises(APIUsageError, match="setting must be an int from 0 to 22"):
        pufferlib.make("bsuite-memory_len", setting=23)


def test_bad_arguments_say_how_to_fix():
    with pytest.raises(APIUsageError, match="bsuite envs take only experiment, setting; got results_dir"):
        make("catch", 0, results_dir="/tmp/x")
    with pytest.raises(APIUsageError, match="mnist has no puffer-bsuite id: bsuite downloads MNIST"):
        BsuiteEnv("mnist", 0)
    with pytest.raises(APIUsageError, match="experiment must be one of bsuite's: bandit, bandit_noise"):
        BsuiteEnv("pong", 0)
    env = BsuiteEnv("catch", 0)
    with pytest.raises(APIUsageError, match="call reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(APIUsageError, match="takes actions 0 to 2; got 3"):
        env.step(3)


def test_same_seed_same_episodes_and_seeded_reset_starts_a_new_run():
    def run(seed: int) -> list:
        env = BsuiteEnv("catch", 0)  # catch/0's seed is None: random unless reset with one
        out = [env.reset(seed=seed)[0]]
        for _ in range(60):
            obs, _, term, trunc, _ = env.step(1)
            out.append(obs)
            if term or trunc:
                out.append(env.reset()[0])
        return out

    a, b, c = run(3), run(3), run(4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    env = BsuiteEnv("deep_sea_stochastic", 0)  # its loader takes no seed: its random state is reseeded
    env.reset(seed=5)
    first = [env.step(1)[1] for _ in range(9)]
    assert env.bsuite_info()["total_bad_episodes"] in (0.0, 1.0)
    env.reset(seed=5)
    assert env.bsuite_info()["total_bad_episodes"] == 0.0  # a new run counts from zero
    assert [env.step(1)[1] for _ in range(9)] == first


def test_vectorized_copies_step_and_log_episode_increments():
    env = pufferlib.make("bsuite-umbrella_length", num_envs=4, seed=0, setting=2)  # chain length 3
    try:
        obs, _ = env.reset()
        assert obs.shape == (4, 23) and obs.dtype == np.float32
        for _ in range(2):
            _, _, terms, _, infos = env.step(np.zeros(4, np.int64))
            assert not terms.any()
        _, _, terms, _, infos = env.step(np.zeros(4, np.int64))
        assert terms.all() and all(info["episode_length"] == 3 and "regret" in info for info in infos)
    finally:
        env.close()
