"""A third-party turn-based game as a plugin would ship it: a PettingZoo AEC env written the way
PettingZoo's docs teach (an `observe` with an "action_mask", illegal moves raise), registered by
a `pufferlib_env_specs` hook. It knows nothing of PufferLib's `opponent` option or built-in players.

The game is Nim: a pile of `PILE` stones, the seats take 1 to 3 in turn, who takes the last one
wins (+1, the other -1). The first seat wins by leaving a multiple of 4.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

import pufferlib
from pufferlib.registry import plugins
from pufferlib.registry.spec import EnvSpec

ENV_ID = "thirdparty-nim"
PLUGIN = "thirdparty"
PILE = 7
TAKE = 3


class Nim(AECEnv):
    """Nim of `pile` stones, 1 to 3 taken a turn; observations: the pile (one-hot) and the action mask."""

    metadata = {"name": "nim_v0", "is_parallelizable": False, "render_modes": []}

    def __init__(self, pile: int = PILE):
        super().__init__()
        self.pile_size = pile
        self.possible_agents = ["player_0", "player_1"]
        obs = spaces.Dict({"observation": spaces.Box(0, 1, (pile + 1,), np.int8),
                           "action_mask": spaces.Box(0, 1, (TAKE,), np.int8)})
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(TAKE) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        board = np.zeros(self.pile_size + 1, np.int8)
        board[self.pile] = 1
        legal = (np.arange(TAKE) < self.pile) if agent == self.agent_selection else np.zeros(TAKE, bool)
        return {"observation": board, "action_mask": legal.astype(np.int8)}

    def reset(self, seed=None, options=None):
        self.agents = list(self.possible_agents)
        self.pile = self.pile_size
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._selector.reset()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        take = int(action) + 1
        if take > self.pile:
            raise ValueError(f"illegal move: take {take} of a pile of {self.pile}")
        self._cumulative_rewards[agent] = 0
        self.pile -= take
        if self.pile == 0:
            other = self.possible_agents[1 - self.possible_agents.index(agent)]
            self.rewards = {agent: 1, other: -1}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.rewards = dict.fromkeys(self.agents, 0)
        self.agent_selection = self._selector.next()
        self._accumulate_rewards()

    def close(self):
        pass


def env(**kwargs) -> Nim:
    """The creator the spec names."""
    return Nim(**kwargs)


@pufferlib.hookimpl
def pufferlib_env_specs() -> list[EnvSpec]:
    return [EnvSpec(ENV_ID, f"{__name__}:env", description="Nim (a test plugin's AEC game)")]


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """This module registered as the plugin "thirdparty" (as its entry point would be) in the block."""
    manager = plugins.plugin_manager()
    manager.register(sys.modules[__name__], name=PLUGIN)
    try:
        yield
    finally:
        manager.unregister(name=PLUGIN)
