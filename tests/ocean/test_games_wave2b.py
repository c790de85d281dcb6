"""Rules of the second-wave Ocean envs (continued): go, rware, trash_pickup, drone, enduro.

Each test sets up a position through the envs' test fields (`set_field`) or plays a
scripted policy read from the observation, then checks the rule: collisions, scoring,
game end, the opponent.
"""

import numpy as np
import pytest

from puffer_ocean import envs


def make(cls, **kwargs):
    env = cls(num_envs=1, **kwargs)
    env.reset(seed=0)
    return env


# ---- go ----

def go_groups(board, n):
    """(colour, stones, liberties) of every group of an n x n board (a flat list)."""
    seen, out = set(), []
    for start in range(n * n):
        if not board[start] or start in seen:
            continue
        stones, libs, todo = {start}, set(), [start]
        while todo:
            pos = todo.pop()
            x, y = pos % n, pos // n
            for q in [p for p, ok in ((pos - 1, x > 0), (pos + 1, x < n - 1), (pos - n, y > 0), (pos + n, y < n - 1))
                      if ok]:
                if board[q] == 0:
                    libs.add(q)
                elif board[q] == board[start] and q not in stones:
                    stones.add(q)
                    todo.append(q)
        seen |= stones
        out.append((board[start], stones, libs))
    return out


def go_play(board, pos, colour, n):
    """The board after `colour` plays `pos` and the stones captured; None if occupied or suicide."""
    if board[pos]:
        return None, 0
    after = list(board)
    after[pos] = colour
    captured = 0
    for c, stones, libs in go_groups(after, n):
        if c != colour and not libs:
            captured += len(stones)
            for s in stones:
                after[s] = 0
    if any(pos in stones and not libs for c, stones, libs in go_groups(after, n)):
        return None, 0
    return after, captured


def go_area(board, n, komi=7.5):
    seen, black, white = set(), board.count(1), board.count(2)
    for start in range(n * n):
        if board[start] or start in seen:
            continue
        region, touch, todo = {start}, set(), [start]
        while todo:
            pos = todo.pop()
            x, y = pos % n, pos // n
            for q in [p for p, ok in ((pos - 1, x > 0), (pos + 1, x < n - 1), (pos - n, y > 0), (pos + n, y < n - 1))
                      if ok]:
                if board[q]:
                    touch.add(board[q])
                elif q not in region:
                    region.add(q)
                    todo.append(q)
        seen |= region
        black += len(region) if touch == {1} else 0
        white += len(region) if touch == {2} else 0
    return black - white - komi


def test_go_legality_captures_scoring_and_the_greedy_opponent_follow_the_rules():
    n = 5
    env = make(envs.Go, grid_size=n)
    rng = np.random.default_rng(0)
    checked = {"legal": 0, "illegal": 0, "capture": 0, "atari_answer": 0, "end": 0}
    try:
        for _step in range(800):
            obs = env.observations[0]
            board = [int(v) for v in obs[:n * n]]
            empty = [i for i in range(n * n) if board[i] == 0]
            legal = [i for i in empty if go_play(board, i, 1, n)[0] is not None]
            move = int(rng.choice(empty)) if empty and rng.random() < 0.9 else int(rng.integers(0, n * n))
            if not legal or rng.random() < 0.03:
                move = -1  # pass: the opponent moves, or the game ends if it cannot
            after, captured = go_play(board, move, 1, n) if move >= 0 else (None, 0)
            ko_possible = captured == 1
            new_obs, rew, term, trunc, _ = env.step(np.array([move + 1]))
            final = env.final_observations[0] if (term[0] or trunc[0]) else new_obs[0]
            new_board = [int(v) for v in final[:n * n]]
            assert all(libs for _, _, libs in go_groups(new_board, n))  # nothing left without liberties
            assert final[2 * n * n] * n * n == pytest.approx(go_area(new_board, n), abs=1e-4)
            if term[0]:
                checked["end"] += 1
                area = go_area(new_board, n)
                assert rew[0] == pytest.approx(np.sign(area) + 0.1 + (0.25 if captured else 0), abs=0.26)
                continue
            if ko_possible or move < 0:
                continue
            if after is None:  # occupied or suicide: refused, nothing changes
                checked["illegal"] += 1
                assert rew[0] == pytest.approx(-0.1) and new_board == board
                continue
            checked["legal"] += 1
            checked["capture"] += captured > 0
            reply = env.field("last_opponent_move")
            assert after[reply] == 0 and new_board[reply] == 2  # the opponent answered on an empty point
            in_atari = {next(iter(libs)) for c, _, libs in go_groups(after, n) if len(libs) == 1}
            legal_atari = [p for p in in_atari if go_play(after, p, 2, n)[0] is not None]
            if legal_atari:  # capturing or saving a group in atari comes first
                checked["atari_answer"] += 1
                assert reply in in_atari
        assert all(count > 0 for count in checked.values()), checked
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


# ---- enduro ----

def test_enduro_throttle_steering_and_crashes():
    env = make(envs.Enduro)
    try:
        speed = env.field("speed")
        for _ in range(10):
            env.step(np.array([7]))  # accelerate right
        assert env.field("speed") > speed and env.field("px") > 0.5
        fast = env.field("speed")
        env.step(np.array([4]))  # brake
        assert env.field("speed") < fast
        env.set_field("eon[0]", 1)
        env.set_field("ex[0]", env.field("px"))
        env.set_field("ed[0]", 0.035)  # a rival just ahead, same line
        env.set_field("speed", 0.26)
        env.step(np.array([1]))
        assert env.field("cooldown") > 0 and env.field("speed") == pytest.approx(0.25)
        env.step(np.array([3]))  # steering is locked while the crash lasts
        px = env.field("px")
        env.step(np.array([3]))
        assert env.field("px") == pytest.approx(px, abs=1e-3)
    finally:
        env.close()


def test_enduro_overtaking_counts_off_and_being_overtaken_counts_back():
    env = make(envs.Enduro, cars_first_day=1, day_length=200)
    try:
        for name, value in (("eon[0]", 1), ("ex[0]", 0.9), ("px", 0.1), ("ed[0]", 0.001), ("speed", 1.0)):
            env.set_field(name, value)
        _, rew, term, _, _ = env.step(np.array([1]))
        assert rew[0] == 1 and env.field("cars_to_pass") == 0 and not term[0]
        for name, value in (("ed[0]", -0.001), ("speed", 0.25)):
            env.set_field(name, value)
        _, rew, _, _, _ = env.step(np.array([0]))
        assert rew[0] == -1 and env.field("cars_to_pass") == 1
        terms = []
        for _ in range(400):  # the day ends with a car still to pass: the race is over
            _, _, term, _, _ = env.step(np.array([4]))
            terms.append(bool(term[0]))
        assert any(terms) and env.log()["days_completed"] == 0
    finally:
        env.close()


def test_enduro_passing_the_quota_starts_the_next_day():
    env = make(envs.Enduro, cars_first_day=1, day_length=150)
    try:
        for name, value in (("eon[0]", 1), ("ex[0]", 0.9), ("px", 0.1), ("ed[0]", 0.001), ("speed", 1.0)):
            env.set_field(name, value)
        env.step(np.array([1]))
        assert env.field("cars_to_pass") == 0
        for _ in range(150):
            env.step(np.array([1]))
        assert env.field("day") == 2 and env.field("cars_to_pass") >= 290
    finally:
        env.close()
