"""MiniGridPolicy: the default policy of the MiniGrid/BabyAI ids.

Sized for minigrid's symbolic observation, which is small: the 7x7 view holds three
indices per cell (object, colour, state). Each index is one-hot encoded (`CELL_VALUES`
slots per channel), so the view needs no embedding table and no gradient of its own, and is
read by one 3x3 convolution and a linear layer. The direction is embedded.

The mission tokens (UTF-8 bytes) are embedded and read by a 1-D convolution max-pooled
over the text, so that words are recognised wherever they are. Its cost follows what
varies: the convolution runs once per distinct mission of the batch (an env whose mission
never changes encodes one), over the columns some mission uses (missions are far
shorter than their zero-padded tokens), and positions past a mission's end are masked,
so a row's encoding never depends on the rest of its batch.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import pufferlib.pytorch
from pufferlib.models import ActionHead
from pufferlib.pytorch import layer_init

#: One-hot slots of the view's channels: minigrid 3 has 11 objects, 6 colours, 3 states;
#: larger indices share the last slot. Extra channels of a custom view get 8 slots each.
CELL_VALUES = (16, 8, 4)
#: Channels of the view's convolution and of the mission's convolution.
CONV = 32
#: Width of a mission byte's embedding, and bytes seen by each position of its convolution.
CHAR_EMBED, MISSION_KERNEL = 16, 3


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
        slots = torch.tensor([CELL_VALUES[c] if c < len(CELL_VALUES) else 8 for c in range(channels)])
        self.register_buffer("slot_max", slots - 1, persistent=False)
        self.register_buffer("offsets", torch.cumsum(slots, 0) - slots, persistent=False)
        self.one_hot_width = int(slots.sum())
        if height >= 3 and width >= 3:
            conv: nn.Module = layer_init(nn.Conv2d(self.one_hot_width, CONV, 3))
            flat = CONV * (height - 2) * (width - 2)
        else:  # agent_view_size below 3: no room for a 3x3 window
            conv, flat = nn.Identity(), self.one_hot_width * height * width
        self.image = nn.Sequential(conv, nn.ReLU(), nn.Flatten(), layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())
        self.direction = nn.Embedding(4, 8)
        encoded = hidden_size + 8
        self.has_mission = "mission" in leaves
        if self.has_mission:
            self.chars = nn.Embedding(256, CHAR_EMBED, padding_idx=0)
            self.text = layer_init(nn.Conv1d(CHAR_EMBED, CONV, MISSION_KERNEL, padding=MISSION_KERNEL // 2))
            encoded += CONV
        self.encoder = nn.Sequential(layer_init(nn.Linear(encoded, hidden_size)), nn.ReLU())
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_image(self, image: torch.Tensor) -> torch.Tensor:
        """(batch, H, W, channels) uint8 -> (batch, hidden_size)."""
        batch, height, width, _ = image.shape
        index = torch.minimum(image.long(), self.slot_max) + self.offsets
        one_hot = torch.zeros(batch, height, width, self.one_hot_width, device=image.device)
        one_hot.scatter_(-1, index, 1.0)
        return self.image(one_hot.permute(0, 3, 1, 2))

    def encode_mission(self, mission: torch.Tensor) -> torch.Tensor:
        """(batch, tokens) uint8 -> (batch, CONV): per row, the max over its bytes of a 1-D convolution."""
        distinct, row_of = pufferlib.pytorch.distinct_token_rows(mission)
        chars = self.chars(distinct).transpose(1, 2)  # (distinct, CHAR_EMBED, used length)
        features = torch.relu(self.text(chars)) * distinct.ne(0).unsqueeze(1)
        return features.amax(-1)[row_of]

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, flat row) -> (batch, hidden_size)."""
        parts = pufferlib.pytorch.unflatten(obs, self.obs_layout)
        features = [self.encode_image(parts["image"]),
                    self.direction(parts["direction"].long().reshape(-1).clamp(max=3))]
        if self.has_mission:
            features.append(self.encode_mission(parts["mission"]))
        return self.encoder(torch.cat(features, -1))

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
