"""GriddlyEnv: one single-player Griddly game as a Gymnasium env, seen through the Vector observer.

Contract:
- Observations are griddly's Vector observer: uint8 `(channels, width, height)`, one channel
  per object type of the game (1 where an object of that type is in the cell, else 0). Only
  this observer runs headless here: Block2D, Sprite2D and Isometric render with Vulkan and
  segfault the interpreter where no Vulkan loader (`libvulkan.so.1`) is installed; ASCII gives
  characters and Entity variable-length entity lists (see the README). So `observer` takes
  "vector" only and refuses the others before griddly is asked.
- Actions: `Discrete(n)` for games with one action type (n = the largest number of input ids,
  0 is the no-op), `MultiDiscrete([action types, n])` for games with several (Zelda: move,
  attack); as griddly's own gym wrapper builds them.
- The level is fixed per env (`level`, an index into the game's levels): levels of one game may
  differ in size, and the observation space is the level's.
- `step` returns Gymnasium's 5-tuple: `terminated` when griddly ends the episode (a win or a
  loss), `truncated` when `max_steps` steps passed first. The step that ends an episode
  carries `win` (1.0 if griddly reports the player won, else 0.0) in its info; other infos are
  empty.
- `reset(seed=s)` seeds griddly's game (its random spawns and NPC moves) before the reset:
  the same seed and actions give the same episode. Later resets without a seed continue that
  random sequence.
"""

from __future__ import annotations

import contextlib
import io
import sys
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from puffer_griddly.games import GAMES
from pufferlib.errors import APIUsageError

#: The observers of griddly 1.6.7 and why each but "vector" is refused (measured on the test machine).
OBSERVERS = {
    "vector": None,
    "block2d": "renders with Vulkan: segfaults (SIGSEGV in vk::VulkanInstance) where no Vulkan loader is installed",
    "sprite2d": "renders with Vulkan: segfaults (SIGSEGV in vk::VulkanInstance) where no Vulkan loader is installed",
    "isometric": "renders with Vulkan: segfaults (SIGSEGV in vk::VulkanInstance) where no Vulkan loader is installed",
    "ascii": "gives map characters, not features a policy reads",
    "entity": "gives variable-length lists of entities, not a fixed array",
}
#: Pixels per cell of `render()`'s picture.
TILE = 8


def import_griddly() -> Any:
    """`import griddly`, without the notice that gym 0.26 (which griddly imports) writes to stderr.
    Anything else written to stderr during the import is written through."""
    if "griddly" in sys.modules or "gym" in sys.modules:
        import griddly

        return griddly
    captured = io.StringIO()
    with contextlib.redirect_stderr(captured):
        import griddly
    text = captured.getvalue()
    with contextlib.suppress(Exception):
        import gym
        from gym_notices.notices import notices

        text = text.replace(notices.get(gym.__version__, "\0") + "\n", "")
    if text:
        sys.stderr.write(text)
    return griddly


def vector_picture(grid: np.ndarray, objects: int | None = None) -> np.ndarray:
    """A Vector observation `(channels, width, height)` as an RGB picture `(height*TILE, width*TILE, 3)`:
    black floor, one colour per object type (the first `objects` channels; the first type present
    in a cell wins)."""
    grid = grid[:objects]
    hues = np.linspace(0.0, 1.0, len(grid), endpoint=False)
    palette = np.stack([0.5 + 0.5 * np.cos(2 * np.pi * (hues + k / 3)) for k in range(3)], 1)
    palette = np.concatenate([np.zeros((1, 3)), palette]) * 255
    top = np.where(grid.any(0), grid.argmax(0) + 1, 0)
    return palette[top.T].astype(np.uint8).repeat(TILE, 0).repeat(TILE, 1)


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise APIUsageError(f"{name} must be an int >= {low}, got {value!r}.")
    return int(value)


