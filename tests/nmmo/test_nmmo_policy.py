"""NMMOPolicy: reads nmmo's Dict observation, per agent row, and its actions respect nmmo's masks."""

import numpy as np
import pytest
import torch

import pufferlib
import pufferlib.pytorch
from puffer_nmmo.policy import NMMOPolicy
from pufferlib import APIUsageError
from pufferlib.registry import spec

SMALL = {"num_agents": 6, "num_npcs": 4, "horizon": 32}


@pytest.fixture(scope="module")
def env():
    env = pufferlib.make("nmmo-small", num_envs=1, backend="serial", seed=0, **SMALL)
    yield env
    env.close()


def test_default_policy_maps_agent_rows_to_one_head_per_argument(env):
    assert spec("nmmo-small").load_policy() is NMMOPolicy
    policy = NMMOPolicy(env, hidden_size=32)
    obs = torch.from_numpy(env.reset(seed=0)[0])
    logits, value = policy(obs)
    assert [lg.shape for lg in logits] == [(6, int(n)) for n in env.single_action_space.nvec]
    assert value.shape == (6, 1)
    (sum(lg.sum() for lg in logits) + value.sum()).backward()
    # (agents start with empty inventories: the item encoder gets its first gradients later)
    for layer in (policy.material_embed.weight, policy.self_net[0].weight, policy.entity_net[0].weight):
        assert layer.grad is not None and layer.grad.abs().sum() > 0
    with torch.no_grad():  # each row alone gives what it gives in the batch
        alone = policy(obs[2:3])[1]
        torch.testing.assert_close(alone[0], policy(obs)[1][2])


def test_sampled_actions_respect_nmmos_action_mask(env):
    policy = NMMOPolicy(env, hidden_size=32)
    obs = torch.from_numpy(env.reset(seed=1)[0])
    mask = pufferlib.pytorch.action_mask(obs, env.obs_layout)
    assert mask is not None and mask.shape == (6, int(sum(env.single_action_space.nvec)))
    with torch.no_grad():
        logits, _ = policy(obs)
        for _ in range(5):
            actions, _, _ = pufferlib.pytorch.sample_logits(logits, action_mask=mask)
            offsets = np.concatenate([[0], np.cumsum(env.single_action_space.nvec)[:-1]])
            chosen = mask[torch.arange(6)[:, None], torch.as_tensor(offsets)[None] + actions]
            assert chosen.all()


def test_flat_observations_are_refused_with_the_fix():
    flat = pufferlib.make("gym-CartPole-v1", num_envs=1, backend="serial")
    try:
        with pytest.raises(APIUsageError, match="models.Default"):
            NMMOPolicy(flat)
    finally:
        flat.close()
