"""Random play on a griddly-* id: uniform random actions until N episodes have ended.

    python random_score.py [--env griddly-spiders] [--episodes 1000] [--num-envs 16] [--seed 0] [--level 0]

Pools the first N ended episodes (in the order they ended) and prints their mean return (with a
95% normal interval), win
rate (griddly's "Win" for the player; truncated episodes count as not won), mean length, and
the agent steps and seconds taken.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pufferlib


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="griddly-spiders")
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", type=int, default=0)
    args = parser.parse_args()
    env = pufferlib.make(args.env, num_envs=args.num_envs, seed=args.seed, level=args.level)
    rng = np.random.default_rng(args.seed)
    space = env.single_action_space
    high = np.atleast_1d(getattr(space, "nvec", getattr(space, "n", None)))
    ended: list[dict] = []
    steps, start = 0, time.perf_counter()
    env.reset(seed=args.seed)
    while len(ended) < args.episodes:
        actions = rng.integers(0, high, (args.num_envs, len(high))).reshape(args.num_envs, *space.shape)
        infos = env.step(actions)[4]
        steps += args.num_envs
        ended += [i for i in infos if "win" in i]
    env.close()
    ended = ended[:args.episodes]
    returns = np.array([i["episode_return"] for i in ended])
    half = 1.96 * returns.std(ddof=1) / np.sqrt(len(returns)) if len(returns) > 1 else float("nan")
    print(f"{args.env} level {args.level}: {len(ended)} episodes of random play, "
          f"return {returns.mean():.3f} +- {half:.3f} (95% normal interval), "
          f"win rate {np.mean([i['win'] for i in ended]):.3f}, "
          f"length {np.mean([i['episode_length'] for i in ended]):.1f}; "
          f"{steps} agent steps in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
