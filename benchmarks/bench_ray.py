"""The Ray backend on one local node: against multiprocessing, and scaling with actors.

1. CartPole, the same layout (num_envs, num_workers) for both backends. Ray's actors on the
   driver's node share memory with it (transport 'shared_memory', the default there): a
   step is a flag in shared memory, as in multiprocessing. With transport 'object_store'
   (what actors on other nodes use) it is a remote call per actor and a copy of its block.
   Target: Ray >= 0.5x multiprocessing.
2. An env whose step waits 1 ms (a sleep, standing in for a game server), 8 envs in 1 actor
   against 8 actors of 1 env: the actors wait in parallel. Target: 8 actors >= 6x 1 actor.
   The multiprocessing backend with 8 workers shows what 8 processes reach on this machine.

Rounds alternate so that every contender sees the same machine load; ratios are from one
run. The local Ray instance is confined to 127.0.0.1 (pufferlib.vector.ray.connect).

    python benchmarks/bench_ray.py [--num-envs 64] [--num-workers 2] [--seconds 6]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
from timing import race, report

import pufferlib
import pufferlib.registry
import pufferlib.vector
from pufferlib.vector.ray import connect


class WaitingEnv(gym.Env):
    """Each step sleeps `wait_s`: an env whose time goes to waiting on something else."""

    observation_space = gym.spaces.Box(-1, 1, (4,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, wait_s: float = 0.001):
        self.wait_s = wait_s

    def reset(self, seed=None, options=None):
        return np.zeros(4, np.float32), {}

    def step(self, action):
        time.sleep(self.wait_s)
        return np.zeros(4, np.float32), 0.0, False, False, {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    n, w = args.num_envs, args.num_workers
    connect(num_cpus=16)  # logical CPUs: the 1 + 8 actors of the second race fit

    actions = np.random.default_rng(0).integers(0, 2, (1000, n))
    cartpole = pufferlib.registry.spec("gym-CartPole-v1")

    def ray_cartpole(transport: str) -> pufferlib.vector.Backend:
        return pufferlib.vector.make(cartpole.load_creator(), env_kwargs=cartpole.kwargs, backend="ray",
                                     num_envs=n, num_workers=w, transport=transport)

    sps = race({
        f"multiprocessing ({n} envs, {w} workers)": pufferlib.make("gym-CartPole-v1", num_envs=n, num_workers=w,
                                                                   backend="multiprocessing"),
        f"ray ({n} envs, {w} actors), shared memory": ray_cartpole("shared_memory"),
        f"ray ({n} envs, {w} actors), object store": ray_cartpole("object_store"),
    }, actions, args.seconds)
    report("gym-CartPole-v1, one local Ray node, agent steps/s", sps, "ray >= 0.5x multiprocessing")

    actions = np.zeros((10, 8), np.int64)
    for transport in ("shared_memory", "object_store"):
        sps = race({
            f"ray, 8 envs in 1 actor, {transport}": pufferlib.vector.make(
                WaitingEnv, backend="ray", num_envs=8, num_workers=1, transport=transport),
            f"ray, 8 envs in 8 actors, {transport}": pufferlib.vector.make(
                WaitingEnv, backend="ray", num_envs=8, num_workers=8, transport=transport),
            # what 8 processes waiting in parallel reach on this machine, without Ray
            "multiprocessing, 8 envs in 8 workers": pufferlib.vector.make(
                WaitingEnv, backend="multiprocessing", num_envs=8, num_workers=8),
        }, actions, args.seconds)
        report("env step = 1 ms sleep, agent steps/s", sps, "8 actors >= 6x 1 actor")


if __name__ == "__main__":
    main()
