"""MagentCNN: one network for every agent row reads the windows; other observations are refused with the fix."""

import pytest
import torch

import pufferlib
from puffer_magent2.policy import MagentCNN
from pufferlib import APIUsageError
from pufferlib.registry import spec


def test_default_policy_reads_the_windows_of_every_row():
    env = pufferlib.make("magent2-battle", num_envs=1, backend="serial", map_size=16)
    try:
        obs = torch.from_numpy(env.reset(seed=0)[0])
        s = spec("magent2-battle")
        policy = s.load_policy()(env, **s.config["policy"])
        assert isinstance(policy, MagentCNN)
        logits, value = policy(obs)
        assert logits.shape == (env.num_agents, 21) and value.shape == (env.num_agents, 1)
        (logits.sum() + value.sum()).backward()
        assert policy.network[0][0].weight.grad.abs().sum() > 0
        assert not torch.equal(policy(torch.zeros_like(obs))[1], value.detach())
    finally:
        env.close()


def test_flat_observations_are_refused_with_the_fix():
    env = pufferlib.make("gym-CartPole-v1", num_envs=1, backend="serial")
    try:
        with pytest.raises(APIUsageError, match="models.Default"):
            MagentCNN(env)
    finally:
        env.close()
