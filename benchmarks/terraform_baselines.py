"""ocean-terraform's anchors: the share of the start's error removed per episode by random play and by
the scripted digger (`puffer_ocean.terraform.scripted_actions`), beside trained checkpoints if given.

Each player runs `--copies` copies of the shipped world (8 dozers on 64 x 64) for one episode (1,024
steps) from each of `--seeds` seeds; the score is the env's own (1 - error at the end / error at the
start, one value per copy); printed as median [min, max] over the seeds of each seed's mean.

    python benchmarks/terraform_baselines.py --copies 8 --seeds 3 [--checkpoint RUN_OR_FILE ...]
"""

from __future__ import annotations

import argparse

import numpy as np
from anchors import checkpoint_player, spread

from puffer_ocean import envs
from puffer_ocean.terraform import scripted_actions


def episode_score(player, copies: int, seed: int) -> float:
    """The mean score over `copies` copies of one episode played by `player(obs, rng) -> actions`."""
    env = envs.Terraform(num_envs=copies, log_interval=10**9)  # the episode's stats stay in env.log()
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = int(env.field("max_steps"))
        for _ in range(steps):
            obs, _, _, _, _ = env.step(player(obs, rng))
        log = env.log()
        return float(log["score"])
    finally:
        env.close()


def random_player(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.stack([rng.integers(0, 5, len(obs)), rng.integers(0, 3, len(obs))], 1).astype(np.int32)




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--checkpoint", action="append", default=[], help="a trained run folder or model file")
    args = parser.parse_args()
    players = [("random play", random_player), ("scripted digger", scripted_actions)]
    players += [(f"{path}, greedy", checkpoint_player(path, "ocean-terraform")) for path in args.checkpoint]
    print("| player | share of the start's error removed: median [min, max] over seeds |")
    print("|---|---|")
    for name, player in players:
        scores = [episode_score(player, args.copies, seed) for seed in range(1, args.seeds + 1)]
        print(f"| {name} | {spread(scores, '.3f')} |", flush=True)


if __name__ == "__main__":
    main()
