"""Policies for Ocean envs whose observation a plain MLP reads poorly.

`BoardConv` reads a board game's grid with small convolutions: a four-in-a-row or a threat is
the same pattern wherever it lies on the board, which a convolution learns once and an MLP
learns per position. Name it in a config as `[policy] class = "puffer_ocean.policies:BoardConv"`
(connect4's self-play config does: see the Ocean README).
"""

from __future__ import annotations

import torch
from torch import nn

from pufferlib.models import ActionHead
from pufferlib.protocols import EnvSpaces
from pufferlib.pytorch import layer_init


class BoardConv(nn.Module):
    """A CNN over a `rows` x `cols` board stored row-major at the start of a flat observation, each
    cell +1 (the row's own piece), -1 (the other player's) or 0 (empty), e.g. connect4's.

    The cells become three planes (own, other, empty), go through two 3 x 3 convolutions of
    `channels` (padded: the board keeps its size) and one linear layer of `hidden_size` units,
    with any observation entries after the board beside the convolutions' output.
    """

    def __init__(self, env: EnvSpaces, rows: int = 6, cols: int = 7, channels: int = 16, hidden_size: int = 128):
        super().__init__()
        shape = env.single_observation_space.shape
        if shape is None or len(shape) != 1 or shape[0] < rows * cols:
            raise ValueError(f"BoardConv reads a {rows} x {cols} board from a flat observation of at least "
                             f"{rows * cols} entries; this env's observations have shape {shape}.")
        self.rows, self.cols, self.hidden_size = rows, cols, hidden_size
        self.extra = shape[0] - rows * cols
        self.convs = nn.Sequential(
            layer_init(nn.Conv2d(3, channels, 3, padding=1)), nn.ReLU(),
            layer_init(nn.Conv2d(channels, channels, 3, padding=1)), nn.ReLU(), nn.Flatten())
        self.encoder = nn.Sequential(layer_init(nn.Linear(channels * rows * cols + self.extra, hidden_size)), nn.ReLU())
        self.head = ActionHead(env.single_action_space, hidden_size)

    def planes(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, obs) -> (batch, 3, rows, cols): the cells that hold the row's own pieces, the other
        player's, and the empty ones."""
        board = obs[:, :self.rows * self.cols].float().view(-1, 1, self.rows, self.cols)
        return torch.cat([(board > 0).float(), (board < 0).float(), (board == 0).float()], 1)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, obs) -> (batch, hidden_size)."""
        rest = obs[:, self.rows * self.cols:].float()
        return self.encoder(torch.cat([self.convs(self.planes(obs)), rest], 1))

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
