"""ocean-impulse_wars anchors: games between its built-in drones and uniformly random actions.

Plays `--games` two-drone games per pairing (opponent "none", the built-in players in the seats
through the `players` input; the seats swap in half of the copies) and prints, for the first
player named, its wins, draws, losses and truncated games, and its win rate among the decided games
and among all games (the trained policy's figures come from `puffer eval ... --opponent NAME`).

    python benchmarks/impulse_wars_anchors.py [--games 2000] [--seed 1]
"""

from __future__ import annotations

import argparse

import numpy as np

from puffer_ocean import envs

NAMES = {"scripted": 1, "random": 2}


def play(first: str, second: str, games: int, seed: int, copies: int = 256) -> dict[str, int]:
    """Play `games` games of built-in player `first` against `second`; counts for `first`."""
    env = envs.ImpulseWars(num_envs=copies, opponent="none", log_interval=10**9)
    counts = {"won": 0, "drawn": 0, "lost": 0, "truncated": 0}
    try:
        seats = np.zeros((copies, 2), np.int8)
        seats[: copies // 2] = NAMES[first], NAMES[second]
        seats[copies // 2 :] = NAMES[second], NAMES[first]
        env.players[:] = seats.reshape(-1)
        env.reset(seed=seed)
        first_row = np.r_[np.zeros(copies // 2, int), np.ones(copies - copies // 2, int)] + 2 * np.arange(copies)
        actions = np.zeros((2 * copies, 2), np.int32)
        while sum(counts.values()) < games:
            _, _, term, trunc, _ = env.step(actions)
            for row in first_row[(term | trunc)[first_row]]:
                outcome = env.outcomes[row]
                key = "truncated" if np.isnan(outcome) else {1.0: "won", 0.5: "drawn", 0.0: "lost"}[float(outcome)]
                counts[key] += 1
    finally:
        env.close()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for first, second in (
        ("random", "scripted"),
        ("random", "random"),
        ("scripted", "scripted"),
        ("scripted", "random"),
    ):
        c = play(first, second, args.games, args.seed)
        decided = c["won"] + c["lost"]
        total = sum(c.values())
        print(
            f"{first:>8} vs {second:<8} won {c['won']:5d} drawn {c['drawn']:4d} lost {c['lost']:5d} "
            f"truncated {c['truncated']:5d}  win rate of decided {c['won'] / max(decided, 1):.3f}  "
            f"of all {c['won'] / total:.3f}"
        )


if __name__ == "__main__":
    main()
