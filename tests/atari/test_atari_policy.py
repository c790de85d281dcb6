"""AtariCNN, the default policy of the atari ids: acts on the stacked frames and learns from them."""

import torch

import pufferlib
from puffer_atari.policy import AtariCNN
from pufferlib.registry import spec


def test_default_policy_maps_stacked_frames_to_logits_and_values_with_gradients():
    env = pufferlib.make("atari-breakout", num_envs=2, seed=0)
    try:
        obs, _ = env.reset(seed=0)
        policy = spec("atari-breakout").load_policy()(env, **spec("atari-breakout").config["policy"])
        assert isinstance(policy, AtariCNN) and policy.hidden_size == 256
        logits, value = policy(torch.from_numpy(obs))
        assert logits.shape == (2, env.single_action_space.n) and value.shape == (2, 1)
        (logits.sum() + value.sum()).backward()
        first = policy.network[0][0].weight.grad
        assert first is not None and first.abs().sum() > 0
        # the frames are read: a black stack gets another value
        assert not torch.equal(policy(torch.zeros_like(torch.from_numpy(obs)))[1], value.detach())
    finally:
        env.close()
