"""ProcgenCNN: the default policy of the `procgen-<game>` ids, sized for training on CPUs.

Procgen's 64x64 RGB frames are read by three strided convolutions (8x8 stride 4, 4x4
stride 2, 3x3) and a linear layer: about 3 MFLOP a frame, where the IMPALA ResNet of the
Procgen paper (`pufferlib.models:ImpalaResNet`) costs about 60 and so trains some 20x
fewer steps per second on a CPU. The paper's network generalises better over tens of
millions of steps on a GPU; at the budgets a CPU trains in minutes, steps count for more.
For the paper's network: `PuffeRL(env=env, policy=pufferlib.models.ImpalaResNet(env))`.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pufferlib.models import ActionHead
from pufferlib.pytorch import layer_init


class ProcgenCNN(nn.Module):
    """(64, 64, 3) uint8 frames (channels last) -> action logits and value.

    `cnn_width`: channels of the first convolution (the next two have twice as many);
    `hidden_size`: width of the linear layer fed to the actor and critic.
    """

    def __init__(self, env: Any, cnn_width: int = 16, hidden_size: int = 256):
        super().__init__()
        self.hidden_size = hidden_size
        height, width, channels = env.single_observation_space.shape
        convs = nn.Sequential(
            layer_init(nn.Conv2d(channels, cnn_width, 8, stride=4)), nn.ReLU(),
            layer_init(nn.Conv2d(cnn_width, 2 * cnn_width, 4, stride=2)), nn.ReLU(),
            layer_init(nn.Conv2d(2 * cnn_width, 2 * cnn_width, 3)), nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, channels, height, width)).shape[1]
        self.network = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, 64, 64, 3) uint8 -> (batch, hidden_size)."""
        return self.network(obs.permute(0, 3, 1, 2).float() / 255.0)

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
