"""What the benchmark scripts share: timing a step function over pre-drawn actions."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


def rate(step: Callable[[Any], Any], actions: np.ndarray, seconds: float) -> float:
    """Calls per second of `step(actions[i % len(actions)])`, repeated for about `seconds`."""
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        step(actions[n % len(actions)])
        n += 1
    return n / (time.perf_counter() - start)


def race(contenders: dict[str, Any], actions: np.ndarray, seconds: float, rounds: int = 3) -> dict[str, float]:
    """Median agent steps/s of each vectorized env over alternating rounds (same load for all).

    Every contender is reset with seed 0, stepped with the same pre-drawn `actions`
    (one row per batch), and closed afterwards.
    """
    agents = actions.shape[1]
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    try:
        for env in contenders.values():
            env.reset(seed=0)
        for _ in range(rounds):
            for name, env in contenders.items():
                rates[name].append(rate(env.step, actions, seconds / rounds / len(contenders)) * agents)
    finally:
        for env in contenders.values():
            env.close()
    return {name: float(np.median(values)) for name, values in rates.items()}


def report(title: str, sps: dict[str, float], target: str) -> None:
    """Print each contender's steps/s and its ratio to the first one."""
    base = next(iter(sps.values()))
    print(title)
    for name, value in sps.items():
        print(f"  {name:45s} {value:10,.0f}  {value / base:5.2f}x")
    print(f"  target: {target}")
