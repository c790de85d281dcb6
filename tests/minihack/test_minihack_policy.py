"""MiniHackPolicy: reads the map, the crop and the stats; runs on a multiprocessing vector."""

import numpy as np
import pytest
import torch

import pufferlib
from puffer_minihack.policy import MiniHackPolicy
from pufferlib import APIUsageError
from pufferlib.registry import spec
from tests.policy_checks import assert_rows_do_not_depend_on_their_batch


def test_policy_acts_on_a_multiprocessing_vector_of_a_skill_task():
    env = pufferlib.make("minihack-eat", num_envs=4, num_workers=2, seed=0)
    try:
        assert type(env).__name__ == "Multiprocessing"
        s = spec("minihack-eat")
        policy = s.load_policy()(env, **s.config["policy"])
        obs, _ = env.reset()
        for _ in range(5):
            logits, value = policy(torch.from_numpy(obs))
            assert logits.shape == (4, env.single_action_space.n) == (4, 85) and value.shape == (4, 1)
            obs = env.step(logits.argmax(-1).numpy())[0]
        assert_rows_do_not_depend_on_their_batch(policy, torch.from_numpy(obs))
    finally:
        env.close()


def test_each_input_changes_the_output_and_gets_gradients():
    env = pufferlib.make("minihack-room-5x5", num_envs=2, backend="serial", seed=0)
    try:
        obs, _ = env.reset()
        torch.manual_seed(0)
        policy = MiniHackPolicy(env)
        _, value = policy(torch.from_numpy(obs))
        value.sum().backward()
        assert policy.glyph_embed.weight.grad.abs().sum() > 0
        for key in ("glyphs", "glyphs_crop", "blstats"):
            changed = obs.copy()
            env.obs_layout.unflatten(changed)[key][:] = 0
            with torch.no_grad():
                assert not torch.equal(policy(torch.from_numpy(changed))[1], value.detach()), key
    finally:
        env.close()


def test_works_with_the_crop_alone_and_refuses_flat_observations():
    env = pufferlib.make("minihack-room-5x5", num_envs=2, backend="serial", observation_keys=("glyphs_crop",))
    try:
        logits, _ = MiniHackPolicy(env)(torch.from_numpy(env.reset(seed=0)[0]))
        assert logits.shape == (2, 8) and np.isfinite(logits.detach().numpy()).all()
    finally:
        env.close()
    flat = pufferlib.make("gym-CartPole-v1", num_envs=1, backend="serial")
    try:
        with pytest.raises(APIUsageError, match="models.Default"):
            MiniHackPolicy(flat)
    finally:
        flat.close()
