"""AtariCNN, the default policy of the atari ids: acts on the stacked frames and learns from them."""

import torch

import pufferlib
from puffer_atari.policy import AtariCNN
from tests.policy_checks import assert_default_policy_learns_from_frames


def test_default_policy_maps_stacked_frames_to_logits_and_values_with_gradients():
    policy = assert_default_policy_learns_from_frames("atari-breakout", AtariCNN, num_envs=2)
    assert policy.hidden_size == 256  # the config's policy settings reach it


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
