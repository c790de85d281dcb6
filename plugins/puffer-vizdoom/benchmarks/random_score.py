"""The score of random play: uniform random buttons until N episodes have ended.

    python random_score.py [--env vizdoom-basic] [--episodes 200] [--num-envs 8] [--seed 0]

Pools the first N episodes in the order they ended and prints the mean score (the game's own
episode reward, as the infos' `score`), kills and length, each with a 95% interval (normal
approximation), the agent steps and the seconds taken. The trainer's `score` log is the same
quantity over the episodes that ended in a log step.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pufferlib


def interval(values: list[float]) -> str:
    """`mean +- half-width of a 95% interval` of the values."""
    x = np.asarray(values, np.float64)
    return f"{x.mean():.2f} +- {1.96 * x.std(ddof=1) / np.sqrt(len(x)):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="vizdoom-basic")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = pufferlib.make(args.env, num_envs=args.num_envs, backend="serial", seed=args.seed)
    rng = np.random.default_rng(args.seed)
    ended: list[dict] = []
    steps, start = 0, time.perf_counter()
    env.reset(seed=args.seed)
    while len(ended) < args.episodes:
        infos = env.step(rng.integers(0, env.single_action_space.n, args.num_envs))[4]
        steps += args.num_envs
        ended += [i for i in infos if "score" in i]
    env.close()
    ended = ended[:args.episodes]
    print(f"{args.env}: {len(ended)} episodes of random play: score {interval([i['score'] for i in ended])}, "
          f"kills {interval([i['kills'] for i in ended])}, length {interval([i['episode_length'] for i in ended])} "
          f"steps; {steps} agent steps in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
