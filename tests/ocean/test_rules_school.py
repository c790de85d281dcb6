"""Rules of ocean-school: the armies' composition, flight and driving, crashing into the ground and
leaving the arena, each unit type's attack rule, damage and death, the nearest target first, the
battle's truncation, the observation's layout, seeding, renders and bad arguments.

The fixture: two armies of 64 on a flat arena (relief 0: the ground at -size_y = -2); the units under
test are moved to a corner far from both bases, where no other unit comes within sight."""

import math

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs

MOTHERSHIP, TANK, ARTILLERY, BOMBER, FIGHTER, INFANTRY, DRONE = 0, 1, 5, 7, 11, 15, 33   # army 0's units
ENEMY = 64                                                                                 # + this: army 1's
GROUND = -2.0
TYPES = {"drone": 0, "mothership": 1, "fighter": 2, "bomber": 3, "infantry": 4, "tank": 5, "artillery": 6}


@pytest.fixture
def env():
    env = envs.School(num_envs=1, num_agents=128, num_armies=2, relief=0.0, max_steps=200, render_mode="ansi")
    env.reset(seed=0)
    bases = [(env.field(f"base_x[{a}]"), env.field(f"base_z[{a}]")) for a in range(2)]
    corners = [(sx * 1.6, sz * 1.6) for sx in (-1, 1) for sz in (-1, 1)]
    env.spot = max(corners, key=lambda c: min(math.dist(c, b) for b in bases))
    assert min(math.dist(env.spot, b) for b in bases) > 1.4
    yield env
    env.close()


def put(env, i, dx=0.0, dz=0.0, y=GROUND, yaw=0.0, pitch=0.0):
    """Unit i at (dx, dz) from the fixture's corner, at height y, heading `yaw` (0: +x)."""
    for name, value in (("x", env.spot[0] + dx), ("z", env.spot[1] + dz), ("y", y), ("yaw", yaw),
                        ("pitch", pitch)):
        env.set_field(f"{name}[{i}]", value)


def step(env, **actions):
    """Every unit acts (0, 0, -1) (straight, slowest) but those named by index: unit_5=(a0, a1, a2)."""
    rows = np.tile(np.array([0, 0, -1], np.float32), (env.num_agents, 1))
    for key, value in actions.items():
        rows[int(key.split("_")[1])] = value
    return env.step(rows)


def test_each_army_is_built_of_the_declared_units(env):
    expected = {MOTHERSHIP: "mothership", TANK: "tank", ARTILLERY: "artillery", BOMBER: "bomber",
                FIGHTER: "fighter", INFANTRY: "infantry", DRONE: "drone"}
    for i, name in expected.items():
        assert env.field(f"unit[{i}]") == TYPES[name] and env.field(f"unit[{i + ENEMY}]") == TYPES[name]
        assert env.field(f"army[{i}]") == 0 and env.field(f"army[{i + ENEMY}]") == 1
    assert env.field("health[1]") == 2.0 and env.field("health[0]") == 10.0
    assert env.field("health[33]") == pytest.approx(0.4)


def test_air_units_fly_along_heading_and_pitch_at_their_throttle(env):
    put(env, FIGHTER, y=0.0)
    step(env, unit_11=(0, 0, 1))         # full throttle: 0.75 (fighter) x 0.01
    assert env.field("x[11]") == pytest.approx(env.spot[0] + 0.0075, abs=1e-6)
    step(env, unit_11=(0, 1, -1))        # turn 1.0 x 0.1 rad, half speed
    assert env.field("yaw[11]") == pytest.approx(0.1, abs=1e-6)
    put(env, FIGHTER, y=0.0)
    for _ in range(20):
        step(env, unit_11=(1, 0, 1))     # pitch up 0.1 a step, held at 1.2
    assert env.field("pitch[11]") == pytest.approx(1.2) and env.field("y[11]") > 0.05


