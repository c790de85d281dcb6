"""MiniHackPolicy: the default policy of the `minihack-<task>` ids.

After the MiniHack paper's baseline agent, without its LSTM (`LSTMWrapper` adds one): the
glyph ids of the map and of its 9 x 9 crop around the agent share one embedding; the map is
read by a strided CNN (the full 21 x 79 map is the costliest input on a CPU), the crop by an
unstrided one that keeps each cell; the bottom-line statistics are scaled with a signed log
and fed to an MLP. Observation keys beyond these (chars, message, ...) get a linear encoder
each, and any of the three may be left out of `observation_keys`.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import pufferlib.pytorch
from puffer_nethack.policy import MAX_GLYPH
from pufferlib.errors import APIUsageError
from pufferlib.models import ActionHead
from pufferlib.pytorch import layer_init


def _signed_log(x: torch.Tensor) -> torch.Tensor:
    return torch.sign(x) * torch.log1p(x.abs())


class MiniHackPolicy(nn.Module):
    """Feed-forward policy over MiniHack's dict observation.

    `hidden_size`: width of the joint encoding fed to the actor and critic. `glyph_embed`:
    width of a glyph's embedding. `map_channels`, `crop_channels`: channels of the map's and
    the crop's convolutions.
    """

    def __init__(self, env: Any, hidden_size: int = 256, glyph_embed: int = 16, map_channels: int = 16,
                 crop_channels: int = 16):
        super().__init__()
        self.hidden_size = hidden_size
        self.obs_layout = env.obs_layout
        if self.obs_layout is None or not self.obs_layout.structured:
            raise APIUsageError("MiniHackPolicy reads MiniHack's dict observation (glyphs, glyphs_crop, blstats); "
                                "this env observes one array. Use pufferlib.models.Default.")
        shapes = {leaf.path[0]: leaf.shape for leaf in self.obs_layout.leaves}
        self.glyph_embed = nn.Embedding(MAX_GLYPH + 1, glyph_embed)
        self.encoders = nn.ModuleDict()
        width = 0
        for key, shape in shapes.items():
            if key == "glyphs":
                convs = nn.Sequential(
                    layer_init(nn.Conv2d(glyph_embed, map_channels, 3, stride=2, padding=1)), nn.ReLU(),
                    layer_init(nn.Conv2d(map_channels, map_channels, 3, stride=2, padding=1)), nn.ReLU(),
                    nn.Flatten())
                out = 128
            elif key == "glyphs_crop":
                convs = nn.Sequential(
                    layer_init(nn.Conv2d(glyph_embed, crop_channels, 3, padding=1)), nn.ReLU(),
                    layer_init(nn.Conv2d(crop_channels, crop_channels, 3, padding=1)), nn.ReLU(),
                    nn.Flatten())
                out = 128
            else:
                size = int(torch.tensor(shape).prod()) if shape else 1
                self.encoders[key] = nn.Sequential(layer_init(nn.Linear(size, 64)), nn.ReLU())
                width += 64
                continue
            flat = convs(torch.zeros(1, glyph_embed, *shape)).shape[1]
            self.encoders[key] = nn.Sequential(convs, layer_init(nn.Linear(flat, out)), nn.ReLU())
            width += out
        self.encoder = nn.Sequential(layer_init(nn.Linear(width, hidden_size)), nn.ReLU())
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, flat row) -> (batch, hidden_size)."""
        parts = pufferlib.pytorch.unflatten(obs, self.obs_layout)
        batch = obs.shape[0]
        features = []
        for key, encoder in self.encoders.items():
            value = parts[key]
            if key in ("glyphs", "glyphs_crop"):
                x = pufferlib.pytorch.embed(self.glyph_embed, value.long().clamp(0, MAX_GLYPH)).permute(0, 3, 1, 2)
                features.append(encoder(x))
            else:
                features.append(encoder(_signed_log(value.reshape(batch, -1).float())))
        return self.encoder(torch.cat(features, -1))

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
