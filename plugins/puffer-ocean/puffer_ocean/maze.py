"""ocean-maze's scripted anchor: the right-hand wall follower, from the observation alone.

A walker that keeps its right hand on the wall walks around every wall connected to the
border, so in a perfect maze (`loops` 0: every wall is connected to the border) it passes
every cell, the goal among them, within 4 (cells - 1) moves. With loops some walls stand
free and a goal beside only those may be missed.

The observation layout is `csrc/envs/maze.h`'s: 121 wall bits of the 11 x 11 window, 121 goal
bits, 4 goal-direction bits, 4 bits of the last action (one-hot; none on an episode's first step).
"""

from __future__ import annotations

import numpy as np

UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
SIDE = 11
CENTRE = (SIDE // 2) * SIDE + SIDE // 2
#: the window index of the tile beside the agent in each direction (up, down, left, right)
NEIGHBOUR = np.array([CENTRE - SIDE, CENTRE + SIDE, CENTRE - 1, CENTRE + 1])
#: a heading's right, itself, its left and its reverse: the right-hand rule's order of preference
PREFERENCE = np.array([[RIGHT, UP, LEFT, DOWN], [LEFT, DOWN, RIGHT, UP],
                       [UP, LEFT, DOWN, RIGHT], [DOWN, RIGHT, UP, LEFT]])
HEADING = 2 * SIDE * SIDE + 4


def wall_follower_actions(obs: np.ndarray) -> np.ndarray:
    """The right-hand rule's action for each row of ocean-maze observations `obs` (n, 250):
    turn right if open, else straight, else left, else back, relative to the last action (up
    before the first). Returns int32 actions of shape (n,)."""
    obs = np.asarray(obs)
    last = obs[:, HEADING:HEADING + 4]
    heading = np.where(last.any(1), last.argmax(1), UP)
    order = PREFERENCE[heading]                               # (n, 4) directions, best first
    walls = obs[np.arange(len(obs))[:, None], NEIGHBOUR[order]]  # wall bit of each, same order
    return order[np.arange(len(obs)), (walls == 0).argmax(1)].astype(np.int32)
