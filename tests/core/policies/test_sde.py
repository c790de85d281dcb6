"""gSDE: the state-dependent Gaussian (pufferlib.pytorch.StateDependentNormal), the head that
makes it, and the noise the actor holds per agent row."""

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces

import pufferlib
from pufferlib import APIUsageError
from pufferlib.models import ActionHead, ActorCritic
from pufferlib.pytorch import StateDependentNormal, sample_logits
from pufferlib.train.acting import Actor


def test_scale_is_the_std_of_latent_times_the_noise_matrix():
    torch.manual_seed(0)
    latent, log_std = torch.randn(5, 3), torch.randn(3, 2) * 0.3
    dist = StateDependentNormal(torch.zeros(5, 2), latent, log_std, hold=4)
    # Monte Carlo: the std of latent @ M over many draws of M matches the scale.
    draws = torch.randn(20000, 3, 2) * log_std.exp()
    samples = torch.einsum("bf,nfa->nba", latent, draws)
    assert torch.allclose(samples.std(0), dist.scale, rtol=0.03)
    assert torch.allclose(dist.noise(draws[:5]), torch.einsum("bf,bfa->ba", latent, draws[:5]), atol=1e-6)


def test_gradients_reach_log_std_and_mean_but_not_the_features_through_the_noise():
    latent = torch.randn(4, 3, requires_grad=True)
    log_std = torch.zeros(3, 2, requires_grad=True)
    mean = torch.zeros(4, 2, requires_grad=True)
    dist = StateDependentNormal(mean, latent, log_std, hold=1)
    dist.log_prob(torch.ones(4, 2)).sum().backward()
    assert log_std.grad is not None and log_std.grad.abs().sum() > 0 and mean.grad.abs().sum() > 0
    assert latent.grad is None


def box_env(num_envs=3):
    return pufferlib.emulate(lambda: gym.make("MountainCarContinuous-v0"), num_envs=num_envs)


def test_actor_holds_each_rows_noise_for_hold_steps():
    env = box_env()
    env.reset(seed=0)
    policy = ActorCritic(env, hidden_size=8, sde=True, sde_hold=3, log_std_init=0.0)
    actor = Actor(env, policy)
    obs = torch.from_numpy(env.observations).clone()
    seen = []
    with torch.no_grad():
        for _ in range(7):
            action, logprob, _, _ = actor.act(obs, None)
            seen.append(actor._noise.clone())
            dist, _ = policy(obs)
            # the action is the mean plus the held noise, scored under the state-dependent Normal
            assert torch.allclose(action, dist.mean + dist.noise(actor._noise), atol=1e-6)
            assert torch.allclose(logprob, sample_logits(dist, action)[1], atol=1e-5)
    same = [bool(torch.equal(a, b)) for a, b in zip(seen, seen[1:])]
    assert same == [True, True, False, True, True, False]  # a new matrix every 3 steps
    assert not torch.equal(seen[0][0], seen[0][1])  # rows draw their own
    env.close()


def test_actor_draws_only_for_the_rows_it_acts_on():
    env = box_env(4)
    env.reset(seed=0)
    actor = Actor(env, ActorCritic(env, hidden_size=8, sde=True, sde_hold=1))
    obs = torch.from_numpy(env.observations).clone()
    with torch.no_grad():
        actor.act(obs, None)
        before = actor._noise.clone()
        rows = torch.tensor([1, 3])
        actor.act(obs[rows], None, rows)
    changed = [not torch.equal(before[i], actor._noise[i]) for i in range(4)]
    assert changed == [False, True, False, True]
    env.close()


def test_sde_settings_are_checked():
    with pytest.raises(APIUsageError, match="for Box actions"):
        ActionHead(spaces.Discrete(3), 8, sde=True)
    with pytest.raises(APIUsageError, match="sde_hold = 0"):
        ActionHead(spaces.Box(-1, 1, (2,)), 8, sde=True, sde_hold=0)


def test_policy_keys_reach_actor_critic_through_the_config():
    from pufferlib import config
    from pufferlib.train.policy import make_policy

    cfg, _ = config.env_config("gym-MountainCarContinuous-v0")
    env = box_env(1)
    policy = make_policy(env, config.merge(config.load_default(), cfg), env_id="gym-MountainCarContinuous-v0")
    head = policy.heads
    assert cfg["policy"]["sde"] is True and head.sde and head.sde_hold == cfg["policy"]["sde_hold"]
    assert np.allclose(head.logstd.detach().numpy(), cfg["policy"]["log_std_init"])
    env.close()
