"""Small environments used by the core tests."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

import pufferlib


class CountingEnv(gym.Env):
    """Observation = step count (with a nested dict); ends after `length` steps."""

    def __init__(self, length: int = 5, nested: bool = False):
        self.length = length
        self.nested = nested
        if nested:
            self.observation_space = spaces.Dict({
                "count": spaces.Box(0, 100, (1,), np.float32),
                "extra": spaces.Tuple((spaces.Discrete(7), spaces.MultiBinary(3))),
            })
        else:
            self.observation_space = spaces.Box(0, 100, (1,), np.float32)
        self.action_space = spaces.Discrete(3)
        self.t = 0

    def _obs(self):
        count = np.array([self.t], np.float32)
        if not self.nested:
            return count
        return {"count": count, "extra": (self.t % 7, np.array([1, 0, self.t % 2], np.int8))}

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = int(self.np_random.integers(0, 3)) if seed is not None else 0
        return self._obs(), {"reset": True}

    def step(self, action):
        self.t += 1
        done = self.t >= self.length
        return self._obs(), float(action), done, False, {"t": self.t}


class ComeAndGo(ParallelEnv):
    """Two agents; 'b' arrives at step 1 and 'a' leaves at step 2; the episode ends at step 3."""

    metadata = {"name": "come_and_go"}

    def __init__(self):
        self.possible_agents = ["a", "b"]

    def observation_space(self, agent):
        return spaces.Box(-10, 10, (2,), np.float32)

    def action_space(self, agent):
        return spaces.Discrete(4)

    def reset(self, seed=None, options=None):
        self.t = 0
        self.agents = ["a"]
        return {"a": np.array([1, 0], np.float32)}, {"a": {}}

    def step(self, actions):
        self.t += 1
        if self.t == 1:
            self.agents = ["a", "b"]
        obs = {a: np.array([self.t, i], np.float32) for i, a in enumerate(self.agents)}
        rewards = {a: float(actions.get(a, 0)) for a in self.agents}
        terms = {a: (a == "a" and self.t == 2) or self.t == 3 for a in self.agents}
        truncs = {a: False for a in self.agents}
        infos = {a: {} for a in self.agents}
        self.agents = [a for a in self.agents if not terms[a]]
        return obs, rewards, terms, truncs, infos


class NativeEnv(pufferlib.PufferEnv):
    """A native multi-agent PufferEnv: observation = agent index + step, reward = action."""

    def __init__(self, num_agents: int = 3, buf=None):
        self.single_observation_space = spaces.Box(0, 1e6, (2,), np.float32)
        self.single_action_space = spaces.Discrete(5)
        self.num_agents = num_agents
        super().__init__(buf)
        self.t = 0

    def reset(self, seed=None):
        self.t = 0 if seed is None else seed
        self.observations[:, 0] = np.arange(self.num_agents)
        self.observations[:, 1] = self.t
        return self.observations, []

    def step(self, actions):
        self.t += 1
        self.observations[:, 1] = self.t
        self.rewards[:] = actions.reshape(-1)
        self.terminals[:] = False
        return self.observations, self.rewards, self.terminals, self.truncations, []
