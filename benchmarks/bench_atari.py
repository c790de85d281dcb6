"""Atari (Breakout): PufferLib's vectorization vs Gymnasium's AsyncVectorEnv.

Every contender steps the same env with the same preprocessing (puffer_atari's
AtariEnv: frame skip 4 with max-pooling, sticky actions, 84x84x4 grayscale stack):

- gymnasium AsyncVectorEnv: one process per env (its only layout), shared memory.
- pufferlib multiprocessing with the same number of worker processes.
- pufferlib multiprocessing with one worker per core.
- pufferlib native: ale-py's C++ vector env (threads), the default of `atari-<game>`.
- bare loop: the same envs stepped in one process with no vectorizer, for reference:
  the emulator's own cost, which bounds every vectorizer at (cores x this rate).

Rounds alternate so that every contender sees the same machine load; ratios are
against AsyncVectorEnv from one run. Target: >= 1.5x.

    python benchmarks/bench_atari.py [--game breakout] [--num-envs 8] [--seconds 6]
"""

from __future__ import annotations

import argparse
import os
from functools import partial
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
from timing import race, report

import pufferlib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="breakout")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    from puffer_atari.env import AtariEnv

    n, cores = args.num_envs, os.cpu_count() or 1
    env_id = "atari-" + args.game.replace("_", "-")
    creator = partial(AtariEnv, args.game)
    actions = np.random.default_rng(0).integers(0, creator().action_space.n, (1000, n))
    contenders = {
        f"gymnasium AsyncVectorEnv ({n} processes)": gym.vector.AsyncVectorEnv([creator] * n),
        f"pufferlib multiprocessing ({n} workers)": pufferlib.make(env_id, num_envs=n, num_workers=n,
                                                                   backend="multiprocessing"),
        f"pufferlib multiprocessing ({cores} workers)": pufferlib.make(env_id, num_envs=n, num_workers=cores,
                                                                       backend="multiprocessing"),
        "pufferlib native (ale-py C++ threads)": pufferlib.make(env_id, num_envs=n),
    }
    bare = [creator() for _ in range(n)]

    def bare_step(batch: np.ndarray) -> None:
        for env, action in zip(bare, batch):
            if any(env.step(int(action))[2:4]):
                env.reset()

    contenders["bare AtariEnv.step loop (1 process)"] = SimpleNamespace(step=bare_step, close=lambda: None,
                                                                        reset=lambda seed: None)
    for i, env in enumerate(bare):
        env.reset(seed=i)
    try:
        sps = race(contenders, actions, args.seconds)
    finally:
        for env in bare:
            env.close()
    report(f"{env_id}, {n} envs, {cores} cores, agent steps/s (x4 frames)", sps, ">= 1.5x AsyncVectorEnv")

if __name__ == "__main__":
    main()
