"""pufferlib.load / Agent: a checkpoint's policy acting on single or batched observations, with
its LSTM state and normalisation, in a Gymnasium env or a vectorized one."""

import gymnasium as gym
import numpy as np
import pytest
import torch

import pufferlib
import pufferlib.vector
from pufferlib import cli
from pufferlib.agent import build
from pufferlib.config import load_default, merge
from tests.core.envs import CountingEnv

TINY = ["--train.total-timesteps", "512", "--train.batch-size", "256", "--train.minibatch-size", "256",
        "--vec.num-envs", "2"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two tiny CartPole runs: a feed-forward one with observation normalisation, an LSTM one."""
    data = tmp_path_factory.mktemp("experiments")
    folders = []
    for extra in (["--normalize.observations", "true"], ["--rnn.enabled", "true", "--train.bptt-horizon", "8"]):
        assert cli.main(["train", "gym-CartPole-v1", *TINY, "--train.data-dir", str(data), *extra]) == 0
        folders += [f for f in data.iterdir() if f not in folders]
    return data, folders[0], folders[1]


def test_act_on_one_gymnasium_observation_and_on_a_batch(runs):
    _, run, _ = runs
    agent = pufferlib.load(run)
    assert agent.env_id == "gym-CartPole-v1" and agent.checkpoint.endswith("model_000002.pt")
    env = gym.make("CartPole-v1")
    obs, _ = env.reset(seed=0)
    action, state = agent.act(obs)
    assert isinstance(action, int) and action in (0, 1) and state is None
    env.step(action)
    env.close()
    batch = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    actions, _ = agent.act(batch)
    assert actions.shape == (5,) and actions[0] == agent.act(batch[0])[0]
    with pytest.raises(pufferlib.APIUsageError, match=r"one observation of shape \(4,\) or a batch"):
        agent.act(np.zeros((2, 3)))


def test_normalisation_statistics_come_back_from_the_checkpoint(runs):
    _, run, _ = runs
    agent = pufferlib.load(run)
    from pufferlib.train.normalize import NormalizedPolicy

    assert isinstance(agent.policy, NormalizedPolicy)
    saved = torch.load(next(run.glob("model_*.pt")), weights_only=True)["policy"]
    for key, value in agent.policy.state_dict().items():
        assert torch.equal(value, saved[key]), key


def test_greedy_act_matches_the_policys_argmax_and_sampling_varies(runs):
    _, run, _ = runs
    agent = pufferlib.load(run)
    batch = torch.randn(256, 4)
    logits, _ = agent.policy(batch)
    assert np.array_equal(agent.act(batch.numpy())[0], logits.argmax(-1).numpy())
    sampled = agent.act(batch.numpy(), deterministic=False)[0]
    assert not np.array_equal(sampled, logits.argmax(-1).numpy())  # 256 rows: one differs


def test_lstm_state_is_returned_and_reset_where_an_episode_starts(runs):
    _, _, lstm_run = runs
    agent = pufferlib.load(lstm_run)
    assert agent.recurrent
    obs = np.ones((3, 4), np.float32)
    _, state = agent.act(obs)
    assert state[0].shape == (3, 64) and state[0].abs().sum() > 0
    _, carried = agent.act(obs, state)
    _, restarted = agent.act(obs, state, episode_start=[True, False, True])
    _, fresh = agent.act(obs)
    assert torch.allclose(restarted[0][0], fresh[0][0]) and torch.allclose(restarted[0][1], carried[0][1])


@pytest.mark.parametrize("rnn", [True, False], ids=["lstm", "feed-forward"])
def test_an_episode_start_of_another_length_than_the_batch_is_refused(rnn):
    agent = build("gym-CartPole-v1", merge(load_default(), {"rnn": {"enabled": rnn}}))
    obs = np.ones((3, 4), np.float32)
    for starts in ([True], [True, False], np.zeros(4, bool)):  # one flag was broadcast over every row
        with pytest.raises(pufferlib.APIUsageError, match=rf"episode_start has {len(starts)} flag\(s\) for 3 "):
            agent.act(obs, episode_start=starts)
    actions, _ = agent.act(obs, episode_start=[True, False, True])
    assert actions.shape == (3,)
    assert agent.act(obs[0], episode_start=True)[0] in (0, 1)  # one observation: one flag


def test_latest_needs_the_env_id_and_picks_its_newest_run(runs):
    data, _, lstm_run = runs
    with pytest.raises(pufferlib.APIUsageError, match="needs env="):
        pufferlib.load("latest", data_dir=data)
    agent = pufferlib.load("latest", env="gym-CartPole-v1", data_dir=data)
    assert agent.checkpoint.startswith(str(lstm_run))


def test_evaluate_plays_in_its_own_env_or_in_a_given_vectorized_one(runs):
    _, run, _ = runs
    agent = pufferlib.load(run)
    own = agent.evaluate(episodes=4, seed=3)
    with pufferlib.make("gym-CartPole-v1", num_envs=4) as env:
        given = agent.evaluate(env, episodes=4, seed=3)
    assert own.episodes == given.episodes == 4 and own.mean > 0


def test_structured_observations_are_flattened_and_actions_unflattened():
    with pufferlib.vector.make(CountingEnv, env_kwargs={"nested": True}, num_envs=1, backend="serial") as env:
        agent = build(None, load_default(), env=env)
    raw = CountingEnv(nested=True)
    obs, _ = raw.reset()
    action, _ = agent.act(obs)
    assert raw.action_space.contains(action)


@pytest.mark.parametrize("rnn", [True, False], ids=["lstm", "feed-forward"])
def test_stable_baselines3_evaluate_policy_plays_an_agent_through_predict(rnn):
    from stable_baselines3.common.evaluation import evaluate_policy

    agent = build("gym-CartPole-v1", merge(load_default(), {"rnn": {"enabled": rnn}}))
    obs = np.ones((3, 4), np.float32)
    assert np.array_equal(agent.predict(obs, deterministic=True)[0], agent.act(obs)[0])
    venv = pufferlib.vector.to_sb3(pufferlib.make("gym-CartPole-v1", num_envs=2))
    try:
        returns, lengths = evaluate_policy(agent, venv, n_eval_episodes=4, return_episode_rewards=True, warn=False)
    finally:
        venv.close()
    assert len(returns) == len(lengths) == 4 and all(r == n >= 8 for r, n in zip(returns, lengths))  # +1 a step


def test_value_is_the_value_heads_estimate_in_reward_units_for_one_observation_or_a_batch(runs):
    _, run, lstm_run = runs
    agent = pufferlib.load(run)
    batch = torch.randn(6, 4)
    expected = agent.policy(batch)[1].view(-1) / agent.policy.reward_scale()
    assert np.allclose(agent.value(batch.numpy()), expected.detach().numpy())
    assert agent.value(batch[0].numpy()).shape == (1,)
    lstm = pufferlib.load(lstm_run)
    state = (torch.randn(6, lstm.policy.hidden_size), torch.randn(6, lstm.policy.hidden_size))
    # the state the caller holds is used: a different state, a different value
    assert not np.allclose(lstm.value(batch.numpy(), state), lstm.value(batch.numpy()))


def test_evaluate_plays_on_the_agents_device(runs, monkeypatch):
    """The policy lives on the agent's device: evaluation must feed it there (it used the default, cpu)."""
    import pufferlib.agent

    seen = {}

    def spy(env, policy, episodes, **kwargs):
        seen.update(kwargs)
        return "result"

    _, run, _ = runs
    agent = pufferlib.load(run)
    monkeypatch.setattr(pufferlib.agent, "evaluate", spy)
    assert agent.evaluate(episodes=1, num_envs=1) == "result" and seen["device"] == agent.device
