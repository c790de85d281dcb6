"""Rules of ocean-drive: the goal pays +1 and ends the car's episode, a collision ends both cars,
leaving the road ends, time and map redraws truncate, the bicycle model's limits, observations
in the car's frame (goal, route, road edges, other cars), seeding, the scripted driver, renders.

The fixture's map is the full 3 x 3 lattice (road_density 1) with 40 m blocks: crossings at
x, y in {20, 60, 100}, roads 9 m wide, right-hand lanes 2.25 m off the centre lines."""

import math

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs
from puffer_ocean.drive import scripted_actions

KEEP, STRAIGHT = 2, 4  # no acceleration; no steering
BRAKE, FAST = 0, 4
EAST, NORTH, WEST, SOUTH = 0.0, math.pi / 2, math.pi, -math.pi / 2
EGO, RAYS = 9, 9


@pytest.fixture
def env():
    env = envs.Drive(num_envs=1, num_agents=3, grid_size=3, block_min=40, block_max=40, road_density=1,
                     progress_reward=0, collision_penalty=0.5, offroad_penalty=0.25, max_steps=300,
                     map_period=10**6, render_mode="ansi")
    env.reset(seed=0)
    park(env)
    yield env
    env.close()


def put(env, k, x, y, heading=EAST, speed=0.0, goal=None):
    """Place car k (and its goal, default far away on the top road)."""
    for name, value in (("x", x), ("y", y), ("heading", heading), ("speed", speed)):
        env.set_field(f"{name}[{k}]", value)
    gx, gy = goal if goal is not None else (40.0 + 20 * k, 100.0)
    env.set_field(f"goal_x[{k}]", gx)
    env.set_field(f"goal_y[{k}]", gy)
    env.set_field(f"steps[{k}]", 0)


def park(env):
    """Every car at rest in its own lane, far from the others."""
    put(env, 0, 40.0, 17.75)
    put(env, 1, 40.0, 97.75)
    put(env, 2, 102.25, 40.0, NORTH, goal=(100.0, 80.0))


def step(env, *actions):
    rows = list(actions) + [(KEEP, STRAIGHT)] * (env.num_agents - len(actions))
    return env.step(np.array(rows, np.int32))


def test_the_map_is_the_declared_lattice(env):
    assert (env.field("node_x[0]"), env.field("node_x[1]")) == (20, 60)
    assert (env.field("node_y[0]"), env.field("node_y[1]")) == (20, 60)


def test_reaching_the_goal_pays_one_and_starts_again(env):
    put(env, 0, 40.0, 17.75, EAST, speed=5.0, goal=(43.0, 20.0))
    _, rew, term, trunc, _ = step(env)
    assert rew.tolist() == [1.0, 0.0, 0.0] and term.tolist() == [True, False, False] and not trunc.any()
    assert env.log() == pytest.approx({"score": 1, "episode_return": 1, "episode_length": 1, "goal_rate": 1,
                                       "collision_rate": 0, "offroad_rate": 0, "n": 1})
    assert env.field("steps[0]") == 0 and env.field("goal_x[0]") != 43.0  # a new start and goal


def test_a_collision_ends_both_cars(env):
    put(env, 0, 40.0, 17.75, EAST, speed=4.0)
    put(env, 1, 45.0, 17.75, EAST)  # stopped 5 m ahead: 4.5 m cars touch after the step
    _, rew, term, _, _ = step(env)
    assert rew.tolist() == [-0.5, -0.5, 0.0] and term.tolist() == [True, True, False]
    stats = env.log()
    assert stats["collision_rate"] == 1 and stats["n"] == 2 and stats["score"] == 0


@pytest.mark.parametrize("y, touches", [(20.5, True), (21.5, False)])
def test_cars_are_boxes_not_discs(env, y, touches):
    """A car across the road 2.75 m from another's centre line touches it (1 + 2.25 m of half
    sizes); 3.75 m away it does not, though their centres are only 3.75 m apart."""
    put(env, 0, 40.0, 17.75, EAST)
    put(env, 1, 40.0, y, NORTH)
    _, _, term, _, _ = step(env)
    assert term.tolist() == [touches, touches, False]


def test_oncoming_lanes_pass_without_touching(env):
    put(env, 0, 40.0, 17.75, EAST, speed=5.0)
    put(env, 1, 41.0, 22.25, WEST, speed=5.0)
    for _ in range(3):
        _, _, term, _, _ = step(env)
        assert not term.any()


