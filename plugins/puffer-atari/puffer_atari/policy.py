"""AtariCNN: the default policy of the `atari-<game>` ids, sized for training on CPUs.

The network of the first DQN paper (Mnih et al. 2013): 16 8x8 filters with stride 4, 32
4x4 filters with stride 2 and 256 units, over the stack of 84x84 grayscale frames. About
6 MFLOP a frame, a third of the Nature DQN network (`pufferlib.models:Convolutional`:
32, 64, 64 filters and 512 units), which learns more per step over tens of millions of
steps on a GPU but trains about 3x fewer steps per second on a CPU.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pufferlib.models import ActionHead
from pufferlib.pytorch import layer_init


class AtariCNN(nn.Module):
    """(stack, 84, 84) uint8 frames (channels first) -> action logits and value.

    `cnn_width`: filters of the first convolution (the second has twice as many);
    `hidden_size`: width of the linear layer fed to the actor and critic.
    """

    def __init__(self, env: Any, cnn_width: int = 16, hidden_size: int = 256):
        super().__init__()
        self.hidden_size = hidden_size
        channels, height, width = env.single_observation_space.shape
        convs = nn.Sequential(
            layer_init(nn.Conv2d(channels, cnn_width, 8, stride=4)), nn.ReLU(),
            layer_init(nn.Conv2d(cnn_width, 2 * cnn_width, 4, stride=2)), nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, channels, height, width)).shape[1]
        self.network = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())
        # Channels-last convolutions (weights here, frames in encode_observations): the same
        # values, and a faster forward and backward pass on CPU (the backward's weight gradient
        # gains the most; figures in the CHANGELOG).
        self.network.to(memory_format=torch.channels_last)
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, stack, 84, 84) uint8 -> (batch, hidden_size)."""
        return self.network(obs.to(torch.float32, memory_format=torch.channels_last) / 255.0)

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