def test_ground_units_drive_on_the_ground_and_cannot_pitch(env):
    put(env, TANK, y=GROUND)
    step(env, unit_1=(1, 0, 1))
    assert env.field("pitch[1]") == 0 and env.field("y[1]") == GROUND
    assert env.field("x[1]") == pytest.approx(env.spot[0] + 0.0075, abs=1e-6)


def test_an_air_unit_below_the_ground_crashes_and_starts_again_at_its_base(env):
    put(env, FIGHTER, y=GROUND + 0.001, pitch=-1.0)
    _, rew, term, trunc, _ = step(env, unit_11=(0, 0, 1))
    assert rew[FIGHTER] == -1 and term[FIGHTER] and not trunc.any()
    assert math.dist((env.field("x[11]"), env.field("z[11]")), (env.field("base_x[0]"), env.field("base_z[0]"))) < 0.1
    assert env.field("y[11]") == pytest.approx(GROUND + 0.6) and env.field("health[11]") == 1.0
    assert term.sum() == 1


def test_leaving_the_arena_ends_a_life(env):
    side = 1.0 if env.spot[0] > 0 else -1.0
    put(env, TANK, dx=side * 1.899 - env.spot[0], y=GROUND, yaw=0.0 if side > 0 else math.pi)
    _, rew, term, *_ = step(env, unit_1=(0, 0, 1))   # 0.0075 on: beyond 0.95 x 2
    assert rew[TANK] == -1 and term[TANK]
    assert env.log()["oob_rate"] > 0


def test_a_fighter_hits_an_enemy_ahead_in_range_and_not_behind(env):
    put(env, FIGHTER, y=0.0)
    put(env, ENEMY + FIGHTER, dx=0.2, y=0.0, yaw=math.pi / 2)        # 0.2 ahead: range 0.25
    _, rew, *_ = step(env)
    assert rew[FIGHTER] == 0.25 and env.field("health[75]") == pytest.approx(0.5)
    env.set_field("yaw[11]", math.pi)                                # now it flies away
    _, rew, *_ = step(env)
    assert rew[FIGHTER] == 0 and env.field("health[75]") == pytest.approx(0.5)


def test_bombers_hit_ground_units_below_and_artillery_air_units_above(env):
    put(env, BOMBER, y=GROUND + 0.5)
    put(env, ENEMY + TANK, dx=0.05, dz=0.02, y=GROUND, yaw=math.pi / 2)
    put(env, ARTILLERY, dx=0.3, dz=0.3, y=GROUND)
    put(env, ENEMY + FIGHTER, dx=0.3, dz=0.5, y=GROUND + 0.4, yaw=math.pi / 2)   # 0.2 from it (range 0.7)
    _, rew, term, *_ = step(env)
    assert rew[BOMBER] == 0.25 and env.field("health[65]") == pytest.approx(1.0)     # bomber damage 1
    assert rew[ARTILLERY] == 0.25 and term[ENEMY + FIGHTER]                          # damage 2 of its 1
    put(env, ENEMY + TANK, dx=2.0, y=GROUND)                                       # gone; an air unit under it
    put(env, ENEMY + BOMBER, dx=0.05, y=GROUND + 0.3, yaw=math.pi / 2)
    _, rew, *_ = step(env)
    assert rew[BOMBER] == 0


def test_infantry_and_tanks_hit_ground_units_ahead_never_air_units(env):
    put(env, INFANTRY, y=GROUND)
    put(env, ENEMY + BOMBER, dx=0.15, y=GROUND + 0.05, yaw=math.pi / 2)  # airborne, in the cone (out of its reach)
    _, rew, *_ = step(env)
    assert rew[INFANTRY] == 0
    put(env, ENEMY + INFANTRY, dx=0.1, dz=0.03, y=GROUND, yaw=math.pi / 2)
    _, rew, *_ = step(env)
    assert rew[INFANTRY] == 0.25


