"""pufferlib.models: the ready-made policies and the LSTM wrapper."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from gymnasium import spaces

from pufferlib import models
from pufferlib.spaces import ObsLayout


def fake_env(obs_space, act_space=None):
    act_space = spaces.Discrete(3) if act_space is None else act_space
    layout = ObsLayout(obs_space)
    return SimpleNamespace(single_observation_space=layout.flat_space, single_action_space=act_space,
                           obs_layout=layout if layout.structured else None)


@pytest.mark.parametrize("act_space,shape", [
    (spaces.Discrete(3), (5, 3)),
    (spaces.MultiDiscrete([2, 4]), None),
    (spaces.Box(-1, 1, (2,), np.float32), None),
])
def test_default_heads(act_space, shape):
    env = fake_env(spaces.Box(-1, 1, (4,), np.float32), act_space)
    logits, value = models.Default(env, hidden_size=16)(torch.zeros(5, 4))
    assert value.shape == (5, 1)
    if isinstance(act_space, spaces.Discrete):
        assert logits.shape == shape
    elif isinstance(act_space, spaces.MultiDiscrete):
        assert [lg.shape for lg in logits] == [(5, 2), (5, 4)]
    else:
        assert isinstance(logits, torch.distributions.Normal) and logits.mean.shape == (5, 2)


def test_default_encodes_dict_observations_per_leaf():
    space = spaces.Dict({"pos": spaces.Box(-1, 1, (3,), np.float32), "id": spaces.Discrete(4),
                         "grid": spaces.Box(0, 255, (2, 2), np.uint8)})
    env = fake_env(space)
    policy = models.Default(env, hidden_size=8)
    assert len(policy.leaf_encoders) == 3
    flat = torch.from_numpy(np.stack([env.obs_layout.flatten(space.sample()) for _ in range(6)]))
    logits, value = policy(flat)
    assert logits.shape == (6, 3) and value.shape == (6, 1)
    # each leaf reaches the output: changing only the "id" leaf changes the logits
    other = flat.clone()
    leaf = next(lf for lf in env.obs_layout.leaves if lf.path == ("id",))
    other[:, leaf.offset] = (other[:, leaf.offset] + 1) % 4
    assert not torch.allclose(policy(other)[1], value)


@pytest.mark.parametrize("cls,shape,kwargs", [
    (models.Convolutional, (84, 84, 4), {"channels_last": True}),
    (models.Convolutional, (4, 84, 84), {}),
    (models.ImpalaResNet, (64, 64, 3), {}),
    (models.SmallConvolutional, (4, 84, 84), {}),
    (models.SmallConvolutional, (64, 64, 3), {"channels_last": True}),
])
def test_image_policies(cls, shape, kwargs):
    env = fake_env(spaces.Box(0, 255, shape, np.uint8), spaces.Discrete(6))
    policy = cls(env, **kwargs)
    logits, value = policy(torch.randint(0, 255, (2, *shape), dtype=torch.uint8))
    assert logits.shape == (2, 6) and value.shape == (2, 1)


def test_lstm_sequence_equals_stepwise_rollout_with_resets():
    torch.manual_seed(0)
    env = fake_env(spaces.Box(-1, 1, (3,), np.float32))
    policy = models.LSTMWrapper(env, models.Default(env, hidden_size=16), input_size=16, hidden_size=12)
    batch, time = 4, 7
    obs = torch.randn(batch, time, 3)
    starts = torch.zeros(batch, time, dtype=torch.bool)
    starts[0, 3] = starts[2, 1] = starts[2, 5] = True
    h0, c0 = torch.randn(batch, 12), torch.randn(batch, 12)
    state = (h0, c0)
    step_logits, step_values = [], []
    for t in range(time):
        keep = (~starts[:, t]).float().unsqueeze(1)
        logits, value, state = policy(obs[:, t], (state[0] * keep, state[1] * keep))
        step_logits.append(logits)
        step_values.append(value)
    seq_logits, seq_values = policy.forward_sequence(obs, (h0, c0), starts)
    expected = torch.stack(step_logits, 1).reshape(batch * time, -1)
    assert torch.allclose(seq_logits, expected, atol=1e-5)
    assert torch.allclose(seq_values, torch.stack(step_values, 1).reshape(batch * time, -1), atol=1e-5)
    # without the resets the outputs differ: the test would catch a wrapper that ignores them
    no_reset, _ = policy.forward_sequence(obs, (h0, c0), torch.zeros_like(starts))
    assert not torch.allclose(no_reset, expected, atol=1e-3)


def test_actor_critic_value_loss_leaves_the_actor_untouched():
    env = fake_env(spaces.Box(-1, 1, (4,), np.float32), spaces.Box(-1, 1, (2,), np.float32))
    policy = models.ActorCritic(env, hidden_size=8, num_layers=2)
    dist, value = policy(torch.randn(5, 4))
    assert isinstance(dist, torch.distributions.Normal) and dist.mean.shape == (5, 2) and value.shape == (5, 1)
    value.sum().backward()
    assert all(p.grad is None or not p.grad.any() for p in policy.actor_trunk.parameters())
    assert all(p.grad is not None and p.grad.any() for p in policy.critic_trunk.parameters())
    assert sum(isinstance(m, torch.nn.Linear) for m in policy.actor_trunk) == 2


def test_actor_critic_runs_under_the_lstm_at_twice_its_width():
    from pufferlib.errors import APIUsageError
    from pufferlib.train.policy import wrap_recurrent

    env = fake_env(spaces.Box(-1, 1, (4,), np.float32), spaces.Discrete(3))
    wrapped = wrap_recurrent(env, models.ActorCritic(env, hidden_size=8), hidden_size=16)
    logits, value, _ = wrapped(torch.zeros(5, 4), wrapped.initial_state(5))
    assert logits.shape == (5, 3) and value.shape == (5, 1)
    with pytest.raises(APIUsageError, match="rnn.hidden_size=8"):
        wrap_recurrent(env, models.ActorCritic(env, hidden_size=8), hidden_size=8)


def test_small_convolutional_refuses_frames_its_strides_cannot_cover():
    from pufferlib.errors import APIUsageError

    env = fake_env(spaces.Box(0, 255, (4, 16, 16), np.uint8), spaces.Discrete(6))
    with pytest.raises(APIUsageError, match="at least 20x20.*16x16"):
        models.SmallConvolutional(env)
