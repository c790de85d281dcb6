"""VizdoomCNN: the default policy reads the stacked screens; other observations are refused with the fix."""

import pytest

import pufferlib
from puffer_vizdoom.policy import VizdoomCNN
from pufferlib import APIUsageError
from tests.policy_checks import assert_default_policy_learns_from_frames


def test_default_policy_learns_from_frames():
    policy = assert_default_policy_learns_from_frames("vizdoom-basic", VizdoomCNN, num_envs=2)
    assert policy.network[0][0].in_channels == 4  # the 4 stacked grayscale screens


def test_flat_observations_are_refused_with_the_fix():
    env = pufferlib.make("gym-CartPole-v1", num_envs=1, backend="serial")
    try:
        with pytest.raises(APIUsageError, match="models.Default"):
            VizdoomCNN(env)
    finally:
        env.close()
