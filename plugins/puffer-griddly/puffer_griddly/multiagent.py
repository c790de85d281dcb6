"""GriddlyParallelEnv: a multi-agent Griddly game as a PettingZoo ParallelEnv (Vector observer).

Contract:
- Agents `player_1` .. `player_N` (griddly's players 1..N), all of them in `possible_agents`;
  each observes its own Vector view, uint8 `(channels, width, height)`, and acts with
  `MultiDiscrete([action types, action ids])` as griddly's gym wrapper builds it.
- All players act at once (griddly's `step_parallel`); each gets its own reward.
- An agent leaves (terminated) when the game sets its per-player `player_done` variable (robot
  tag: tagged three times); the episode ends for every agent left when griddly reports the game
  over (terminated), or when `max_steps` steps passed (truncated).
- `reset(seed=s)` seeds griddly's game first: the same seed and actions give the same episode.
- These are general-sum games without a winner that griddly reports (foragers ends with
  `PlayerResults` empty), so no game seats or outcomes are declared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from puffer_griddly.env import _check_int, import_griddly, vector_picture
from puffer_griddly.games import MULTI_AGENT_GAMES
from pufferlib.errors import APIUsageError


class GriddlyParallelEnv(ParallelEnv):
    """One multi-agent Griddly game. `game`: a name of `puffer_griddly.games.MULTI_AGENT_GAMES`;
    `level`: index of the game's level; `max_steps`: steps before an episode is truncated;
    `render_mode="rgb_array"`: `render()` gives a picture of the whole map (one colour per object type)."""

    metadata = {"render_modes": ["rgb_array"], "name": "griddly_parallel_v0"}

    def __init__(self, game: str = "foragers", level: int = 0, max_steps: int = 500, observer: str = "vector",
                 render_mode: str | None = None):
        if game not in MULTI_AGENT_GAMES:
            raise APIUsageError(f"Unknown multi-agent griddly game {game!r}; choose one of: "
                                f"{', '.join(sorted(MULTI_AGENT_GAMES))}.")
        level = _check_int("level", level, 0)
        self.max_steps = _check_int("max_steps", max_steps, 1)
        if observer != "vector":
            raise APIUsageError(f"observer must be 'vector' for multi-agent griddly games, got {observer!r} "
                                "(see puffer_griddly.env.OBSERVERS for why the others are refused).")
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        griddly = import_griddly()
        self.game_name, self.render_mode = game, render_mode
        self._gdy = griddly.GriddlyLoader().load(MULTI_AGENT_GAMES[game][0])
        levels = self._gdy.get_level_count()
        if level >= levels:
            raise APIUsageError(f"level must be in 0..{levels - 1} for griddly game {game!r}, got {level}.")
        self.level = level
        self._game = self._gdy.create_game("Vector")
        self._game.load_level(level)  # before init: griddly logs "No level specified" otherwise
        count = self._gdy.get_player_count()
        self._players = [self._game.register_player(f"Player {i + 1}", "Vector") for i in range(count)]
        self._game.init(False)
        self._game.reset()
        self.possible_agents = [f"player_{i + 1}" for i in range(count)]
        self.agents: list[str] = []
        shape = tuple(self._players[0].get_observation_description()["Shape"])
        self._obs_space = spaces.Box(0, 255, shape, np.uint8)
        ids = max(len(m["InputMappings"]) + 1 for m in self._gdy.get_action_input_mappings().values()
                  if not m["Internal"])
        self._act_space = spaces.MultiDiscrete([len(self._gdy.get_action_names()), ids])
        self._has_done_var = "player_done" in self._game.get_global_variable_names()
        self._actions = np.zeros((count, 2), np.int32)  # absent players send the no-op (0, 0)
        self._steps = 0

    def observation_space(self, agent: str) -> spaces.Box:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.MultiDiscrete:
        return self._act_space

    def _observe(self) -> dict[str, np.ndarray]:
        # copies: griddly's arrays are views of buffers it rewrites at the next step
        return {agent: np.array(self._players[int(agent[7:]) - 1].observe(), np.uint8, copy=True)
                for agent in self.agents}

    def _left(self) -> set[str]:
        """Agents whose `player_done` the game has set (griddly numbers players from 1)."""
        if not self._has_done_var:
            return set()
        done = self._game.get_global_variable(["player_done"])["player_done"]
        return {f"player_{i}" for i, value in done.items() if i > 0 and value}

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new episode of the level; `seed` seeds griddly's game first."""
        if seed is not None:
            self._game.seed(int(seed) % (2 ** 32))
        self._game.reset()
        self._steps = 0
        self.agents = list(self.possible_agents)
        return self._observe(), {agent: {} for agent in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """All agents left act at once; see the module docstring for ends."""
        if not self.agents:
            raise APIUsageError("This griddly episode has ended: call reset() before step().")
        self._actions[:] = 0
        for agent, action in actions.items():
            if agent in self.agents:
                row = np.asarray(action, np.int64).reshape(2)
                if not ((row >= 0).all() and (row < self._act_space.nvec).all()):  # griddly ignores them
                    raise APIUsageError(f"action {action!r} of {agent} is outside the action space {self._act_space}.")
                self._actions[int(agent[7:]) - 1] = row
        rewards, done, _ = self._game.step_parallel(self._actions)
        self._steps += 1
        acting = self.agents
        left = self._left()
        truncated = not done and self._steps >= self.max_steps
        terminations = {agent: bool(done) or agent in left for agent in acting}
        truncations = {agent: truncated and not terminations[agent] for agent in acting}
        observations = self._observe()
        self.agents = [a for a in acting if not (terminations[a] or truncations[a])]
        return (observations, {agent: float(rewards[int(agent[7:]) - 1]) for agent in acting},
                terminations, truncations, {agent: {} for agent in acting})

    def render(self) -> np.ndarray | None:
        """With render_mode="rgb_array": the whole map, one colour per object type (see `vector_picture`)."""
        if self.render_mode is None:
            return None
        return vector_picture(np.asarray(self._game.observe()), len(self._game.get_object_names()))

    def close(self) -> None:
        game, self._game = getattr(self, "_game", None), None
        if game is not None:
            game.release()


def make(game: str = "foragers", level: int = 0, max_steps: int = 500, observer: str = "vector",
         render_mode: str | None = None) -> GriddlyParallelEnv:
    """Creator of the multi-agent `griddly-*` ids (see `GriddlyParallelEnv`)."""
    return GriddlyParallelEnv(game=game, level=level, max_steps=max_steps, observer=observer, render_mode=render_mode)
