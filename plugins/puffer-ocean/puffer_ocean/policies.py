"""Policies for Ocean envs whose observation a plain MLP reads poorly.

`BoardConv` reads a board game's grid with small convolutions: a four-in-a-row or a threat is
the same pattern wherever it lies on the board, which a convolution learns once and an MLP
learns per position. Name it in a config as `[policy] class = "puffer_ocean.policies:BoardConv"`
(connect4's self-play config does: see the Ocean README).

`TripletriadPairs` scores each placement of Triple Triad (a card of the hand on an empty cell) with one
small network shared by the 45 pairs: a placement's worth lies in the comparisons of the card's sides
with its neighbours', the same rule on every cell, which an MLP over the flat observation has to learn
per card and cell.
"""

from __future__ import annotations

import numpy as np
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


#: tripletriad's observation without the legal actions (puffer_ocean/csrc/envs/tripletriad.h), its
#: actions (0-4 select a hand card, 5-13 place it on a cell) and the neighbour of each cell per side
#: (north, south, east, west; 9: off the board) with the side that faces back.
_TT_OBS, _TT_ACTIONS = 114, 14
_TT_NEIGHBOUR = np.array([[(r - 1) * 3 + c if r > 0 else 9, (r + 1) * 3 + c if r < 2 else 9,
                           r * 3 + c + 1 if c < 2 else 9, r * 3 + c - 1 if c > 0 else 9]
                          for r in range(3) for c in range(3)])
_TT_FACING = np.array([1, 0, 3, 2])
_TT_CARD_FEATURES, _TT_CELL_FEATURES = 4 + 2, 4 * 5 + 1


class TripletriadPairs(nn.Module):
    """A policy for Ocean's tripletriad that scores every (hand card, cell) placement.

    A card is its four side values, whether it is in hand and whether it is the one selected; a cell,
    per side, what lies beyond it (the edge, an empty cell, the row's own card, the other player's)
    and that neighbour's facing value, and whether the cell is empty. A placement's score is
    `out(relu(card(k) + cell(c) + context))`, one network for the 45 pairs (`pair_size` units), the
    context an encoding of the whole observation (`hidden_size` units): its units can compare a
    card's side with the facing side of the cell's neighbour (a capture) or with an empty neighbour
    (an exposure) the same way on every cell. A card's selection logit is the log-sum-exp of its
    scores over the empty cells; once a card is selected, each cell's placement logit is that
    card's score there. The value reads the context. Works with and without the env's
    `legal_actions` (which the sampler then respects).
    """

    def __init__(self, env: EnvSpaces, hidden_size: int = 128, pair_size: int = 16):
        super().__init__()
        shape = env.single_observation_space.shape
        size = int(np.prod(shape)) if shape is not None else 0
        n = getattr(env.single_action_space, "n", None)
        if size not in (_TT_OBS, _TT_OBS + _TT_ACTIONS) or n != _TT_ACTIONS:
            raise ValueError(f"TripletriadPairs reads Ocean tripletriad's observation ({_TT_OBS} entries, "
                             f"{_TT_OBS + _TT_ACTIONS} with legal_actions) and its {_TT_ACTIONS} actions; this env "
                             f"has observations of shape {shape} and {env.single_action_space}.")
        self.offset = size - _TT_OBS  # the legal actions, when the observation leads with them
        self.encoder = nn.Sequential(layer_init(nn.Linear(size, hidden_size)), nn.ReLU())
        self.card = layer_init(nn.Linear(_TT_CARD_FEATURES, pair_size))
        self.cell = layer_init(nn.Linear(_TT_CELL_FEATURES, pair_size))
        self.context = layer_init(nn.Linear(hidden_size, pair_size))
        self.out = layer_init(nn.Linear(pair_size, 1), std=0.01)
        self.critic = layer_init(nn.Linear(hidden_size, 1), std=1.0)
        self.register_buffer("neighbour", torch.as_tensor(_TT_NEIGHBOUR), persistent=False)
        self.register_buffer("facing", torch.as_tensor(_TT_FACING).expand(9, 4).clone(), persistent=False)
        self.register_buffer("edge", torch.tensor([1.0, 0, 0, 0]), persistent=False)

    def features(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(batch, 114) plain observations -> cards (batch, 5, 6), cells (batch, 9, 21), the selected card (batch,)
        (-1: none)."""
        batch = x.shape[0]
        owner = x[:, :9]  # 1 own, 0.5 the other's, 0 empty
        empty = (owner == 0).float()
        state = torch.stack([torch.zeros_like(owner), empty, (owner == 1).float(), (owner == 0.5).float()], -1)
        state = torch.cat([state, self.edge.expand(batch, 1, 4)], 1)  # (batch, 10, 4): cell 9 is off the board
        values = torch.cat([x[:, 28:64].reshape(batch, 9, 4), x.new_zeros(batch, 1, 4)], 1)
        beyond = state[:, self.neighbour]  # (batch, 9 cells, 4 sides, 4 states)
        facing = values[:, self.neighbour, self.facing]  # (batch, 9, 4)
        cells = torch.cat([beyond, facing.unsqueeze(-1)], -1).reshape(batch, 9, 20)
        selected = torch.round(x[:, 24] * 5).long() - 1
        chosen = (torch.arange(5, device=x.device) == selected.unsqueeze(1)).float()
        cards = torch.cat([x[:, 64:84].reshape(batch, 5, 4), (1 - x[:, 9:14]).unsqueeze(-1), chosen.unsqueeze(-1)], -1)
        return cards, torch.cat([cells, empty.unsqueeze(-1)], -1), selected

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(batch, obs) -> (logits (batch, 14), value (batch, 1))."""
        obs = obs.reshape(obs.shape[0], -1).float()
        hidden = self.encoder(obs)
        cards, cells, selected = self.features(obs[:, self.offset:])
        pairs = (self.card(cards).unsqueeze(2) + self.cell(cells).unsqueeze(1)
                 + self.context(hidden)[:, None, None, :])  # (batch, 5 cards, 9 cells, pair_size)
        scores = self.out(torch.relu(pairs)).squeeze(-1)
        full = cells[:, :, -1] == 0  # (batch, 9): the cells not empty
        card_logits = torch.logsumexp(scores.masked_fill(full.unsqueeze(1), -1e4), dim=2)
        cell_logits = scores.gather(1, selected.clamp(min=0).view(-1, 1, 1).expand(-1, 1, 9)).squeeze(1)
        cell_logits = cell_logits * (selected >= 0).float().unsqueeze(1)
        return torch.cat([card_logits, cell_logits], 1), self.critic(hidden)
