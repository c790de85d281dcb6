"""Rules of ocean-maze: perfect mazes from the carver (and loops on request), the start and the
goal in opposite corner regions, walls that block, the goal's reward, the step cost and the
truncation, the observation's layout (window, goal, compass, last action), seeding, and the
right-hand wall follower (`puffer_ocean.maze`) solving every perfect maze.

The maze is read from the ansi render (`#` wall, `@` agent, `*` goal); the agent and the goal
are placed through the test fields `x`, `y`, `gx`, `gy` (tile coordinates)."""

from collections import deque

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs
from puffer_ocean.maze import wall_follower_actions

UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
MOVES = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0)}


def tiles(env, i=0):
    """The maze of copy i as a (rows, cols) array of characters."""
    return np.array([list(row) for row in env.render(env_id=i).strip("\n").split("\n")])


def passages(maze):
    """The open tiles between two cells (one even, one odd coordinate, off the border)."""
    rows, cols = maze.shape
    return [(x, y) for y in range(1, rows - 1) for x in range(1, cols - 1)
            if (x + y) % 2 == 1 and maze[y, x] != "#"]


def reachable_cells(maze):
    rows, cols = maze.shape
    seen, todo = {(1, 1)}, deque([(1, 1)])
    while todo:
        x, y = todo.popleft()
        for dx, dy in MOVES.values():
            n = (x + dx, y + dy)
            if maze[n[1], n[0]] != "#" and n not in seen:
                seen.add(n)
                todo.append(n)
    return {(x, y) for x, y in seen if x % 2 and y % 2}


