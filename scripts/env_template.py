"""Environment templates to copy and adapt, and utilities to test them.

Worked single-file examples of the env patterns the user guide names. To start a new env
package (plugin entry point, policy, config, tests, C build), use `puffer new NAME`, the one
scaffold (`pufferlib.scaffold`).

    python scripts/env_template.py            # checks every template env, prints the reports

- `GridWorld`: a single-agent PufferEnv. The agent walks a size x size grid to a goal;
  observation: the grid as an image-like (size, size) uint8 array; Discrete(4) actions.
- `CoopNav`: a multi-agent PufferEnv (cooperative navigation): `num_agents` agents share
  one team reward for covering `num_agents` landmarks; vector observations per agent.
- `SpacesDemo`: a Gymnasium env with a choice of observation space (vector, image, dict)
  and action space (discrete, multidiscrete, continuous), for pufferlib.emulate to flatten.
- Testing utilities: `check(env)` (pufferlib.check_env: spaces, buffers, determinism,
  auto-reset, episode stats, rendering, speed) and `rollout(env)` (random actions; steps/s).

A PufferEnv sets its spaces and `num_agents`, calls `super().__init__(buf)`, then writes
into `self.observations`, `rewards`, `terminals`, `truncations` (and `masks`) in place;
it resets finished agents itself in `step`, reporting `episode_return`/`episode_length`.
"""

from __future__ import annotations

import sys
import time

import gymnasium
import numpy as np
from gymnasium import spaces

import pufferlib

MOVES = np.array([(0, 1), (0, -1), (-1, 0), (1, 0)])  # down, up, left, right as (dx, dy)