def test_a_unit_hit_to_zero_health_dies_and_respawns_whole(env):
    put(env, FIGHTER, y=0.0)
    put(env, ENEMY + DRONE, dx=0.1, y=0.0, yaw=math.pi / 2)       # a drone: health 0.4, fighter damage 0.5
    _, rew, term, *_ = step(env)
    assert rew[FIGHTER] == 0.25 and term[ENEMY + DRONE] and rew[ENEMY + DRONE] == 0
    assert env.field("health[97]") == pytest.approx(0.4)
    assert math.dist((env.field("x[97]"), env.field("z[97]")), (env.field("x[64]"), env.field("z[64]"))) < 0.1


def test_the_nearest_enemy_in_reach_is_the_one_hit(env):
    put(env, FIGHTER, y=0.0)
    put(env, ENEMY + FIGHTER, dx=0.2, y=0.0, yaw=math.pi / 2)
    put(env, ENEMY + BOMBER, dx=0.1, y=0.0, yaw=math.pi / 2)
    step(env)
    assert env.field("health[71]") == pytest.approx(0.5) and env.field("health[75]") == pytest.approx(1.0)


def test_the_battle_is_truncated_and_redrawn():
    env = envs.School(num_envs=1, num_agents=16, num_armies=2, max_steps=5)
    env.reset(seed=1)
    bases = env.field("base_x[0]")
    for _ in range(5):
        _, _, term, trunc, _ = env.step(np.zeros((16, 3), np.float32))
    assert (trunc | term).all() and env.field("tick") == 0 and env.field("base_x[0]") != bases
    env.close()


def test_the_observation_layout(env):
    put(env, FIGHTER, y=GROUND + 0.1, yaw=math.pi / 2)   # heading +z: forward is +z, side (a1 > 0's way) is -x
    put(env, ENEMY + TANK, dx=0.6, dz=0.0, y=GROUND)
    put(env, ENEMY + BOMBER, dx=0.0, dz=0.4, y=GROUND + 0.1)
    obs, *_ = step(env)
    o = obs[FIGHTER]
    assert o.shape == (57,) and -1 <= o.min() and o.max() <= 1
    x, z = env.field("x[11]"), env.field("z[11]")

    def own(dx, dz):                                   # (forward, side) of an offset for this heading
        return dz, -dx

    assert o[0] == pytest.approx(x / 2) and o[1] == pytest.approx(-1.9 / 2) and o[2] == pytest.approx(z / 2)
    assert o[3] == pytest.approx(0.05)                  # 0.1 above the flat ground / size_y 2
    assert list(o[4:7]) == pytest.approx([0, 0, 1], abs=1e-6) and o[7] == 0.5 and o[8] == 1
    assert list(o[9:16]) == [0, 0, 1, 0, 0, 0, 0]       # a fighter
    base = own(env.field("base_x[0]") - x, env.field("base_z[0]") - z)
    assert (o[17], o[19]) == pytest.approx((base[0] / 4, base[1] / 4), abs=1e-5)
    enemy_base = own(env.field("base_x[1]") - x, env.field("base_z[1]") - z)
    assert (o[20], o[22]) == pytest.approx((enemy_base[0] / 4, enemy_base[1] / 4), abs=1e-5)
    bomber, tank = o[29:34], o[34:39]                   # nearest first: the bomber, then the tank
    assert list(bomber[[0, 2, 3, 4]]) == pytest.approx([*own(env.field("x[71]") - x, env.field("z[71]") - z), 1, 1],
                                                       abs=1e-5)
    assert bomber[1] == pytest.approx(0, abs=1e-6)
    assert list(tank[[0, 2, 3, 4]]) == pytest.approx([*own(env.field("x[65]") - x, env.field("z[65]") - z), 0, 1],
                                                     abs=1e-5)
    assert tank[1] == pytest.approx(-0.1, abs=1e-5) and tank[2] < -0.5   # the tank lies at -x: on the -side
    assert (o[39:49] == 0).all() and o[49] == pytest.approx(1 / 200)
    # The arena's edge: 0.95 x size = 1.9 out. Ahead along +z, the nearest wall, the centre.
    walls = {(1, 0): 1.9 - x, (-1, 0): 1.9 + x, (0, 1): 1.9 - z, (0, -1): 1.9 + z}
    (nx, nz), near = min(walls.items(), key=lambda kv: kv[1])
    assert o[50] == pytest.approx(min(1.0, 1.9 - z), abs=1e-5)
    assert o[51] == pytest.approx(min(1.0, near), abs=1e-5) and list(o[52:54]) == pytest.approx(own(nx, nz), abs=1e-5)
    assert list(o[54:56]) == pytest.approx([c / 4 for c in own(-x, -z)], abs=1e-5)
    assert o[56] == 1.0                                 # 1.9 - (-1.9) = 3.8 below the ceiling: at most 1


