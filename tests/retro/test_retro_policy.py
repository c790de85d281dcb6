"""The default policy of retro-* (models.SmallConvolutional) reads the frames; flat observations are refused."""

import pytest

import pufferlib
from pufferlib import APIUsageError
from pufferlib.models import SmallConvolutional
from tests.policy_checks import assert_default_policy_learns_from_frames


def test_default_policy_learns_from_frames():
    policy = assert_default_policy_learns_from_frames("retro-airstriker-genesis", SmallConvolutional, num_envs=1)
    assert policy.network[0][0].in_channels == 4  # the 4 stacked grayscale frames


def test_flat_observations_are_refused_with_the_fix():
    env = pufferlib.make("gym-CartPole-v1", num_envs=1, backend="serial")
    try:
        with pytest.raises(APIUsageError, match="models.Default"):
            SmallConvolutional(env)
    finally:
        env.close()
