"""The Crafter score of a training run over a window of its steps, from its metrics.jsonl.

    python run_score.py RUN_FOLDER [RUN_FOLDER ...] [--first 61441] [--last 81920]

The trainer logs, at each log step, the mean of each `environment/achievement_*` (1 if the
achievement was unlocked in an episode) over the episodes that ended since the last log step.
This script averages those means over the log steps whose step count falls in [first, last]
(each log step weighs the same: the file does not say how many episodes each one pooled), turns
them into success rates and prints the Crafter score over them (`puffer_crafter.env.crafter_score`),
the mean return and the achievements above 20%.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from puffer_crafter.env import ACHIEVEMENTS, crafter_score


def window(run: Path, first: int, last: int) -> list[dict]:
    """The log rows of `run`'s metrics.jsonl whose step is in [first, last]."""
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()[1:] if line.strip()]
    return [row for row in rows if first <= row.get("step", -1) <= last and "environment/episode_return" in row]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--first", type=int, default=61_441)
    parser.add_argument("--last", type=int, default=81_920)
    args = parser.parse_args()
    for run in args.runs:
        rows = window(run, args.first, args.last)
        if not rows:
            print(f"{run}: no log step with ended episodes in [{args.first}, {args.last}]")
            continue
        rates = {name: 100.0 * float(np.mean([row.get(f"environment/achievement_{name}", 0.0) for row in rows]))
                 for name in ACHIEVEMENTS}
        ranked = sorted(rates.items(), key=lambda kv: -kv[1])
        top = ", ".join(f"{name} {rate:.0f}" for name, rate in ranked if rate > 20)
        ret = float(np.mean([row["environment/episode_return"] for row in rows]))
        print(f"{run}: steps {args.first:,}-{args.last:,}, {len(rows)} log steps: Crafter score "
              f"{crafter_score(rates.values()):.2f}%, mean return {ret:.2f}; above 20%: {top}")


if __name__ == "__main__":
    main()
