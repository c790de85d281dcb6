"""The shipped policy is the core's LSTM policy; `puffer train bsuite-*` runs end to end."""

import pytest
import torch

import pufferlib
from pufferlib import models
from pufferlib.config import load_default, merge
from pufferlib.registry import spec
from pufferlib.train.policy import make_policy
from tests.train_smoke import assert_puffer_train_runs


def test_shipped_config_wraps_the_default_policy_in_the_lstm():
    s = spec("bsuite-memory_len")
    env = pufferlib.make("bsuite-memory_len", num_envs=2, seed=0, setting=4)
    try:
        policy = make_policy(env, merge(load_default(), s.config), env_id=s.id)
        assert isinstance(policy, models.LSTMWrapper) and policy.lstm.hidden_size == 64
        obs, _ = env.reset()
        state = policy.initial_state(2)
        logits, value, state = policy(torch.from_numpy(obs), state)
        assert logits.shape == (2, 2) and value.shape == (2, 1) and state[0].shape == (2, 64)
    finally:
        env.close()


@pytest.mark.slow
def test_puffer_train_runs_end_to_end(tmp_path):
    assert_puffer_train_runs("bsuite-memory_len", tmp_path, "--env.setting", "4")
