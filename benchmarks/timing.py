"""What the benchmark scripts share: timing a step function over pre-drawn actions."""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np


def rate(step: Callable[[Any], Any], actions: np.ndarray, seconds: float) -> float:
    """Calls per second of `step(actions[i % len(actions)])`, repeated for about `seconds`."""
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        step(actions[n % len(actions)])
        n += 1
    return n / (time.perf_counter() - start)