class GridWorld(pufferlib.PufferEnv):
    """Walk to the goal: reward 1 on reaching it (terminal), truncated after 4 * size steps."""

    metadata = {"render_modes": ["ansi", "rgb_array"]}
    writes_final_observations = True

    def __init__(self, size: int = 5, render_mode: str | None = None, buf=None):
        self.size, self.render_mode = size, render_mode
        self.single_observation_space = spaces.Box(0, 2, (size, size), np.uint8)  # 0 empty, 1 agent, 2 goal
        self.single_action_space = spaces.Discrete(4)
        self.num_agents = 1
        super().__init__(buf)
        self.rng = np.random.default_rng()
        self.agent = np.zeros(2, int)
        self.goal = np.zeros(2, int)
        self.tick = 0

    def _observe(self) -> None:
        grid = self.observations[0]
        grid[:] = 0
        grid[self.goal[1], self.goal[0]] = 2
        grid[self.agent[1], self.agent[0]] = 1

    def _new_episode(self) -> None:
        self.agent[:] = self.size // 2
        self.goal[:] = self.rng.integers(0, self.size, 2)
        while (self.goal == self.agent).all():
            self.goal[:] = self.rng.integers(0, self.size, 2)
        self.tick = 0
        self._observe()

    def reset(self, seed: int | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._new_episode()
        return self.observations, []

    def step(self, actions):
        self.agent = np.clip(self.agent + MOVES[int(np.asarray(actions).flat[0])], 0, self.size - 1)
        self.tick += 1
        hit = bool((self.agent == self.goal).all())
        self.rewards[0] = float(hit)
        self.terminals[0] = hit
        self.truncations[0] = not hit and self.tick >= 4 * self.size
        self._observe()
        infos = []
        if hit or self.truncations[0]:
            infos.append({"episode_return": float(hit), "episode_length": self.tick})
            self.final_observations[0] = self.observations[0]
            self._new_episode()
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def render(self):
        grid = self.observations[0]
        if self.render_mode == "ansi":
            return "\n".join("".join(".@*"[c] for c in row) for row in grid)
        if self.render_mode == "rgb_array":
            palette = np.array([(6, 24, 24), (0, 187, 187), (239, 239, 110)], np.uint8)
            return np.repeat(np.repeat(palette[grid], 16, axis=0), 16, axis=1)
        return None


class CoopNav(pufferlib.PufferEnv):
    """Cooperative navigation on a continuous plane with discrete moves.

    Each agent observes its position, the landmarks relative to it and the other agents
    relative to it (float32). Every step each agent gets the same team reward: minus the
    summed distance from each landmark to its nearest agent (scaled); truncated after
    `max_steps` steps.
    """

    metadata = {"render_modes": ["ansi"]}
    writes_final_observations = True

    def __init__(self, num_agents: int = 3, max_steps: int = 25, render_mode: str | None = None, buf=None):
        n = num_agents
        self.max_steps, self.render_mode = max_steps, render_mode
        self.single_observation_space = spaces.Box(-4, 4, (2 + 2 * n + 2 * (n - 1),), np.float32)
        self.single_action_space = spaces.Discrete(5)  # stay, down, up, left, right
        self.num_agents = n
        super().__init__(buf)
        self.rng = np.random.default_rng()
        self.pos = np.zeros((n, 2), np.float32)
        self.landmarks = np.zeros((n, 2), np.float32)
        self.tick, self.episode_return = 0, 0.0

    def _observe(self) -> None:
        n = self.num_agents
        for i in range(n):
            others = np.delete(self.pos, i, axis=0) - self.pos[i]
            self.observations[i] = np.concatenate([self.pos[i], (self.landmarks - self.pos[i]).ravel(),
                                                   others.ravel()])

    def _new_episode(self) -> None:
        self.pos[:] = self.rng.uniform(-1, 1, self.pos.shape)
        self.landmarks[:] = self.rng.uniform(-1, 1, self.landmarks.shape)
        self.tick, self.episode_return = 0, 0.0
        self._observe()

    def reset(self, seed: int | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._new_episode()
        return self.observations, []

    def step(self, actions):
        steps = np.vstack([np.zeros((1, 2)), MOVES]) * 0.1
        self.pos[:] = np.clip(self.pos + steps[np.asarray(actions).reshape(-1)], -1, 1)
        dists = np.linalg.norm(self.landmarks[:, None] - self.pos[None], axis=-1)  # (landmark, agent)
        reward = -float(dists.min(axis=1).sum()) / self.num_agents
        self.tick += 1
        self.episode_return += reward
        self.rewards[:] = reward
        self.terminals[:] = False
        self.truncations[:] = self.tick >= self.max_steps
        self._observe()
        infos = []
        if self.truncations[0]:
            infos.append({"episode_return": self.episode_return, "episode_length": self.tick})
            self.final_observations[:] = self.observations
            self._new_episode()
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def render(self):
        if self.render_mode != "ansi":
            return None
        return " ".join(f"agent{i}=({x:+.2f},{y:+.2f})" for i, (x, y) in enumerate(self.pos))


class SpacesDemo(gymnasium.Env):
    """A Gymnasium env with a chosen observation kind and action kind; reward for matching a target.

    obs_kind: 'vector' (Box float32 (4,)), 'image' (Box uint8 (8, 8, 3)) or 'dict'
    (Dict of a vector and a Discrete). act_kind: 'discrete' (Discrete(4)),
    'multidiscrete' (MultiDiscrete([4, 2])) or 'continuous' (Box [-1, 1] (2,)).
    `pufferlib.emulate` flattens any of them into PufferLib's flat arrays.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, obs_kind: str = "vector", act_kind: str = "discrete", render_mode: str | None = None):
        self.obs_kind, self.act_kind, self.render_mode = obs_kind, act_kind, render_mode
        self.observation_space = {
            "vector": spaces.Box(-1, 1, (4,), np.float32),
            "image": spaces.Box(0, 255, (8, 8, 3), np.uint8),
            "dict": spaces.Dict({"position": spaces.Box(-1, 1, (2,), np.float32), "target": spaces.Discrete(4)}),
        }[obs_kind]
        self.action_space = {
            "discrete": spaces.Discrete(4),
            "multidiscrete": spaces.MultiDiscrete([4, 2]),
            "continuous": spaces.Box(-1, 1, (2,), np.float32),
        }[act_kind]
        self.target, self.tick = 0, 0

    def _obs(self):
        if self.obs_kind == "vector":
            return np.eye(4, dtype=np.float32)[self.target]
        if self.obs_kind == "image":
            img = np.zeros((8, 8, 3), np.uint8)
            img[:, 2 * self.target:2 * self.target + 2] = 255
            return img
        return {"position": np.zeros(2, np.float32), "target": self.target}

    def reset(self, seed: int | None = None, options=None):
        super().reset(seed=seed)
        self.target, self.tick = int(self.np_random.integers(4)), 0
        return self._obs(), {}

    def step(self, action):
        if self.act_kind == "discrete":
            hit = int(action) == self.target
        elif self.act_kind == "multidiscrete":
            hit = int(action[0]) == self.target
        else:
            hit = abs(float(action[0]) - (self.target / 1.5 - 1)) < 0.25
        self.tick += 1
        self.target = int(self.np_random.integers(4))
        return self._obs(), float(hit), False, self.tick >= 16, {}

    def render(self):
        return f"target={self.target} tick={self.tick}" if self.render_mode == "ansi" else None


# ---- testing utilities -------------------------------------------------------------

def check(env, **kwargs) -> pufferlib.checker.Report:
    """pufferlib.check_env on an env class, creator, instance or id; prints and returns the report."""
    report = pufferlib.check_env(env, **kwargs)
    print(report)
    return report


def rollout(env_creator, num_envs: int = 4, steps: int = 1000, seed: int = 0) -> dict:
    """Random actions on a serial vector of `env_creator`: agent steps/s, episodes, mean return."""
    vec = pufferlib.emulate(env_creator, num_envs=num_envs, backend="serial", seed=seed)
    try:
        vec.reset(seed=seed)
        returns, start = [], time.perf_counter()
        for _ in range(steps):
            actions = np.stack([vec.single_action_space.sample() for _ in range(vec.num_agents)])
            *_, infos = vec.step(actions)
            returns += [i["episode_return"] for i in infos if "episode_return" in i]
        sps = steps * vec.num_agents / (time.perf_counter() - start)
    finally:
        vec.close()
    return {"sps": sps, "episodes": len(returns), "mean_return": float(np.mean(returns)) if returns else float("nan")}


TEMPLATES = {
    "GridWorld": GridWorld,
    "CoopNav": CoopNav,
    **{f"SpacesDemo[{o},{a}]": (lambda o=o, a=a, **kw: SpacesDemo(o, a, **kw))
       for o in ("vector", "image", "dict") for a in ("discrete", "multidiscrete", "continuous")},
}


def main(steps: int = 256) -> int:
    """Check every template; 1 if any check failed."""
    failed = []
    for name, creator in TEMPLATES.items():
        print(f"== {name}: {rollout(creator, steps=steps)}")
        if not check(creator, steps=steps).ok:
            failed.append(name)
    print("all templates pass" if not failed else f"FAILED: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
