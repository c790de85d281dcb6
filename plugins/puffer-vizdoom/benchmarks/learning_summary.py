"""Summarise `puffer train` runs of a vizdoom id from their `metrics.jsonl`: the game's score early and late.

    python learning_summary.py RUN_FOLDER [RUN_FOLDER ...] [--window 5]

For each run folder (one seed) prints the mean of the logged `environment/score` (the game's own
episode reward, unscaled) and `environment/kills` over the first and the last `window` log steps,
with the steps they cover; then the mean and min..max over the runs of the late score. Each log
step's value is the mean over the episodes that ended in it, so this is a mean of per-step means
(steps with more, shorter episodes count no more than others).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def rows(folder: Path) -> list[dict]:
    """The logged rows (not the config line) of one run's metrics.jsonl that carry a score."""
    lines = (folder / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if "environment/score" in r]


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--window", type=int, default=5)
    args = parser.parse_args()
    late_scores = []
    for folder in args.runs:
        logged = rows(folder)
        train = json.loads((folder / "metrics.jsonl").read_text().splitlines()[0])["config"]["train"]
        seed, batch = train["seed"], train["batch_size"]
        first, last = logged[:args.window], logged[-args.window:]
        late = mean([r["environment/score"] for r in last])
        late_scores.append(late)
        print(f"{folder.name} seed {seed}: score {mean([r['environment/score'] for r in first]):.2f} "
              f"(kills {mean([r['environment/kills'] for r in first]):.2f}) over steps "
              f"{first[0]['global_step'] - batch + 1:,}-{first[-1]['global_step']:,}; score {late:.2f} "
              f"(kills {mean([r['environment/kills'] for r in last]):.2f}) over steps "
              f"{last[0]['global_step'] - batch + 1:,}-{last[-1]['global_step']:,} "
              f"(training SPS {min(r['SPS'] for r in logged):.0f}-{max(r['SPS'] for r in logged):.0f})")
    print(f"late score over {len(late_scores)} runs: mean {mean(late_scores):.2f}, "
          f"min {min(late_scores):.2f}, max {max(late_scores):.2f}")


if __name__ == "__main__":
    main()
