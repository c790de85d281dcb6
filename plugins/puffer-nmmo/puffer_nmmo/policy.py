"""NMMOPolicy: the default policy of the `nmmo-*` ids, over nmmo's Dict observation.

Each part of what an agent sees gets its own encoder, and their outputs are joined by one layer:
- `Tile`, the 15 x 15 tiles around the agent: each tile's material (16 kinds) is embedded (8
  wide) and a two-layer CNN (16 and 32 channels, the second of stride 2) reads the grid (the
  tiles' absolute row/col are left out: the grid's layout already says where each tile is,
  relative to the agent at its centre);
- `Entity`, up to 100 players and NPCs in sight (31 attributes each): the agent's own row,
  found by its `AgentId`, goes through a linear layer; every visible entity, with its position
  made relative to the agent's, goes through a shared linear layer and is max-pooled (empty rows
  left out);
- `Inventory` (12 items x 16 attributes): a shared MLP per item, max-pooled over held items;
- `CurrentTick`, scaled by 1/1024.
Counts (health, food, gold, experience, ...) are squashed with sign(x) log(1 + |x|). `Market`,
`Communication` and (when kept) `Task` are not read. About 0.6 M multiply-adds an agent
at `hidden_size` 128: PPO's update, not nmmo, bounds training speed on a CPU. Actions come from one head per argument
(`pufferlib.models.ActionHead` over the flattened MultiDiscrete); the trainer masks the choices
nmmo's `action_mask` forbids.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import pufferlib.pytorch
from pufferlib.errors import APIUsageError
from pufferlib.models import ActionHead
from pufferlib.pytorch import layer_init

#: Materials of nmmo 2.1's tiles (`nmmo.lib.material`: indices 0..15).
NUM_MATERIALS = 16
#: Columns of nmmo 2.1's `Entity` rows (`EntityState.State.attr_name_to_col`) this policy uses.
ENTITY_ID, ENTITY_ROW, ENTITY_COL = 0, 2, 3
#: Columns of nmmo 2.1's `Inventory` rows (`ItemState.State.attr_name_to_col`): id, type_id.
ITEM_ID, ITEM_TYPE = 0, 1
#: Keys of the observation the policy reads.
REQUIRED = ("Tile", "Entity", "Inventory", "AgentId", "CurrentTick")


def _squash(x: torch.Tensor) -> torch.Tensor:
    x = x.float()
    return torch.sign(x) * torch.log1p(x.abs())


class NMMOPolicy(nn.Module):
    """Feed-forward policy over NMMOEnv's observation (see the module docstring).

    `hidden_size`: width of the joint encoding fed to the actor and critic (each encoder
    outputs `hidden_size // 2`).
    """

    def __init__(self, env: Any, hidden_size: int = 256):
        super().__init__()
        layout = getattr(env, "obs_layout", None)
        keys = {leaf.path[0]: leaf.shape for leaf in layout.leaves} if layout is not None and layout.structured else {}
        missing = [k for k in REQUIRED if k not in keys]
        if missing:
            raise APIUsageError(f"NMMOPolicy reads nmmo's Dict observation (keys {REQUIRED}); this env lacks "
                                f"{missing}. Use it with the nmmo-* ids or pufferlib.models.Default.")
        if hidden_size < 8:
            raise APIUsageError(f"hidden_size must be >= 8, got {hidden_size}.")
        self.hidden_size = hidden_size
        self.obs_layout = layout
        width = hidden_size // 2
        tiles, tile_attrs = keys["Tile"]
        self.side = int(round(tiles ** 0.5))
        if self.side * self.side != tiles or tile_attrs < 3:
            raise APIUsageError(f"NMMOPolicy expects a square tile view (side^2 x 3); got {keys['Tile']}.")
        entity_attrs = keys["Entity"][1]
        item_attrs = keys["Inventory"][1]

        self.material_embed = nn.Embedding(NUM_MATERIALS, 8)
        convs = nn.Sequential(
            layer_init(nn.Conv2d(8, 16, 3, padding=1)), nn.ReLU(),
            layer_init(nn.Conv2d(16, 32, 3, stride=2)), nn.ReLU(), nn.Flatten())
        flat = convs(torch.zeros(1, 8, self.side, self.side)).shape[1]
        self.tile_net = nn.Sequential(convs, layer_init(nn.Linear(flat, width)), nn.ReLU())
        self.self_net = nn.Sequential(layer_init(nn.Linear(entity_attrs, width)), nn.ReLU())
        self.entity_net = nn.Sequential(layer_init(nn.Linear(entity_attrs, width)), nn.ReLU())
        self.item_type_embed = nn.Embedding(32, 8)
        self.item_net = nn.Sequential(layer_init(nn.Linear(item_attrs + 8, width // 2)), nn.ReLU())
        joined = 3 * width + width // 2 + 1
        self.encoder = nn.Sequential(layer_init(nn.Linear(joined, hidden_size)), nn.ReLU())
        self.head = ActionHead(env.single_action_space, hidden_size)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, flat row) -> (batch, hidden_size)."""
        parts = pufferlib.pytorch.unflatten(obs, self.obs_layout)
        batch = obs.shape[0]

        materials = parts["Tile"][..., 2].long().clamp(0, NUM_MATERIALS - 1)
        grid = self.material_embed(materials).view(batch, self.side, self.side, -1).permute(0, 3, 1, 2)
        tiles = self.tile_net(grid)

        entities = parts["Entity"]
        ids = entities[..., ENTITY_ID]
        me = parts["AgentId"].reshape(batch, 1).to(ids.dtype)
        mine = (ids == me) & (ids != 0)
        row = mine.int().argmax(1)  # 0 (an empty or other row) when the agent is not in sight
        own = entities[torch.arange(batch, device=obs.device), row] * mine.any(1, keepdim=True).to(entities.dtype)
        relative = entities.float().clone()
        relative[..., ENTITY_ROW] -= own[:, None, ENTITY_ROW].float()
        relative[..., ENTITY_COL] -= own[:, None, ENTITY_COL].float()
        relative[..., ENTITY_ID] = torch.sign(relative[..., ENTITY_ID])  # player (+1) or NPC (-1)
        present = (ids != 0).unsqueeze(-1)
        seen = self.entity_net(_squash(relative)).masked_fill(~present, 0).amax(1)
        own_features = self.self_net(_squash(own))

        items = parts["Inventory"]
        held = (items[..., ITEM_ID] != 0).unsqueeze(-1)
        kind = self.item_type_embed(items[..., ITEM_TYPE].long().clamp(0, 31))
        inventory = self.item_net(torch.cat([_squash(items), kind], -1)).masked_fill(~held, 0).amax(1)

        tick = parts["CurrentTick"].reshape(batch, 1).float() / 1024.0
        return self.encoder(torch.cat([tiles, own_features, seen, inventory, tick], -1))

    def decode_actions(self, hidden: torch.Tensor):
        """(batch, hidden_size) -> (logits, value)."""
        return self.head(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))
