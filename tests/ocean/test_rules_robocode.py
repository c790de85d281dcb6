"""Rules of ocean-robocode: driving (acceleration, braking, top speed), turn rates, the gun, firing
(power, energy, gun heat), bullets (travel, damage, energy back), walls, rams, the sensor cone and
its memory, the game's end (destroyed, both, the step limit), the built-in robots, the
observation, determinism, and the renders."""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs

IDLE = [1, 1, 2, 0]  # brake, no turn, gun still, no fire
DEG = np.pi / 180


@pytest.fixture
def duel():
    env = envs.Robocode(num_envs=1, opponent="none", render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def put(env, r, x, y, heading=0.0, v=0.0, gun=None, energy=None, heat=None):
    for name, value in (("x", x), ("y", y), ("heading", heading), ("v", v), ("gun", heading if gun is None else gun),
                        ("energy", energy), ("heat", heat)):
        if value is not None:
            env.set_field(f"{name}[{r}]", value)


def step(env, a0=IDLE, a1=IDLE):
    obs, rew, term, _, _ = env.step(np.array([a0, a1], np.int32))
    return obs.copy(), rew.copy(), term.copy()


def far_apart(env):
    put(env, 0, 200, 300)
    put(env, 1, 600, 300, heading=np.pi)


def test_robots_accelerate_by_1_brake_by_2_and_top_out_at_8(duel):
    far_apart(duel)
    speeds = []
    for _ in range(10):
        step(duel, [2, 1, 2, 0])
        speeds.append(duel.field("v[0]"))
    assert speeds == [1, 2, 3, 4, 5, 6, 7, 8, 8, 8]
    for expected in (6, 4, 2, 0, 0):
        step(duel)
        assert duel.field("v[0]") == expected
    put(duel, 0, 200, 300, v=2.0)
    for expected in (0, -1, -2):
        step(duel, [0, 1, 2, 0])
        assert duel.field("v[0]") == expected
    assert duel.field("x[0]") == pytest.approx(200 - 3)


def test_the_body_turns_slower_at_speed_and_carries_the_gun(duel):
    far_apart(duel)
    step(duel, [1, 0, 4, 0])  # at rest: the body turns 10 degrees left, the gun 20 more
    assert duel.field("heading[0]") == pytest.approx(10 * DEG, abs=1e-5)
    assert duel.field("gun[0]") == pytest.approx(30 * DEG, abs=1e-5)
    put(duel, 0, 200, 300, v=8.0)
    step(duel, [2, 2, 1, 0])  # at 8: 10 - 0.75 x 8 = 4 degrees right; the gun 5 degrees right more
    assert duel.field("heading[0]") == pytest.approx(-4 * DEG, abs=1e-5)
    assert duel.field("gun[0]") == pytest.approx(-9 * DEG, abs=1e-5)


def test_firing_costs_energy_and_heats_the_gun(duel):
    far_apart(duel)
    assert duel.field("heat[0]") == pytest.approx(3)  # hot at the start: no shot
    step(duel, [1, 1, 2, 3])
    assert duel.field("energy[0]") == 100 and duel.field("heat[0]") == pytest.approx(2.9)
    put(duel, 0, 200, 300, heat=0.05)
    step(duel, [1, 1, 2, 3])
    assert duel.field("energy[0]") == pytest.approx(97) and duel.field("heat[0]") == pytest.approx(1.6)
    step(duel, [1, 1, 2, 3])  # hot again
    assert duel.field("energy[0]") == pytest.approx(97)
    put(duel, 0, 200, 300, heat=0.0, energy=2.5)
    step(duel, [1, 1, 2, 3])  # power 3 needs more than 3 energy
    assert duel.field("energy[0]") == pytest.approx(2.5)


@pytest.mark.parametrize("power, ticks, damage", [(1, 5, 4), (3, 8, 16)])
def test_a_bullet_flies_20_less_3p_a_tick_and_hits_for_4p_plus_2_over_1(duel, power, ticks, damage):
    put(duel, 0, 100, 300, heat=0.0)
    put(duel, 1, 200, 300, heading=np.pi / 2)
    rewards = []
    for tick in range(1, 12):
        _, rew, _ = step(duel, [1, 1, 2, power if tick == 1 else 0])
        rewards.append(rew.tolist())
        if duel.field("energy[1]") < 100:
            break
    # power 1: 17 a tick reaches within 18 of x 200 on tick 5; power 3: 11 a tick, tick 8
    assert tick == ticks
    assert duel.field("energy[1]") == pytest.approx(100 - damage)
    assert duel.field("energy[0]") == pytest.approx(100 - power + 3 * power)
    assert rewards[-1] == pytest.approx([0.01 * damage, -0.01 * damage])


def test_energy_reward_also_pays_the_firing_cost_and_the_energy_back():
    env = envs.Robocode(num_envs=1, opponent="none", energy_reward=1)
    try:
        env.reset(seed=0)
        put(env, 0, 100, 300, heat=0.0)
        put(env, 1, 200, 300, heading=np.pi / 2)
        rewards = [step(env, [1, 1, 2, 3 if tick == 0 else 0])[1].tolist() for tick in range(8)]
        assert rewards[0] == pytest.approx([-0.03, 0])  # the shot's 3 energy
        assert rewards[-1] == pytest.approx([0.01 * 16 + 0.09, -0.16])  # the hit: 16 dealt, 9 back
        assert env.field("energy[0]") == pytest.approx(106)
    finally:
        env.close()


def test_a_wall_stops_a_robot_and_damages_it_by_half_its_speed_less_1(duel):
    put(duel, 0, 22, 300, heading=np.pi, v=8.0)
    put(duel, 1, 600, 300)
    _, rew, _ = step(duel, [2, 1, 2, 0])
    assert duel.field("x[0]") == pytest.approx(18) and duel.field("v[0]") == 0
    assert duel.field("energy[0]") == pytest.approx(97) and rew.tolist() == pytest.approx([-0.03, 0])


def test_a_ram_stops_both_robots_where_they_were_and_costs_each_0_6(duel):
    put(duel, 0, 300, 300, v=8.0)
    put(duel, 1, 345, 300, heading=np.pi, v=8.0)
    step(duel, [2, 1, 2, 0], [2, 1, 2, 0])
    assert [duel.field(f"x[{r}]") for r in (0, 1)] == pytest.approx([300, 345])
    assert [duel.field(f"v[{r}]") for r in (0, 1)] == [0, 0]
    assert [duel.field(f"energy[{r}]") for r in (0, 1)] == pytest.approx([99.4, 99.4])


def test_the_sensor_sees_inside_its_cone_and_remembers_the_last_sighting(duel):
    put(duel, 0, 100, 300)
    put(duel, 1, 300, 320, heading=np.pi)  # 5.7 degrees off the gun: inside the 0.35 rad cone
    obs, _, _ = step(duel)
    assert obs[0, 9] == 1 and obs[0, 10] == 0
    assert obs[0, 11:14].tolist() == pytest.approx([200 / 800, 20 / 600, np.hypot(200, 20) / 1000], abs=1e-5)
    put(duel, 1, 100, 500)  # straight above: outside the cone
    obs, _, _ = step(duel)
    assert obs[0, 9] == 0 and obs[0, 10] == pytest.approx(0.01)
    assert obs[0, 11] == pytest.approx(200 / 800)  # still where it was seen
    env = envs.Robocode(num_envs=1, opponent="none", cone=0.05)
    try:
        env.reset(seed=0)
        put(env, 0, 100, 300)
        put(env, 1, 300, 320)
        obs, *_ = env.step(np.array([IDLE, IDLE], np.int32))
        assert obs[0, 9] == 0  # a narrower cone misses it
    finally:
        env.close()


def test_destroying_the_other_robot_wins(duel):
    put(duel, 0, 300, 300)
    put(duel, 1, 22, 300, heading=np.pi, v=8.0, energy=2.0)  # the wall takes 3
    _, rew, term = step(duel, IDLE, [2, 1, 2, 0])
    assert term.all() and duel.outcomes.tolist() == [1.0, 0.0]
    assert rew.tolist() == pytest.approx([1, -1 - 0.03])
    assert duel.field("energy[1]") == 100 and duel.field("tick") == 0  # a new game
    assert duel.log()["score"] == 0.5


def test_both_destroyed_at_once_or_the_step_limit_is_a_draw(duel):
    put(duel, 0, 778, 300, v=8.0, energy=1.0)
    put(duel, 1, 22, 300, heading=np.pi, v=8.0, energy=1.0)
    _, rew, term = step(duel, [2, 1, 2, 0], [2, 1, 2, 0])
    assert term.all() and duel.outcomes.tolist() == [0.5, 0.5]
    env = envs.Robocode(num_envs=1, opponent="none", max_steps=3)
    try:
        env.reset(seed=0)
        far_apart(env)
        for tick in range(3):
            _, _, term = step(env)
            assert term.all() == (tick == 2)
        assert env.outcomes.tolist() == [0.5, 0.5] and env.log()["draws"] == 1
    finally:
        env.close()


def random_actions(rng, n):
    return np.stack([rng.integers(0, k, n) for k in (3, 3, 5, 4)], 1).astype(np.int32)


def test_the_scripted_robot_beats_random_play():
    env = envs.Robocode(num_envs=32, log_interval=10**9)
    try:
        env.reset(seed=1)
        rng = np.random.default_rng(0)
        for _ in range(1500):
            env.step(random_actions(rng, 32))
        log = env.log()
        assert log["n"] > 60 and log["score"] < 0.05
    finally:
        env.close()
    env = envs.Robocode(num_envs=32, opponent="none")
    try:
        assert env.builtin_players == {"scripted": 1, "random": 2}
        env.players[:] = np.tile([1, 2], 32)  # the scripted robot as robot 0, random play as robot 1
        env.reset(seed=2)
        outcomes = []
        for _ in range(1500):
            _, _, term, _, _ = env.step(np.zeros((64, 4), np.int32))
            outcomes += env.outcomes[0::2][term[0::2]].tolist()
        assert len(outcomes) > 60 and np.mean(outcomes) > 0.9
    finally:
        env.close()


def test_the_observation_layout(duel):
    put(duel, 0, 200, 150, heading=0.5, gun=1.0, energy=80.0, heat=0.5)
    put(duel, 1, 700, 500)
    obs, _, _ = step(duel)
    assert obs[0, :9].tolist() == pytest.approx(
        [200 / 800 * 2 - 1, 150 / 600 * 2 - 1, 0, np.cos(0.5), np.sin(0.5), np.cos(1.0), np.sin(1.0), 0.8,
         0.4 / 1.6], abs=1e-5)
    assert obs[0, 22] == pytest.approx(duel.field("tick") / 2000)


def test_the_aiming_features_give_the_gun_error_to_it_and_to_each_powers_intercept(duel):
    put(duel, 0, 100, 300)
    put(duel, 1, 300, 320, heading=np.pi / 2, v=4.0)  # seen, driving up (counter-clockwise around robot 0)
    obs, _, _ = step(duel, IDLE, [2, 1, 2, 0])  # at 5 after this tick
    assert obs[0, 9] == 1
    bearing = np.arctan2(325 - 300, 300 - 100)  # where it is after this tick's move
    lateral, radial = 5 * np.cos(bearing), 5 * np.sin(bearing)
    leads = [np.arcsin(lateral / (20 - 3 * p)) for p in (1, 2, 3)]
    assert obs[0, 23:29].tolist() == pytest.approx(
        [bearing / 0.35, lateral / 8, radial / 8] + [(bearing + lead) / 0.35 for lead in leads], abs=1e-4)
    put(duel, 0, 100, 300, gun=-1.0)  # errors past 2 cones are clipped
    obs, _, _ = step(duel)
    assert obs[0, 23] == 2 and obs[0, 26:29].tolist() == [2, 2, 2] and obs[0, 9] == 0


def test_the_same_seed_replays_the_same_games():
    runs = []
    for _ in range(2):
        env = envs.Robocode(num_envs=4, opponent="random")
        try:
            obs, _ = env.reset(seed=3)
            frames = [obs.copy()]
            rng = np.random.default_rng(0)
            for _ in range(300):
                obs, *_ = env.step(random_actions(rng, 4))
                frames.append(obs.copy())
            runs.append(np.stack(frames))
        finally:
            env.close()
    assert np.array_equal(runs[0], runs[1]) and not np.array_equal(runs[0][:, 0], runs[0][:, 1])


def test_the_renders_show_both_robots(duel):
    assert "A" in duel.render() and "B" in duel.render()
    env = envs.Robocode(num_envs=1, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        frame = env.render()
        assert frame.shape == (300, 400, 3) and len(np.unique(frame.reshape(-1, 3), axis=0)) >= 3
    finally:
        env.close()


@pytest.mark.parametrize("kwargs, match", [({"cone": 0.0}, "out of range"), ({"opponent": 3}, "out of range"),
                                           ({"arena": 1000}, "unknown argument")])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.Robocode(**kwargs)
