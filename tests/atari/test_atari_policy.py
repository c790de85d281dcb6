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


def test_channels_last_convolutions_give_the_values_of_plain_ones_and_checkpoints_load_either_way():
    env = pufferlib.make("atari-breakout", num_envs=2, seed=0)
    try:
        obs = torch.from_numpy(env.reset(seed=0)[0])
        policy = AtariCNN(env)
        first = policy.network[0][0].weight
        assert first.is_contiguous(memory_format=torch.channels_last) and not first.is_contiguous()
        plain = AtariCNN(env)
        plain.network.to(memory_format=torch.contiguous_format)
        plain.load_state_dict(policy.state_dict())  # a checkpoint of one loads into the other
        assert plain.network[0][0].weight.is_contiguous()
        for a, b in zip(policy(obs), plain(obs)):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
        fresh = AtariCNN(env)
        fresh.load_state_dict(plain.state_dict())
        assert fresh.network[0][0].weight.is_contiguous(memory_format=torch.channels_last)
        torch.testing.assert_close(fresh(obs)[1], policy(obs)[1], rtol=1e-5, atol=1e-5)
    finally:
        env.close()
