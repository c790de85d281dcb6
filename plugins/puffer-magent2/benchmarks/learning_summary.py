"""Summarise `puffer train magent2-battle` runs from their `metrics.jsonl`: the tally early and late.

    python learning_summary.py RUN_FOLDER [RUN_FOLDER ...] [--window 3]

For each run folder (one seed) prints the mean of the logged `environment/kills`, `deaths`, `win`
and `episode_return` over the first and the last `window` log steps that carry a tally. Each log
step's value is the mean over the episodes that ended in it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

KEYS = ("kills", "deaths", "win", "episode_return")


def rows(folder: Path) -> list[dict]:
    """The logged rows (not the config line) of one run's metrics.jsonl that carry a tally."""
    lines = (folder / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines[1:]) if "environment/win" in r]


def line(logged: list[dict]) -> str:
    means = {key: sum(r[f"environment/{key}"] for r in logged) / len(logged) for key in KEYS}
    return (", ".join(f"{key} {value:.2f}" for key, value in means.items())
            + f" (steps to {logged[-1]['global_step']:,})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--window", type=int, default=3)
    args = parser.parse_args()
    for folder in args.runs:
        logged = rows(folder)
        seed = json.loads((folder / "metrics.jsonl").read_text().splitlines()[0])["config"]["train"]["seed"]
        print(f"{folder.name} seed {seed}: early {line(logged[:args.window])}; late {line(logged[-args.window:])}; "
              f"training SPS {min(r['SPS'] for r in logged):.0f}-{max(r['SPS'] for r in logged):.0f}")


if __name__ == "__main__":
    main()
