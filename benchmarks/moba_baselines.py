"""ocean-moba's anchors: how team 0 fares against the scripted team when random play, the scripted
heroes or a trained checkpoint play its five heroes.

Each player plays one whole game (the env's `max_steps`, 1,500 steps by default, unless an ancient
falls first) in each of `--copies` env copies (opponent "scripted"), from each of `--seeds` seeds
(1, 2, ...). Per seed: the score (wins + draws / 2) / games, the games won, drawn and lost, and per
hero and game (the env's log over team 0's rows) kills, deaths, last hits, and enemy structures
destroyed by its team (`towers`) and its own lost (`towers_lost`). Rows print the median over the
seeds and [min, max]. The random and scripted rows need no torch.

    python benchmarks/moba_baselines.py [--copies 64] [--seeds 3]
    python benchmarks/moba_baselines.py --checkpoint RUN_1 --checkpoint RUN_2 [--sampled]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from anchors import Chooser, checkpoint_name, checkpoint_player, spread

from puffer_ocean import envs

STATS = ("score", "wins", "draws", "losses", "kills", "deaths", "last_hits", "towers", "towers_lost")


def play(builtin: int, choose: Chooser | None, copies: int, seed: int) -> dict[str, float]:
    """One game in each of `copies` copies: team 0 played by the env's built-in player `builtin`
    (1 scripted, 2 random) or, with `builtin` 0, by `choose(obs, rng)`."""
    env = envs.Moba(num_envs=copies, log_interval=10**9)
    try:
        obs, _ = env.reset(seed=seed)
        env.players[:] = builtin
        rng = np.random.default_rng(seed)
        actions = np.zeros((env.num_agents, 3), np.int32)
        results = np.full(copies, np.nan)
        while np.isnan(results).any():
            if choose is not None:
                actions = choose(obs, rng)
            obs, _, terminals, truncations, _ = env.step(actions)
            ended = (terminals | truncations).reshape(copies, 5)[:, 0] & np.isnan(results)
            results[ended] = env.outcomes.reshape(copies, 5)[ended, 0]
        stats = env.log()
        wins, draws = float((results == 1).sum()), float((results == 0.5).sum())
        return {**stats, "score": (wins + draws / 2) / copies, "wins": wins, "draws": draws,
                "losses": copies - wins - draws}
    finally:
        env.close()




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=64, help="env copies (one game each per seed)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds 1..N")
    parser.add_argument("--checkpoint", action="append", default=[],
                        help="a trained ocean-moba checkpoint or run folder (repeat for several)")
    parser.add_argument("--sampled", action="store_true", help="sample the checkpoint's actions (default: greedy)")
    parser.add_argument("--no-anchors", action="store_true", help="only the checkpoints' rows")
    args = parser.parse_args()
    players: dict[str, tuple[int, Chooser | None]] = {}
    if not args.no_anchors:
        players = {"random": (2, None), "scripted": (1, None)}
    for i, path in enumerate(args.checkpoint, 1):
        players[checkpoint_name(i, args.sampled)] = (0, checkpoint_player(path, "ocean-moba", args.sampled))
    print(f"ocean-moba against the scripted team, {args.copies} games per seed, seeds 1..{args.seeds}: "
          "median [min, max] over the seeds (kills .. towers_lost: per hero and game)")
    print(f"{'player':<22}" + "".join(f"{name:>22}" for name in STATS) + f"{'seconds':>9}")
    for name, (builtin, choose) in players.items():
        start = time.perf_counter()
        runs = [play(builtin, choose, args.copies, seed) for seed in range(1, args.seeds + 1)]
        cells = [spread([run[stat] for run in runs]) for stat in STATS]
        print(f"{name:<22}" + "".join(f"{cell:>22}" for cell in cells) + f"{time.perf_counter() - start:>9.1f}")


if __name__ == "__main__":
    main()
