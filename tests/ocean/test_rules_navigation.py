"""Rules of the Ocean envs where agents move through a world to reach, carry or fly through things:
grid, target, convert, rware, trash_pickup, drone.

Each test places agents and objects through the env's test fields (`set_field`, read back
with `field`), or reads the world from the ansi render or the observation and plays a
scripted policy (a breadth-first path through the maze, steering toward a factory), then
checks the rule: walls and borders, pick-up and delivery, rewards, the end of the episode.
"""

import math
from collections import deque

import numpy as np
import pytest

from puffer_ocean import envs
from tests.ocean.rules_helpers import make

# ---- grid ----

def _reachable(maze: np.ndarray, start: tuple, goal: tuple) -> bool:
    seen, todo = {start}, deque([start])
    while todo:
        y, x = todo.popleft()
        if (y, x) == goal:
            return True
        for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (y + dy, x + dx)
            if maze[n] != "#" and n not in seen:
                seen.add(n)
                todo.append(n)
    return False


def test_grid_mazes_are_solvable_and_differ():
    env = envs.Grid(num_envs=4, size=15, render_mode="ansi")
    try:
        mazes = set()
        env.reset(seed=0)
        for i in range(4):
            text = env.render(env_id=i)
            maze = np.array([list(row) for row in text.strip("\n").split("\n")])
            assert maze.shape == (15, 15) and (maze[0] == "#").all() and (maze[:, -1] == "#").all()
            start = tuple(np.argwhere(maze == "@")[0])
            goal = tuple(np.argwhere(maze == "*")[0])
            assert start == (1, 1) and _reachable(maze, start, goal)
            mazes.add(text)
        assert len(mazes) == 4
        view = env.observations[0]
        assert view.shape == (11, 11) and (view[:5, :5] == 1).all()  # outside the maze, top-left: wall
    finally:
        env.close()


def test_grid_walls_block_and_the_goal_pays():
    env = envs.Grid(num_envs=1, size=5, render_mode="ansi")
    try:
        env.reset(seed=3)
        maze = np.array([list(r) for r in env.render().strip("\n").split("\n")])
        goal = tuple(np.argwhere(maze == "*")[0])
        env.step(np.array([0]))  # up from (1, 1) is the outer wall
        assert tuple(np.argwhere(np.array([list(r) for r in env.render().strip("\n").split("\n")]) == "@")[0]) == (1, 1)
        # Walk the maze breadth-first to the goal.
        prev, todo = {(1, 1): None}, deque([(1, 1)])
        moves = {(-1, 0): 0, (1, 0): 1, (0, -1): 2, (0, 1): 3}
        while todo:
            cur = todo.popleft()
            for (dy, dx) in moves:
                n = (cur[0] + dy, cur[1] + dx)
                if maze[n] != "#" and n not in prev:
                    prev[n] = cur
                    todo.append(n)
        path, cur = [], goal
        while prev[cur] is not None:
            path.append(moves[(cur[0] - prev[cur][0], cur[1] - prev[cur][1])])
            cur = prev[cur]
        for _i, move in enumerate(reversed(path)):
            _, rew, term, _, _ = env.step(np.array([move]))
        assert rew[0] == 1 and term[0]
    finally:
        env.close()


# ---- target ----

def test_target_reaching_a_star_pays_one_and_moves_the_star():
    env = make(envs.Target, num_agents=2, num_goals=1)
    try:
        env.set_field("ax[0]", 500.0)
        env.set_field("ay[0]", 300.0)
        env.set_field("speed[0]", 0.0)
        env.set_field("gx[0]", 520.0)
        env.set_field("gy[0]", 300.0)
        env.set_field("ax[1]", 10.0)  # the other puffer far away
        env.set_field("ay[1]", 700.0)
        env.set_field("speed[1]", 0.0)
        obs, rew, term, trunc, _ = env.step(np.array([[4, 2], [4, 2]]))  # no turn, no speed change
        assert rew.tolist() == [1.0, 0.0] and not term.any() and not trunc.any()
        assert (env.field("gx[0]"), env.field("gy[0]")) != (520.0, 300.0)
        assert obs[0, -3] == 1.0 and obs[1, -3] == 0.0  # last reward in the observation
        env.set_field("gx[0]", 1000.0)
        env.set_field("gy[0]", 20.0)
        _, rew, _, _, _ = env.step(np.array([[4, 2], [4, 2]]))
        assert rew.tolist() == [0.0, 0.0]
    finally:
        env.close()


