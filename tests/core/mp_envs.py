"""Environments for the multiprocessing vectorizer tests (module level, so spawn can pickle them)."""

from __future__ import annotations

import multiprocessing
import os
import time

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

import pufferlib


def cartpole() -> gym.Env:
    return gym.make("CartPole-v1")


class NestedEnv(gym.Env):
    """Seeded random nested observations (Dict of Box, Discrete and Tuple); random episode lengths."""

    def __init__(self):
        self.observation_space = spaces.Dict({
            "pos": spaces.Box(-1, 1, (3,), np.float32),
            "cell": spaces.Discrete(9),
            "pair": spaces.Tuple((spaces.MultiDiscrete([4, 5]), spaces.Box(0, 1, (2, 2), np.float32))),
        })
        self.action_space = spaces.Discrete(4)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.length = int(self.np_random.integers(5, 40))
        self.t = 0
        return self._obs(), {}

    def _obs(self):
        r = self.np_random
        return {"pos": r.uniform(-1, 1, 3).astype(np.float32), "cell": int(r.integers(9)),
                "pair": (r.integers([4, 5]), r.uniform(0, 1, (2, 2)).astype(np.float32))}

    def step(self, action):
        self.t += 1
        reward = float(action) * float(self.np_random.uniform())
        return self._obs(), reward, self.t >= self.length, False, {"t": self.t} if self.t % 7 == 0 else {}


class Squad(ParallelEnv):
    """Three agents with seeded random observations; agents leave at random steps."""

    metadata = {"name": "squad"}

    def __init__(self):
        self.possible_agents = ["a", "b", "c"]

    def observation_space(self, agent):
        return spaces.Box(-5, 5, (4,), np.float32)

    def action_space(self, agent):
        return spaces.Discrete(3)

    def reset(self, seed=None, options=None):
        if seed is not None or not hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)
        self.agents = list(self.possible_agents)
        return {a: self._obs() for a in self.agents}, {a: {} for a in self.agents}

    def _obs(self):
        return self.rng.uniform(-5, 5, 4).astype(np.float32)

    def step(self, actions):
        obs = {a: self._obs() for a in self.agents}
        rewards = {a: float(actions[a]) + float(self.rng.uniform()) for a in self.agents}
        terms = {a: bool(self.rng.uniform() < 0.05) for a in self.agents}
        truncs = {a: False for a in self.agents}
        infos = {a: {} for a in self.agents}
        self.agents = [a for a in self.agents if not terms[a]]
        return obs, rewards, terms, truncs, infos


class Tagged(pufferlib.PufferEnv):
    """Native multi-agent env whose rows say who they are.

    Observation row = (env tag, agent index, steps taken, last action). `delays` (seconds)
    makes steps slow; the delay is drawn per step from `delays` with a seeded RNG.
    `fail_at` raises ValueError on that step; `exit_at` ends the process abruptly;
    `hang_at` never returns from that step (`spin`: busy, at 100% CPU; else asleep);
    `hang_in_worker` never returns from `__init__` in a worker process.
    """

    def __init__(self, tag: int = 0, num_agents: int = 2, delays: tuple = (0.0,), fail_at: int = -1,
                 exit_at: int = -1, hang_at: int = -1, spin: bool = False, hang_in_worker: bool = False,
                 buf=None):
        if hang_in_worker and multiprocessing.parent_process() is not None:
            _hang(spin)
        self.hang_at, self.spin = hang_at, spin
        self.single_observation_space = spaces.Box(-1, 1e9, (4,), np.float64)
        self.single_action_space = spaces.Discrete(1000)
        self.num_agents = num_agents
        super().__init__(buf)
        self.tag, self.delays, self.fail_at, self.exit_at = tag, delays, fail_at, exit_at
        self.rng = np.random.default_rng(tag)
        self.t = 0

    def reset(self, seed=None):
        self.t = 0
        self.observations[:] = [[self.tag, i, 0, -1] for i in range(self.num_agents)]
        return self.observations, [{"reset": self.tag}]

    def step(self, actions):
        self.t += 1
        if self.t == self.fail_at:
            raise ValueError(f"Tagged env {self.tag} fails at step {self.t}")
        if self.t == self.exit_at:
            os._exit(3)
        if self.t == self.hang_at:
            _hang(self.spin)
        delay = self.delays[int(self.rng.integers(len(self.delays)))]
        if delay:
            time.sleep(delay)
        self.observations[:, 2] = self.t
        self.observations[:, 3] = actions.reshape(-1)
        self.rewards[:] = self.tag
        self.terminals[:] = False
        return self.observations, self.rewards, self.terminals, self.truncations, []


def _hang(spin: bool) -> None:
    while True:
        if not spin:
            time.sleep(0.05)


def tagged_creators(num_envs: int, **kwargs) -> tuple[list, list, list]:
    """(creators, args, kwargs) lists for `pufferlib.vector.make`: env i gets tag i."""
    return [Tagged] * num_envs, [()] * num_envs, [dict(tag=i, **kwargs) for i in range(num_envs)]
