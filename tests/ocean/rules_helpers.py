"""Helpers shared by the Ocean rules tests (`tests/ocean/test_rules_*.py`)."""

import numpy as np


def make(cls, **kwargs):
    env = cls(num_envs=1, **kwargs)
    env.reset(seed=0)
    return env


def random_legal(env, obs, rng):
    """One uniformly random action per row, among the legal ones where the game's observation leads
    with them (`legal_actions`; a row without a legal action gets 0)."""
    n = env.single_action_space.n
    if not env.legal_actions:
        return rng.integers(0, n, (env.num_agents, 1))
    legal = np.asarray(obs)[:, :n] > 0
    return (rng.random(legal.shape) * legal).argmax(1)[:, None]
