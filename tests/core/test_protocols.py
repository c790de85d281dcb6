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


def assert_acts_as_policy(policy, obs):
    """What `Policy` promises, checked by calling it (a runtime isinstance check of a Protocol
    whose only member is `__call__` holds for any callable)."""
    out = policy(obs)
    assert isinstance(out, tuple) and len(out) >= 2, "policy(obs) returns (logits, value, ...)"
    logits, value = out[0], out[1]
    batch = obs.shape[0]
    assert value.shape in ((batch,), (batch, 1)), f"value of shape {tuple(value.shape)}"
    heads = [logits] if isinstance(logits, torch.Tensor) else (
        [logits.loc] if isinstance(logits, torch.distributions.Normal) else list(logits))
    assert heads and all(isinstance(h, torch.Tensor) and h.shape[0] == batch for h in heads)


def assert_acts_as_recurrent_policy(policy, obs):
    """What `RecurrentPolicy` promises: acting with (h, c) states and training on (batch, time) sequences."""
    batch = obs.shape[0]
    state = policy.initial_state(batch)
    assert all(s.shape == (batch, policy.hidden_size) for s in state)
    logits, value, (h, c) = policy(obs, state)
    assert value.shape in ((batch,), (batch, 1)) and h.shape == c.shape == (batch, policy.hidden_size)
    sequences = obs.unsqueeze(1).expand(batch, 3, *obs.shape[1:])
    starts = torch.zeros(batch, 3, dtype=torch.bool)
    logits, value = policy.forward_sequence(sequences, state, starts)
    assert value.reshape(-1).shape == (batch * 3,)


def test_models_act_as_policies_and_the_lstm_wrapper_as_a_recurrent_one():
    env = pufferlib.make("gym-CartPole-v1", num_envs=2)
    try:
        obs = torch.zeros(2, *env.single_observation_space.shape)
        policy = models.Default(env, hidden_size=8)
        assert_acts_as_policy(policy, obs)
        assert not isinstance(policy, RecurrentPolicy)
        recurrent = models.LSTMWrapper(env, policy, 8, 8)
        assert isinstance(recurrent, RecurrentPolicy)
        assert_acts_as_recurrent_policy(recurrent, obs)
        assert not isinstance(torch.nn.Linear(2, 2), RecurrentPolicy)
    finally:
        env.close()


def test_the_policy_check_rejects_what_breaks_the_contract():
    obs = torch.zeros(2, 4)
    with pytest.raises(AssertionError, match="returns"):
        assert_acts_as_policy(torch.nn.Linear(4, 2), obs)  # a callable, and isinstance(..., Policy) holds
    assert isinstance(torch.nn.Linear(4, 2), Policy)
    with pytest.raises(AssertionError, match="value of shape"):
        assert_acts_as_policy(lambda x: (x, torch.zeros(2, 3)), obs)


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
