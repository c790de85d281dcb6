"""ocean-drive's scripted driver: the anchor a trained policy is compared with.

`scripted_actions(obs)` reads only what a policy sees (the observation layout of
`csrc/envs/drive.h`) and returns one MultiDiscrete([5, 9]) action per row: steer toward the
next route waypoint (the steering share proportional to the angle to it), slow down for a
sharp turn ahead, brake to a stop when another car is close ahead in its lane, otherwise speed
up to the limit. It knows nothing of right of way, so it collides at crossings; it is the
simple driver the issue asks for, not a strong one.
"""

from __future__ import annotations

import numpy as np

__all__ = ["STEER", "ACCEL", "scripted_actions"]

#: The env's steering choices (a share of the sharpest curve at the car's speed) and accelerations (m/s^2).
STEER = np.array([-1, -0.5, -0.25, -0.1, 0, 0.1, 0.25, 0.5, 1], np.float32)
ACCEL = np.array([-6, -3, 0, 1.5, 3], np.float32)

_WAYPOINT_SCALE = 50.0  # observation 4-7: waypoints / 50 m
_SEEN, _CAR_OBS, _CARS_AT = 8, 7, 18  # the 8 nearest cars, 7 values each, from index 18


def scripted_actions(obs: np.ndarray, max_speed: float = 12.0, gain: float = 2.0) -> np.ndarray:
    """One scripted action (acceleration index, steering index) per observation row.

    `obs` is (rows, 74) of ocean-drive observations; `max_speed` must be the env's (the
    observation holds speed / max_speed). Returns an int32 array of shape (rows, 2).
    """
    obs = np.asarray(obs, np.float32)
    if obs.ndim != 2 or obs.shape[1] != _CARS_AT + _SEEN * _CAR_OBS:
        raise ValueError(f"scripted_actions needs ocean-drive observations of shape (rows, 74), got {obs.shape}")
    speed = obs[:, 0] * max_speed
    w1 = obs[:, 4:6] * _WAYPOINT_SCALE
    w2 = obs[:, 6:8] * _WAYPOINT_SCALE
    angle = np.arctan2(w1[:, 1], w1[:, 0])
    turn = np.arctan2(w2[:, 1] - w1[:, 1], w2[:, 0] - w1[:, 0])
    near = np.hypot(w1[:, 0], w1[:, 1]) < 6 + 1.5 * speed
    target = np.full(len(obs), max_speed, np.float32)
    target[(np.abs(turn) > 0.5) & near] = 4.0
    target[np.abs(angle) > 0.4] = 3.5
    cars = obs[:, _CARS_AT:].reshape(len(obs), _SEEN, _CAR_OBS)
    ahead, side = cars[..., 0] * _WAYPOINT_SCALE, cars[..., 1] * _WAYPOINT_SCALE
    blocked = ((cars[..., 6] > 0) & (ahead > 0) & (ahead < 7 + 1.5 * speed[:, None]) & (np.abs(side) < 3)).any(1)
    target[blocked] = 0.0
    accel = np.select([speed > target + 1, speed > target + 0.3, speed < target - 0.3], [0, 1, 4], default=2)
    want = np.clip(angle * gain, -1, 1)
    steer = np.abs(STEER[None, :] - want[:, None]).argmin(1)
    return np.stack([accel, steer], 1).astype(np.int32)
