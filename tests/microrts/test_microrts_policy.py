"""GridNet: per-cell logits the trainer masks, from the flat observations of microRTS envs."""

import numpy as np
import pytest
import torch

import pufferlib
import pufferlib.pytorch
from puffer_microrts.env import CELL_NVEC, MicroRTSEnv
from puffer_microrts.policy import GridNet
from pufferlib import APIUsageError


def test_sampled_actions_are_legal_in_every_cell_that_can_act():
    env = MicroRTSEnv(num_games=2, max_steps=100, map="8x8/basesWorkers8x8")  # 448 heads: cheaper than 16x16's 1792
    try:
        policy = GridNet(env, width=8, critic_size=16)
        obs, _ = env.reset(seed=0)
        logits, value = policy(torch.from_numpy(obs))
        assert logits.shape == (2, 64 * sum(CELL_NVEC)) and value.shape == (2, 1)
        mask = pufferlib.pytorch.action_mask(torch.from_numpy(obs), env.obs_layout)
        nvec = env.single_action_space.nvec.tolist()
        actions, logprob, entropy = pufferlib.pytorch.sample_logits(logits, None, nvec, mask)
        assert actions.shape == (2, 64 * len(CELL_NVEC)) and torch.isfinite(logprob).all()
        per_cell = mask.reshape(2, 64, sum(CELL_NVEC)).numpy()
        chosen = actions.reshape(2, 64, len(CELL_NVEC)).numpy()
        offsets = np.cumsum((0, *CELL_NVEC[:-1]))
        acting = per_cell.any(-1)
        assert acting.sum() == 4  # a base and a worker in each game
        for g, c in zip(*np.nonzero(acting)):
            for k in range(len(CELL_NVEC)):
                if per_cell[g, c, offsets[k]:offsets[k] + CELL_NVEC[k]].any():
                    assert per_cell[g, c, offsets[k] + chosen[g, c, k]]
        loss = -(logprob.mean() + 0.01 * entropy.mean()) + value.pow(2).mean()
        loss.backward()
        assert all(p.grad is not None for p in policy.parameters())
        env.step(actions.numpy())
    finally:
        env.close()


def test_observations_without_feature_planes_are_refused_with_the_fix():
    env = pufferlib.make("gym-CartPole-v1", num_envs=1, backend="serial")
    try:
        with pytest.raises(APIUsageError, match="models.Default"):
            GridNet(env)
    finally:
        env.close()
