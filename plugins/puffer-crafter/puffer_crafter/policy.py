"""CrafterCNN: the default policy of the `crafter-*` ids, a small CNN for 64x64 RGB frames.

Three strided convolutions (4x4 stride 2, 4x4 stride 2, 3x3 stride 2) take the frame to a
6x6 map and a linear layer to `hidden_size`: about 10 MFLOP a frame at the default width,
cheap beside crafter's own step (about 7 ms on one core of the 2-core test machine), which
bounds training speed on a CPU. Stride 2 from the first layer keeps the small items of crafter's inventory bar
(the bottom two rows of 7-pixel tiles) legible where an 8x8 stride-4 first layer blurs them.
Frames are channels last, as crafter gives them.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pufferlib.errors import APIUsageError
from pufferlib.models import ImagePolicy
from pufferlib.pytorch import layer_init


class CrafterCNN(ImagePolicy):
    """(batch, H, W, 3) uint8 frames -> action logits and value (`pufferlib.models.ImagePolicy`).

    `cnn_width`: channels of the first convolution (the next two have twice as many);
    `hidden_size`: width of the linear layer fed to the actor and critic.
    """

    def __init__(self, env: Any, cnn_width: int = 32, hidden_size: int = 256):
        super().__init__()
        shape = env.single_observation_space.shape
        if shape is None or len(shape) != 3 or shape[2] != 3:
            raise APIUsageError(f"CrafterCNN takes (H, W, 3) RGB frames; this env observes shape {shape}. "
                                "Use pufferlib.models.Default for flat observations.")
        channels, height, width = self._setup(env, channels_last=True, hidden_size=hidden_size)
        convs = nn.Sequential(
            layer_init(nn.Conv2d(channels, cnn_width, 4, stride=2)), nn.ReLU(),
            layer_init(nn.Conv2d(cnn_width, 2 * cnn_width, 4, stride=2)), nn.ReLU(),
            layer_init(nn.Conv2d(2 * cnn_width, 2 * cnn_width, 3, stride=2)), nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, channels, height, width)).shape[1]
        self.network = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())
