"""Shared checks for the plugins' default policies (each plugin's tests call them)."""

from __future__ import annotations

import torch
from torch import nn

import pufferlib
from pufferlib.registry import spec


def assert_default_policy_learns_from_frames(env_id: str, policy_class: type[nn.Module], num_envs: int) -> nn.Module:
    """The spec's default policy of `env_id` is `policy_class`; it maps a reset's frames to logits
    and values, its first convolution gets gradients, and it reads the frames (a black frame
    gets another value). The policy's first layer is `policy.network[0][0]`. Returns the policy."""
    env = pufferlib.make(env_id, num_envs=num_envs, seed=0)
    try:
        obs = torch.from_numpy(env.reset(seed=0)[0])
        env_spec = spec(env_id)
        policy = env_spec.load_policy()(env, **env_spec.config.get("policy", {}))
        assert isinstance(policy, policy_class)
        logits, value = policy(obs)
        assert logits.shape == (num_envs, env.single_action_space.n) and value.shape == (num_envs, 1)
        (logits.sum() + value.sum()).backward()
        first = policy.network[0][0].weight.grad
        assert first is not None and first.abs().sum() > 0
        assert not torch.equal(policy(torch.zeros_like(obs))[1], value.detach())
        return policy
    finally:
        env.close()


def assert_rows_do_not_depend_on_their_batch(policy: nn.Module, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's (logits, value) is the same computed alone as in the batch `obs`; returns the batch's."""
    with torch.no_grad():
        logits, value = policy(obs)
        for row in range(len(obs)):
            alone_logits, alone_value = policy(obs[row:row + 1])
            torch.testing.assert_close(alone_logits[0], logits[row])
            torch.testing.assert_close(alone_value[0], value[row])
    return logits, value
