"""GriddlyVectorCNN: the default policy of the `griddly-*` ids, for griddly's Vector observation.

The observation is a small grid (5x5 to 30x14 cells here) with one 0/1 channel per object
type, so the policy keeps the grid's resolution: two 3x3 convolutions with padding (each cell
sees its 5x5 neighbourhood) and a linear layer over every cell, which keeps where things are.
Values are used as they come (0/1 presence, no division by 255 as for image frames).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pufferlib.errors import APIUsageError
from pufferlib.models import ImagePolicy
from pufferlib.pytorch import layer_init


class GriddlyVectorCNN(ImagePolicy):
    """(batch, channels, width, height) uint8 -> action logits and value (`pufferlib.models.ImagePolicy`).

    `cnn_width`: channels of both convolutions; `hidden_size`: width of the linear layer fed to
    the actor and critic.
    """

    def __init__(self, env: Any, cnn_width: int = 32, hidden_size: int = 128):
        super().__init__()
        shape = env.single_observation_space.shape
        if shape is None or len(shape) != 3:
            raise APIUsageError(f"GriddlyVectorCNN takes griddly's Vector observation (channels, width, height); "
                                f"this env observes shape {shape}. Use pufferlib.models.Default for flat observations.")
        channels, width, height = self._setup(env, channels_last=False, hidden_size=hidden_size)
        convs = nn.Sequential(
            layer_init(nn.Conv2d(channels, cnn_width, 3, padding=1)), nn.ReLU(),
            layer_init(nn.Conv2d(cnn_width, cnn_width, 3, padding=1)), nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, channels, width, height)).shape[1]
        self.network = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())

    def _frames(self, obs: torch.Tensor) -> torch.Tensor:
        return obs.float()  # object counts per cell, not pixel intensities
