"""Figures of runs and sweeps, as PNG files (needs matplotlib: `pip install matplotlib`).

- `plot_runs(run_dirs, output)`: a metric (the score by default) and SPS against agent steps,
  one line per run, read from each run's metrics.jsonl (`pufferlib.train.metrics`).
- `plot_sweep(sweep_dir, output)`: score against cost (Pareto front marked) and score against
  each swept parameter, read from the sweep's database (safe while the sweep runs).

- `plot_ratings(...)`: league ratings against training step (`puffer league --plot`).

`puffer plot RUN_DIR...` and `puffer plot --sweep SWEEP_DIR` draw them from the command line;
`require_matplotlib` lets a command check for matplotlib before its work.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType
from typing import Any

from pufferlib.errors import APIUsageError
from pufferlib.train.metrics import SCORE_KEYS, read_metrics


def require_matplotlib(command: str = "puffer plot") -> None:
    """APIUsageError naming `command` when matplotlib is not installed; imports nothing, so a command
    that draws at its end (`puffer league --plot`) checks it before its work."""
    if importlib.util.find_spec("matplotlib") is None:
        raise APIUsageError(f"{command} needs matplotlib: pip install matplotlib")


def _pyplot(command: str = "puffer plot") -> ModuleType:
    """matplotlib's pyplot on the file-only Agg backend; APIUsageError naming `command` when
    matplotlib is missing."""
    require_matplotlib(command)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # installed but broken
        raise APIUsageError(f"{command} needs matplotlib, which fails to import ({exc}): "
                            "pip install --force-reinstall matplotlib") from None
    return plt


def _save(plt: ModuleType, fig: Any, output: str | Path, dpi: int) -> Path:
    """Lay out `fig`, write it to `output` as a PNG (creating its folder if it is missing), free it;
    returns the path."""
    from pufferlib.train.playback import make_parent

    fig.tight_layout()
    output = Path(output)
    make_parent(output, "the plot")
    fig.savefig(output, dpi=dpi)
    plt.close(fig)
    return output


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
    plt = _pyplot()
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
    return _save(plt, fig, output, dpi=100)


STATUS_COLORS = {"done": "tab:blue", "stopped": "tab:orange", "failed": "tab:red", "timeout": "tab:purple"}


def plot_sweep(sweep_dir: str | Path, output: str | Path) -> Path:
    """Write the sweep's figure to `output` (PNG); returns its path."""
    import numpy as np

    plt = _pyplot()
    from pufferlib.sweep.space import param_tables
    from pufferlib.sweep.store import FILE_NAME, Store

    if not (Path(sweep_dir) / FILE_NAME).exists():
        raise APIUsageError(f"{sweep_dir} holds no {FILE_NAME}; is it a folder made by `puffer sweep`?")
    import sqlite3

    store = Store(sweep_dir, readonly=True)
    try:
        trials, reports, config = store.trials(), store.reports(), store.meta("config") or {}
    except sqlite3.OperationalError:  # the sweep is creating its tables right now
        trials, reports, config = [], [], {}
    finally:
        store.close()
    scored = [t for t in trials if t["score"] is not None]
    if not scored:
        raise APIUsageError(f"No trial of {sweep_dir} has a score yet.")
    settings = config.get("sweep", {})
    sign = -1.0 if settings.get("goal") == "minimize" else 1.0
    keys = list(scored[0]["params"])
    cols = min(3, max(1, len(keys)))
    rows = 1 + math.ceil(len(keys) / cols)
    fig = plt.figure(figsize=(4.5 * cols, 3.4 * rows))
    ax = fig.add_subplot(rows, 1, 1)
    rs, rc = np.array([r["score"] for r in reports]), np.array([r["cost"] for r in reports])
    ax.scatter(rc, rs, s=6, color="0.75", label="reports while training")
    for status, color in STATUS_COLORS.items():
        pts = [t for t in scored if t["status"] == status]
        if pts:
            ax.scatter([t["cost"] for t in pts], [t["score"] for t in pts], s=28, color=color, label=f"{status} trials")
    from pufferlib.sweep.protein import pareto_front

    front = pareto_front(sign * rs, rc)
    ax.step(rc[front], rs[front], where="post", color="black", lw=1.5, label="Pareto front")
    ax.scatter(rc[front], rs[front], s=40, facecolors="none", edgecolors="black")
    ax.set_xscale("log")
    ax.set_xlabel(f"cost ({settings.get('cost', 'time')})")
    ax.set_ylabel(settings.get("metric") or "score")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    tables = param_tables(settings)
    for i, key in enumerate(keys):
        sub = fig.add_subplot(rows, cols, cols + i + 1)
        for status, color in STATUS_COLORS.items():
            pts = [t for t in scored if t["status"] == status]
            sub.scatter([t["params"][key] for t in pts], [t["score"] for t in pts], s=18, color=color)
        failed = [t for t in trials if t["status"] in ("failed", "timeout")]
        if failed:  # no score: marked along the bottom
            floor = min(t["score"] for t in scored)
            sub.scatter([t["params"][key] for t in failed], [floor] * len(failed), marker="x", s=30,
                        color=STATUS_COLORS["failed"], label="failed / timeout")
            if i == 0:
                sub.legend(fontsize="small")
        if tables.get(key, {}).get("distribution") in ("log_normal", "uniform_pow2"):
            sub.set_xscale("log")
        sub.set_xlabel(key)
        sub.grid(alpha=0.3)
    return _save(plt, fig, output, dpi=90)


def plot_ratings(snapshots: list[tuple[int, float, float]], anchors: dict[str, float], output: str | Path,
                 title: str) -> Path:
    """Draw league ratings against training step: (step, rating, 95% half-interval) per snapshot,
    and each anchor's rating as a horizontal line; returns the PNG path (`puffer league --plot`)."""
    plt = _pyplot("puffer league --plot")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    points = sorted(snapshots)
    ax.errorbar([s for s, _, _ in points], [r for _, r, _ in points], yerr=[c for _, _, c in points], fmt="o-",
                capsize=3, label="snapshots")
    for i, (name, rating) in enumerate(sorted(anchors.items())):
        ax.axhline(rating, linestyle="--", color=f"C{i + 1}", label=name)
    ax.set_xlabel("agent steps")
    ax.set_ylabel("rating (Elo scale)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return _save(plt, fig, output, dpi=100)
