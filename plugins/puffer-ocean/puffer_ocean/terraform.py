"""A scripted digger for ocean-terraform: the anchor its learning figure is compared with.

`scripted_actions(obs, rng)` reads only each dozer's observation (the layout in
`csrc/envs/terraform.h`) and returns one MultiDiscrete([5, 3]) action per row: dig where the cell
underneath is too high and the blade has room, dump where it is too low and the blade holds soil;
otherwise step toward the nearest cell of the 11 x 11 window where it could do one of those
(toward soil to take when the blade is empty, a hollow to fill when it is full, either otherwise),
or, with none in view, toward the 4 x 4 region holding the most of what it needs; one step in ten
is a random move, so that a dozer stopped by a slope or another dozer gets free.
"""

from __future__ import annotations

import numpy as np

VIEW, SIDE = 5, 11
PLANE = SIDE * SIDE
CENTRE = VIEW * SIDE + VIEW
DIFF, LOAD, POS_X, POS_Y, REGIONS = PLANE, 3 * PLANE, 3 * PLANE + 1, 3 * PLANE + 2, 3 * PLANE + 4
STAY, UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3, 4
NOTHING, DIG, DUMP = 0, 1, 2

_OFF_Y, _OFF_X = (a.ravel() - VIEW for a in np.mgrid[0:SIDE, 0:SIDE])
_DISTANCE = np.abs(_OFF_X) + np.abs(_OFF_Y)
_REGION_X = (np.arange(16) % 4 + 0.5) / 4
_REGION_Y = (np.arange(16) // 4 + 0.5) / 4


def _toward(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The move that shortens the larger of the offsets (STAY where both are 0)."""
    horizontal = np.abs(dx) >= np.abs(dy)
    move = np.where(horizontal, np.where(dx > 0, RIGHT, LEFT), np.where(dy > 0, DOWN, UP))
    return np.where((dx == 0) & (dy == 0), STAY, move)


def scripted_actions(obs: np.ndarray, rng: np.random.Generator, threshold: float = 1 / 16) -> np.ndarray:
    """One (move, blade) action per observation row (int32, shape (rows, 2)).

    `threshold`: how far (target - height) / max_height must be from 0 for a cell to be worth
    working: half a dig at the default max_height 8 and dig_amount 1."""
    obs = np.asarray(obs, np.float32)
    rows = len(obs)
    diff = obs[:, DIFF:DIFF + PLANE]                  # (target - height) / max_height; 0 off the map
    load = obs[:, LOAD]
    empty, full = load <= 0, load >= 1
    surplus, hollow = diff < -threshold, diff > threshold
    dig = surplus[:, CENTRE] & ~full
    dump = hollow[:, CENTRE] & ~empty
    wanted = np.where(empty[:, None], surplus, np.where(full[:, None], hollow, surplus | hollow))
    wanted[:, CENTRE] = False
    distance = np.where(wanted, _DISTANCE, 10_000)
    nearest = distance.argmin(1)
    seen = distance[np.arange(rows), nearest] < 10_000
    move = _toward(_OFF_X[nearest], _OFF_Y[nearest])
    # Nothing in view: head for the region with the most of what the blade needs.
    signed = obs[:, REGIONS:REGIONS + 32:2]           # mean (height - target): > 0 soil to take
    need = np.where(empty[:, None], signed, np.where(full[:, None], -signed, np.abs(signed)))
    region = need.argmax(1)
    far = _toward(_REGION_X[region] - obs[:, POS_X], _REGION_Y[region] - obs[:, POS_Y])
    move = np.where(seen, move, far)
    blade = np.where(dig, DIG, np.where(dump, DUMP, NOTHING))
    move = np.where(dig | dump, STAY, move)
    jitter = rng.random(rows) < 0.1
    move = np.where(jitter & ~(dig | dump), rng.integers(1, 5, rows), move)
    return np.stack([move, blade], 1).astype(np.int32)