def test_leaving_the_road_ends_the_car(env):
    put(env, 0, 40.0, 16.0, SOUTH, speed=12.0)  # the road's south edge is at y = 15.5
    _, rew, term, _, _ = step(env)
    assert rew[0] == -0.25 and term.tolist() == [True, False, False]
    assert env.log()["offroad_rate"] == 1


def test_time_and_map_redraws_truncate():
    env = envs.Drive(num_envs=1, num_agents=2, max_steps=4, map_period=10**6, progress_reward=0)
    try:
        env.reset(seed=0)
        put(env, 0, env.field("node_x[0]") + 10, env.field("node_y[0]") - 2.25)
        put(env, 1, env.field("node_x[0]") + 10, env.field("node_y[1]") - 2.25)
        truncs = [step(env)[3].tolist() for _ in range(4)]
        assert truncs == [[False, False]] * 3 + [[True, True]]
    finally:
        env.close()
    env = envs.Drive(num_envs=1, num_agents=2, map_period=3)
    try:
        env.reset(seed=0)
        first = env.field("node_x[1]")
        for _ in range(3):
            _, _, term, trunc, _ = step(env)
        assert (trunc | term).all() and env.field("tick") == 0 and env.field("node_x[1]") != first
    finally:
        env.close()


def test_the_bicycle_model_keeps_its_limits(env):
    put(env, 0, 40.0, 17.75, EAST)
    step(env, (BRAKE, STRAIGHT))
    assert env.field("speed[0]") == 0  # no reverse
    step(env, (FAST, STRAIGHT))
    assert env.field("speed[0]") == pytest.approx(0.6) and env.field("x[0]") == pytest.approx(40.12)
    put(env, 0, 30.0, 17.75, EAST, speed=3.0)
    step(env, (KEEP, 8))  # full lock left: a 3 m radius (0.33273 / m) at low speed
    assert env.field("heading[0]") == pytest.approx(3 * 0.33273 * 0.2, abs=1e-4)
    put(env, 0, 30.0, 17.75, EAST, speed=10.0)
    step(env, (KEEP, 0))  # full right at 10 m/s: the curve 7 m/s^2 allows, 0.07 / m
    assert env.field("heading[0]") == pytest.approx(-10 * 0.07 * 0.2, abs=1e-4)
    put(env, 0, 30.0, 17.75, EAST, speed=11.9)
    step(env, (FAST, STRAIGHT))
    assert env.field("speed[0]") == 12  # max_speed


def test_observations_are_in_the_cars_frame(env):
    put(env, 0, 62.25, 40.0, NORTH, goal=(60.0, 50.0))  # northbound lane of the middle column
    put(env, 1, 62.25, 50.0, EAST, speed=3.0)
    put(env, 2, 22.25, 90.0, NORTH)  # 64 m away
    obs, *_ = step(env)
    own = obs[0]
    assert own[0] == 0 and own[8] == pytest.approx(1 / 300)
    assert own[1:3] == pytest.approx([0.10, 0.0225], abs=1e-5)  # goal 10 m ahead, 2.25 m to the left
    assert own[4:8] == pytest.approx([0.2, 0.045, 0.2, 0.045], abs=1e-5)  # the goal is next: both waypoints
    rays = own[EGO:EGO + RAYS]
    assert rays[0] == 1  # straight on: road for more than 30 m
    assert rays[7] == pytest.approx(6.75 / 30, abs=1e-4) and rays[8] == pytest.approx(2.25 / 30, abs=1e-4)
    car = own[EGO + RAYS:EGO + RAYS + 7]  # car 1 moved 0.6 m east: 10 m ahead, 0.6 m to the right
    assert car == pytest.approx([0.2, -0.012, 0, -1, 0, -3 / 24, 1], abs=1e-5)
    assert not own[EGO + RAYS + 7:].any()  # car 2 is more than 50 m away


def test_the_route_turns_where_the_lanes_cross(env):
    put(env, 0, 40.0, 17.75, EAST, goal=(60.0, 40.0))  # the goal is up the next crossing's north road
    obs, *_ = step(env)
    assert obs[0, 3] == pytest.approx(40 / 300)  # 20 m to the crossing, 20 m up
    assert obs[0, 4:8] == pytest.approx([22.25 / 50, 0, 20 / 50, 22.25 / 50], abs=1e-5)


