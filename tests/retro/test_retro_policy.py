"""RetroCNN: the default policy reads the stacked frames; other observations are refused with the fix."""

import pytest

import pufferlib
from puffer_retro.policy import RetroCNN
from pufferlib import APIUsageError
from tests.policy_checks import assert_default_policy_learns_from_frames


def test_default_policy_learns_from_frames():
    policy = assert_default_policy_learns_from_frames("retro-airstriker-genesis", RetroCNN, num_envs=1)
    assert policy.network[0][0].in_channels == 4  # the 4 stacked grayscale frames


def test_flat_observations_are_refused_with_the_fix():
    env = pufferlib.make("gym-CartPole-v1", num_envs=1, backend="serial")
    try:
        with pytest.raises(APIUsageError, match="models.Default"):
            RetroCNN(env)
    finally:
        env.close()
