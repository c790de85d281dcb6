"""Random play on a minihack id: success rate, return and length of uniform random actions.

    python random_score.py [--env minihack-room-5x5] [--episodes-per-env 25] [--num-envs 8] [--seed 0]

Each env copy plays until it has ended `--episodes-per-env` episodes; only those first
episodes of each copy are pooled, so that short episodes are not favoured.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pufferlib


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="minihack-room-5x5")
    parser.add_argument("--episodes-per-env", type=int, default=25)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = pufferlib.make(args.env, num_envs=args.num_envs, backend="serial", seed=args.seed)
    rng = np.random.default_rng(args.seed)
    ended: list[list[dict]] = [[] for _ in range(args.num_envs)]
    steps, start = 0, time.perf_counter()
    env.reset(seed=args.seed)
    while min(len(e) for e in ended) < args.episodes_per_env:
        _, _, terminals, truncations, infos = env.step(rng.integers(0, env.single_action_space.n, args.num_envs))
        steps += args.num_envs
        # the infos are those of the episodes that ended, in the order of their rows
        rows = np.flatnonzero(terminals | truncations)
        for row, info in zip(rows, [i for i in infos if "success" in i], strict=True):
            ended[row].append(info)
    env.close()
    pooled = [info for row in ended for info in row[:args.episodes_per_env]]
    print(f"{args.env}: {len(pooled)} episodes of random play, success {np.mean([i['success'] for i in pooled]):.3f}, "
          f"return {np.mean([i['episode_return'] for i in pooled]):.3f}, "
          f"length {np.mean([i['episode_length'] for i in pooled]):.1f}; "
          f"{steps} agent steps in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
