"""Battle with both teams playing uniformly random actions: the tally a learner is compared with.

    python random_score.py [--episodes 30] [--max-cycles 200] [--map-size 45]

Plays `magent2-battle` with `opponent="random"` (the second team random) and the first team
random too, episode after episode (seeds 0, 1, ...), and prints the mean and a 95% interval
(1.96 standard errors) of `kills`, `deaths` and `win` per episode (see puffer_magent2.env).
"""

from __future__ import annotations

import argparse

import numpy as np

from puffer_magent2.env import MagentEnv


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--max-cycles", type=int, default=200)
    parser.add_argument("--map-size", type=int, default=45)
    args = parser.parse_args()
    env = MagentEnv("battle", opponent="random", max_cycles=args.max_cycles, map_size=args.map_size)
    rng = np.random.default_rng(12345)
    tallies = []
    for episode in range(args.episodes):
        env.reset(seed=episode)
        while env.agents:
            _, _, _, _, infos = env.step(dict(zip(env.agents, rng.integers(0, 21, len(env.agents)).tolist())))
        tallies.append(next(info for info in infos.values() if "win" in info))
    env.close()
    for key in ("kills", "deaths", "win"):
        values = np.array([t[key] for t in tallies])
        half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
        print(f"{key}: {values.mean():.3f} +- {half:.3f} over {len(values)} episodes (max_cycles {args.max_cycles})")


if __name__ == "__main__":
    main()
