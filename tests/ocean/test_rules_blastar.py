"""Rules of ocean-blastar: the ship moves and fires one bullet at a time, a bullet that meets the
enemy destroys it (+1) and it comes back later, the enemy's beam freezes the ship and costs a
life, touching the enemy costs a life, the last life ends the game, and its renders."""

import numpy as np
import pytest

from puffer_ocean import envs

NOTHING, LEFT, RIGHT, UP, DOWN, FIRE = range(6)
W, H = 16, 12


@pytest.fixture
def env():
    """An enemy that never fires its beam unless a test says so."""
    env = envs.Blastar(num_envs=1, attack_prob=0.0, render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def step(env, action):
    return env.step(np.array([action], np.int32))


def place_enemy(env, x, y, timer=2):
    env.set_field("enemy_on", 1)
    env.set_field("ex", x)
    env.set_field("ey", y)
    env.set_field("enemy_timer", timer)


def test_the_ship_moves_between_the_walls_and_the_enemy_flies_right_and_wraps(env):
    assert (env.field("px"), env.field("py"), env.field("ex")) == (8, H - 1, 0) and env.field("ey") < H // 2
    step(env, DOWN)
    assert env.field("py") == H - 1  # the bottom edge
    step(env, UP)
    step(env, LEFT)
    assert (env.field("px"), env.field("py")) == (7, H - 2)
    place_enemy(env, W - 1, 0, timer=1)
    step(env, NOTHING)
    assert (env.field("ex"), env.field("enemy_timer")) == (0, 2)  # wrapped round, the next move 2 steps away
    step(env, NOTHING)
    step(env, NOTHING)
    assert env.field("ex") == 1


def test_a_bullet_that_meets_the_enemy_destroys_it_and_it_comes_back_later(env):
    place_enemy(env, 8, 5, timer=100)  # a still enemy six rows above the ship
    rewards = [step(env, FIRE)[1][0]]
    assert env.field("bullet_on") and env.field("bullet_y") == H - 2
    while env.field("bullet_on"):
        rewards.append(step(env, FIRE)[1][0])  # one bullet at a time
    assert rewards == [0] * 5 + [1] and env.field("kills") == 1 and env.field("enemy_on") == 0
    for _ in range(4):
        step(env, NOTHING)
    assert env.field("enemy_on") == 0
    step(env, NOTHING)  # respawn_delay (5) steps later
    assert env.field("enemy_on") == 1 and env.field("ex") == 0 and 0 <= env.field("ey") < H // 2


def test_a_bullet_must_lead_a_moving_enemy(env):
    place_enemy(env, 6, 7, timer=2)  # four rows up, moving right every 2 steps: at column 8 in 4 steps
    rewards = [step(env, FIRE)[1][0] for _ in range(4)]
    assert rewards == [0, 0, 0, 1]


def test_the_beam_freezes_the_ship_and_costs_a_life():
    env = envs.Blastar(num_envs=1, attack_prob=1.0)
    try:
        env.reset(seed=0)
        place_enemy(env, 7, 3, timer=1)  # moves over the ship's column this step
        step(env, FIRE)
        assert env.field("beam_on") and env.field("frozen") and env.field("bullet_on") == 0
        assert env.field("beam_y") == 3
        rewards = []
        for _ in range(H - 1 - 3):
            _, rew, _, _, _ = step(env, LEFT)  # frozen: the ship cannot leave
            rewards.append(rew[0])
        assert env.field("px") == 8 and rewards == [0] * 8 and env.field("lives_left") == 4
        assert not env.field("frozen") and not env.field("beam_on") and not env.field("enemy_on")
        step(env, LEFT)
        assert env.field("px") == 7
    finally:
        env.close()


def test_the_enemy_does_not_fire_at_a_ship_beside_it_or_above_it():
    env = envs.Blastar(num_envs=1, attack_prob=1.0)
    try:
        env.reset(seed=0)
        place_enemy(env, 5, 3, timer=100)
        step(env, NOTHING)
        env.set_field("py", 2)
        env.set_field("px", 5)
        step(env, NOTHING)
        assert not env.field("beam_on") and env.field("lives_left") == 5
    finally:
        env.close()


def test_touching_the_enemy_costs_a_life_and_the_last_life_ends_the_game(env):
    place_enemy(env, 7, H - 1, timer=1)
    _, rew, term, _, _ = step(env, NOTHING)  # it flies into the ship
    assert rew[0] == 0 and env.field("lives_left") == 4 and not term[0] and not env.field("enemy_on")
    env.set_field("lives_left", 1)
    place_enemy(env, 7, H - 1, timer=100)
    _, rew, term, trunc, _ = step(env, LEFT)  # the ship flies into it
    assert rew[0] == 0 and term[0] and not trunc[0] and env.field("lives_left") == 5  # a new game
    assert env.log()["lives_lost"] == 5


def test_the_episode_is_truncated_after_max_steps():
    env = envs.Blastar(num_envs=1, attack_prob=0.0, max_steps=4)
    try:
        env.reset(seed=0)
        truncs = [env.step(np.array([NOTHING], np.int32))[3][0] for _ in range(4)]
        assert truncs == [False] * 3 + [True]
    finally:
        env.close()


def test_the_renders_show_the_ship_the_enemy_and_the_shots(env):
    place_enemy(env, 3, 2, timer=100)
    step(env, FIRE)
    text = env.render().splitlines()
    assert len(text) == H + 1 and text[-1] == "lives 5 kills 0"
    assert text[H - 1] == "........A......." and text[H - 2][8] == "|" and text[2][3] == "V"
    frames = envs.Blastar(num_envs=1, render_mode="rgb_array")
    try:
        frames.reset(seed=0)
        first = frames.render().copy()
        frames.step(np.array([LEFT], np.int32))
        assert first.shape == (H * 16, W * 16, 3) and (frames.render() != first).any()
    finally:
        frames.close()