class GriddlyEnv(gymnasium.Env):
    """One single-player Griddly game. `game`: a name of `puffer_griddly.games.GAMES`;
    `level`: index of the game's level; `max_steps`: steps before an episode is truncated;
    `observer`: "vector" (the only one that runs headless); `render_mode="rgb_array"`:
    `render()` gives a picture of the observation (one colour per object type)."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, game: str = "sokoban", level: int = 0, max_steps: int = 500, observer: str = "vector",
                 render_mode: str | None = None):
        if game not in GAMES:
            raise APIUsageError(f"Unknown griddly game {game!r}; choose one of: {', '.join(sorted(GAMES))}.")
        level = _check_int("level", level, 0)
        self.max_steps = _check_int("max_steps", max_steps, 1)
        if not isinstance(observer, str) or observer.lower() not in OBSERVERS:
            raise APIUsageError(f"observer must be one of {list(OBSERVERS)}, got {observer!r}.")
        if OBSERVERS[observer.lower()] is not None:
            raise APIUsageError(f"observer {observer!r} is not supported: it {OBSERVERS[observer.lower()]}. "
                                "Use observer='vector'.")
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        griddly = import_griddly()
        self.game_name, self.render_mode = game, render_mode
        self._gdy = griddly.GriddlyLoader().load(GAMES[game][0])
        if self._gdy.get_player_count() != 1 or not self._gdy.get_avatar_object():
            raise APIUsageError(f"griddly game {game!r} is not a single-player avatar game.")
        levels = self._gdy.get_level_count()
        if level >= levels:
            raise APIUsageError(f"level must be in 0..{levels - 1} for griddly game {game!r}, got {level}.")
        self.level = level
        self._game = self._gdy.create_game("Vector")
        self._game.load_level(level)  # before init: griddly logs "No level specified" otherwise
        self._player = self._game.register_player("Player 1", "Vector")
        self._game.init(False)
        self._game.reset()
        shape = tuple(self._player.get_observation_description()["Shape"])
        self.observation_space = spaces.Box(0, 255, shape, np.uint8)
        self.action_space = self._action_space()
        self._parts = 1 if isinstance(self.action_space, spaces.Discrete) else 2
        self._action = np.zeros((1, self._parts), np.int32)
        space = self.action_space
        self._high = [int(space.n)] if isinstance(space, spaces.Discrete) else [int(n) for n in space.nvec]
        self._steps, self._ended = 0, False
        self._obs = np.zeros(shape, np.uint8)

    def _action_space(self) -> spaces.Space:
        """griddly's action layout for an avatar game: [action type,] action id."""
        ids = max(len(m["InputMappings"]) + 1 for m in self._gdy.get_action_input_mappings().values()
                  if not m["Internal"])
        types = len(self._gdy.get_action_names())
        return spaces.Discrete(ids) if types == 1 else spaces.MultiDiscrete([types, ids])

    def _observe(self) -> np.ndarray:
        # griddly's observation is a view of its own buffer, rewritten by the next step: copy it
        self._obs = np.array(self._player.observe(), np.uint8, copy=True)
        return self._obs

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new episode of the level; `seed` seeds griddly's game first."""
        super().reset(seed=seed)
        if seed is not None:
            self._game.seed(int(seed) % (2 ** 32))
        self._game.reset()
        self._steps, self._ended = 0, False
        return self._observe(), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """One step: (obs, reward, terminated, truncated, info); `info` has `win` at episode ends."""
        if self._ended:  # griddly itself raises RuntimeError and logs to stdout
            raise APIUsageError("This griddly episode has ended: call reset() before step().")
        # griddly takes actions out of range silently as no-ops: refuse them
        if self._parts == 1:
            value = int(action) if np.ndim(action) == 0 else int(np.asarray(action).reshape(1)[0])
            if not 0 <= value < self._high[0]:
                raise APIUsageError(f"action {action!r} is outside this game's action space {self.action_space}.")
            self._action[0, 0] = value
        else:
            row = np.asarray(action, np.int64).reshape(self._parts)
            if not ((row >= 0).all() and (row < self._high).all()):
                raise APIUsageError(f"action {action!r} is outside this game's action space {self.action_space}.")
            self._action[0] = row
        reward, done, info = self._player.step_multi(self._action, True)
        self._steps += 1
        obs = self._observe()
        truncated = not done and self._steps >= self.max_steps
        if not (done or truncated):
            return obs, float(reward), False, False, {}
        self._ended = True
        won = done and info.get("PlayerResults", {}).get("1") == "Win"
        return obs, float(reward), bool(done), truncated, {"win": float(won)}

    def render(self) -> np.ndarray | None:
        """With render_mode="rgb_array": (height*TILE, width*TILE, 3) uint8, one colour per object type."""
        return None if self.render_mode is None else vector_picture(self._obs)

    def close(self) -> None:
        game, self._game = getattr(self, "_game", None), None
        if game is not None:
            game.release()


def make(game: str = "sokoban", level: int = 0, max_steps: int = 500, observer: str = "vector",
         render_mode: str | None = None) -> GriddlyEnv:
    """Creator of the `griddly-*` ids (see `GriddlyEnv`)."""
    return GriddlyEnv(game=game, level=level, max_steps=max_steps, observer=observer, render_mode=render_mode)
