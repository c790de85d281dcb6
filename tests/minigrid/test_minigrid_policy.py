"""MiniGridPolicy: a row's encoding depends on that row only (missions deduplicated and trimmed)."""

from __future__ import annotations

import numpy as np
import torch

import pufferlib
from puffer_minigrid.policy import MiniGridPolicy
from tests.policy_checks import assert_rows_do_not_depend_on_their_batch


def _observations(env_id: str, rows: int) -> tuple[object, torch.Tensor]:
    env = pufferlib.make(env_id, num_envs=rows, backend="serial", seed=3)
    obs, _ = env.reset(seed=3)
    obs = env.step(np.random.default_rng(0).integers(0, 3, rows))[0].copy()
    return env, torch.from_numpy(obs)


def test_each_rows_output_is_the_same_alone_or_in_any_batch():
    env, obs = _observations("babyai-gotolocal", 12)
    try:
        torch.manual_seed(0)
        policy = MiniGridPolicy(env)
        missions = env.obs_layout.unflatten(obs.numpy())["mission"]
        assert len({bytes(m) for m in missions}) > 1  # several missions, of several lengths
        assert_rows_do_not_depend_on_their_batch(policy, obs)
    finally:
        env.close()


def test_gradients_reach_the_view_and_mission_encoders_but_not_the_padding_byte():
    env, obs = _observations("minigrid-empty-8x8", 8)
    try:
        policy = MiniGridPolicy(env)
        logits, value = policy(obs)
        (logits.sum() + value.sum()).backward()
        assert policy.image[0].weight.grad.abs().sum() > 0
        assert policy.text.weight.grad is not None and policy.text.weight.grad.abs().sum() > 0
        assert policy.chars.weight.grad[0].abs().sum() == 0  # padding byte: no embedding, no gradient
    finally:
        env.close()
