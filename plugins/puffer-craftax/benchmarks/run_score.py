"""The Crafter score of a craftax training run over a window of its steps, from its metrics.jsonl.

    python run_score.py RUN_FOLDER [RUN_FOLDER ...] [--first 100001] [--last 200000]

At each log step the trainer logs the mean of each `environment/achievement_*` (1 if unlocked in
an episode) over the episodes that ended since the last one. This script averages those means over
the log steps whose step count is in [first, last] (each log step weighs the same: the file does
not say how many episodes each pooled), and prints the Crafter score of those success rates
(`puffer_craftax.env.crafter_score`), the mean return and length, and the achievements above 20%.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from puffer_craftax.env import crafter_score

PREFIX = "environment/achievement_"


def window(run: Path, first: int, last: int) -> list[dict]:
    """The log rows of `run`'s metrics.jsonl whose step is in [first, last] and that saw episodes end."""
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines() if line.strip()]
    return [row for row in rows if first <= row.get("step", -1) <= last and "environment/episode_return" in row]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--last", type=int, default=10 ** 12)
    args = parser.parse_args()
    for run in args.runs:
        rows = window(run, args.first, args.last)
        names = sorted({k[len(PREFIX):] for row in rows for k in row if k.startswith(PREFIX)})
        if not rows or not names:
            print(f"{run}: no log step with ended episodes in [{args.first}, {args.last}]")
            continue
        rates = {n: 100.0 * float(np.mean([row.get(PREFIX + n, 0.0) for row in rows])) for n in names}
        top = ", ".join(f"{n} {r:.0f}" for n, r in sorted(rates.items(), key=lambda kv: -kv[1]) if r > 20)
        ret = float(np.mean([row["environment/episode_return"] for row in rows]))
        length = float(np.mean([row.get("environment/episode_length", np.nan) for row in rows]))
        print(f"{run}: steps {args.first:,}-{min(args.last, max(r['step'] for r in rows)):,}, {len(rows)} log steps: "
              f"Crafter score {crafter_score(rates.values()):.2f}%, mean return {ret:.2f}, length {length:.0f}; "
              f"above 20%: {top}")


if __name__ == "__main__":
    main()
