"""The plugin-seam protocols describe what the library itself provides."""

import pytest
import torch

import pufferlib
import pufferlib.vector
from pufferlib import models
from pufferlib.protocols import EnvSpaces, Policy, RecurrentPolicy, VecEnv
from tests.core.envs import CountingEnv, NativeEnv


@pytest.mark.parametrize("backend", ["serial", "multiprocessing"])
def test_every_backend_returns_a_vecenv(backend):
    env = pufferlib.make("gym-CartPole-v1", num_envs=2, num_workers=2 if backend == "multiprocessing" else None,
                         backend=backend)
    try:
        assert isinstance(env, VecEnv)
    finally:
        env.close()


def test_models_are_policies_and_the_lstm_wrapper_is_recurrent():
    env = pufferlib.make("gym-CartPole-v1", num_envs=2)
    try:
        policy = models.Default(env, hidden_size=8)
        assert isinstance(policy, Policy) and not isinstance(policy, RecurrentPolicy)
        assert isinstance(models.LSTMWrapper(env, policy, 8, 8), RecurrentPolicy)
        assert not isinstance(torch.nn.Linear(2, 2), RecurrentPolicy)
    finally:
        env.close()


def test_a_vecenv_declares_what_the_trainer_reads():
    made = pufferlib.make("gym-CartPole-v1", num_envs=2)
    built = pufferlib.vector.make(NativeEnv, num_envs=2)
    emulated = pufferlib.vector.make(lambda: CountingEnv(nested=True), num_envs=2)
    try:
        assert made.spec is not None and made.spec.id == "gym-CartPole-v1"
        assert built.spec is None and built.obs_layout is None and not built.writes_final_observations
        assert emulated.obs_layout is not None and emulated.obs_layout.structured
        assert emulated.writes_final_observations and emulated.final_observations is not None
        for vecenv in (made, built, emulated):
            assert isinstance(vecenv, VecEnv)
    finally:
        for vecenv in (made, built, emulated):
            vecenv.close()


def test_an_in_place_env_is_what_a_policy_is_built_from():
    env = NativeEnv(num_agents=2)
    assert isinstance(env, EnvSpaces) and env.obs_layout is None
    logits, value = models.Default(env, hidden_size=8)(torch.zeros(2, 2))
    assert logits.shape == (2, 5) and value.shape == (2, 1)


def test_creators_that_make_different_kinds_of_env_say_so():
    creators = [NativeEnv, lambda buf=None: CountingEnv()]
    with pytest.raises(pufferlib.APIUsageError, match="env 0 is an in-place PufferEnv"):
        pufferlib.vector.make(creators, num_envs=2)


def test_image_policies_say_when_frames_are_not_three_dimensional():
    env = NativeEnv(num_agents=2)  # (2,) observations
    with pytest.raises(pufferlib.APIUsageError, match=r"image frames.*shape \(2,\)"):
        models.Convolutional(env)
