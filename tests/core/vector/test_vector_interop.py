"""Our vectorized envs through Gymnasium's VectorEnv API and Stable-Baselines3's VecEnv API."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import pufferlib.vector
from pufferlib import APIUsageError
from tests.core.mp_envs import Squad, cartpole, tagged_creators

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("backend", ["serial", "multiprocessing"])
def test_to_gymnasium_matches_sync_vector_env(backend):
    """A CleanRL-style loop gets what gym.vector.SyncVectorEnv (same-step autoreset) gives."""
    kwargs = dict(num_workers=2) if backend == "multiprocessing" else {}
    envs = pufferlib.vector.to_gymnasium(pufferlib.vector.make(cartpole, num_envs=4, backend=backend, **kwargs))
    reference = gym.vector.SyncVectorEnv([cartpole] * 4, autoreset_mode=AutoresetMode.SAME_STEP)
    assert isinstance(envs, gym.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.single_observation_space == reference.single_observation_space
    assert envs.single_action_space == reference.single_action_space
    assert envs.action_space == reference.action_space and envs.num_envs == 4
    obs, infos = envs.reset(seed=1)
    ref_obs, _ = reference.reset(seed=1)
    np.testing.assert_array_equal(obs, ref_obs)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):
        actions = rng.integers(0, envs.single_action_space.n, envs.num_envs)
        obs, rewards, terminations, truncations, infos = envs.step(actions)
        ref = reference.step(actions)
        for ours, theirs in zip((obs, rewards, terminations, truncations), ref[:4]):
            np.testing.assert_array_equal(ours, theirs)
        done = terminations | truncations
        if done.any():
            np.testing.assert_array_equal(infos["_episode_length"], done)
            assert (infos["episode_length"][done] > 0).all()
            # the last observation of each ended episode, as SyncVectorEnv's SAME_STEP mode gives it
            np.testing.assert_array_equal(infos["_final_obs"], ref[4]["_final_obs"])
            for i in np.flatnonzero(done):
                np.testing.assert_array_equal(infos["final_obs"][i], ref[4]["final_obs"][i])
            assert infos["final_obs"][~done].tolist() == [None] * int((~done).sum())
            np.testing.assert_array_equal(infos["final_info"]["episode_length"], infos["episode_length"])
            episodes += int(done.sum())
        else:
            assert infos == {}
    assert episodes > 0
    envs.close()
    reference.close()
    assert envs.vecenv.closed


def test_to_gymnasium_refuses_asynchronous_vectors():
    with pufferlib.vector.make(cartpole, num_envs=4, batch_size=2) as vecenv:
        with pytest.raises(APIUsageError, match="synchronous"):
            pufferlib.vector.to_gymnasium(vecenv)


def test_to_gymnasium_makes_each_agent_row_one_env():
    """3 copies of a 2-agent env are 6 envs; env i observes and acts through agent row i."""
    creators, args, kwargs = tagged_creators(3, num_agents=2)
    envs = pufferlib.vector.to_gymnasium(pufferlib.vector.make(creators, args, kwargs, num_envs=3))
    assert envs.num_envs == 6 and envs.observation_space.shape == (6, 4) and envs.action_space.shape == (6,)
    obs, _ = envs.reset(seed=0)
    np.testing.assert_array_equal(obs[:, :2], [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])  # (copy, agent)
    obs, rewards, terminations, truncations, infos = envs.step(np.arange(6) * 10)
    assert obs.shape == (6, 4) and rewards.shape == terminations.shape == truncations.shape == (6,)
    np.testing.assert_array_equal(obs[:, 3], np.arange(6) * 10)  # row i got action i
    np.testing.assert_array_equal(rewards, [0, 0, 1, 1, 2, 2])
    assert rewards.dtype == np.float64 and infos == {}
    envs.close()


def test_to_gymnasium_reports_each_rows_episode_of_a_native_multi_agent_env():
    """ocean-squared (one native env of 16 agents): per-row final_obs and episode stats, SAME_STEP."""
    envs = pufferlib.vector.to_gymnasium(pufferlib.make("ocean-squared", num_envs=16))
    obs, _ = envs.reset(seed=0)
    assert envs.num_envs == 16 and obs.shape == (16, 11, 11)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        obs, rewards, terminations, truncations, infos = envs.step(rng.integers(0, 5, 16))
        done = terminations | truncations
        if not done.any():
            continue
        np.testing.assert_array_equal(infos["_final_obs"], done)
        np.testing.assert_array_equal(infos["final_info"]["_episode"], done)
        for i in np.flatnonzero(done):
            assert infos["final_obs"][i].shape == (11, 11) and infos["final_info"]["episode"]["l"][i] > 0
        ended += int(done.sum())
    assert ended > 0
    envs.close()


@pytest.mark.parametrize("adapter", ["to_gymnasium", "to_sb3"])
def test_rows_whose_agent_left_are_refused_naming_them(adapter):
    """A PettingZoo agent that leaves while the others play on cannot be an env of either API."""
    with pufferlib.vector.make(Squad, num_envs=2) as vecenv:
        envs = getattr(pufferlib.vector, adapter)(vecenv)
        envs.reset()
        with pytest.raises(APIUsageError, match=r"agent row\(s\) \d+ \(agent \d of copy \d\).* hold no agent "
                                                r"after this step.*only envs whose agents are all present"):
            for _ in range(200):
                envs.step(np.zeros(6, np.int64))


def test_to_sb3_semantics():
    vecenv = pufferlib.vector.make(cartpole, num_envs=4, backend="multiprocessing", num_workers=2)
    env = pufferlib.vector.to_sb3(vecenv)
    env.seed(3)
    obs = env.reset()
    assert obs.shape == (4, 4) and not np.shares_memory(obs, vecenv.observations)
    assert env.get_attr("spec")[0].id == "CartPole-v1"
    with pytest.raises(APIUsageError, match="worker processes"):
        env.set_attr("x", 1)
    finished = []
    for _ in range(300):
        obs, rewards, dones, infos = env.step(np.ones(4, np.int64))
        assert len(infos) == 4 and rewards.shape == (4,) and dones.dtype == bool
        for i in np.flatnonzero(dones):
            assert infos[i]["episode"]["l"] == infos[i]["episode_length"] > 0
            assert infos[i]["TimeLimit.truncated"] is False
            final = infos[i]["terminal_observation"]  # pushed right until the pole fell or the cart left
            assert final.shape == (4,) and (abs(final[2]) > 0.2 or abs(final[0]) > 2.4), final
            assert not np.array_equal(final, obs[i])  # obs[i] is already the next episode's first
            finished.append(i)
        assert all(not infos[i] for i in np.flatnonzero(~dones))
    assert len(finished) > 4
    env.close()
    assert vecenv.closed


def test_sb3_ppo_learns_on_our_vectorizer():
    import stable_baselines3 as sb3

    vecenv = pufferlib.vector.make(cartpole, num_envs=4, backend="multiprocessing", num_workers=2)
    env = pufferlib.vector.to_sb3(vecenv)
    from stable_baselines3.common.logger import Logger

    model = sb3.PPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=2, seed=0, device="cpu")
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default writes a folder in /tmp
    model.learn(total_timesteps=1024)
    assert model.num_timesteps >= 1024
    assert len(model.ep_info_buffer) > 0  # episode statistics reached SB3's logger
    env.close()


def test_sb3_ppo_trains_on_a_native_multi_agent_env_one_env_per_agent_row():
    """to_sb3(make('ocean-squared', num_envs=16)): 16 SB3 envs, SB3's NaN check and PPO run on it."""
    import stable_baselines3 as sb3
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import VecCheckNan

    env = pufferlib.vector.to_sb3(pufferlib.make("ocean-squared", num_envs=16))
    assert env.num_envs == 16 and env.observation_space.shape == (11, 11)
    env.seed(0)
    env.reset()
    finished, rng = 0, np.random.default_rng(0)
    for _ in range(100):
        obs, rewards, dones, infos = env.step(rng.integers(0, 5, 16))
        assert obs.shape == (16, 11, 11) and rewards.shape == dones.shape == (16,) and len(infos) == 16
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (11, 11) and infos[i]["episode"]["l"] > 0
            finished += 1
        assert all(set(infos[i]) <= {"pufferlib_infos"} for i in np.flatnonzero(~dones))
    assert finished > 0
    model = sb3.PPO("MlpPolicy", VecCheckNan(env, raise_exception=True), n_steps=16, batch_size=64, n_epochs=1,
                    seed=0, device="cpu")
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default writes a folder in /tmp
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512 and len(model.ep_info_buffer) > 0
    env.close()


