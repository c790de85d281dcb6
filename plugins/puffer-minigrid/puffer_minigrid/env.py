"""MiniGridEnv: a MiniGrid/BabyAI env whose observation PufferLib can flatten.

MiniGrid observes `{"image": (7, 7, 3) uint8, "direction": Discrete(4), "mission": text}`.
The text is turned into tokens here: the mission's UTF-8 bytes (one token per byte,
0 = padding) in a fixed-length uint8 array, so that nothing is lost and every leaf is
uint8. With `mission=False` the mission is dropped (for envs whose mission never
changes). Everything else (rewards, step limits, rendering) is minigrid's own.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from pufferlib.errors import APIUsageError


def encode_mission(text: str, length: int) -> np.ndarray:
    """`text` as `length` uint8 tokens: its UTF-8 bytes, zero-padded."""
    data = text.encode("utf-8")
    if len(data) > length:
        raise APIUsageError(f"The mission {text!r} has {len(data)} bytes, more than mission_length={length}; "
                            "pass a larger mission_length.")
    out = np.zeros(length, np.uint8)
    out[:len(data)] = np.frombuffer(data, np.uint8)
    return out


def decode_mission(tokens: np.ndarray) -> str:
    """The mission text of `encode_mission` tokens."""
    return bytes(np.asarray(tokens, np.uint8)).rstrip(b"\0").decode("utf-8")


class MiniGridEnv(gymnasium.ObservationWrapper):
    """Wraps `env` (a minigrid env): observation `Dict(image, direction, [mission])`, all uint8.

    `mission`: keep the mission as tokens (True) or drop it (False).
    `mission_length`: tokens per mission (bytes of UTF-8); longer missions raise an error.
    """

    def __init__(self, env: gymnasium.Env, mission: bool = True, mission_length: int = 128):
        super().__init__(env)
        image = env.observation_space["image"]
        if isinstance(mission_length, bool) or not isinstance(mission_length, int) or mission_length < 1:
            raise APIUsageError(f"mission_length must be an int >= 1, got {mission_length!r}.")
        self.mission, self.mission_length = bool(mission), mission_length
        leaves = {"image": spaces.Box(0, 255, image.shape, np.uint8),
                  "direction": spaces.Box(0, 3, (1,), np.uint8)}
        if self.mission:
            leaves["mission"] = spaces.Box(0, 255, (mission_length,), np.uint8)
        self.observation_space = spaces.Dict(leaves)

    def observation(self, observation: dict) -> dict:
        out = {"image": observation["image"], "direction": np.array([observation["direction"]], np.uint8)}
        if self.mission:
            out["mission"] = encode_mission(observation["mission"], self.mission_length)
        return out


def make(env_name: str, mission: bool = True, mission_length: int = 128, render_mode: str | None = None,
         **kwargs: Any) -> MiniGridEnv:
    """Creator of the `minigrid-`/`babyai-` ids: `gymnasium.make(env_name, **kwargs)`, wrapped.

    `kwargs` go to the minigrid env (e.g. `max_steps`, `agent_view_size`).
    """
    import minigrid  # noqa: F401 - registers the MiniGrid/BabyAI ids with Gymnasium

    if render_mode not in (None, "rgb_array"):
        raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
    env = gymnasium.make(env_name, render_mode=render_mode, **kwargs)
    return MiniGridEnv(env, mission=mission, mission_length=mission_length)
