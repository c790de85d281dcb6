"""The plugin-seam protocols describe what the library itself provides."""

import pytest
import torch

import pufferlib
from pufferlib import models
from pufferlib.protocols import Policy, RecurrentPolicy, VecEnv


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