def test_a_unit_sees_the_walls_and_the_ceiling_ahead_and_the_wall_on_its_side(env):
    sx, sz = (1 if c > 0 else -1 for c in env.spot)
    put(env, DRONE, dx=sx * 1.75 - env.spot[0], y=0.0, yaw=0.0 if sx > 0 else math.pi)   # 0.15 from the x wall
    obs, *_ = step(env)                                 # 0.005 on (a drone at throttle -1)
    o = obs[DRONE]
    assert o[50] == pytest.approx(0.145, abs=1e-4) and o[51] == pytest.approx(0.145, abs=1e-4)
    assert list(o[52:54]) == pytest.approx([1, 0], abs=1e-5)         # the wall straight ahead
    env.set_field("yaw[33]", math.pi / 2)                             # turned to +z: the wall on a side
    obs, *_ = step(env)
    o = obs[DRONE]
    assert o[50] == pytest.approx(min(1.0, 1.9 - env.field("z[33]")), abs=1e-4)
    assert o[52] == pytest.approx(0, abs=1e-5) and o[53] == pytest.approx(-sx, abs=1e-5)
    assert o[51] == pytest.approx(0.145, abs=1e-4)
    # Climbing toward the middle: the ceiling (0.95 x size_y = 1.9) comes before any wall.
    put(env, DRONE, y=1.5, pitch=0.5, yaw=math.pi if sx > 0 else 0.0)
    obs, *_ = step(env)
    y, pitch = env.field("y[33]"), env.field("pitch[33]")
    assert obs[DRONE][56] == pytest.approx(1.9 - y, abs=1e-5)
    assert obs[DRONE][50] == pytest.approx((1.9 - y) / math.sin(pitch), abs=1e-3)


def run(seed, steps=30):
    env = envs.School(num_envs=2, num_agents=64, num_armies=2)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    frames = [obs.copy()]
    for _ in range(steps):
        obs, *_ = env.step(rng.uniform(-1, 1, (env.num_agents, 3)).astype(np.float32))
        frames.append(obs.copy())
    env.close()
    return np.array(frames)


def test_same_seed_same_battle_and_seeds_differ():
    assert np.array_equal(run(3), run(3))
    assert not np.array_equal(run(3), run(4))


def test_renders(env):
    text = env.render()
    assert text.count("\n") == 25 and "0" in text and "1" in text and "tick" in text
    rgb = envs.School(num_envs=1, num_agents=64, render_mode="rgb_array")
    rgb.reset(seed=0)
    assert rgb.render().shape == (256, 256, 3)
    rgb.close()


@pytest.mark.parametrize("kwargs, match", [
    ({"num_agents": 99, "num_armies": 2}, "multiple of num_armies"), ({"num_armies": 9}, "out of range"),
    ({"size": 5.0}, "out of range"), ({"armies": 2}, "unknown argument"),
])
def test_bad_arguments_say_how_to_fix(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.School(**kwargs)
