"""GriddlyVectorCNN: the default policy reads griddly's vector grids, multi-discrete actions too."""

import pytest
import torch

import pufferlib
from puffer_griddly.policy import GriddlyVectorCNN
from pufferlib import APIUsageError
from tests.policy_checks import assert_default_policy_learns_from_frames


def test_default_policy_learns_from_vector_grids():
    assert_default_policy_learns_from_frames("griddly-sokoban", GriddlyVectorCNN, num_envs=2)


def test_grid_values_are_not_scaled_as_pixels():
    env = pufferlib.make("griddly-spiders", num_envs=1, backend="serial")
    try:
        policy = GriddlyVectorCNN(env)
        obs = torch.from_numpy(env.reset(seed=0)[0])
        assert torch.equal(policy._frames(obs), obs.float())  # presence 0/1, not 1/255
    finally:
        env.close()


def test_policy_acts_on_multi_discrete_zelda():
    env = pufferlib.make("griddly-zelda", num_envs=3, backend="serial", seed=0)
    try:
        policy = GriddlyVectorCNN(env, cnn_width=8, hidden_size=16)
        obs, _ = env.reset()
        logits, value = policy(torch.from_numpy(obs))
        assert value.shape == (3, 1)
        assert [tuple(part.shape) for part in logits] == [(3, 2), (3, 5)]  # one head per action part
    finally:
        env.close()


def test_flat_observations_are_refused_with_the_fix():
    env = pufferlib.make("gym-CartPole-v1", num_envs=1, backend="serial")
    try:
        with pytest.raises(APIUsageError, match="models.Default"):
            GriddlyVectorCNN(env)
    finally:
        env.close()
