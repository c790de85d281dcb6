"""MiniGridPolicy: the default policy of the MiniGrid/BabyAI ids.

The grid cells (object, colour, state indices) are embedded and read by a small CNN; the
direction is embedded; the mission tokens (UTF-8 bytes) are embedded and read by a 1-D
convolution max-pooled over the text, so that words are recognised wherever they are.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import pufferlib.pytorch
from pufferlib.models import ActionHead
from pufferlib.pytorch import layer_init

#: Embedding rows per image channel; minigrid's indices (objects, colours, states) are smaller.
CELL_VALUES = 32


class MiniGridPolicy(nn.Module):
    """Feed-forward policy over `{"image", "direction", ["mission"]}` (see `puffer_minigrid.env`).

    `hidden_size`: width of the joint encoding fed to the actor and critic.
    """

    def __init__(self, env: Any, hidden_size: int = 128):
        super().__init__()
        self.hidden_size = hidden_size
        self.obs_layout = env.obs_layout
        leaves = {leaf.path[0]: leaf.shape for leaf in self.obs_layout.leaves}
        height, width, channels = leaves["image"]
        self.register_buffer("offsets", torch.arange(channels) * CELL_VALUES, persistent=False)
        self.cells = nn.Embedding(channels * CELL_VALUES, 16)
        convs = nn.Sequential(
            layer_init(nn.Conv2d(16, 32, 3, padding=1)), nn.ReLU(),
            layer_init(nn.Conv2d(32, 64, 3, padding=1)), nn.ReLU(), nn.Flatten())
        self.image = nn.Sequential(convs, layer_init(nn.Linear(64 * height * width, hidden_size)), nn.ReLU())
        self.direction = nn.Embedding(4, 8)
        encoded = hidden_size + 8
        self.has_mission = "mission" in leaves
        if self.has_mission:
            self.chars = nn.Embedding(256, 32, padding_idx=0)
            self.text = layer_init(nn.Conv1d(32, 64, 5, padding=2))
            encoded += 64
        self.encoder = nn.Sequential(layer_init(nn.Linear(encoded, hidden_size)), nn.ReLU())
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, flat row) -> (batch, hidden_size)."""
        parts = pufferlib.pytorch.unflatten(obs, self.obs_layout)
        image = parts["image"].long().clamp(max=CELL_VALUES - 1) + self.offsets
        cells = self.cells(image).sum(-2).permute(0, 3, 1, 2)  # (batch, 16, H, W)
        features = [self.image(cells), self.direction(parts["direction"].long().reshape(-1).clamp(max=3))]
        if self.has_mission:
            chars = self.chars(parts["mission"].long()).transpose(1, 2)  # (batch, 32, length)
            features.append(torch.relu(self.text(chars)).amax(-1))
        return self.encoder(torch.cat(features, -1))

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
