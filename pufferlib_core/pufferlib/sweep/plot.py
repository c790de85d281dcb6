"""`puffer plot --sweep SWEEP_DIR -o sweep.png`: score against cost (Pareto front marked) and
score against each swept parameter, read from the sweep's database (safe while it runs)."""

from __future__ import annotations

import math
from pathlib import Path

from pufferlib.errors import APIUsageError
from pufferlib.sweep.protein import pareto_front

STATUS_COLORS = {"done": "tab:blue", "stopped": "tab:orange", "failed": "tab:red", "timeout": "tab:purple"}


def plot_sweep(sweep_dir: str | Path, output: str | Path) -> Path:
    """Write the sweep's figure to `output` (PNG); returns its path."""
    import numpy as np

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise APIUsageError("puffer plot needs matplotlib: pip install matplotlib") from None
    from pufferlib.sweep.store import Store

    if not (Path(sweep_dir) / "sweep.db").exists():
        raise APIUsageError(f"{sweep_dir} holds no sweep.db; is it a folder made by `puffer sweep`?")
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
    front = pareto_front(sign * rs, rc)
    ax.step(rc[front], rs[front], where="post", color="black", lw=1.5, label="Pareto front")
    ax.scatter(rc[front], rs[front], s=40, facecolors="none", edgecolors="black")
    ax.set_xscale("log")
    ax.set_xlabel(f"cost ({settings.get('cost', 'time')})")
    ax.set_ylabel(settings.get("metric") or "score")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    tables = _tables(settings)
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
    fig.tight_layout()
    output = Path(output)
    fig.savefig(output, dpi=90)
    plt.close(fig)
    return output


def _tables(settings: dict) -> dict:
    from pufferlib.sweep.space import param_tables

    return param_tables(settings)