def test_target_speed_heading_and_position_are_clamped():
    env = make(envs.Target, num_agents=1, num_goals=1, width=200, height=200)
    try:
        env.set_field("heading[0]", 0.0)
        env.set_field("ax[0]", 100.0)
        env.set_field("ay[0]", 100.0)
        env.set_field("gx[0]", 0.0)
        env.set_field("gy[0]", 199.0)
        for _ in range(30):
            env.step(np.array([[0, 4]]))  # turn left as far as possible, speed up
        assert env.field("heading[0]") == 0.0 and env.field("speed[0]") == 20.0
        assert env.field("ax[0]") == 200.0  # heading 0: along +x, stopped at the border
    finally:
        env.close()


def test_target_moves_along_its_heading():
    """Each step moves a puffer by speed * (cos, sin) of its heading (an inline sin/cos, to 3e-7)."""
    env = make(envs.Target, num_agents=1, num_goals=1, width=1000, height=1000)
    try:
        for heading in np.linspace(0, 2 * np.pi, 97, dtype=np.float32):
            env.set_field("heading[0]", float(heading))
            env.set_field("speed[0]", 20.0)
            env.set_field("ax[0]", 500.0)
            env.set_field("ay[0]", 500.0)
            env.step(np.array([[4, 2]]))  # no turn, no speed change
            moved = np.array([env.field("ax[0]") - 500.0, env.field("ay[0]") - 500.0])
            expected = 20.0 * np.array([np.cos(float(env.field("heading[0]"))), np.sin(float(env.field("heading[0]")))])
            np.testing.assert_allclose(moved, expected, atol=1e-4)
    finally:
        env.close()


def test_target_episode_is_truncated_after_max_steps_keeping_the_final_view():
    env = make(envs.Target, max_steps=5)
    try:
        for _step in range(5):
            obs, _, term, trunc, _ = env.step(np.full((8, 2), [4, 2]))
        assert trunc.all() and not term.any() and env.field("tick") == 0
        assert not np.array_equal(env.final_observations, obs)  # the new episode's view differs
        assert env.log()["episode_length"] == 5
    finally:
        env.close()


# ---- convert ----

def steer(obs_row, resources, width, height):
    """Turn toward the nearest factory of the held item, keeping the speed."""
    item = int(np.argmax(obs_row[2 * resources + 4:]))
    dx, dy = obs_row[2 * item] * width, obs_row[2 * item + 1] * height
    heading = obs_row[2 * resources] * 2 * math.pi
    want = math.atan2(dy, dx) % (2 * math.pi)
    turn = int(np.clip(round((want - heading) * 12), -4, 4))
    return [turn + 4, 2]


def test_convert_a_steered_puffer_converts_items_in_order():
    env = make(envs.Convert, num_agents=64, num_factories=2, num_resources=2, width=960, height=540,
               max_steps=10_000)
    try:
        obs = env.observations
        rng = np.random.default_rng(0)
        conversions, random_conversions = 0, 0
        for _ in range(5):
            obs, _, _, _, _ = env.step(np.array([[4, 4]] * 64))  # speed 10
        for _ in range(600):
            item = int(np.argmax(obs[0, 8:]))
            actions = rng.integers(0, [9, 5], (64, 2))
            actions[0] = steer(obs[0], 2, 960, 540)
            obs, rew, _, _, _ = env.step(actions)
            if rew[0]:
                conversions += 1
                assert int(np.argmax(obs[0, 8:])) == (item + 1) % 2  # the next item
            else:
                assert int(np.argmax(obs[0, 8:])) == item
            random_conversions += rew[1:].sum() / 63
        assert conversions >= 3 and conversions > 2 * random_conversions
    finally:
        env.close()


# ---- rware ----

def test_rware_pick_deliver_and_return_a_shelf():
    env = make(envs.Rware, num_agents=1, num_requested_shelves=1)
    try:
        env.set_field("loc[0]", 11)  # a shelf spot; make its shelf the requested one
        env.set_field("state[11]", 2)
        _, rew, _, _, _ = env.step(np.array([4]))
        assert rew[0] == 0.5 and env.field("load[0]") == 1
        env.set_field("dir[0]", 0)  # facing the shelf at 12: a loaded robot cannot go under it
        env.step(np.array([1]))
        assert env.field("loc[0]") == 11
        env.set_field("loc[0]", 104)  # a goal
        env.set_field("state[11]", 0)  # the shelf travelled with the robot
        _, rew, _, _, _ = env.step(np.array([4]))
        assert rew[0] == 0.5 and env.field("load[0]") == 2 and env.field("state[104]") == 3
        env.set_field("dir[0]", 3)
        env.step(np.array([1]))  # up, out of the goal
        assert env.field("loc[0]") == 94
        env.set_field("dir[0]", 1)
        env.step(np.array([1]))  # back down: an empty shelf may not enter a goal
        assert env.field("loc[0]") == 94
        env.set_field("loc[0]", 11)  # a free shelf spot
        _, rew, _, _, _ = env.step(np.array([4]))
        assert rew[0] == 1.0 and env.field("load[0]") == 0 and env.field("state[11]") == 1
    finally:
        env.close()


