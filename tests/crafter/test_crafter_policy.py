"""CrafterCNN: the default policy reads crafter's frames, through worker processes too."""

import numpy as np
import pytest
import torch

import pufferlib
from puffer_crafter.policy import CrafterCNN
from pufferlib import APIUsageError
from tests.policy_checks import assert_default_policy_learns_from_frames


def test_default_policy_learns_from_frames():
    assert_default_policy_learns_from_frames("crafter-reward", CrafterCNN, num_envs=2)


def test_policy_acts_on_a_multiprocessing_vector():
    env = pufferlib.make("crafter-noreward", num_envs=4, num_workers=2, seed=0)
    try:
        assert type(env).__name__ == "Multiprocessing"
        policy = CrafterCNN(env, cnn_width=8, hidden_size=32)
        obs, _ = env.reset()
        for _ in range(5):
            logits, value = policy(torch.from_numpy(obs))
            assert logits.shape == (4, 17) and value.shape == (4, 1)
            obs = env.step(logits.argmax(-1).numpy())[0]
        assert obs.shape == (4, 64, 64, 3) and np.any(obs)
    finally:
        env.close()


def test_flat_observations_are_refused_with_the_fix():
    env = pufferlib.make("gym-CartPole-v1", num_envs=1, backend="serial")
    try:
        with pytest.raises(APIUsageError, match="models.Default"):
            CrafterCNN(env)
    finally:
        env.close()
