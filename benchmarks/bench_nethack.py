"""NetHack (nethack-score): PufferLib's vectorization vs Gymnasium's AsyncVectorEnv.

Both step the same NLE env with the same observation keys (puffer_nethack's creator):

- gymnasium AsyncVectorEnv: one process per env (its only layout), shared memory.
- pufferlib multiprocessing with the same number of worker processes.
- pufferlib multiprocessing with one worker per core.

Rounds alternate so that every contender sees the same machine load; ratios are
against AsyncVectorEnv from one run. Target: >= 1.5x.

    python benchmarks/bench_nethack.py [--task score] [--num-envs 8] [--seconds 6]
"""

from __future__ import annotations

import argparse
import os
from functools import partial

import gymnasium as gym
import numpy as np
from timing import race, report

import pufferlib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="score")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    from puffer_nethack.env import make

    n, cores = args.num_envs, os.cpu_count() or 1
    env_id = f"nethack-{args.task}"
    creator = partial(make, args.task)
    actions = np.random.default_rng(0).integers(0, creator().action_space.n, (1000, n))
    contenders = {
        f"gymnasium AsyncVectorEnv ({n} processes)": gym.vector.AsyncVectorEnv([creator] * n),
        f"pufferlib multiprocessing ({n} workers)": pufferlib.make(env_id, num_envs=n, num_workers=n),
        f"pufferlib multiprocessing ({cores} workers)": pufferlib.make(env_id, num_envs=n, num_workers=cores),
    }
    sps = race(contenders, actions, args.seconds)
    report(f"{env_id}, {n} envs, {cores} cores, agent steps/s", sps, ">= 1.5x AsyncVectorEnv")

if __name__ == "__main__":
    main()
