"""CraftaxMLP: the default policy of the `craftax-*` ids, an MLP over Craftax's symbolic observation.

The symbolic observation is one flat float32 vector (classic: a 7x9 window of one-hot blocks
and creatures, then inventory, intrinsics, direction, light; 1,345 values; full: 8,268), so a
stack of ReLU layers reads it directly. The Craftax paper's PPO uses 512-unit layers; 256
keeps a CPU update of 16k steps short (about 0.5 MFLOP a step at the default size on classic).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from pufferlib.errors import APIUsageError
from pufferlib.models import ActionHead
from pufferlib.pytorch import layer_init


class CraftaxMLP(nn.Module):
    """(batch, obs_size) float observations -> (logits, value).

    `hidden_size`: width of each layer and of the actor/critic input; `num_layers`: ReLU layers.
    `encode_observations` / `decode_actions` split `forward` so that an LSTM can sit between them.
    """

    def __init__(self, env: Any, hidden_size: int = 256, num_layers: int = 2):
        super().__init__()
        shape = env.single_observation_space.shape
        if shape is None or len(shape) != 1:
            raise APIUsageError(f"CraftaxMLP takes flat observations; this env observes shape {shape}. "
                                "Use a CNN policy for frames (e.g. puffer_crafter.policy.CrafterCNN).")
        if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers < 1:
            raise APIUsageError(f"num_layers must be an int >= 1, got {num_layers!r}.")
        self.hidden_size = hidden_size
        sizes = [int(np.prod(shape))] + [hidden_size] * num_layers
        layers = [(layer_init(nn.Linear(a, b)), nn.ReLU()) for a, b in zip(sizes, sizes[1:])]
        self.encoder = nn.Sequential(*(m for pair in layers for m in pair))
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, obs_size) -> (batch, hidden_size)."""
        return self.encoder(obs.reshape(obs.shape[0], -1).float())

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
