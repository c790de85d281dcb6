"""Rules of ocean-rocket_lander: gravity, the main engine and side thrusters, fuel, feet on the
ground, landing on and off the pad, crashes (hard landings, the hull), leaving the arena, the
step limit, the observation, continuous actions, determinism, and a scripted lander as the anchor."""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs
from puffer_ocean.rocket_lander import CCW, CW, MAIN, NOTHING, scripted_lander

from .rules_helpers import make

DT, G, MAIN_ACCEL, SIDE_ACCEL, INERTIA, FEET = 0.05, 9.8, 16.0, 1.5, 17 / 12, 2.6


@pytest.fixture
def env():
    env = make(envs.RocketLander)
    yield env
    env.close()


def place(env, x=0.0, y=20.0, vx=0.0, vy=0.0, angle=0.0, omega=0.0, fuel=None):
    for name, value in (("x", x), ("y", y), ("vx", vx), ("vy", vy), ("angle", angle), ("omega", omega)):
        env.set_field(name, value)
    if fuel is not None:
        env.set_field("fuel_left", fuel)
    env.set_field("rest", 0)


def step(env, action):
    obs, rew, term, trunc, _ = env.step(np.array([action], np.int32))
    return obs[0].copy(), float(rew[0]), bool(term[0]), bool(trunc[0])


def test_gravity_pulls_a_rocket_with_its_engines_off(env):
    place(env)
    step(env, NOTHING)
    assert env.field("vy") == pytest.approx(-G * DT, abs=1e-5)
    assert env.field("y") == pytest.approx(20 - G * DT * DT, abs=1e-5)
    assert env.field("vx") == 0 and env.field("omega") == 0


def test_the_main_engine_pushes_along_the_hull_and_burns_fuel(env):
    place(env, fuel=5.0)
    step(env, MAIN)
    assert env.field("vy") == pytest.approx((MAIN_ACCEL - G) * DT, abs=1e-5)
    assert env.field("fuel_left") == pytest.approx(5.0 - DT)
    place(env, angle=np.pi / 2, fuel=5.0)  # lying on its left side: the engine pushes toward -x
    step(env, MAIN)
    assert env.field("vx") == pytest.approx(-MAIN_ACCEL * DT, abs=1e-4)


def test_side_thrusters_turn_the_rocket_and_push_it_sideways(env):
    place(env, fuel=5.0)
    step(env, CCW)
    assert env.field("omega") == pytest.approx(2.0 * SIDE_ACCEL / INERTIA * DT, abs=1e-5)
    assert env.field("vx") == pytest.approx(-SIDE_ACCEL * DT, abs=1e-5)
    assert env.field("fuel_left") == pytest.approx(5.0 - 0.1 * DT)
    place(env)
    step(env, CW)
    assert env.field("omega") == pytest.approx(-2.0 * SIDE_ACCEL / INERTIA * DT, abs=1e-5)


def test_without_fuel_the_engines_do_nothing(env):
    place(env, fuel=0.0)
    _, reward, _, _ = step(env, MAIN)
    assert env.field("vy") == pytest.approx(-G * DT, abs=1e-5)
    assert env.field("fuel_left") == 0


def test_an_upright_rocket_at_rest_on_the_pad_lands_and_scores():
    env = make(envs.RocketLander)
    try:
        place(env, y=FEET)
        total = 0.0
        for i in range(10):
            obs, reward, term, trunc = step(env, NOTHING)
            total += reward
            if i < 9:
                assert not term and obs[6] == 1 and obs[7] == 1  # both feet down
        assert term and not trunc and reward > 0.9  # the landing bonus, 100 x 0.01
        log = env.log()
        assert log["score"] == 1 and log["landed"] == 1 and log["crashed"] == 0
    finally:
        env.close()


def test_landing_off_the_pad_ends_the_episode_without_the_bonus_or_a_score():
    env = make(envs.RocketLander)
    try:
        place(env, x=10.0, y=FEET)
        for _ in range(10):
            _, reward, term, _ = step(env, NOTHING)
        assert term and abs(reward) < 0.2
        log = env.log()
        assert log["landed"] == 1 and log["score"] == 0
    finally:
        env.close()


def test_a_hard_landing_crashes(env):
    place(env, y=FEET + 0.1, vy=-8.0)
    _, reward, term, _ = step(env, NOTHING)
    assert term and reward == pytest.approx(-1.0)
    log = env.log()
    assert log["crashed"] == 1 and log["score"] == 0


