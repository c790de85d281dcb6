"""ocean-school over whole battles: random play beside trained checkpoints.

The training log's last epoch sees only the lives that ended in its few steps of a 1,024-step
battle (every copy's battle starts together, so early in a battle those are the lives that flew
straight out, late in it the long ones), which makes one run's score swing by 0.5 from epoch to
epoch. This script plays `--battles` whole battles of the shipped setting (one copy, 512 units,
2 armies; its seeds 0, 1, ...), each player acting for every unit, and reports the mean over all
lives that ended in them (cut by the battle's end included) of the env's own log: score (a
life's return), hits per life, and how lives ended.

    python benchmarks/school_baselines.py --battles 2 RUN_DIR_OR_CHECKPOINT ...

Each checkpoint plays its sampled actions and its most likely ones (greedy); random play draws
each action uniformly from [-1, 1]^3. Rows: the player, then each run's figure and the median
[min, max] over runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from anchors import Chooser, checkpoint_player, spread  # noqa: E402

KEYS = ("score", "hits", "crash_rate", "oob_rate", "death_rate", "episode_length")


def play(choose: Chooser, battles: int) -> dict[str, float]:
    """The env's log means over every life ended in `battles` whole battles, `choose(obs, rng)`
    giving each unit's (3,) action."""
    import torch

    from puffer_ocean import envs, specs

    torch.manual_seed(0)    # a checkpoint's sampled actions: the same on every run
    env = envs.School(num_envs=1, log_interval=10**9, **specs.ENVS["school"][1])
    rng = np.random.default_rng(0)
    logs = []
    try:
        for battle in range(battles):
            obs, _ = env.reset(seed=battle)
            for _ in range(1024):   # the shipped max_steps: the last step truncates every life
                obs, *_ = env.step(np.asarray(choose(obs, rng), np.float32))
            logs.append(env.log())
    finally:
        env.close()
    # battles are weighted equally (each holds about as many lives as its units' deaths)
    return {k: statistics.mean(float(log[k]) for log in logs) for k in KEYS}


def row(name: str, results: list[dict[str, float]]) -> str:
    """One Markdown row: each key's figure, or its median [min, max] over several runs."""
    cells = [spread([r[k] for r in results], ".3f") if len(results) > 1 else f"{results[0][k]:.3f}" for k in KEYS]
    return f"| {name} | " + " | ".join(cells) + " |"


def main() -> None:
    """Print the table: random play, then the checkpoints' sampled and greedy rows."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoints", nargs="*", help="checkpoint files or run folders of ocean-school")
    parser.add_argument("--battles", type=int, default=2)
    args = parser.parse_args()
    print("| player | " + " | ".join(KEYS) + " |")
    print("|---" * (len(KEYS) + 1) + "|")
    print(row("random play", [play(lambda obs, rng: rng.uniform(-1, 1, (len(obs), 3)), args.battles)]), flush=True)
    for sampled in (True, False):
        results = []
        for path in args.checkpoints:
            results.append(play(checkpoint_player(path, "ocean-school", sampled), args.battles))
            print(f"{path} ({'sampled' if sampled else 'greedy'}): "
                  + ", ".join(f"{k} {v:.3f}" for k, v in results[-1].items()), file=sys.stderr, flush=True)
        if results:
            print(row(f"trained ({'sampled' if sampled else 'greedy'}), {len(results)} runs", results), flush=True)


if __name__ == "__main__":
    main()