@pytest.mark.parametrize("backend", ["serial", "multiprocessing"])
def test_to_gymnasium_reports_episodes_like_record_episode_statistics(backend):
    """CleanRL/SB3-style code reads infos["final_info"]["episode"]["r"/"l"/"t"] and the masks."""
    def recorded():
        return gym.wrappers.RecordEpisodeStatistics(cartpole())

    kwargs = dict(num_workers=2) if backend == "multiprocessing" else {}
    envs = pufferlib.vector.to_gymnasium(pufferlib.vector.make(cartpole, num_envs=4, backend=backend, **kwargs))
    reference = gym.vector.SyncVectorEnv([recorded] * 4, autoreset_mode=AutoresetMode.SAME_STEP)
    envs.reset(seed=1)
    reference.reset(seed=1)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(200):
        actions = rng.integers(0, 2, 4)
        *_, infos = envs.step(actions)
        *_, ref = reference.step(actions)
        if "final_info" not in ref:
            assert "episode" not in infos
            continue
        ours, theirs = infos["final_info"], ref["final_info"]
        assert list(ours)[:2] == ["episode", "_episode"]  # the Gymnasium convention first
        np.testing.assert_array_equal(ours["_episode"], theirs["_episode"])
        assert set(ours["episode"]) == set(theirs["episode"]) == {"r", "l", "t", "_r", "_l", "_t"}
        for key in ("r", "l", "_r", "_l", "_t"):
            np.testing.assert_array_equal(ours["episode"][key], theirs["episode"][key])
            assert ours["episode"][key].dtype == theirs["episode"][key].dtype
        assert (ours["episode"]["t"][ours["_episode"]] >= 0).all()
        np.testing.assert_array_equal(infos["episode"]["r"], ours["episode"]["r"])  # merged into infos too
        np.testing.assert_array_equal(ours["episode_return"], ours["episode"]["r"])  # and ours still there
        episodes += int(ours["_episode"].sum())
    assert episodes > 4
    envs.close()
    reference.close()
