"""Summarise `puffer train` runs from their metrics.jsonl: logged episode keys early and late.

    python benchmarks/run_summary.py RUN_FOLDER [RUN_FOLDER ...] --keys score,episode_length [--window 5]

For each run folder (one seed), over the first and the last `window` log steps that carry the first
key, prints the mean of each `environment/<key>` with the steps those log steps cover, and the
training SPS range; then the first key's late mean over the runs (mean, min, max). A log step's value
is the mean over the episodes that ended in it, so these are means of per-step means (a log step of
many short episodes counts no more than another). Read with `pufferlib.train.metrics.read_metrics`.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from pufferlib.train.metrics import read_metrics


def window_line(logged: list[dict], keys: list[str], batch: int) -> str:
    """'key mean, ... over steps A-B' for these log steps."""
    means = ", ".join(f"{key} {statistics.fmean(r[f'environment/{key}'] for r in logged):.2f}" for key in keys)
    return f"{means} over steps {logged[0]['global_step'] - batch + 1:,}-{logged[-1]['global_step']:,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (each holds a metrics.jsonl)")
    parser.add_argument("--keys", required=True, help="comma-separated environment/* keys; the first must be logged")
    parser.add_argument("--window", type=int, default=5, help="log steps at each end (default 5)")
    args = parser.parse_args()
    keys = args.keys.split(",")
    late = []
    for folder in args.runs:
        head, rows = read_metrics(folder)
        logged = [r for r in rows if f"environment/{keys[0]}" in r]
        if not logged:
            raise SystemExit(f"{folder}: no log step carries environment/{keys[0]}")
        train = head["config"]["train"]
        first, last = logged[:args.window], logged[-args.window:]
        late.append(statistics.fmean(r[f"environment/{keys[0]}"] for r in last))
        sps = [r["SPS"] for r in logged if "SPS" in r]
        print(f"{folder.name} seed {train['seed']}: early {window_line(first, keys, train['batch_size'])}; "
              f"late {window_line(last, keys, train['batch_size'])}"
              + (f"; training SPS {min(sps):.0f}-{max(sps):.0f}" if sps else ""))
    print(f"late {keys[0]} over {len(late)} runs: mean {statistics.fmean(late):.2f}, "
          f"min {min(late):.2f}, max {max(late):.2f}")


if __name__ == "__main__":
    main()
