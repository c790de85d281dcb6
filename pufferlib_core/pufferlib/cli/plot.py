"""`puffer plot RUN_DIR...`: learning curves (score and SPS against steps) to a PNG.

Reads each run's metrics.jsonl (see `pufferlib.train.metrics`); needs matplotlib
(`pip install matplotlib`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pufferlib.errors import APIUsageError
from pufferlib.train.metrics import read_metrics

#: Tried in order when --metric is not given: the first that a run logged is plotted.
SCORE_KEYS = ("environment/score", "environment/episode_return")


def _score_key(rows: list[dict], wanted: str | None) -> str:
    keys = {key for row in rows for key in row}
    if wanted:
        if wanted not in keys:
            raise APIUsageError(f"No run logged {wanted!r}; logged keys: {', '.join(sorted(keys))}.")
        return wanted
    for key in SCORE_KEYS:
        if key in keys:
            return key
    raise APIUsageError(f"The runs logged none of {SCORE_KEYS}; choose one with --metric "
                        f"(logged: {', '.join(sorted(keys))}).")


def plot_runs(run_dirs: list[str | Path], output: str | Path, metric: str | None = None) -> Path:
    """Draw metric and SPS against global step for every run; returns the PNG path."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise APIUsageError("puffer plot needs matplotlib: pip install matplotlib") from None
    runs = [(Path(d), *read_metrics(d)) for d in run_dirs]
    key = _score_key([row for _, _, rows in runs for row in rows], metric)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    for run_dir, head, rows in runs:
        label = f"{head.get('env_id') or ''} {run_dir.name}".strip()
        scored = [(r["step"], r[key]) for r in rows if r.get(key) is not None]
        top.plot([s for s, _ in scored], [v for _, v in scored], label=label)
        bottom.plot([r["step"] for r in rows if "SPS" in r], [r["SPS"] for r in rows if "SPS" in r], label=label)
    top.set_ylabel(key)
    bottom.set_ylabel("SPS")
    bottom.set_xlabel("agent steps")
    top.legend(fontsize="small")
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    output = Path(output)
    fig.savefig(output, dpi=100)
    plt.close(fig)
    return output


def plot_command(argv: list[str]) -> int:
    """Entry of `puffer plot`."""
    if "--sweep" in argv:  # `puffer plot --sweep SWEEP_DIR -o sweep.png`
        return _plot_sweep_command(argv)
    parser = argparse.ArgumentParser(prog="puffer plot", description=__doc__.splitlines()[0])
    parser.add_argument("run_dirs", nargs="+", help="run directories written by `puffer train`")
    parser.add_argument("--output", "-o", default="puffer_plot.png", help="PNG to write (default puffer_plot.png)")
    parser.add_argument("--metric", help=f"what to plot against steps (default: the first of {', '.join(SCORE_KEYS)})")
    args = parser.parse_args(argv)
    print(plot_runs(args.run_dirs, args.output, args.metric))
    return 0


def _plot_sweep_command(argv: list[str]) -> int:
    """Entry of `puffer plot --sweep SWEEP_DIR`."""
    parser = argparse.ArgumentParser(prog="puffer plot --sweep", description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", required=True, metavar="SWEEP_DIR", help="folder made by `puffer sweep`")
    parser.add_argument("--output", "-o", default="sweep.png", help="PNG to write (default sweep.png)")
    args = parser.parse_args(argv)
    from pufferlib.sweep.plot import plot_sweep

    print(plot_sweep(args.sweep, args.output))
    return 0
