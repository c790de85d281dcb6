"""ocean-mmo's scripted forager: the anchor a trained policy is compared with.

`forager_actions(obs, rng)` reads only what a policy sees (the observation layout of
`csrc/envs/mmo.h`) and returns one Discrete(8) action per row: use (eat or drink) when that
restores a stat that is below `low` tenths; else, when food or water is below `low`, walk toward
the nearest stocked forest cell (for food) or toward the nearest cell beside stocked water (for
water) in its 11 x 15 window, the larger offset first, the other axis when that way is blocked;
otherwise (or when nothing is in sight) a random step. It never attacks and knows nothing of
NPCs: the simple forager the issue asks for, not a strong player.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ROWS", "COLS", "CHANNELS", "OBS", "forager_actions"]

ROWS, COLS, CHANNELS = 11, 15, 8  # the window and the bytes of a cell
OBS = ROWS * COLS * CHANNELS + 8
WATER, STONE, FOREST, FOOD, DRINK, AGENT, NPC, HP = range(CHANNELS)
STAY, UP, DOWN, LEFT, RIGHT, USE = 0, 1, 2, 3, 4, 5
_DR = np.array([0, -1, 1, 0, 0])
_DC = np.array([0, 0, 0, -1, 1])
_CR, _CC = ROWS // 2, COLS // 2


def _neighbours_of(stocked: np.ndarray) -> np.ndarray:
    """Cells (rows, ROWS, COLS) beside (up, down, left, right) a True cell of `stocked`."""
    out = np.zeros_like(stocked)
    out[:, 1:] |= stocked[:, :-1]
    out[:, :-1] |= stocked[:, 1:]
    out[:, :, 1:] |= stocked[:, :, :-1]
    out[:, :, :-1] |= stocked[:, :, 1:]
    return out


def _step_toward(goal: np.ndarray, free: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(found, move): for each row, whether a goal cell is in sight, and the move (1-4) toward the
    nearest one (Manhattan distance from the centre; 0 when standing on it)."""
    rows = np.arange(ROWS)[:, None] - _CR
    cols = np.arange(COLS)[None, :] - _CC
    dist = np.abs(rows) + np.abs(cols) + rng.random((len(goal), ROWS, COLS)) * 0.5  # random tie-break
    dist = np.where(goal, dist, np.inf).reshape(len(goal), -1)
    best = dist.argmin(1)
    found = np.isfinite(dist[np.arange(len(goal)), best])
    dr, dc = best // COLS - _CR, best % COLS - _CC
    vertical = np.where(dr < 0, UP, DOWN)
    horizontal = np.where(dc < 0, LEFT, RIGHT)
    first = np.where(np.abs(dr) >= np.abs(dc), vertical, horizontal)
    second = np.where(np.abs(dr) >= np.abs(dc), horizontal, vertical)
    second = np.where((dr == 0) | (dc == 0), first, second)
    index = np.arange(len(goal))
    first_free = free[index, _CR + _DR[first], _CC + _DC[first]]
    move = np.where(first_free, first, second)
    move = np.where((dr == 0) & (dc == 0), STAY, move)
    return found, move


def forager_actions(obs: np.ndarray, rng: np.random.Generator, low: int = 6) -> np.ndarray:
    """One scripted action per row of ocean-mmo observations `obs` (rows, 1328): an int32 array."""
    obs = np.asarray(obs)
    if obs.ndim != 2 or obs.shape[1] != OBS:
        raise ValueError(f"forager_actions needs ocean-mmo observations of shape (rows, {OBS}), got {obs.shape}")
    n = len(obs)
    cells = obs[:, :ROWS * COLS * CHANNELS].reshape(n, ROWS, COLS, CHANNELS).astype(bool)
    food, water, can_eat, can_drink = (obs[:, ROWS * COLS * CHANNELS + i].astype(int) for i in (0, 1, 6, 7))
    free = ~(cells[..., WATER] | cells[..., STONE] | cells[..., AGENT] | cells[..., NPC])
    free[:, _CR, _CC] = True  # its own cell
    hungry, thirsty = food < low, water < low
    found_f, to_food = _step_toward(cells[..., FOOD] & free, free, rng)
    found_w, to_water = _step_toward(_neighbours_of(cells[..., DRINK]) & free, free, rng)
    actions = rng.integers(1, 5, n)
    # the more urgent need first: the stat that is lower
    want_water = thirsty & found_w & (~hungry | ~found_f | (water <= food))
    want_food = hungry & found_f & ~want_water
    actions = np.where(want_food, to_food, actions)
    actions = np.where(want_water, to_water, actions)
    actions = np.where((hungry & (can_eat > 0)) | (thirsty & (can_drink > 0)), USE, actions)
    return actions.astype(np.int32)
