"""ocean-mmo's anchors: how long agents live and how often they forage under random play, the
scripted forager (`puffer_ocean.mmo.forager_actions`) and, given one, a trained checkpoint.

Each player acts for every agent of `--copies` env copies (the spec's kwargs, as `puffer train`
uses: 128 agents and 32 NPCs on a 64 x 64 map a copy) for `--steps` steps from `--seeds` seeds
(1, 2, ...), starting from a reset. The figures are the env's log over the lives that ended in that
time (`env.log()`, a mean per life: `score` is the life's length; with `--steps` at least 3 x
max_steps every life begun in the first two thirds has ended, but lives begun later count only if
they were short, so the means sit below a steady state's) and deaths per 1,000 agent-steps (lives
ended by starving or killing, over every agent-step played). Rows print the median over the seeds
and [min, max].

    python benchmarks/mmo_baselines.py [--copies 2] [--steps 3000] [--seeds 3]
    python benchmarks/mmo_baselines.py --checkpoint RUN_1 --checkpoint RUN_2 [--sampled]

Checkpoint rows are numbered in the order given. The random and forager rows need no torch.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from anchors import checkpoint_name, checkpoint_player, spread

from puffer_ocean import envs, specs
from puffer_ocean.mmo import forager_actions

FIGURES = ("score", "forage_rate", "food", "water", "starved", "killed", "level", "kills", "npc_kills",
           "deaths_per_1k")


def play(choose: Callable[[np.ndarray, np.random.Generator], np.ndarray], copies: int, steps: int,
         seed: int) -> dict[str, float]:
    """The env's log (mean per ended life) after `steps` steps of `choose(obs, rng)`, with
    `deaths_per_1k`: lives ended by death per 1,000 agent-steps."""
    env = envs.Mmo(num_envs=copies, log_interval=10**9, **specs.ENVS["mmo"][1])
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        deaths = 0
        for _ in range(steps):
            obs, _, term, _, _ = env.step(choose(obs, rng))
            deaths += int(term.sum())
        stats = env.log()
        assert stats is not None, "no life ended: raise --steps"
        return {**stats, "deaths_per_1k": 1000 * deaths / (steps * env.num_agents)}
    finally:
        env.close()


def random_actions(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniform random actions of ocean-mmo's Discrete(8)."""
    return rng.integers(0, 8, len(obs)).astype(np.int32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=2, help="env copies (128 agents each)")
    parser.add_argument("--steps", type=int, default=3000, help="steps per seed")
    parser.add_argument("--seeds", type=int, default=3, help="seeds 1..N")
    parser.add_argument("--checkpoint", action="append", default=[],
                        help="a trained ocean-mmo checkpoint or run folder (repeat for several)")
    parser.add_argument("--sampled", action="store_true", help="sample the checkpoint's actions (default: greedy)")
    parser.add_argument("--players", default="random,forager", help="anchors to play: random, forager (or none)")
    args = parser.parse_args()
    anchors = {"random": random_actions, "forager": forager_actions}
    players = {name: anchors[name] for name in args.players.split(",") if name in anchors}
    for i, path in enumerate(args.checkpoint, 1):
        players[checkpoint_name(i, args.sampled)] = checkpoint_player(path, "ocean-mmo", args.sampled)
    print(f"ocean-mmo, the spec's env kwargs, {args.copies} copies x 128 agents, {args.steps} steps per seed, "
          f"seeds 1..{args.seeds}: median [min, max] over the seeds of the per-life means")
    for name, choose in players.items():
        start = time.perf_counter()
        runs = [play(choose, args.copies, args.steps, seed) for seed in range(1, args.seeds + 1)]
        print(f"{name} ({sum(int(run['n']) for run in runs)} lives, {time.perf_counter() - start:.0f} s)")
        for figure in FIGURES:
            print(f"  {figure:<14}{spread([run[figure] for run in runs], '.3f'):>24}")


if __name__ == "__main__":
    main()
