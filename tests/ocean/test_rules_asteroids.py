"""Rules of ocean-asteroids: the field wraps, thrust and drag, a hit rock splits 3 -> 2 -> 1 sizes
and pays 1 whatever its size, bullets live `bullet_life` steps with a cap and a cooldown, a rock
on the ship costs a life and the ship is invulnerable a while, a cleared field brings a new wave
away from the ship, the last life ends the game, max_steps truncates it, and its renders."""

import math

import numpy as np
import pytest

from puffer_ocean import envs

NOTHING, LEFT, RIGHT, THRUST, FIRE = range(5)
SMALL, MEDIUM, LARGE = range(3)
RADIUS = {SMALL: 0.03, MEDIUM: 0.05, LARGE: 0.08}


@pytest.fixture
def env():
    env = envs.Asteroids(num_envs=1, render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def step(env, action):
    return env.step(np.array([action], np.int32))


def rocks(env, *placed):
    """Only the given rocks on the field: (x, y, size) or (x, y, size, vx, vy)."""
    env.set_field("n_rocks", len(placed))
    for i, rock in enumerate(placed):
        x, y, size, vx, vy = (*rock, 0.0, 0.0) if len(rock) == 3 else rock
        for name, value in zip(("ax", "ay", "asize", "avx", "avy"), (x, y, size, vx, vy)):
            env.set_field(f"{name}[{i}]", value)


def wrapped_distance(ax, ay, bx, by):
    dx, dy = abs(ax - bx) % 1, abs(ay - by) % 1
    return math.hypot(min(dx, 1 - dx), min(dy, 1 - dy))


def test_the_ship_starts_still_at_the_centre_pointing_up_with_a_wave_away_from_it(env):
    assert (env.field("x"), env.field("y"), env.field("vx"), env.field("vy")) == (0.5, 0.5, 0, 0)
    assert env.field("angle") == pytest.approx(math.pi / 2)
    assert env.field("n_rocks") == 4 and env.field("lives_left") == 3 and env.field("wave") == 0
    for i in range(4):
        assert env.field(f"asize[{i}]") == LARGE
        assert wrapped_distance(env.field(f"ax[{i}]"), env.field(f"ay[{i}]"), 0.5, 0.5) >= 0.25 + 0.08


def test_turning_thrust_and_drag(env):
    rocks(env, (0.1, 0.1, SMALL))
    step(env, LEFT)
    assert env.field("angle") == pytest.approx(math.pi / 2 + math.pi / 16)
    step(env, RIGHT)
    step(env, RIGHT)
    assert env.field("angle") == pytest.approx(math.pi / 2 - math.pi / 16)
    env.set_field("angle", 0.0)
    step(env, THRUST)
    assert env.field("vx") == pytest.approx(0.0015 * 0.98) and env.field("vy") == pytest.approx(0, abs=1e-9)
    assert env.field("x") == pytest.approx(0.5 + 0.0015 * 0.98)
    step(env, NOTHING)
    assert env.field("vx") == pytest.approx(0.0015 * 0.98 ** 2)  # drag alone
    for _ in range(60):
        step(env, THRUST)
    assert env.field("vx") == pytest.approx(0.02)  # the speed cap


def test_the_field_wraps_for_the_ship_rocks_and_bullets(env):
    rocks(env, (0.995, 0.002, SMALL, 0.01, -0.005), (0.3, 0.3, SMALL))
    env.set_field("x", 0.99)
    env.set_field("y", 0.4)
    env.set_field("vx", 0.02 / 0.98)
    env.set_field("angle", 0.0)
    step(env, FIRE)  # the bullet leaves the nose at x 0.99 + 0.025 and flies right
    assert env.field("x") == pytest.approx(0.01, abs=1e-5)
    assert (env.field("ax[0]"), env.field("ay[0]")) == (pytest.approx(0.005, abs=1e-5), pytest.approx(0.997, abs=1e-5))
    bullet_x = 0.99 + 0.025 + 0.03 + 0.02 / 0.98 - 1  # the nose, then the bullet's speed plus the ship's
    assert env.field("n_bullets") == 1 and env.field("bx[0]") == pytest.approx(bullet_x, abs=1e-5)


def test_the_ship_sees_a_wrapped_rock_ahead_of_it_in_its_own_frame(env):
    rocks(env, (0.05, 0.5, MEDIUM))
    env.set_field("x", 0.85)
    env.set_field("angle", 0.0)  # pointing right: the rock is 0.2 ahead across the edge
    obs = step(env, NOTHING)[0][0]
    rock = obs[9:16]
    assert rock[0] == 1 and rock[1] == pytest.approx(0.2 / 0.75, abs=1e-4) and rock[2] == pytest.approx(0, abs=1e-4)
    assert rock[5] == pytest.approx(2 / 3) and rock[6] == pytest.approx((0.2 - 0.05) / 0.75, abs=1e-4)
    assert not obs[16:].any()  # no other rock


def test_a_hit_rock_splits_large_to_medium_to_small_and_each_pays_one(env):
    rocks(env, (0.5, 0.65, LARGE), (0.1, 0.1, SMALL))  # straight ahead of the ship (pointing up)
    rewards = []
    for _ in range(6):
        rewards.append(step(env, FIRE)[1][0])
        if rewards[-1]:
            break
    assert rewards[-1] == 1 and env.field("n_rocks") == 3 and env.field("kills") == 1
    sizes = sorted(env.field(f"asize[{i}]") for i in range(3))
    assert sizes == [SMALL, MEDIUM, MEDIUM]
    rocks(env, (0.5, 0.65, MEDIUM), (0.1, 0.1, SMALL))
    env.set_field("n_bullets", 0)
    env.set_field("cooldown", 0)
    while not step(env, FIRE)[1][0]:
        pass
    assert env.field("n_rocks") == 3 and sorted(env.field(f"asize[{i}]") for i in range(3)) == [SMALL] * 3
    rocks(env, (0.5, 0.65, SMALL), (0.1, 0.1, SMALL))
    env.set_field("n_bullets", 0)
    env.set_field("cooldown", 0)
    while not step(env, FIRE)[1][0]:
        pass
    assert env.field("n_rocks") == 1 and env.field("kills") == 3 and env.field("n_bullets") == 0  # spent


def test_split_rocks_start_where_the_parent_was_and_drift_at_their_size_speed(env):
    rocks(env, (0.5, 0.6, LARGE), (0.1, 0.1, SMALL))
    _, rew, _, _, _ = step(env, FIRE)  # the nose at 0.525, the bullet at 0.555: inside the rock
    assert rew[0] == 1
    for i in (1, 2):  # the small rock moved into slot 0
        speed = math.hypot(env.field(f"avx[{i}]"), env.field(f"avy[{i}]"))
        assert 0.005 <= speed <= 0.009
        assert wrapped_distance(env.field(f"ax[{i}]"), env.field(f"ay[{i}]"), 0.5, 0.6) < 1e-6


def test_bullets_expire_after_bullet_life_steps(env):
    rocks(env, (0.1, 0.5, SMALL))  # off the bullet's line
    step(env, FIRE)
    for _ in range(18):
        assert env.field("n_bullets") == 1
        step(env, NOTHING)
    assert env.field("n_bullets") == 1 and env.field("blife[0]") == 1
    step(env, NOTHING)  # its 20th step
    assert env.field("n_bullets") == 0


def test_the_cooldown_spaces_shots_and_the_cap_limits_live_bullets():
    env = envs.Asteroids(num_envs=1, max_bullets=3, fire_cooldown=2)
    try:
        env.reset(seed=0)
        rocks(env, (0.1, 0.5, SMALL))
        counts = []
        for _ in range(12):
            step(env, FIRE)
            counts.append(env.field("n_bullets"))
        assert counts == [1, 1, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3]  # one shot every 2 steps, then the cap
        for _ in range(14):
            step(env, NOTHING)
        assert env.field("n_bullets") == 0
        step(env, FIRE)
        assert env.field("n_bullets") == 1 and env.field("cooldown") == 2
    finally:
        env.close()


def test_a_rock_on_the_ship_costs_a_life_then_the_ship_is_invulnerable_a_while():
    env = envs.Asteroids(num_envs=1, invuln_steps=5)
    try:
        env.reset(seed=0)
        env.set_field("x", 0.2)
        env.set_field("vx", 0.01)
        rocks(env, (0.23, 0.5, MEDIUM))
        _, rew, term, _, _ = step(env, NOTHING)
        assert rew[0] == 0 and not term[0] and env.field("lives_left") == 2
        assert (env.field("x"), env.field("y"), env.field("vx"), env.field("invuln")) == (0.5, 0.5, 0, 5)
        assert env.field("n_rocks") == 1  # the rock stays
        rocks(env, (0.5, 0.5, LARGE))  # right on the respawned ship
        for _ in range(5):
            step(env, NOTHING)
            assert env.field("lives_left") == 2
        assert env.field("invuln") == 0
        step(env, NOTHING)
        assert env.field("lives_left") == 1
    finally:
        env.close()


def test_a_cleared_field_brings_a_bigger_wave_away_from_the_ship(env):
    rng = np.random.default_rng(0)
    for wave in range(1, 7):
        x, y = rng.uniform(0, 1, 2)
        env.set_field("x", x)
        env.set_field("y", y)
        env.set_field("vx", 0.0)
        env.set_field("vy", 0.0)
        env.set_field("angle", 0.0)
        env.set_field("invuln", 1000)
        env.set_field("n_bullets", 0)
        env.set_field("cooldown", 0)
        rocks(env, ((x + 0.06) % 1, y, SMALL))
        _, rew, _, _, _ = step(env, FIRE)
        assert rew[0] == 1 and env.field("wave") == wave
        n = env.field("n_rocks")
        assert n == min(4 + wave, 8)
        for i in range(min(n, 4)):
            assert env.field(f"asize[{i}]") == LARGE
            assert wrapped_distance(env.field(f"ax[{i}]"), env.field(f"ay[{i}]"), x, y) >= 0.25 + 0.08 - 1e-6


def test_the_last_life_ends_the_game_and_the_score_is_the_rocks_destroyed(env):
    env.set_field("kills", 7)
    env.set_field("lives_left", 1)
    rocks(env, (0.5, 0.52, SMALL))
    _, rew, term, trunc, _ = step(env, NOTHING)
    assert rew[0] == 0 and term[0] and not trunc[0]
    assert env.field("lives_left") == 3 and env.field("kills") == 0 and env.field("n_rocks") == 4  # a new game
    stats = env.log()
    assert stats["score"] == 7 and stats["episode_length"] == 1


def test_the_episode_is_truncated_after_max_steps():
    env = envs.Asteroids(num_envs=1, max_steps=4)
    try:
        env.reset(seed=0)
        truncs = [env.step(np.array([NOTHING], np.int32))[3][0] for _ in range(4)]
        assert truncs == [False] * 3 + [True]
    finally:
        env.close()


def test_the_renders_show_the_ship_the_rocks_and_the_bullets(env):
    rocks(env, (0.5, 0.9, LARGE), (0.1, 0.1, MEDIUM), (0.8, 0.3, SMALL))
    for action in (FIRE, NOTHING, NOTHING):  # the bullet two rows above the ship
        step(env, action)
    text = env.render().splitlines()
    assert len(text) == 17 and all(len(row) == 32 for row in text[:16]) and text[-1] == "lives 3 kills 0 wave 1"
    grid = "".join(text[:16])
    assert text[7][16] == "^" and text[6][16] == "'" and "O" in grid and "o" in grid and "*" in grid
    assert text[14][3] == "o" and text[11][25] == "*" and text[1][16] == "O"
    frames = envs.Asteroids(num_envs=1, render_mode="rgb_array")
    try:
        frames.reset(seed=0)
        first = frames.render().copy()
        frames.step(np.array([THRUST], np.int32))
        assert first.shape == (256, 256, 3) and (frames.render() != first).any()
    finally:
        frames.close()
