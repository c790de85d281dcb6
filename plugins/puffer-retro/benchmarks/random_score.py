"""Uniformly random play of a retro id with the shipped env settings: the score a learner is compared with.

    python random_score.py [--episodes 20] [--seed 0]

Plays `retro-airstriker-genesis` (frame skip 4, sticky actions 0.25, the 18 pad actions) with
uniformly random actions, episode after episode (reset seeds seed, seed+1, ...), and prints the
mean and a 95% interval (1.96 standard errors) of the episode score (the game's points) and length.
"""

from __future__ import annotations

import argparse

import numpy as np

from puffer_retro.env import make
from puffer_retro.specs import DEFAULTS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = make(**DEFAULTS)
    rng = np.random.default_rng(args.seed)
    scores, lengths = [], []
    for episode in range(args.episodes):
        env.reset(seed=args.seed + episode)
        steps, done = 0, False
        while not done:
            _, _, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
            steps += 1
            done = terminated or truncated
        scores.append(info["score"])
        lengths.append(steps)
    env.close()
    for name, values in (("score", np.array(scores)), ("steps", np.array(lengths))):
        half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
        print(f"{name}: {values.mean():.1f} +- {half:.1f} over {len(values)} episodes")


if __name__ == "__main__":
    main()