def test_rware_queues_move_together_and_conflicts_go_to_the_lower_index():
    env = make(envs.Rware, num_agents=2, num_requested_shelves=1, max_steps=3)
    try:
        for name, value in (("loc[0]", 30), ("dir[0]", 0), ("loc[1]", 31), ("dir[1]", 0)):
            env.set_field(name, value)
        env.step(np.array([1, 1]))  # a queue facing right: both advance
        assert (env.field("loc[0]"), env.field("loc[1]")) == (31, 32)
        for name, value in (("loc[0]", 33), ("dir[0]", 0), ("loc[1]", 35), ("dir[1]", 2)):
            env.set_field(name, value)
        _, _, _, trunc, _ = env.step(np.array([1, 1]))  # both want 34: robot 0 gets it
        assert (env.field("loc[0]"), env.field("loc[1]")) == (34, 35) and not trunc.any()
        _, _, term, trunc, _ = env.step(np.array([0, 0]))
        assert trunc.all() and not term.any() and env.field("tick") == 0
    finally:
        env.close()


# ---- trash_pickup ----

def trash_grid(env, g):
    """The grid as rows of characters from the ansi render: . empty, t trash, B bin, agents."""
    return env.render().splitlines()[:g]


def find_with_free_left(grid, kind, g, free_right=False):
    for y in range(g):
        for x in range(1, g - 1 if free_right else g):
            if grid[y][x] == kind and grid[y][x - 1] == "." and (not free_right or grid[y][x + 1] == "."):
                return x, y
    raise AssertionError(f"no {kind} with a free cell on its left")


def test_trash_pickup_pick_deposit_and_push_a_bin():
    g = 10
    env = make(envs.TrashPickup, num_agents=1, num_trash=3, num_bins=2, render_mode="ansi")
    try:
        x, y = find_with_free_left(trash_grid(env, g), "t", g)
        env.set_field("ax[0]", x - 1)
        env.set_field("ay[0]", y)
        _, rew, _, _, _ = env.step(np.array([3]))  # right, onto the trash
        assert rew[0] == pytest.approx(0.49) and env.field("carrying[0]") == 1 and env.field("ax[0]") == x
        x, y = find_with_free_left(trash_grid(env, g), "B", g)
        env.set_field("ax[0]", x - 1)
        env.set_field("ay[0]", y)
        _, rew, _, _, _ = env.step(np.array([3]))  # into the bin: the trash goes in, the agent stays
        assert rew[0] == pytest.approx(0.49) and env.field("carrying[0]") == 0
        assert env.field("ax[0]") == x - 1 and env.field("deposited") == 1
        grid = trash_grid(env, g)
        far = next((x, y) for y in (0, g - 1) for x in (0, g - 1) if grid[y][x] == ".")
        env.set_field("ax[0]", far[0])  # out of the way of the bins
        env.set_field("ay[0]", far[1])
        env.step(np.array([4]))
        x, y = find_with_free_left(trash_grid(env, g), "B", g, free_right=True)
        env.set_field("ax[0]", x - 1)
        env.set_field("ay[0]", y)
        _, rew, _, _, _ = env.step(np.array([3]))  # empty-handed into the bin: pushes it
        grid = trash_grid(env, g)
        assert rew[0] == pytest.approx(-0.01) and env.field("ax[0]") == x and grid[y][x + 1] == "B"
    finally:
        env.close()


def test_trash_pickup_ends_when_every_piece_is_in_a_bin():
    g = 10
    env = make(envs.TrashPickup, num_agents=2, num_trash=1, num_bins=1, render_mode="ansi")
    try:
        x, y = find_with_free_left(trash_grid(env, g), "t", g)
        env.set_field("ax[0]", x - 1)
        env.set_field("ay[0]", y)
        env.step(np.array([3, 4]))
        x, y = find_with_free_left(trash_grid(env, g), "B", g)
        env.set_field("ax[0]", x - 1)
        env.set_field("ay[0]", y)
        _, rew, term, trunc, _ = env.step(np.array([3, 4]))
        assert term.all() and not trunc.any() and rew.tolist() == pytest.approx([0.49, -0.01])
        assert env.log()["score"] == 1
    finally:
        env.close()


