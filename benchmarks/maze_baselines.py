"""ocean-maze's anchors: the success rate and episode length of random play, the right-hand wall
follower (`puffer_ocean.maze.wall_follower_actions`) and, given one, a trained checkpoint.

Each player plays `--copies` env copies for `--steps` steps from `--seeds` seeds (1, 2, ...), on
mazes of `--width` x `--height` cells with `--loops` (the env's defaults: 5 x 5, perfect) and
the env's default `max_steps` unless `--max-steps` is given; the rates are over the episodes
that ended in that time (`env.log()`), so an episode cut at the end of the run does not count.
Rows print the median over the seeds and [min, max].

    python benchmarks/maze_baselines.py [--copies 64] [--steps 3000] [--seeds 3]
    python benchmarks/maze_baselines.py --width 8 --height 8 --max-steps 300
    python benchmarks/maze_baselines.py --checkpoint RUN_1 --checkpoint RUN_2 [--sampled]

Checkpoint rows are numbered in the order given. The random and wall-follower rows need no torch.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from anchors import checkpoint_name, checkpoint_player, spread

from puffer_ocean import envs
from puffer_ocean.maze import wall_follower_actions

STATS = ("score", "episode_length", "episode_return")


def play(choose: Callable[[np.ndarray, np.random.Generator], np.ndarray], copies: int, steps: int, seed: int,
         maze: dict) -> dict[str, float]:
    """The env's log (mean per ended episode) after `steps` steps of `choose(obs, rng)`."""
    env = envs.Maze(num_envs=copies, log_interval=10**9, **maze)
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            obs, *_ = env.step(choose(obs, rng))
        stats = env.log()
        assert stats is not None, "no episode ended: raise --steps"
        return stats
    finally:
        env.close()


def random_actions(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniform random moves."""
    return rng.integers(0, 4, len(obs)).astype(np.int32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=64, help="env copies")
    parser.add_argument("--steps", type=int, default=3000, help="steps per seed")
    parser.add_argument("--seeds", type=int, default=3, help="seeds 1..N")
    parser.add_argument("--width", type=int, default=5, help="maze width in cells")
    parser.add_argument("--height", type=int, default=5, help="maze height in cells")
    parser.add_argument("--loops", type=float, default=0.0, help="share of the walls between cells removed")
    parser.add_argument("--max-steps", type=int, default=None, help="the episode's step limit (env default: 150)")
    parser.add_argument("--checkpoint", action="append", default=[],
                        help="a trained ocean-maze checkpoint or run folder (repeat for several)")
    parser.add_argument("--sampled", action="store_true", help="sample the checkpoint's actions (default: greedy)")
    args = parser.parse_args()
    maze = {"width": args.width, "height": args.height, "loops": args.loops}
    if args.max_steps is not None:
        maze["max_steps"] = args.max_steps
    players = {"random": random_actions, "wall follower": lambda obs, rng: wall_follower_actions(obs)}
    for i, path in enumerate(args.checkpoint, 1):
        players[checkpoint_name(i, args.sampled)] = checkpoint_player(path, "ocean-maze", args.sampled)
    print(f"ocean-maze {maze}, {args.copies} copies, {args.steps} steps per seed, seeds 1..{args.seeds}: "
          "median [min, max] over the seeds, per ended episode")
    print(f"{'player':<22}" + "".join(f"{name:>28}" for name in STATS) + f"{'episodes':>10}{'seconds':>9}")
    for name, choose in players.items():
        start = time.perf_counter()
        runs = [play(choose, args.copies, args.steps, seed, maze) for seed in range(1, args.seeds + 1)]
        cells = [spread([run[stat] for run in runs], ".4f") for stat in STATS]
        episodes = sum(int(run["n"]) for run in runs)
        print(f"{name:<22}" + "".join(f"{cell:>28}" for cell in cells) +
              f"{episodes:>10}{time.perf_counter() - start:>9.1f}")


if __name__ == "__main__":
    main()
