"""Rules of ocean-boxoban: generated levels are solvable by replaying the generator's reversed
pulls, and well formed; pushing (one box at a time, never into a wall or a second box, never
pulling), the rewards for boxes onto and off goals and for solving, the step cost and the
truncation, the observation's planes, seeding.

Hand-set levels are written through the test fields: `wall[y]`, `box[y]`, `goal[y]` are bit
rows (bit x of row y), `px`, `py` the player; the text uses Sokoban's usual characters."""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs

UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
COST = 0.1


def put_level(env, text):
    """Write a level (# wall, . goal, $ box, * box on a goal, @ player, + player on a goal) into copy 0."""
    rows = text.strip("\n").split("\n")
    for name, chars in (("wall", "#"), ("box", "$*"), ("goal", ".*+")):
        for y in range(16):
            row = rows[y] if y < len(rows) else ""
            env.set_field(f"{name}[{y}]", sum(1 << x for x, c in enumerate(row) if c in chars))
    y = next(i for i, row in enumerate(rows) if "@" in row or "+" in row)
    env.set_field("px", max(rows[y].find("@"), rows[y].find("+")))
    env.set_field("py", y)


def grid(env, i=0):
    return env.render(env_id=i).strip("\n").split("\n")


LEVEL = """
#######
#     #
# $$. #
#@  $.#
#  . $#
#######
#######
"""


@pytest.fixture
def env():
    env = envs.Boxoban(num_envs=1, size=7, boxes=1, render_mode="ansi", log_interval=10**9)
    env.reset(seed=0)
    put_level(env, LEVEL)
    yield env
    env.close()


def step(env, action):
    _, rew, term, trunc, _ = env.step(np.array([action]))
    return float(rew[0]), bool(term[0]), bool(trunc[0])


@pytest.mark.parametrize("kwargs", [dict(size=7, boxes=2, pull_moves=12), dict(size=10, boxes=4, pull_moves=60),
                                    dict(size=16, boxes=8, pull_moves=100), dict(size=5, boxes=1, pull_moves=5)])
def test_every_level_is_solved_by_replaying_the_generators_reversed_pulls(kwargs):
    copies = 64
    env = envs.Boxoban(num_envs=copies, max_steps=200, render_mode="ansi", **kwargs)
    try:
        env.reset(seed=4)
        size, boxes = kwargs["size"], kwargs["boxes"]
        solutions = []
        for i in range(copies):
            level = grid(env, i)
            assert len(level) == size and all(len(row) == size for row in level)
            assert level[0] == "#" * size == level[-1] and all(r[0] == "#" == r[-1] for r in level)
            text = "".join(level)
            assert text.count("$") + text.count("*") == boxes
            assert text.count(".") + text.count("*") + text.count("+") == boxes
            assert text.count("$") >= 1 and text.count("@") + text.count("+") == 1  # not solved at the start
            solutions.append([env.field(f"sol[{k}]", i) for k in range(env.field("sol_len", i))])
        solved = np.zeros(copies, bool)
        for k in range(max(map(len, solutions))):
            playing = np.array([k < len(s) for s in solutions]) & ~solved
            _, rew, term, _, _ = env.step(np.array([s[k] if k < len(s) else 0 for s in solutions], np.int32))
            assert (rew[playing & term] >= 10).all()
            solved |= playing & term.astype(bool)
        assert solved.all()
    finally:
        env.close()


def test_the_player_walks_on_floor_and_walls_block(env):
    assert step(env, LEFT) == (pytest.approx(-COST), False, False)  # a wall
    assert (env.field("px"), env.field("py")) == (1, 3)
    step(env, DOWN)
    assert (env.field("px"), env.field("py")) == (1, 4)


