"""RetroCNN: the default policy of the `retro-*` ids, sized for training on CPUs.

The network of the first DQN paper (Mnih et al. 2013) over the stack of 84x84 frames (channels
first, as puffer_retro.env gives them): 16 8x8 filters with stride 4, 32 4x4 filters with
stride 2 and 256 units; about 6 MFLOP for four 84x84 grayscale frames, a third of the Nature
DQN network (`pufferlib.models:Convolutional`, which `--policy` can name instead).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pufferlib.errors import APIUsageError
from pufferlib.models import ImagePolicy
from pufferlib.pytorch import layer_init


class RetroCNN(ImagePolicy):
    """(batch, channels, S, S) uint8 frames -> action logits and value (`pufferlib.models.ImagePolicy`).

    `cnn_width`: filters of the first convolution (the second has twice as many);
    `hidden_size`: width of the linear layer fed to the actor and critic.
    """

    def __init__(self, env: Any, cnn_width: int = 16, hidden_size: int = 256):
        super().__init__()
        shape = env.single_observation_space.shape
        if shape is None or len(shape) != 3 or shape[1] != shape[2] or shape[1] < 36:
            raise APIUsageError(f"RetroCNN takes square (channels, S, S) frames with S >= 36; this env observes "
                                f"shape {shape}. Use pufferlib.models.Default for flat observations.")
        channels, height, width = self._setup(env, channels_last=False, hidden_size=hidden_size)
        convs = nn.Sequential(
            layer_init(nn.Conv2d(channels, cnn_width, 8, stride=4)), nn.ReLU(),
            layer_init(nn.Conv2d(cnn_width, 2 * cnn_width, 4, stride=2)), nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, channels, height, width)).shape[1]
        self.network = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())
