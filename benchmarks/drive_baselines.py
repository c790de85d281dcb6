"""ocean-drive's anchors: the goal-reached, collision and off-road rates of random play, the
scripted driver (`puffer_ocean.drive.scripted_actions`) and, given one, a trained checkpoint.

Each player drives every car of `--copies` env copies (default kwargs of the env: 32 cars a
copy) for `--steps` steps from `--seeds` seeds (1, 2, ...); the rates are over the car episodes
that ended in that time (`env.log()`: per episode, so a car that crashes early counts as much as
one that drove far), and goals reached per 1,000 car-steps (how many goals the traffic delivers
in a given time: a fast, careless driver can reach more goals per step at a lower rate). Rows print
the median over the seeds and [min, max].

    python benchmarks/drive_baselines.py [--copies 16] [--steps 1500] [--seeds 3]
    python benchmarks/drive_baselines.py --checkpoint RUN_1 --checkpoint RUN_2 [--sampled]

Checkpoint rows are numbered in the order given. The random and scripted rows need no torch.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from anchors import checkpoint_name, checkpoint_player, spread

from puffer_ocean import envs
from puffer_ocean.drive import scripted_actions

RATES = ("goal_rate", "collision_rate", "offroad_rate", "goals_per_1k")


def play(choose: Callable[[np.ndarray, np.random.Generator], np.ndarray], copies: int, steps: int,
         seed: int) -> dict[str, float]:
    """The env's log (mean per ended car episode) after `steps` steps of `choose(obs, rng)`, with
    `goals_per_1k`: goals reached per 1,000 car-steps."""
    env = envs.Drive(num_envs=copies, log_interval=10**9)
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            obs, *_ = env.step(choose(obs, rng))
        stats = env.log()
        assert stats is not None, "no car episode ended: raise --steps"
        return {**stats, "goals_per_1k": 1000 * stats["goal_rate"] * stats["n"] / (steps * env.num_agents)}
    finally:
        env.close()


def random_actions(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniform random actions of ocean-drive's MultiDiscrete([5, 9])."""
    return rng.integers(0, [5, 9], (len(obs), 2)).astype(np.int32)




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=16, help="env copies (32 cars each)")
    parser.add_argument("--steps", type=int, default=1500, help="steps per seed")
    parser.add_argument("--seeds", type=int, default=3, help="seeds 1..N")
    parser.add_argument("--checkpoint", action="append", default=[],
                        help="a trained ocean-drive checkpoint or run folder (repeat for several)")
    parser.add_argument("--sampled", action="store_true", help="sample the checkpoint's actions (default: greedy)")
    args = parser.parse_args()
    players = {"random": random_actions, "scripted": lambda obs, rng: scripted_actions(obs)}
    for i, path in enumerate(args.checkpoint, 1):
        players[checkpoint_name(i, args.sampled)] = checkpoint_player(path, "ocean-drive", args.sampled)
    print(f"ocean-drive, default env kwargs, {args.copies} copies x 32 cars, {args.steps} steps per seed, "
          f"seeds 1..{args.seeds}: median [min, max] over the seeds of the per-episode rates")
    print(f"{'player':<22}" + "".join(f"{name:>27}" for name in RATES) + f"{'episodes':>10}{'seconds':>9}")
    for name, choose in players.items():
        start = time.perf_counter()
        runs = [play(choose, args.copies, args.steps, seed) for seed in range(1, args.seeds + 1)]
        cells = [spread([run[rate] for run in runs], ".4f") for rate in RATES]
        episodes = sum(int(run["n"]) for run in runs)
        print(f"{name:<22}" + "".join(f"{cell:>27}" for cell in cells) +
              f"{episodes:>10}{time.perf_counter() - start:>9.1f}")


if __name__ == "__main__":
    main()
