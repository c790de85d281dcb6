"""Rules of ocean-space_invaders: the bullet kills the alien it meets and pays 1, one bullet at a
time, the formation marches, steps down at a wall and speeds up as it thins out, a cleared wave
brings the next, bombs cost lives, the game ends when the lives run out or the aliens land, and
its renders."""

import numpy as np
import pytest

from puffer_ocean import envs

NOTHING, LEFT, RIGHT, FIRE = 0, 1, 2, 3
W, H, COLS = 16, 14, 6


@pytest.fixture
def env():
    """A still formation (its next move 100 steps away) and no bombs unless a test drops one."""
    env = envs.SpaceInvaders(num_envs=1, march_interval=100, bomb_prob=0.0, render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def step(env, action):
    return env.step(np.array([action], np.int32))


def test_the_start_formation_and_the_cannon_moves_between_the_walls(env):
    assert env.render().splitlines()[:6] == ["." * W] + ["M.M.M.M.M.M....."] * 4 + ["." * W]
    assert (env.field("cannon"), env.field("fx"), env.field("fy"), env.field("dir")) == (8, 0, 1, 1)
    step(env, LEFT)
    assert env.field("cannon") == 7
    for _ in range(10):
        step(env, RIGHT)
    assert env.field("cannon") == W - 1  # stopped by the wall


def test_the_bullet_kills_the_lowest_alien_in_its_column_and_pays_one(env):
    env.set_field("cannon", 4)  # under the formation's third column (x = 2 * 2)
    rewards = [step(env, FIRE)[1][0]]
    assert env.field("bullet_on") == 1 and (env.field("bullet_x"), env.field("bullet_y")) == (4, H - 2)
    while env.field("bullet_on"):
        rewards.append(step(env, FIRE)[1][0])  # firing again does nothing while the bullet flies
    # rows 12 .. 4 (the bottom alien row): 9 steps, the last one the hit
    assert rewards == [0] * 8 + [1] and env.field("alive[20]") == 0 and env.field("hits") == 1
    assert sum(env.field(f"alive[{k}]") for k in range(24)) == 23
    rewards = [step(env, FIRE)[1][0] for _ in range(9)]  # the next shot flies a row higher
    assert rewards == [0] * 9 and env.field("bullet_y") == 4
    assert step(env, NOTHING)[1][0] == 1 and env.field("alive[14]") == 0


def test_a_bullet_in_an_empty_column_leaves_the_top(env):
    env.set_field("cannon", 5)  # between two alien columns
    step(env, FIRE)
    for _ in range(H - 1):  # rows 11 .. 0, then off the top
        _, rew, _, _, _ = step(env, NOTHING)
        assert rew[0] == 0
    assert env.field("bullet_on") == 0 and env.field("hits") == 0


def test_the_formation_marches_sideways_steps_down_at_the_wall_and_turns(env):
    env.set_field("fx", W - 1 - 2 * (COLS - 1) - 1)  # one column from the right wall
    env.set_field("timer", 1)
    step(env, NOTHING)
    assert (env.field("fx"), env.field("fy"), env.field("dir")) == (W - 11, 1, 1)
    env.set_field("timer", 1)
    step(env, NOTHING)  # the right-most alien at the wall: down one row, turn round
    assert (env.field("fx"), env.field("fy"), env.field("dir")) == (W - 11, 2, -1)
    assert env.field("timer") == 100  # the full formation's pace
    env.set_field("timer", 1)
    step(env, NOTHING)
    assert (env.field("fx"), env.field("fy")) == (W - 12, 2)


def test_a_thinned_formation_speeds_up_and_marches_to_the_wall(env):
    for k in range(24):
        env.set_field(f"alive[{k}]", int(k == 0))  # only alien (0, 0) left
    env.set_field("timer", 1)
    xs = []
    for _ in range(W):
        step(env, NOTHING)
        assert env.field("timer") == 1  # the last alien moves every step
        xs.append(env.field("fx"))
    assert xs == list(range(1, W)) + [W - 1] and env.field("fy") == 2  # the last alien reached the wall


def test_clearing_a_wave_brings_the_next_one_lower(env):
    for k in range(24):
        env.set_field(f"alive[{k}]", int(k == 18))  # only alien (3, 0), at column 0, row 4
    env.set_field("cannon", 0)
    rewards = [step(env, FIRE)[1][0] for _ in range(9)]
    assert rewards[-1] == 1 and env.field("wave") == 1 and env.field("alive_count") == 24
    assert (env.field("fx"), env.field("fy"), env.field("dir")) == (0, 2, 1)


def test_a_bomb_on_the_cannon_costs_a_life_and_the_last_life_ends_the_game(env):
    env.set_field("bomb_on[0]", 1)
    env.set_field("bomb_x[0]", 8)
    env.set_field("bomb_y[0]", H - 2)
    _, rew, term, _, _ = step(env, NOTHING)
    assert env.field("lives_left") == 2 and rew[0] == 0 and not term[0] and env.field("bomb_on[0]") == 0
    env.set_field("bomb_on[1]", 1)  # a bomb beside the cannon falls past it
    env.set_field("bomb_x[1]", 9)
    env.set_field("bomb_y[1]", H - 2)
    step(env, NOTHING)
    step(env, NOTHING)
    assert env.field("lives_left") == 2 and env.field("bomb_on[1]") == 0
    env.set_field("lives_left", 1)
    env.set_field("bomb_on[2]", 1)
    env.set_field("bomb_x[2]", 8)
    env.set_field("bomb_y[2]", H - 2)
    _, rew, term, trunc, _ = step(env, NOTHING)
    assert term[0] and not trunc[0] and env.field("lives_left") == 3 and env.field("tick") == 0  # a new game
    assert env.log()["n"] == 1


def test_the_aliens_reaching_the_cannon_row_end_the_game(env):
    env.set_field("fy", H - 5)  # the bottom alien row at row 12
    env.set_field("fx", W - 11)  # at the right wall: the next move is down
    env.set_field("timer", 1)
    _, _, term, _, _ = step(env, NOTHING)
    assert term[0] and env.field("fy") == 1  # a new game


def test_aliens_drop_bombs_below_themselves():
    env = envs.SpaceInvaders(num_envs=1, bomb_prob=1.0)
    try:
        env.reset(seed=0)
        env.step(np.array([NOTHING], np.int32))
        assert env.field("bomb_on[0]") == 1 and env.field("bomb_y[0]") == 5 and env.field("bomb_x[0]") % 2 == 0
        for _ in range(3):
            env.step(np.array([NOTHING], np.int32))
        assert all(env.field(f"bomb_on[{i}]") for i in range(3))  # at most three fall
        x, cannon = env.field("bomb_x[0]"), env.field("cannon")
        assert env.field("bomb_y[0]") == 8 and env.observations[0][39 + x - cannon + 15] >= 9 / 14
    finally:
        env.close()


def test_the_episode_is_truncated_after_max_steps():
    env = envs.SpaceInvaders(num_envs=1, bomb_prob=0.0, max_steps=5)
    try:
        env.reset(seed=0)
        truncs = [env.step(np.array([NOTHING], np.int32))[3][0] for _ in range(5)]
        assert truncs == [False] * 4 + [True]
    finally:
        env.close()


def test_the_renders_show_the_formation_the_cannon_and_the_shots(env):
    step(env, FIRE)
    text = env.render().splitlines()
    assert len(text) == H + 1 and text[-1] == "lives 3 hits 0 wave 0"
    assert text[H - 1] == "........A......." and text[H - 2][8] == "|" and sum(r.count("M") for r in text) == 24
    frames = envs.SpaceInvaders(num_envs=1, render_mode="rgb_array")
    try:
        frames.reset(seed=0)
        first = frames.render().copy()
        frames.step(np.array([LEFT], np.int32))
        assert first.shape == (H * 16, W * 16, 3) and (frames.render() != first).any()
    finally:
        frames.close()
