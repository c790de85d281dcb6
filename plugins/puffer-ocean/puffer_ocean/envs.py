"""One PufferEnv class per Ocean environment (the creators named by the specs).

Each class only names its C environment; the behaviour lives in csrc/envs/<name>.h.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from pufferlib.errors import APIUsageError
from pufferlib.spaces import ObsLayout
from puffer_ocean.env import OceanEnv


class Squared(OceanEnv):
    """Walk to a target on the border of a grid (observation: the whole grid)."""

    env_name = "squared"


class Bandit(OceanEnv):
    """Pick the one paying arm; one-step episodes, constant observation."""

    env_name = "bandit"


class Memory(OceanEnv):
    """Recall bits shown earlier in the episode (needs an LSTM)."""

    env_name = "memory"


class Password(OceanEnv):
    """Type a fixed binary password; reward only for a fully correct episode."""

    env_name = "password"


class Stochastic(OceanEnv):
    """Pick action 0 with a target probability: only a stochastic policy scores well."""

    env_name = "stochastic"


class Multiagent(OceanEnv):
    """Two agents per copy, each rewarded for a different action."""

    env_name = "multiagent"


class Continuous(OceanEnv):
    """Output the target values shown in the observation (Box actions)."""

    env_name = "continuous"


class Cartpole(OceanEnv):
    """Gymnasium CartPole-v1 physics; `continuous=1` for a Box action in [-1, 1]."""

    env_name = "cartpole"


class Spaces(OceanEnv):
    """Dict observation {"flat": (5,), "image": (5, 5)} and MultiDiscrete([2, 2]) action.

    The observation is stored flat (30 floats); `obs_layout` gives the Dict back (the
    policy sees it as a dict of tensors through `pufferlib.pytorch`).
    """

    env_name = "spaces"
    dict_space = spaces.Dict({
        "flat": spaces.Box(-1, 1, (5,), np.float32),
        "image": spaces.Box(-1, 1, (5, 5), np.float32),
    })

    def _observation_space(self, flat: spaces.Box) -> spaces.Box:
        layout = ObsLayout(self.dict_space)
        if layout.shape != flat.shape or layout.dtype != flat.dtype:
            raise APIUsageError(f"ocean-spaces: the C observation {flat} does not match its layout {layout.flat_space}.")
        self.obs_layout = layout
        return layout.flat_space


class Pong(OceanEnv):
    """Pong against a scripted opponent; first to `max_score` points."""

    env_name = "pong"


class Breakout(OceanEnv):
    """Breakout: 108 bricks, 5 balls; 118-float observation."""

    env_name = "breakout"


class Snake(OceanEnv):
    """Many snakes in one arena; each sees the 11 x 11 cells around its head."""

    env_name = "snake"


class Connect4(OceanEnv):
    """Connect four against a scripted opponent that wins and blocks when it can."""

    env_name = "connect4"


class Grid(OceanEnv):
    """Find the goal in a fresh procedural maze, seen through an 11 x 11 window."""

    env_name = "grid"
