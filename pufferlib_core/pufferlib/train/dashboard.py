"""What `puffer train` shows while it runs: a live rich panel on a terminal, plain lines otherwise."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.live import Live

PROFILE_KEYS = ("env", "forward", "learn", "copy", "eval", "other")


def _fmt(value: object) -> str:
    if isinstance(value, float):
        if value != value:  # nan
            return "-"
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def selfplay_scores(metrics: Mapping[str, float]) -> list[str]:
    """Self-play's scores since the last log (`pufferlib.train.selfplay`'s `selfplay/*`), e.g.
    ["vs pool 0.62 (412 games)", "vs scripted 0.71 (96 games)"]; [] without self-play. A window
    without games shows "-" (no games)."""
    against = [("pool", "selfplay/")] if "selfplay/games" in metrics else []
    against += [(key.split("/")[1], key[:-len("games")]) for key in sorted(metrics)
                if key.startswith("selfplay/") and key.count("/") == 2 and key.endswith("/games")]
    return [f"vs {name} {_score(metrics.get(prefix + 'score', math.nan))} ({int(metrics[prefix + 'games']):,} games)"
            for name, prefix in against]


def _score(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.2f}"


def summary_line(metrics: Mapping[str, float]) -> str:
    """One plain line: progress, speed, score, self-play's scores, losses, time shares."""
    parts = [f"epoch {metrics.get('epoch', 0)}", f"steps {_fmt(metrics.get('global_step', 0))}",
             f"SPS {_fmt(metrics.get('SPS', 0.0))}"]
    if "environment/episode_return" in metrics:
        parts.append(f"return {_fmt(metrics['environment/episode_return'])}")
    parts += selfplay_scores(metrics)
    if "eval/episode_return" in metrics:
        parts.append(f"eval {_fmt(metrics['eval/episode_return'])} ± {_fmt(metrics['eval/episode_return_ci95'])}")
    for key in ("policy_loss", "value_loss", "entropy"):
        if f"losses/{key}" in metrics:
            parts.append(f"{key} {_fmt(metrics['losses/' + key])}")
    shares = [f"{k} {metrics[f'performance/{k}']:.0%}" for k in PROFILE_KEYS if f"performance/{k}" in metrics]
    if shares:
        parts.append("time: " + " ".join(shares))
    return " | ".join(parts)


class Dashboard:
    """Shows training metrics every `interval` seconds (and always on `final=True`).

    `rich`: a live panel (default when `stream` is a terminal); else one line per update.
    """

    def __init__(self, title: str = "PuffeRL", interval: float = 1.0, stream: TextIO | None = None,
                 rich: bool | None = None):
        self.title = title
        self.interval = interval
        self.stream = stream or sys.stdout
        self.rich = self.stream.isatty() if rich is None else rich
        self._last = 0.0
        self._live: Live | None = None
        self._shown: Mapping[str, float] | None = None

    def update(self, metrics: Mapping[str, float], total_steps: int | None = None, final: bool = False) -> None:
        """Show `metrics` if `interval` seconds passed since the last update (or `final`)."""
        now = time.monotonic()
        if (not final and now - self._last < self.interval) or (final and metrics is self._shown):
            return
        self._last, self._shown = now, metrics
        if not self.rich:
            print(summary_line(metrics), file=self.stream, flush=True)
            return
        if self._live is None:
            from rich.console import Console
            from rich.live import Live

            self._live = Live(console=Console(file=self.stream), auto_refresh=False)
            self._live.start()
        self._live.update(self._render(metrics, total_steps), refresh=True)

    def _render(self, metrics: Mapping[str, float], total_steps: int | None):
        from rich.table import Table

        table = Table(title=self.title, show_header=False, expand=False)
        table.add_column("key", style="cyan")
        table.add_column("value", justify="right")
        step, sps = metrics.get("global_step", 0), metrics.get("SPS", 0.0)
        progress = f"{_fmt(step)}" + (f" / {_fmt(total_steps)}" if total_steps else "")
        table.add_row("steps", progress)
        table.add_row("epoch", _fmt(metrics.get("epoch", 0)))
        table.add_row("SPS", _fmt(sps))
        if total_steps and sps:
            table.add_row("time left", f"{max(0.0, (total_steps - step) / sps):.0f}s")
        for key, value in sorted(metrics.items()):
            if key.startswith(("environment/", "eval/", "selfplay/", "losses/")):
                table.add_row(key, _fmt(value))
        shares = [f"{k} {metrics[f'performance/{k}']:.0%}" for k in PROFILE_KEYS if f"performance/{k}" in metrics]
        if shares:
            table.add_row("time", "  ".join(shares))
        return table

    def close(self) -> None:
        """Stop the live panel (leaves its last state on screen)."""
        if self._live is not None:
            self._live.stop()
            self._live = None