def trash_view(grid, g, r, x, y, agents):
    """The observation of the agent at (x, y) by the rule, from the ansi grid and `agents` ((x, y) ->
    carrying) (5 planes of the (2 r + 1)^2 window: 1 trash, 2 bin, 3 agent, 4 agents carrying;
    plane 0 and off-grid cells 0)."""
    side = 2 * r + 1
    view = np.zeros((5, side, side), np.uint8)
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            cell = (x + dx, y + dy)
            if not (0 <= cell[0] < g and 0 <= cell[1] < g):
                continue
            kind = 3 if cell in agents else {"t": 1, "B": 2}.get(grid[cell[1]][cell[0]], 0)
            view[kind, dy + r, dx + r] = 1
            view[4, dy + r, dx + r] = agents.get(cell, 0)
    view[0] = 0
    return view.reshape(-1)


@pytest.mark.parametrize("grid_size,sight", [(10, 5), (10, 2), (6, 3)])
def test_trash_pickup_observation_is_each_agents_window_of_the_grid(grid_size, sight):
    env = make(envs.TrashPickup, grid_size=grid_size, num_agents=3, num_trash=6, num_bins=2,
               agent_sight_range=sight, render_mode="ansi")
    rng = np.random.default_rng(grid_size + sight)
    try:
        for _ in range(150):
            obs, _, _, _, _ = env.step(rng.integers(0, 5, 3))
            grid = trash_grid(env, grid_size)
            # agents 0 and 1 from their fields (agent 1 renders as "B", like a bin), agent 2 as "C"
            spots = [(int(env.field(f"ax[{a}]")), int(env.field(f"ay[{a}]"))) for a in (0, 1)]
            spots += [next((x, y) for y in range(grid_size) for x in range(grid_size) if grid[y][x] in "Cc")]
            agents = {(x, y): int(grid[y][x].islower()) for x, y in spots}
            for a, (x, y) in enumerate(spots):
                np.testing.assert_array_equal(obs[a], trash_view(grid, grid_size, sight, x, y, agents))
    finally:
        env.close()


# ---- drone ----

def drone_at(env, **state):
    for name, value in state.items():
        env.set_field(name, float(value))


def test_drone_thrust_lifts_differential_thrust_rolls_and_gravity_pulls():
    env = make(envs.Drone)
    try:
        drone_at(env, x=0, y=0, z=0, rx=20, ry=20, rz=5)
        for _ in range(10):
            env.step(np.ones((1, 4), np.float32))
        assert env.field("vz") > 0 and env.field("z") > 0 and env.field("qw") == pytest.approx(1.0, abs=1e-5)
        env.reset(seed=0)
        drone_at(env, x=0, y=0, z=0, rx=20, ry=20, rz=5)
        for _ in range(5):
            env.step(np.full((1, 4), -1.0, np.float32))
        assert env.field("vz") < -2 and env.field("z") < 0
        env.reset(seed=0)
        drone_at(env, x=0, y=0, z=0, rx=20, ry=20, rz=5)
        env.step(np.array([[1, 1, -1, -1]], np.float32))  # right motors faster: roll about +x
        assert env.field("wx") > 0 and abs(env.field("wy")) < 1e-6
        env.step(np.full((1, 4), 5.0, np.float32))  # outside the box: clipped to 1, not an error
    finally:
        env.close()


def test_drone_passing_a_ring_scores_and_leaving_the_box_ends_the_flight():
    env = make(envs.Drone, max_rings=3)
    try:
        hover = [[-0.17] * 4]
        drone_at(env, rx=0, ry=0, rz=0, nx=1, ny=0, nz=0, x=-0.2, y=0.5, z=0, vx=8, vy=0, vz=0)
        _, rew, term, _, _ = env.step(np.array(hover, np.float32))
        assert rew[0] == 1 and env.field("ring") == 1 and not term[0]
        assert (env.field("rx"), env.field("ry"), env.field("rz")) != (0, 0, 0)
        drone_at(env, rx=0, ry=0, rz=0, nx=1, ny=0, nz=0, x=-0.2, y=2.5, z=0, vx=8, vy=0, vz=0)
        env.step(np.array(hover, np.float32))  # through the plane, outside the ring
        assert env.field("ring") == 1
        drone_at(env, z=9.99, vz=20)
        _, rew, term, _, _ = env.step(np.array(hover, np.float32))
        assert term[0] and rew[0] == -1 and env.log()["out_of_bounds"] == 1
    finally:
        env.close()
