"""What the Ocean anchor scripts (*_baselines.py, *_anchors.py) share: a trained checkpoint as a
player, and a figure over seeds printed as median [min, max]."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

import numpy as np

#: A player: (observations, rng) -> int32 actions, one row per agent.
Chooser = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def checkpoint_player(path: str, env_id: str, sampled: bool = False) -> Chooser:
    """The policy of a checkpoint (or run folder) of `env_id`: its most likely actions, or sampled
    ones with `sampled`; (n,) actions for a Discrete space, (n, k) for MultiDiscrete, and (n, k)
    floats for a Box (`Agent.act` clips them to the space's bounds)."""
    import gymnasium

    import pufferlib

    agent = pufferlib.load(path, env=env_id)
    space = agent.spaces.single_action_space

    def choose(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        actions = np.asarray(agent.act(obs, deterministic=not sampled)[0])
        if isinstance(space, gymnasium.spaces.Box):
            return actions.astype(np.float32)
        actions = actions.astype(np.int32).reshape(len(obs), -1)
        return actions[:, 0] if actions.shape[1] == 1 else actions
    return choose


def checkpoint_name(index: int, sampled: bool) -> str:
    """A checkpoint row's name: 'checkpoint 2 (greedy)'."""
    return f"checkpoint {index} ({'sampled' if sampled else 'greedy'})"


def spread(values: Sequence[float], fmt: str = ".3g") -> str:
    """'median [min, max]' of one figure over seeds."""
    return f"{statistics.median(values):{fmt}} [{min(values):{fmt}}, {max(values):{fmt}}]"
