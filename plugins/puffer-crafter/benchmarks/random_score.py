"""The Crafter score of random play: uniform random actions until N episodes have ended.

    python random_score.py [--env crafter-reward] [--episodes 64] [--num-envs 8] [--num-workers 2] [--seed 0]

Pools every ended episode (the first N in the order they ended) and prints the success rate
of each achievement, the Crafter score over them (`puffer_crafter.env.crafter_score`), the mean
return and length, the agent steps and the seconds taken.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pufferlib
from puffer_crafter.env import ACHIEVEMENTS, crafter_score


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="crafter-reward")
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = pufferlib.make(args.env, num_envs=args.num_envs, num_workers=args.num_workers, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    ended: list[dict] = []
    steps, start = 0, time.perf_counter()
    env.reset(seed=args.seed)
    while len(ended) < args.episodes:
        infos = env.step(rng.integers(0, env.single_action_space.n, args.num_envs))[4]
        steps += args.num_envs
        ended += [i for i in infos if "achievements" in i]
    env.close()
    ended = ended[:args.episodes]
    rates = {name: 100 * float(np.mean([i[f"achievement_{name}"] for i in ended])) for name in ACHIEVEMENTS}
    print(" ".join(f"{name} {rate:.1f}" for name, rate in rates.items() if rate > 0))
    print(f"{args.env}: {len(ended)} episodes of random play, Crafter score {crafter_score(rates.values()):.2f}%, "
          f"return {np.mean([i['episode_return'] for i in ended]):.2f}, "
          f"length {np.mean([i['episode_length'] for i in ended]):.0f}; "
          f"{steps} agent steps in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