def test_a_gentle_touchdown_rests_on_the_feet_without_sinking(env):
    place(env, y=FEET + 0.05, vy=-1.0)
    for _ in range(5):
        _, _, term, _ = step(env, NOTHING)
        assert not term
    assert env.field("y") == pytest.approx(FEET, abs=0.05) and abs(env.field("vy")) < 0.05
    assert env.field("leg[0]") == 1 and env.field("leg[1]") == 1


def test_a_rocket_tipping_over_on_the_ground_crashes(env):
    place(env, y=2.0, angle=1.3)  # leaning far over on its left foot: it falls onto the hull
    for _ in range(60):
        _, reward, term, _ = step(env, NOTHING)
        if term:
            break
    assert term and reward == pytest.approx(-1.0) and env.log()["crashed"] == 1


def test_leaving_the_arena_ends_the_episode(env):
    place(env, x=24.9, vx=10.0)
    _, reward, term, _ = step(env, NOTHING)
    assert term and reward == pytest.approx(-1.0) and env.log()["out_of_bounds"] == 1


def test_the_step_limit_truncates_and_keeps_the_final_observation():
    env = make(envs.RocketLander, max_steps=3)
    try:
        for _ in range(3):
            place(env, y=30.0)
            _, _, term, trunc = step(env, NOTHING)
        assert trunc and not term
        assert env.final_observations[0][1] == pytest.approx((30.0 - G * DT * DT - FEET) / 30, abs=1e-4)
        assert env.field("tick") == 0  # a new episode
    finally:
        env.close()


def test_the_observation_layout(env):
    place(env, x=5.0, y=FEET + 3.0, vx=2.0, vy=-1.0, angle=0.1, omega=0.4, fuel=10.0)
    obs, _, _, _ = step(env, NOTHING)
    x, y, vx, vy = (env.field(name) for name in ("x", "y", "vx", "vy"))
    expected = [x / 25, (y - FEET) / 30, vx / 10, vy / 10, env.field("angle") / np.pi, env.field("omega") / 4,
                0, 0, 10.0 / 20]
    assert obs == pytest.approx(expected, abs=1e-5)


def test_continuous_actions_throttle_as_lunarlander_continuous():
    env = make(envs.RocketLander, continuous=1)
    try:
        assert env.single_action_space.shape == (2,)
        for action, vy in (([1.0, 0.0], (MAIN_ACCEL - G) * DT), ([0.2, 0.0], (0.6 * MAIN_ACCEL - G) * DT),
                           ([0.0, 0.0], -G * DT), ([-0.5, 0.3], -G * DT)):
            place(env, fuel=5.0)
            env.step(np.array([action], np.float32))
            assert env.field("vy") == pytest.approx(vy, abs=1e-5) and env.field("omega") == 0
        place(env, fuel=5.0)
        env.step(np.array([[-1.0, 0.8]], np.float32))
        assert env.field("omega") == pytest.approx(2.0 * SIDE_ACCEL * 0.8 / INERTIA * DT, abs=1e-5)
    finally:
        env.close()


def test_the_same_seed_replays_the_same_episodes():
    runs = []
    for _ in range(2):
        env = envs.RocketLander(num_envs=4, wind=2.0)
        try:
            obs, _ = env.reset(seed=7)
            frames = [obs.copy()]
            rng = np.random.default_rng(0)
            for _ in range(200):
                obs, *_ = env.step(rng.integers(0, 4, 4).astype(np.int32))
                frames.append(obs.copy())
            runs.append(np.stack(frames))
        finally:
            env.close()
    assert np.array_equal(runs[0], runs[1]) and not np.array_equal(runs[0][0, 0], runs[0][0, 1])


def test_a_scripted_lander_lands_on_the_pad_where_random_play_crashes():
    scores = {}
    for name in ("scripted", "random"):
        env = envs.RocketLander(num_envs=32, log_interval=10**9)
        try:
            obs, _ = env.reset(seed=1)
            rng = np.random.default_rng(0)
            for _ in range(800):
                action = scripted_lander(obs) if name == "scripted" else rng.integers(0, 4, 32).astype(np.int32)
                obs, *_ = env.step(action)
            scores[name] = env.log()
        finally:
            env.close()
    assert scores["scripted"]["score"] > 0.6 and scores["scripted"]["crashed"] < 0.05
    assert scores["random"]["score"] == 0 and scores["random"]["crashed"] > 0.9


@pytest.mark.parametrize("kwargs, match", [({"wind": 11.0}, "out of range"), ({"continuous": 2}, "out of range"),
                                           ({"gravity": 3.0}, "unknown argument")])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.RocketLander(**kwargs)
