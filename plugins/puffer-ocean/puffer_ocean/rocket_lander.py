"""ocean-rocket_lander's scripted lander: the anchor a trained policy is compared with.

`scripted_lander(obs)` reads only what a policy sees (the first 8 of `csrc/envs/rocket_lander.h`'s
observation: x, height, velocities, angle, angular velocity, the two feet's contacts) and returns
one Discrete(4) action per row: lean against the drift, fire the main engine to hold a sink rate
that shrinks near the ground, else turn toward the lean it wants, and do nothing once both feet
touch. It lands on the pad in about 0.8 of its episodes (the Ocean README).
"""

from __future__ import annotations

import numpy as np

#: ocean-rocket_lander's actions.
NOTHING, MAIN, CCW, CW = 0, 1, 2, 3


def scripted_lander(obs: np.ndarray) -> np.ndarray:
    """One action (int32) per observation row (rows of at least 8 floats)."""
    x, h, vx, vy, angle, omega, left, right = obs[:, :8].T
    lean = np.clip(0.5 * (1.25 * x + vx), -0.2, 0.2)
    turn = lean - angle * np.pi - 2.0 * omega
    fire = -np.clip(15 * h, 0.5, 6) - 10 * vy > 0.5
    action = np.where(fire, MAIN, np.where(np.abs(turn) > 0.05, np.where(turn > 0, CCW, CW), NOTHING))
    return np.where((left > 0) & (right > 0), NOTHING, action).astype(np.int32)