def test_same_seed_same_drive_and_seeds_differ():
    def run(seed):
        env = envs.Drive(num_envs=2, num_agents=8)
        try:
            frames = [env.reset(seed=seed)[0].copy()]
            rng = np.random.default_rng(0)
            for _ in range(60):
                frames.append(env.step(rng.integers(0, [5, 9], (16, 2)).astype(np.int32))[0].copy())
            return np.stack(frames), env.field("node_x[1]")
        finally:
            env.close()
    (a, map_a), (b, map_b), (c, map_c) = run(3), run(3), run(4)
    np.testing.assert_array_equal(a, b)
    assert map_a == map_b and map_a != map_c and not np.array_equal(a, c)


def test_final_observation_is_where_the_car_stopped():
    cut = envs.Drive(num_envs=2, num_agents=1, max_steps=3)
    free = envs.Drive(num_envs=2, num_agents=1, max_steps=100)
    try:
        cut.reset(seed=5)
        free.reset(seed=5)
        for _ in range(3):
            actions = np.array([[KEEP, STRAIGHT]] * 2, np.int32)
            _, _, term, trunc, _ = cut.step(actions)
            free.step(actions)
        assert trunc.all() and not term.any()
        time = 8  # steps taken / max_steps: the one value max_steps changes
        np.testing.assert_array_equal(np.delete(cut.final_observations, time, 1), np.delete(free.observations, time, 1))
        assert not np.array_equal(cut.observations, free.observations)
    finally:
        cut.close()
        free.close()


def play(policy, num_agents, steps, seed=0, **kwargs):
    env = envs.Drive(num_envs=4, num_agents=num_agents, log_interval=10**9, **kwargs)
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        returns, running = [], np.zeros(env.num_agents)
        for _ in range(steps):
            actions = scripted_actions(obs) if policy == "scripted" else \
                rng.integers(0, [5, 9], (env.num_agents, 2)).astype(np.int32)
            obs, rew, term, trunc, _ = env.step(actions)
            running += rew
            goal = term & (rew > 0.5)
            returns += running[goal].tolist()
            running[term | trunc] = 0
        return env.log(), returns
    finally:
        env.close()


def test_a_lone_scripted_car_reaches_its_goals_and_the_progress_adds_up():
    """Every goal is reachable on every map (routes follow the roads); a goal reached pays 1 plus
    progress_reward times the share of the road distance covered: most of it (starts are 40 m or
    more away, and the goal is reached within 4 m of it, more by road from inside a crossing)."""
    stats, returns = play("scripted", 1, 600, progress_reward=0.5)
    assert stats["goal_rate"] > 0.9 and stats["offroad_rate"] == 0
    assert returns and all(1 + 0.5 * 0.8 <= r <= 1.5 + 1e-4 for r in returns)


def test_the_scripted_driver_beats_random_play_in_traffic():
    scripted, _ = play("scripted", 32, 300)
    random, _ = play("random", 32, 300)
    assert scripted["goal_rate"] > 0.3 > 0.02 > random["goal_rate"]
    assert random["offroad_rate"] > 0.5 > scripted["offroad_rate"]


def test_scripted_actions_refuse_other_observations():
    with pytest.raises(ValueError, match=r"\(rows, 74\)"):
        scripted_actions(np.zeros((4, 10), np.float32))


@pytest.mark.parametrize("kwargs, match", [(dict(block_min=80, block_max=40), "must not exceed"),
                                           (dict(grid_size=3, num_agents=64), "do not fit"),
                                           (dict(num_agents=65), "out of range")])
def test_bad_arguments_say_how_to_fix(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.Drive(**kwargs)


def test_renders(env):
    text = env.render()
    lines = text.splitlines()
    assert len(lines) == 33 and all(len(line) == 64 for line in lines[:32]) and lines[32] == "tick 0"
    assert "." in text and ">" in text and "^" in text and "*" in text
    rgb = envs.Drive(num_envs=1, render_mode="rgb_array")
    try:
        rgb.reset(seed=1)
        frame = rgb.render()
        assert frame.shape == (512, 512, 3) and len(np.unique(frame.reshape(-1, 3), axis=0)) >= 4
    finally:
        rgb.close()
