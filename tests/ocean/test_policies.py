"""puffer_ocean.policies: BoardConv reads connect4's board, is named from a config, and refuses an
observation that holds no board of its size."""

import numpy as np
import pytest
import torch

import pufferlib
from puffer_ocean.policies import BoardConv
from pufferlib.agent import build
from pufferlib.config import env_config, load_default, merge


def connect4_agent():
    config = merge(load_default(), env_config("ocean-connect4")[0])
    config["policy"] = {"class": "puffer_ocean.policies:BoardConv", "channels": 8, "hidden_size": 32}
    return build("ocean-connect4", config)


def test_boardconv_is_named_in_a_config_and_acts_on_connect4():
    agent = connect4_agent()
    policy = agent.policy
    assert any(isinstance(m, BoardConv) for m in policy.modules())
    env = pufferlib.make("ocean-connect4", num_envs=4)
    try:
        obs, _ = env.reset(seed=0)
        logits, value = policy(torch.from_numpy(obs))[:2]
        assert logits.shape == (4, 7) and value.shape == (4, 1)
    finally:
        env.close()


def test_boardconv_reads_connect4s_board_and_sees_a_pattern_anywhere_on_it():
    """connect4's observation is row-major from the top row, +1 own, -1 other: the planes put each
    piece on its cell, and a piece one column over moves the first layer's output with it."""
    conv = next(m for m in connect4_agent().policy.modules() if isinstance(m, BoardConv))
    obs = np.zeros((2, 42), np.float32)
    obs[0, 5 * 7 + 2], obs[0, 0] = 1, -1  # own piece on the bottom row, column 2; the other's top left
    obs[1, 5 * 7 + 3], obs[1, 1] = 1, -1  # the same, one column to the right
    planes = conv.planes(torch.from_numpy(obs))
    assert planes[0, 0, 5, 2] == 1 and planes[0, 1, 0, 0] == 1 and planes[0, 2].sum() == 40
    first = conv.convs[0](planes).detach()
    assert torch.allclose(first[0, :, :, 1:5], first[1, :, :, 2:6], atol=1e-6)


def test_boardconv_refuses_an_observation_without_its_board():
    env = pufferlib.make("ocean-squared", num_envs=1)
    try:
        with pytest.raises(ValueError, match="reads a 9 x 9 board"):
            BoardConv(env, rows=9, cols=9)
    finally:
        env.close()
