"""NetHackPolicy: the default policy of the `nethack-<task>` ids.

Each kind of observation gets its own encoder: glyphs (the dungeon map, 21 x 79 glyph
ids) are embedded and read by a CNN; blstats (bottom-line statistics) are scaled with a
signed log and fed to an MLP; the message (256 bytes of text) and the inventory glyphs
are embedded and pooled. The message's convolution runs once per distinct message of a
batch and over the bytes some message uses (`pufferlib.pytorch.distinct_token_rows`;
most messages are empty or repeated), with positions past a message's end masked, so a
row's encoding never depends on the rest of its batch. Keys that NLE offers beyond these get a linear encoder.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import pufferlib.pytorch
from pufferlib.models import ActionHead
from pufferlib.pytorch import layer_init

#: NLE's number of glyph ids (nle.nethack.MAX_GLYPH), fixed by NetHack 3.6.
MAX_GLYPH = 5976
#: Width of a glyph's embedding (the map's 21 x 79 cells make it the costliest input).
GLYPH_EMBED = 8


class NetHackPolicy(nn.Module):
    """Feed-forward policy over NLE's dict observation (any `observation_keys`).

    `hidden_size`: width of the joint encoding fed to the actor and critic.
    `map_channels`: channels of the glyph CNN's second convolution (its output, 6 x 20 cells
    of them, is flattened into the map's linear layer, so this sets most of the update's cost).
    """

    def __init__(self, env: Any, hidden_size: int = 256, map_channels: int = 16):
        super().__init__()
        self.hidden_size = hidden_size
        self.obs_layout = env.obs_layout
        shapes = {leaf.path[0]: leaf.shape for leaf in self.obs_layout.leaves}
        self.encoders = nn.ModuleDict()
        widths = 0
        for key, shape in shapes.items():
            if key == "glyphs":
                self.glyph_embed = nn.Embedding(MAX_GLYPH + 1, GLYPH_EMBED)
                convs = nn.Sequential(
                    layer_init(nn.Conv2d(GLYPH_EMBED, 16, 3, stride=2, padding=1)), nn.ReLU(),
                    layer_init(nn.Conv2d(16, map_channels, 3, stride=2, padding=1)), nn.ReLU(),
                    nn.Flatten())
                flat = convs(torch.zeros(1, GLYPH_EMBED, *shape)).shape[1]
                self.encoders[key] = nn.Sequential(convs, layer_init(nn.Linear(flat, hidden_size)), nn.ReLU())
            elif key == "message":
                self.message_embed = nn.Embedding(256, 16, padding_idx=0)
                self.encoders[key] = nn.Sequential(layer_init(nn.Conv1d(16, 64, 5, padding=2)), nn.ReLU())
            elif key == "inv_glyphs":
                self.inventory_embed = nn.Embedding(MAX_GLYPH + 1, 32)
                self.encoders[key] = nn.Identity()
            else:
                size = int(torch.tensor(shape).prod()) if shape else 1
                self.encoders[key] = nn.Sequential(layer_init(nn.Linear(size, 64)), nn.ReLU())
            widths += {"glyphs": hidden_size, "message": 64, "inv_glyphs": 32}.get(key, 64)
        self.encoder = nn.Sequential(layer_init(nn.Linear(widths, hidden_size)), nn.ReLU())
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, flat row) -> (batch, hidden_size)."""
        parts = pufferlib.pytorch.unflatten(obs, self.obs_layout)
        batch = obs.shape[0]
        features = []
        for key, encoder in self.encoders.items():
            value = parts[key]
            if key == "glyphs":
                x = pufferlib.pytorch.embed(self.glyph_embed, value.long().clamp(0, MAX_GLYPH)).permute(0, 3, 1, 2)
                features.append(encoder(x))
            elif key == "message":
                distinct, row_of = pufferlib.pytorch.distinct_token_rows(value)
                x = encoder(self.message_embed(distinct).transpose(1, 2)) * distinct.ne(0).unsqueeze(1)
                features.append(x.amax(-1)[row_of])
            elif key == "inv_glyphs":
                features.append(pufferlib.pytorch.embed(self.inventory_embed, value.long().clamp(0, MAX_GLYPH)).mean(1))
            else:
                x = value.reshape(batch, -1).float()
                features.append(encoder(torch.sign(x) * torch.log1p(x.abs())))
        return self.encoder(torch.cat(features, -1))

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
