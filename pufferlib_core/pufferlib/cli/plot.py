"""`puffer plot RUN_DIR...`: learning curves (score and SPS against steps) to a PNG;
`puffer plot --sweep SWEEP_DIR`: a sweep's figure (see `pufferlib.plot`)."""

from __future__ import annotations

import argparse

from pufferlib._paths import check_writable
from pufferlib.plot import plot_runs, plot_sweep
from pufferlib.train.metrics import SCORE_KEYS


def plot_command(argv: list[str]) -> int:
    """Entry of `puffer plot`."""
    if "--sweep" in argv:  # `puffer plot --sweep SWEEP_DIR -o sweep.png`
        return _plot_sweep_command(argv)
    parser = argparse.ArgumentParser(prog="puffer plot", description=__doc__.splitlines()[0])
    parser.add_argument("run_dirs", nargs="+", help="run directories written by `puffer train`")
    parser.add_argument("--output", "-o", default="puffer_plot.png", help="PNG to write (default puffer_plot.png)")
    parser.add_argument("--metric", help=f"what to plot against steps (default: the first of {', '.join(SCORE_KEYS)})")
    args = parser.parse_args(argv)
    check_writable(args.output, "the plot")
    print(plot_runs(args.run_dirs, args.output, args.metric))
    return 0


def _plot_sweep_command(argv: list[str]) -> int:
    """Entry of `puffer plot --sweep SWEEP_DIR`."""
    parser = argparse.ArgumentParser(prog="puffer plot --sweep", description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", required=True, metavar="SWEEP_DIR", help="folder made by `puffer sweep`")
    parser.add_argument("--output", "-o", default="sweep.png", help="PNG to write (default sweep.png)")
    args = parser.parse_args(argv)
    check_writable(args.output, "the plot")
    print(plot_sweep(args.sweep, args.output))
    return 0
