"""Random play against a built-in bot: win, tie and loss rates and the shaped return of finished games.

    python benchmarks/random_play.py [--opponent randombiased] [--map 16x16/basesWorkers16x16]
                                     [--games 24] [--episodes 24] [--seed 0]

Each cell's action components are drawn uniformly among their legal choices (the mask). The
games start together; the first `--episodes` games that finish are counted (each game slot
counts its games in the order they started, as `puffer eval` does).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from step_speed import CELL_NVEC, legal_actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opponent", default="randombiased")
    parser.add_argument("--map", default="16x16/basesWorkers16x16")
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--episodes", type=int, default=24)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from puffer_microrts.env import MicroRTSEnv

    env = MicroRTSEnv(opponent=args.opponent, map=args.map, num_games=args.games)
    leaf = next(leaf for leaf in env.obs_layout.leaves if leaf.path == ("action_mask",))
    rng = np.random.default_rng(args.seed)
    per_slot: list[list[dict]] = [[] for _ in range(args.games)]
    start, steps = time.perf_counter(), 0
    try:
        obs, _ = env.reset(seed=args.seed)
        while min(map(len, per_slot)) < -(-args.episodes // args.games):  # every slot: its share of games
            mask = obs[:, leaf.offset:leaf.offset + leaf.length].reshape(args.games, -1, sum(CELL_NVEC))
            obs, _, terms, truncs, infos = env.step(legal_actions(mask, rng))
            steps += args.games
            for slot, info in zip(np.flatnonzero(terms | truncs), infos):
                per_slot[slot].append(info)
    finally:
        env.close()
    rounds = [info for k in range(max(map(len, per_slot))) for s in per_slot if len(s) > k for info in [s[k]]]
    counted = rounds[: args.episodes]
    mean = {key: float(np.mean([i[key] for i in counted])) for key in counted[0]}
    print(f"random play vs {args.opponent} on {args.map}: {len(counted)} games, {steps:,} agent steps, "
          f"{time.perf_counter() - start:.0f} s")
    print("  " + ", ".join(f"{k} {v:.3g}" for k, v in mean.items()))


if __name__ == "__main__":
    main()