@pytest.fixture
def env():
    env = envs.Maze(num_envs=1, width=5, height=4, render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def test_mazes_are_perfect_and_differ():
    env = envs.Maze(num_envs=8, width=7, height=5, render_mode="ansi")
    try:
        env.reset(seed=1)
        seen = set()
        for i in range(8):
            maze = tiles(env, i)
            assert maze.shape == (11, 15)
            assert (maze[0] == "#").all() and (maze[-1] == "#").all()
            assert (maze[:, 0] == "#").all() and (maze[:, -1] == "#").all()
            assert (maze[::2, ::2] == "#").all()  # the corners between cells are always wall
            assert (maze[1::2, 1::2] != "#").all()  # every cell is open
            # a tree over the 35 cells: all of them connected by exactly 34 passages
            assert len(reachable_cells(maze)) == 35 and len(passages(maze)) == 34
            seen.add(maze.tobytes())
        assert len(seen) == 8
    finally:
        env.close()


def test_loops_remove_walls_between_cells():
    full = envs.Maze(num_envs=1, width=6, height=6, loops=1.0, render_mode="ansi")
    some = envs.Maze(num_envs=4, width=6, height=6, loops=0.3, render_mode="ansi")
    try:
        full.reset(seed=0)
        assert len(passages(tiles(full))) == 2 * 36 - 12  # every wall between two cells is gone
        some.reset(seed=0)
        counts = [len(passages(tiles(some, i))) for i in range(4)]
        assert all(c > 35 for c in counts) and all(c < 60 for c in counts)  # a tree (35) plus about 30% of 25
    finally:
        full.close()
        some.close()


def test_start_and_goal_lie_in_opposite_corner_regions():
    env = envs.Maze(num_envs=64, width=8, height=8)
    try:
        env.reset(seed=2)
        corners = set()
        for _ in range(3):
            for i in range(64):
                x, y, gx, gy = (env.field(n, i) for n in ("x", "y", "gx", "gy"))
                cx, cy, gcx, gcy = (x - 1) // 2, (y - 1) // 2, (gx - 1) // 2, (gy - 1) // 2
                # regions of 2 x 2 cells (8 / 4) at the corners; the goal in the opposite one
                assert min(cx, 7 - cx) <= 1 and min(cy, 7 - cy) <= 1
                assert (cx <= 1) != (gcx <= 1) and (cy <= 1) != (gcy <= 1)
                assert min(gcx, 7 - gcx) <= 1 and min(gcy, 7 - gcy) <= 1
                corners.add((cx <= 1, cy <= 1))
            env.reset(seed=None)
        assert len(corners) == 4  # every corner is drawn
    finally:
        env.close()


def test_walls_block_and_open_tiles_are_walked(env):
    maze = tiles(env)
    env.set_field("x", 1)
    env.set_field("y", 1)
    env.set_field("gx", 9)  # the goal in the far corner, out of the way
    env.set_field("gy", 7)
    _, rew, term, trunc, _ = env.step(np.array([UP]))  # the border
    assert (env.field("x"), env.field("y")) == (1, 1) and env.field("heading") == UP
    assert rew[0] == pytest.approx(-0.001) and not term[0] and not trunc[0]
    move = RIGHT if maze[1, 2] != "#" else DOWN
    env.step(np.array([move]))
    assert (env.field("x"), env.field("y")) == ((2, 1) if move == RIGHT else (1, 2))
    blocked = next(d for d, (dx, dy) in MOVES.items() if maze[env.field("y") + dy, env.field("x") + dx] == "#")
    before = (env.field("x"), env.field("y"))
    env.step(np.array([blocked]))
    assert (env.field("x"), env.field("y")) == before and env.field("tick") == 3


def test_reaching_the_goal_pays_one_and_ends(env):
    maze = tiles(env)
    gx, gy = env.field("gx"), env.field("gy")
    d, (dx, dy) = next((d, m) for d, m in MOVES.items() if maze[gy - m[1], gx - m[0]] != "#")
    env.set_field("x", gx - dx)
    env.set_field("y", gy - dy)
    _, rew, term, trunc, _ = env.step(np.array([d]))
    assert rew[0] == 1 and term[0] and not trunc[0]
    assert env.field("tick") == 0 and env.field("heading") == 4  # a new maze, a new episode
    assert tiles(env).tobytes() != maze.tobytes()


def test_step_cost_and_truncation():
    env = envs.Maze(num_envs=1, max_steps=3, step_cost=0.05, log_interval=10**9)
    try:
        env.reset(seed=0)
        rewards, truncs = [], []
        for _ in range(3):
            _, rew, term, trunc, _ = env.step(np.array([UP]))
            rewards.append(rew[0])
            truncs.append(bool(trunc[0]))
            assert not term[0]
        assert rewards == pytest.approx([-0.05] * 3) and truncs == [False, False, True]
        stats = env.log()
        assert stats["score"] == 0 and stats["episode_return"] == pytest.approx(-0.15)
        assert stats["episode_length"] == 3 and stats["n"] == 1
    finally:
        env.close()


def test_observation_is_the_window_the_goal_the_compass_and_the_last_action(env):
    maze = tiles(env)
    env.set_field("x", 3)
    env.set_field("y", 3)
    env.set_field("gx", 5)
    env.set_field("gy", 1)
    obs, *_ = env.step(np.array([LEFT]))
    x, y = env.field("x"), env.field("y")
    assert obs.shape == (1, 250) and obs.dtype == np.uint8
    padded = np.full((maze.shape[0] + 10, maze.shape[1] + 10), "#")
    padded[5:-5, 5:-5] = maze
    window = padded[y:y + 11, x:x + 11]  # centred on (x, y) in the maze's coordinates
    np.testing.assert_array_equal(obs[0, :121].reshape(11, 11), (window == "#").astype(np.uint8))
    goal = np.zeros((11, 11), np.uint8)
    goal[1 - y + 5, 5 - x + 5] = 1
    np.testing.assert_array_equal(obs[0, 121:242].reshape(11, 11), goal)
    assert obs[0, 242:246].tolist() == [1, 0, 0, x < 5]  # up; right unless the agent reached x = 5
    assert obs[0, 246:250].tolist() == [0, 0, 1, 0]       # the last action: left
    blind = envs.Maze(num_envs=1, goal_direction=0)
    try:
        obs, _ = blind.reset(seed=0)
        assert obs[0, 242:].tolist() == [0] * 8  # no compass; no action yet
    finally:
        blind.close()


def test_same_seed_same_mazes_and_moves():
    a, b = envs.Maze(num_envs=4), envs.Maze(num_envs=4)
    try:
        rng = np.random.default_rng(0)
        first, _ = a.reset(seed=9)
        second, _ = b.reset(seed=9)
        np.testing.assert_array_equal(first, second)
        for _ in range(200):
            actions = rng.integers(0, 4, 4).astype(np.int32)
            np.testing.assert_array_equal(a.step(actions)[0], b.step(actions)[0])
        other, _ = b.reset(seed=10)
        assert not np.array_equal(a.reset(seed=9)[0], other)
    finally:
        a.close()
        b.close()


def test_the_wall_follower_solves_every_perfect_maze():
    """The right-hand rule reaches the goal of every perfect maze within 4 (cells - 1) steps."""
    env = envs.Maze(num_envs=32, width=6, height=6, max_steps=4 * 35, log_interval=10**9)
    try:
        obs, _ = env.reset(seed=3)
        for _ in range(600):
            obs, *_ = env.step(wall_follower_actions(obs))
        stats = env.log()
        assert stats["n"] >= 32 * 600 // 140 and stats["score"] == 1.0
    finally:
        env.close()


@pytest.mark.parametrize("kwargs, match", [({"width": 1}, "out of range"), ({"height": 65}, "out of range"),
                                           ({"loops": 1.5}, "out of range"), ({"size": 8}, "unknown argument")])
def test_bad_arguments_name_the_problem(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.Maze(**kwargs)
