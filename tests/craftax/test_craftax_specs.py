"""puffer-craftax's ids, their defaults, the lazy entry point, and the default policy (toy env)."""

import subprocess
import sys

import numpy as np
import pytest
import torch

from puffer_craftax.policy import CraftaxMLP
from pufferlib import APIUsageError
from pufferlib.registry import spec


def test_classic_and_full_ids_are_native_batched_specs():
    classic, full = spec("craftax-classic"), spec("craftax-full")
    assert spec("craftax") == full  # the full game's short id
    assert (classic.kwargs["variant"], full.kwargs["variant"]) == ("classic", "full")
    assert (classic.kwargs["max_timesteps"], full.kwargs["max_timesteps"]) == (10_000, 100_000)
    for s in (classic, full):
        assert s.backend == "native" and s.package == "puffer-craftax"
        assert s.policy == "puffer_craftax.policy:CraftaxMLP" and s.config["vec"]["num_workers"] == 1


def test_the_entry_module_imports_neither_jax_nor_craftax():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('craftax-classic'); "
            "assert not {'jax', 'craftax', 'puffer_craftax.env'} & set(sys.modules), sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


class _Spaces:
    def __init__(self, shape: tuple[int, ...]):
        from gymnasium import spaces

        self.single_observation_space = spaces.Box(0, 1, shape, np.float32)
        self.single_action_space = spaces.Discrete(17)


def test_policy_maps_observations_to_logits_and_values_and_reads_them():
    torch.manual_seed(0)
    policy = CraftaxMLP(_Spaces((1345,)), hidden_size=32, num_layers=2)
    obs = torch.rand(5, 1345)
    logits, value = policy(obs)
    assert logits.shape == (5, 17) and value.shape == (5, 1)
    (logits.sum() + value.sum()).backward()
    assert policy.encoder[0].weight.grad.abs().sum() > 0
    assert not torch.allclose(policy(torch.zeros(1, 1345))[1], policy(torch.ones(1, 1345))[1])


def test_policy_refuses_frames_and_bad_depth():
    with pytest.raises(APIUsageError, match="flat observations"):
        CraftaxMLP(_Spaces((64, 64, 3)))
    with pytest.raises(APIUsageError, match="num_layers must be an int >= 1"):
        CraftaxMLP(_Spaces((10,)), num_layers=0)
