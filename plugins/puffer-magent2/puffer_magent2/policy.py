"""MagentCNN: the default policy of the `magent2-*` ids, one network shared by every agent row.

Each agent sees a small window of the map (battle: 13x13 cells, 5 channels of presence and hit
points, floats in [0, 2]). One 3x3 convolution with stride 2 (32 filters: 13x13 -> 6x6) and a
linear layer to `hidden_size` units: about 0.4 MFLOP an agent step at battle's defaults. A
battle copy has 162 agents, so the policy runs hundreds of times per env step: on a CPU its
cost per agent bounds training, which is why it is this small.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pufferlib.errors import APIUsageError
from pufferlib.models import ActionHead
from pufferlib.pytorch import layer_init


class MagentCNN(nn.Module):
    """(batch, H, W, C) float windows -> action logits and value; recurrent-ready
    (`encode_observations` / `decode_actions`).

    `cnn_width`: filters of the convolution; `hidden_size`: width of the layer fed to the actor and critic.
    """

    def __init__(self, env: Any, cnn_width: int = 32, hidden_size: int = 128):
        super().__init__()
        shape = env.single_observation_space.shape
        if shape is None or len(shape) != 3 or min(shape[:2]) < 3:
            raise APIUsageError(f"MagentCNN takes (H, W, C) windows of at least 3x3 cells; this env observes shape "
                                f"{shape}. Use pufferlib.models.Default for flat observations.")
        height, width, channels = shape
        self.hidden_size = hidden_size
        convs = nn.Sequential(layer_init(nn.Conv2d(channels, cnn_width, 3, stride=2)), nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, channels, height, width)).shape[1]
        self.network = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, H, W, C) -> (batch, hidden_size)."""
        return self.network(obs.float().permute(0, 3, 1, 2))

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