def test_a_push_moves_one_box_and_scores_the_goal(env):
    step(env, UP)  # (1, 2)
    rew, term, _ = step(env, RIGHT)  # (2, 2) holds a box; beyond it (3, 2) another: blocked
    assert rew == pytest.approx(-COST) and (env.field("px"), env.field("py")) == (1, 2)
    assert grid(env)[2] == "#@$$. #"
    step(env, DOWN)
    step(env, RIGHT)  # (2, 3)
    rew, term, _ = step(env, RIGHT)  # pushes the box at (3, 3)? no: (3, 3) is floor
    assert grid(env)[3] == "#  @$.#"
    rew, term, _ = step(env, RIGHT)  # pushes the box from (4, 3) onto the goal at (5, 3)
    assert rew == pytest.approx(1 - COST) and not term
    assert grid(env)[3] == "#   @*#"
    rew, _, _ = step(env, RIGHT)  # the box on the goal is against the wall: it stays
    assert rew == pytest.approx(-COST) and grid(env)[3] == "#   @*#"


def test_a_box_pushed_off_a_goal_costs_one_and_boxes_are_never_pulled():
    env = envs.Boxoban(num_envs=1, size=7, boxes=1, render_mode="ansi")
    try:
        env.reset(seed=0)
        put_level(env, "#######\n#     #\n#@*  .#\n#     #\n#     #\n#     #\n#######")
        rew, term, _ = step(env, RIGHT)
        assert rew == pytest.approx(-1 - COST) and not term and grid(env)[2] == "# +$ .#"
        step(env, LEFT)  # walking away leaves the box where it is
        assert grid(env)[2] == "#@.$ .#"
    finally:
        env.close()


def test_solving_pays_ten_more_and_ends_the_episode():
    env = envs.Boxoban(num_envs=1, size=7, boxes=2, render_mode="ansi", log_interval=10**9)
    try:
        env.reset(seed=0)
        put_level(env, "#######\n#     #\n#@$.  #\n#  *  #\n#     #\n#     #\n#######")
        rew, term, trunc = step(env, RIGHT)
        assert rew == pytest.approx(1 + 10 - COST) and term and not trunc
        stats = env.log()
        assert stats["score"] == 1 and stats["boxes_on_goals"] == 1 and stats["episode_length"] == 1
        assert env.field("tick") == 0  # a new level
    finally:
        env.close()


def test_truncation_after_max_steps_scores_the_boxes_on_goals():
    env = envs.Boxoban(num_envs=1, size=7, boxes=2, max_steps=2, step_cost=0.5, log_interval=10**9)
    try:
        env.reset(seed=0)
        put_level(env, "#######\n#     #\n#@$.  #\n#  .$ #\n#     #\n#     #\n#######")
        assert step(env, UP) == (-0.5, False, False)
        assert step(env, UP) == (-0.5, False, True)
        stats = env.log()
        assert stats["score"] == 0 and stats["boxes_on_goals"] == 0 and stats["episode_return"] == -1.0
    finally:
        env.close()


def test_observation_planes(env):
    obs, *_ = env.step(np.array([LEFT]))  # blocked: the hand-set level, observed
    assert obs.shape == (1, 7, 7, 6) and obs.dtype == np.uint8
    planes = obs[0]
    level = [row.ljust(7) for row in LEVEL.strip("\n").split("\n")]
    expect = {0: "#", 1: " .$*@+", 2: ".*+", 3: "$", 4: "*", 5: "@+"}
    for plane, chars in expect.items():
        want = np.array([[c in chars for c in row] for row in level], np.uint8)
        np.testing.assert_array_equal(planes[:, :, plane], want, err_msg=f"plane {plane}")


def test_same_seed_same_levels():
    a, b = envs.Boxoban(num_envs=4), envs.Boxoban(num_envs=4)
    try:
        rng = np.random.default_rng(0)
        np.testing.assert_array_equal(a.reset(seed=7)[0], b.reset(seed=7)[0])
        for _ in range(300):
            actions = rng.integers(0, 4, 4).astype(np.int32)
            np.testing.assert_array_equal(a.step(actions)[0], b.step(actions)[0])
        assert not np.array_equal(a.reset(seed=7)[0], b.reset(seed=8)[0])
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("kwargs, match", [({"size": 6, "boxes": 5}, "do not fit"), ({"size": 17}, "out of range"),
                                           ({"pull_moves": 101}, "out of range"), ({"box": 2}, "unknown argument")])
def test_bad_arguments_name_the_problem(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.Boxoban(**kwargs)
