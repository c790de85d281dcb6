"""GridNet: the default policy of the `microrts-*` ids, one action per map cell (Huang et al. 2021).

The feature planes of the map go through a convolution at full resolution (32 channels) and
two more at half resolution (64 channels, stride 2, for a wider view); the half-resolution
features are brought back to the map's size (nearest neighbour), joined with the
full-resolution ones, and a 1x1 convolution gives each cell its 78 logits (the 7 action
components of `puffer_microrts.env.CELL_NVEC`), cell after cell as the env's MultiDiscrete
space lists them. The critic reads the half-resolution features through a 256-unit layer.
The action mask is not an input: the trainer applies it to these logits when it samples.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

import pufferlib.pytorch
from pufferlib.errors import APIUsageError
from pufferlib.pytorch import layer_init


class GridNet(nn.Module):
    """Flat microRTS observations -> (per-cell logits, value). `width`: channels at full
    resolution (twice as many at half resolution); `critic_size`: the critic's hidden layer."""

    def __init__(self, env: Any, width: int = 32, critic_size: int = 256):
        super().__init__()
        layout = env.obs_layout
        leaves = {leaf.path: leaf for leaf in layout.leaves} if layout is not None and layout.structured else {}
        if ("obs",) not in leaves or ("action_mask",) not in leaves or len(leaves[("obs",)].shape) != 3:
            raise APIUsageError("GridNet takes the observations of puffer-microrts envs (a Dict of 'obs' feature "
                                "planes (h, w, c) and 'action_mask'); this env has none. Use pufferlib.models.Default.")
        self.obs_layout = layout
        height, width_cells, planes = leaves[("obs",)].shape
        nvec = [int(n) for n in env.single_action_space.nvec.ravel()]
        cells = height * width_cells
        if len(nvec) % cells:
            raise APIUsageError(f"GridNet needs the same action components on each of the {cells} cells; "
                                f"the action space has {len(nvec)}.")
        self.per_cell = sum(nvec[: len(nvec) // cells])
        self.map_size = (height, width_cells)
        half = (math.ceil(height / 2), math.ceil(width_cells / 2))
        self.full = nn.Sequential(layer_init(nn.Conv2d(planes, width, 3, padding=1)), nn.ReLU())
        self.coarse = nn.Sequential(
            layer_init(nn.Conv2d(width, 2 * width, 3, stride=2, padding=1)), nn.ReLU(),
            layer_init(nn.Conv2d(2 * width, 2 * width, 3, padding=1)), nn.ReLU())
        self.actor = layer_init(nn.Conv2d(3 * width, self.per_cell, 1), std=0.01)
        self.critic = nn.Sequential(
            nn.Flatten(), layer_init(nn.Linear(2 * width * half[0] * half[1], critic_size)), nn.ReLU(),
            layer_init(nn.Linear(critic_size, 1), std=1.0))
        self.hidden_size = 3 * width * cells

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, flat obs) -> (batch, 3 * width * cells): full- and half-resolution features per cell."""
        planes = pufferlib.pytorch.unflatten(obs, self.obs_layout)["obs"]
        x = self.full(planes.float().permute(0, 3, 1, 2))
        coarse = self.coarse(x)
        up = F.interpolate(coarse, size=self.map_size, mode="nearest")
        return torch.cat([x, up], dim=1).flatten(1)

    def decode_actions(self, hidden: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(batch, hidden_size) -> (logits (batch, cells * per_cell), value (batch, 1))."""
        batch = hidden.shape[0]
        features = hidden.reshape(batch, -1, *self.map_size)
        logits = self.actor(features).permute(0, 2, 3, 1).reshape(batch, -1)
        width = features.shape[1] // 3
        coarse = features[:, width:, ::2, ::2]  # the half-resolution features (each repeated 2x2 by upsampling)
        return logits, self.critic(coarse)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.decode_actions(self.encode_observations(obs))
