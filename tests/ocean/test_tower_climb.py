"""Rules of Ocean's tower_climb: walking, climbing, walking off edges and hanging, pushing
and pulling blocks, falling blocks, the goal, the level bank and the observation.

Each test builds a small world through the env's test fields (the block bitset
`s.bits[i]`, the robot `s.pos` / `s.orient` / `s.hang` / `s.holding`, the goal) and checks
one rule; cells are x + 10 z + 100 y.
"""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs

CLIMB, FALL, ILLEGAL, BLOCK = 0.16, -0.13, -0.005, 0.035  # the default rewards
FAR_GOAL = 9 + 10 * 0 + 100 * 1  # a goal on floor 1 in a corner, out of the way


def cell(x, z, y):
    return x + 10 * z + 100 * y


def slab(x0, x1, z0, z1, y=1):
    return {cell(x, z, y) for x in range(x0, x1 + 1) for z in range(z0, z1 + 1)}


def build(env, blocks, pos, orient=0, goal=FAR_GOAL, hang=0, holding=0):
    """Replace copy 0's world: these blocks, the robot at pos, the goal."""
    words = [0] * 32
    for c in blocks:
        words[c // 32] |= 1 << (c % 32)
    for i, w in enumerate(words):
        env.set_field(f"s.bits[{i}]", w - (1 << 32) if w >= 1 << 31 else w)
    for name, value in (("s.pos", pos), ("s.orient", orient), ("s.hang", hang), ("s.holding", holding),
                        ("goal", goal), ("best_floor", pos // 100)):
        env.set_field(name, value)


def blocks_of(env):
    cells = set()
    for i in range(32):
        w = int(env.field(f"s.bits[{i}]")) & 0xFFFFFFFF
        cells |= {32 * i + b for b in range(32) if w >> b & 1}
    return cells


def step(env, action):
    obs, rew, term, trunc, _ = env.step(np.array([action]))
    return obs[0], float(rew[0]), bool(term[0]), bool(trunc[0])


@pytest.fixture
def env():
    env = envs.TowerClimb(num_envs=1)
    env.reset(seed=0)
    yield env
    env.close()


def test_tower_climb_walks_turns_and_climbs_one_block_at_a_time(env):
    world = slab(0, 6, 5, 5) | {cell(3, 5, 2), cell(4, 5, 2), cell(4, 5, 3)}
    build(env, world, cell(1, 5, 2), orient=0)
    _, rew, _, _ = step(env, 0)  # walk onto the next block
    assert env.field("s.pos") == cell(2, 5, 2) and rew == 0
    _, rew, _, _ = step(env, 0)  # a block in front: climb onto it, a new highest floor
    assert env.field("s.pos") == cell(3, 5, 3) and rew == pytest.approx(CLIMB)
    _, rew, _, _ = step(env, 1)  # another direction only turns
    assert env.field("s.pos") == cell(3, 5, 3) and env.field("s.orient") == 1 and rew == 0
    step(env, 0)
    _, rew, _, _ = step(env, 0)  # (4, 5, 3) then (4, 5, 4): climb again, one more floor
    assert env.field("s.pos") == cell(4, 5, 4) and rew == pytest.approx(CLIMB)
    build(env, world | {cell(4, 5, 4)}, cell(3, 5, 3), orient=0)
    _, rew, _, _ = step(env, 0)  # a wall two blocks high cannot be climbed
    assert env.field("s.pos") == cell(3, 5, 3) and rew == pytest.approx(ILLEGAL)
    build(env, world | {cell(2, 5, 3)}, cell(2, 5, 2), orient=0)
    step(env, 0)  # the cell above the robot is taken: no room to climb
    assert env.field("s.pos") == cell(2, 5, 2)


def test_tower_climb_walking_off_an_edge_steps_down_or_hangs_and_letting_go_falls(env):
    column = {cell(2, 5, 1), cell(2, 5, 2)}
    build(env, column | {cell(3, 5, 1)}, cell(2, 5, 3), orient=0)
    _, rew, _, _ = step(env, 0)  # a block two floors below the next cell: one floor down
    assert env.field("s.pos") == cell(3, 5, 2) and not env.field("s.hang") and rew == pytest.approx(FALL)
    build(env, column, cell(2, 5, 3), orient=0)
    step(env, 0)  # nothing there: hang from the edge just left, facing it
    assert (env.field("s.pos"), env.field("s.hang"), env.field("s.orient")) == (cell(3, 5, 2), 1, 2)
    _, rew, _, _ = step(env, 1)  # down does nothing while hanging
    assert rew == pytest.approx(ILLEGAL)
    step(env, 3)  # climb back up
    assert (env.field("s.pos"), env.field("s.hang")) == (cell(2, 5, 3), 0)
    build(env, column | {cell(2, 5, 3), cell(3, 5, 1)}, cell(2, 5, 4), orient=0)
    step(env, 0)
    assert env.field("s.pos") == cell(3, 5, 3) and env.field("s.hang")
    _, rew, term, _ = step(env, 5)  # let go: land on the first block below
    assert env.field("s.pos") == cell(3, 5, 2) and not env.field("s.hang") and not term and rew == pytest.approx(FALL)
    build(env, column, cell(3, 5, 2), orient=2, hang=1)
    _, rew, term, _ = step(env, 5)  # nothing below: into the void
    assert term and rew == -1


def test_tower_climb_shimmies_along_edges_and_around_corners(env):
    ledge = {cell(2, 5, 2), cell(2, 6, 2)}
    build(env, ledge, cell(3, 5, 2), orient=2, hang=1)  # hanging from (2, 5, 2), facing -x
    step(env, 2)  # shimmy left (facing -x, left is +z): along the edge to (3, 6, 2)
    assert (env.field("s.pos"), env.field("s.orient")) == (cell(3, 6, 2), 2)
    step(env, 2)  # the edge ends: around the outer corner, now facing -z
    assert (env.field("s.pos"), env.field("s.orient"), env.field("s.hang")) == (cell(2, 7, 2), 3, 1)
    build(env, ledge | {cell(3, 6, 2)}, cell(3, 5, 2), orient=2, hang=1)
    step(env, 2)  # a block beside the robot: turn to hang from it (inner corner)
    assert (env.field("s.pos"), env.field("s.orient")) == (cell(3, 5, 2), 1)


def test_tower_climb_push_moves_the_whole_row_and_pull_steps_back(env):
    floor = slab(0, 9, 5, 5)
    build(env, floor | {cell(2, 5, 2), cell(3, 5, 2)}, cell(1, 5, 2), orient=0)
    step(env, 4)  # grab
    assert env.field("s.holding") == 1
    _, rew, _, _ = step(env, 0)  # push: both blocks move one cell, the robot stays and lets go
    assert blocks_of(env) == floor | {cell(3, 5, 2), cell(4, 5, 2)} and rew == pytest.approx(BLOCK)
    assert env.field("s.pos") == cell(1, 5, 2) and env.field("s.holding") == 0
    step(env, 0)  # walk up to the row, grab, pull it back a cell
    step(env, 4)
    _, rew, _, _ = step(env, 2)
    assert blocks_of(env) == floor | {cell(2, 5, 2), cell(4, 5, 2)} and rew == pytest.approx(BLOCK)
    assert env.field("s.pos") == cell(1, 5, 2) and env.field("s.holding") == 1
    step(env, 1)  # a side direction turns and lets go
    assert env.field("s.orient") == 1 and env.field("s.holding") == 0
    build(env, floor | {cell(9, 5, 2)}, cell(8, 5, 2), orient=0, holding=1)
    _, rew, _, _ = step(env, 0)  # not past the world's edge
    assert rew == pytest.approx(ILLEGAL) and cell(9, 5, 2) in blocks_of(env)


def test_tower_climb_pulling_over_nothing_leaves_the_robot_hanging(env):
    build(env, {cell(2, 5, 1), cell(3, 5, 2), cell(3, 5, 1)}, cell(2, 5, 2), orient=0, holding=1)
    step(env, 2)  # step back over the void: the block takes the robot's cell, the robot hangs below it
    assert cell(2, 5, 2) in blocks_of(env) and cell(3, 5, 2) not in blocks_of(env)
    assert (env.field("s.pos"), env.field("s.hang"), env.field("s.holding")) == (cell(1, 5, 1), 1, 0)


def test_tower_climb_unsupported_blocks_fall_and_can_crush_the_robot(env):
    floor = slab(0, 6, 3, 6)
    # (4, 5, 3) rests edge to edge on (3, 5, 2) only; pulling (3, 5, 2) away drops it a floor
    build(env, floor | {cell(3, 5, 2), cell(4, 5, 3)}, cell(3, 4, 2), orient=1, holding=1)
    _, _, term, _ = step(env, 3)
    assert blocks_of(env) == floor | {cell(3, 4, 2), cell(4, 5, 2)} and not term
    # the same block over the robot: pushing its support away drops it onto the robot
    build(env, floor | {cell(3, 5, 2), cell(4, 5, 3)}, cell(4, 5, 2), orient=2, holding=1)
    _, rew, term, _ = step(env, 2)
    assert term and rew == -1


def test_tower_climb_a_move_that_would_drop_the_goal_is_illegal(env):
    floor = slab(0, 6, 5, 5)
    goal = cell(4, 5, 3)  # resting edge to edge on (3, 5, 2) only
    build(env, floor | {cell(3, 5, 2)}, cell(2, 5, 2), orient=0, goal=goal, holding=1)
    _, rew, _, _ = step(env, 2)
    assert rew == pytest.approx(ILLEGAL) and cell(3, 5, 2) in blocks_of(env) and env.field("s.pos") == cell(2, 5, 2)


def test_tower_climb_standing_on_the_goal_wins_and_every_level_is_solved_by_its_solution():
    env = envs.TowerClimb(num_envs=1, num_maps=64)
    try:
        seen = set()
        for seed in range(2000):
            env.reset(seed=seed)
            level = int(env.field("level"))
            if level in seen:
                continue
            seen.add(level)
            n = int(env.field("solution_len"))
            assert 10 <= n <= 30
            for i in range(n):
                _, rew, term, trunc = step(env, int(env.field(f"solution[{i}]")))
                assert not trunc and term == (i == n - 1)
            assert rew >= 1
            assert env.log()["perf"] == 1
            if len(seen) == 64:
                break
        assert len(seen) == 64
    finally:
        env.close()


def test_tower_climb_start_on_solution_starts_partway_along_it_and_logs_only_full_episodes():
    env = envs.TowerClimb(num_envs=1, start_on_solution=1.0, log_interval=1)
    try:
        replayed = []
        for seed in range(200):
            env.reset(seed=seed)
            k, n = int(env.field("replayed")), int(env.field("solution_len"))
            assert 0 <= k < n  # at least the last move is left to play
            replayed.append(k)
            for i in range(k, n):  # the rest of the solution wins from where it starts
                _, _, term, trunc, info = env.step(np.array([int(env.field(f"solution[{i}]"))]))
                assert not trunc[0] and term[0] == (i == n - 1)
            # an episode that started partway is left out of the log; one from the start is logged
            assert (info[0]["perf"] == 1 and info[0]["episode_length"] == n) if k == 0 else not info
            if 0 in replayed and len(set(replayed)) > 5:
                break
        assert 0 in replayed and len(set(replayed)) > 5
    finally:
        env.close()
    env = envs.TowerClimb(num_envs=64)  # the default: every episode from the level's start
    try:
        env.reset(seed=0)
        assert all(env.field("replayed", i) == 0 for i in range(64))
    finally:
        env.close()


def test_tower_climb_trains_along_the_solution_and_evaluates_from_the_start():
    from pufferlib.config import env_config, load_default, merge
    from pufferlib.train.evaluation import eval_env_config

    spec_config, kwargs = env_config("ocean-tower_climb")
    config = merge(load_default(), {"env": kwargs}, spec_config)  # the shipped config's layers
    assert config["env"]["start_on_solution"] == 0.8
    assert eval_env_config(config)["env"]["start_on_solution"] == 0


def test_tower_climb_truncates_after_max_steps_and_reports_floors_climbed():
    env = envs.TowerClimb(num_envs=1, max_steps=4, log_interval=1)
    try:
        env.reset(seed=0)
        for i in range(4):
            _, _, term, trunc, info = env.step(np.array([5]))  # letting go while standing: illegal
            assert not term[0] and trunc[0] == (i == 3)
        assert info[0]["score"] == 0 and info[0]["episode_length"] == 4 and info[0]["perf"] == 0
        assert info[0]["episode_return"] == pytest.approx(4 * ILLEGAL)
    finally:
        env.close()


def window_start(centre, size):
    return min(max(centre - size // 2, 0), 10 - size)


def test_tower_climb_observes_the_cells_around_the_robot(env):
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        obs = obs[0]
        blocks, pos, goal = blocks_of(env), int(env.field("s.pos")), int(env.field("goal"))
        x0, z0, y0 = window_start(pos % 10, 9), window_start(pos // 10 % 10, 5), window_start(pos // 100 + 1, 5)
        want = np.zeros(225, np.uint8)
        for y in range(5):
            for z in range(5):
                for x in range(9):
                    c = cell(x0 + x, z0 + z, y0 + y)
                    want[x + 9 * z + 45 * y] = 3 if c == pos else 2 if c == goal else int(c in blocks)
        assert np.array_equal(obs[:225], want)
        assert list(obs[225:]) == [env.field("s.orient"), 0, 0] and (obs[:225] == 3).sum() == 1


@pytest.mark.parametrize("kwargs, match", [({"num_maps": 0}, "out of range"), ({"num_maps": 65}, "out of range"),
                                           ({"max_steps": 0}, "out of range"), ({"num_map": 5}, "unknown argument")])
def test_tower_climb_bad_arguments_and_actions_raise(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.TowerClimb(**kwargs)
    env = envs.TowerClimb(num_envs=2)
    try:
        env.reset(seed=0)
        with pytest.raises(pufferlib.APIUsageError):
            env.step(np.array([6, 0]))
    finally:
        env.close()


def test_tower_climb_renders_every_floor(env):
    env.close()
    for mode in ("ansi", "rgb_array"):
        e = envs.TowerClimb(num_envs=1, render_mode=mode)
        try:
            e.reset(seed=0)
            out = e.render()
            if mode == "ansi":
                assert "floor 9" in out and "G" in out and "^" in out
            else:
                assert out.shape == (384, 384, 3) and len(np.unique(out.reshape(-1, 3), axis=0)) >= 4
        finally:
            e.close()
