"""Rules of ocean-impulse_wars: thrust and damping, the burst's kick and cooldown, drone-drone and
wall contacts, death in a pit, the end of a game (win, loss, draw, truncation) with outcomes and
knockouts, the step cost, sudden death, the push reward, masks of dead drones, the observation layout, the
built-in drones, determinism, the renders, and an evaluation's env stats."""

import math

import numpy as np
import pytest
import torch

import pufferlib
from puffer_ocean import envs
from pufferlib.train.evaluation import evaluate

NONE, EAST, NORTH, WEST, SOUTH = 0, 1, 3, 5, 7
ACCEL, DAMP, R = 0.03, 0.94, 0.5


def make(**kwargs):
    env = envs.ImpulseWars(num_envs=1, **kwargs)
    env.reset(seed=0)
    return env


@pytest.fixture
def duel():
    """Two agent drones (opponent "none") in a 16 x 16 arena, the pits cleared."""
    env = make(opponent="none", render_mode="ansi")
    env.set_field("num_pits", 0)
    yield env
    env.close()


def place(env, d, x, y, vx=0.0, vy=0.0, cooldown=0):
    for key, value in (("x", x), ("y", y), ("vx", vx), ("vy", vy), ("cooldown_left", cooldown)):
        env.set_field(f"{key}[{d}]", value)


def act(*pairs):
    return np.array(pairs, np.int32)


def test_thrust_then_damping_then_the_move(duel):
    place(duel, 0, 4.0, 4.0)
    place(duel, 1, 12.0, 12.0, vx=0.5)
    duel.step(act((EAST, 0), (NONE, 0)))
    assert duel.field("vx[0]") == pytest.approx(ACCEL * DAMP) and duel.field("vy[0]") == 0
    assert duel.field("x[0]") == pytest.approx(4.0 + ACCEL * DAMP)
    assert duel.field("vx[1]") == pytest.approx(0.5 * DAMP)  # no thrust: damped only
    duel.step(act((2, 0), (NONE, 0)))  # north-east: the thrust split over x and y
    assert duel.field("vy[0]") == pytest.approx(ACCEL * math.sqrt(0.5) * DAMP)
    assert duel.field("vx[0]") == pytest.approx((ACCEL * DAMP + ACCEL * math.sqrt(0.5)) * DAMP)


def test_the_burst_kicks_drones_in_range_away_and_then_cools_down(duel):
    place(duel, 0, 4.0, 8.0)
    place(duel, 1, 6.0, 8.0)  # 2 units away: the kick is 0.7 * (1 - 0.5 * (2 - 1) / 2)
    duel.step(act((NONE, 1), (NONE, 0)))
    assert duel.field("vx[1]") == pytest.approx(0.525 * DAMP) and duel.field("vy[1]") == pytest.approx(0)
    assert duel.field("vx[0]") == 0  # no recoil
    assert duel.field("cooldown_left[0]") == 15
    place(duel, 1, 5.5, 8.0)
    duel.step(act((NONE, 1), (NONE, 0)))  # cooling down: nothing
    assert duel.field("vx[1]") == 0 and duel.field("cooldown_left[0]") == 14
    place(duel, 0, 4.0, 8.0, cooldown=0)
    place(duel, 1, 7.1, 8.0)  # out of reach (3 units)
    duel.step(act((NONE, 1), (NONE, 0)))
    assert duel.field("vx[1]") == 0 and duel.field("cooldown_left[0]") == 15


def test_drones_bounce_off_each_other_keeping_momentum(duel):
    place(duel, 0, 5.0, 8.0, vx=0.2)
    place(duel, 1, 5.9, 8.0, vx=-0.2)
    duel.step(act((NONE, 0), (NONE, 0)))
    v = 0.2 * DAMP
    assert duel.field("vx[0]") == pytest.approx(v - 0.9 * 2 * v)  # restitution 0.8, equal masses
    assert duel.field("vx[0]") + duel.field("vx[1]") == pytest.approx(0, abs=1e-6)
    assert duel.field("x[1]") - duel.field("x[0]") == pytest.approx(2 * R)  # moved apart to touch


def test_walls_stop_and_reflect(duel):
    place(duel, 0, 0.6, 8.0, vx=-0.5)
    place(duel, 1, 15.2, 15.2, vx=0.5, vy=0.5)
    duel.step(act((NONE, 0), (NONE, 0)))
    assert duel.field("x[0]") == pytest.approx(R) and duel.field("vx[0]") == pytest.approx(0.5 * DAMP * 0.5)
    assert duel.field("x[1]") == pytest.approx(16 - R) and duel.field("y[1]") == pytest.approx(16 - R)
    assert duel.field("vy[1]") == pytest.approx(-0.5 * DAMP * 0.5)


def test_pushed_into_a_pit_the_drone_dies_and_the_pusher_wins(duel):
    duel.set_field("num_pits", 1)
    duel.set_field("pit_x[0]", 10.0)
    duel.set_field("pit_y[0]", 6.5)  # the pit spans x 10-13, y 6.5-9.5
    place(duel, 0, 7.0, 8.0)
    place(duel, 1, 8.5, 8.0)  # 1 unit from the pit's edge
    ends = []
    for _ in range(5):
        _, rew, term, trunc, _ = duel.step(act((NONE, 1), (NONE, 0)))
        ends.append(bool(term.any()))
        if term.any():
            break
    assert ends == [False, True] and term.all() and not trunc.any()
    assert rew.tolist() == [1, -1] and duel.outcomes.tolist() == [1.0, 0.0]
    log = duel.log()
    assert log["score"] == 0.5 and log["knockouts"] == 0.5  # the pusher's row: one knockout, a win
    assert duel.field("alive[1]") == 1 and duel.field("tick") == 0  # the next game


def test_dying_together_is_a_draw_and_max_steps_truncates():
    env = make(opponent="none")
    try:
        env.set_field("num_pits", 1)
        env.set_field("pit_x[0]", 7.0)
        env.set_field("pit_y[0]", 7.0)
        place(env, 0, 6.45, 8.0, vx=0.2)
        place(env, 1, 10.55, 8.0, vx=-0.2)  # both reach the pit's edges in the same step
        _, rew, term, _, _ = env.step(act((NONE, 0), (NONE, 0)))
        assert term.all() and rew.tolist() == [0, 0] and env.outcomes.tolist() == [0.5, 0.5]
    finally:
        env.close()
    env = make(opponent="none", max_steps=3, pits=0)
    try:
        for _ in range(3):
            _, rew, term, trunc, _ = env.step(act((NONE, 0), (NONE, 0)))
        assert trunc.all() and not term.any() and rew.tolist() == [0, 0] and np.isnan(env.outcomes).all()
    finally:
        env.close()


def test_the_step_cost_is_paid_every_step_and_counts_in_the_return():
    env = make(opponent="none", max_steps=3, pits=0, step_cost=0.1)
    try:
        for _ in range(3):
            _, rew, _, trunc, _ = env.step(act((NONE, 0), (NONE, 0)))
            np.testing.assert_allclose(rew, [-0.1, -0.1], rtol=1e-6)
        assert trunc.all() and env.log()["episode_return"] == pytest.approx(-0.3)
        env.set_field("num_pits", 1)
        env.set_field("pit_x[0]", 10.0)
        env.set_field("pit_y[0]", 6.5)
        place(env, 0, 7.0, 8.0)
        place(env, 1, 8.5, 8.0)
        env.step(act((NONE, 1), (NONE, 0)))
        _, rew, term, _, _ = env.step(act((NONE, 0), (NONE, 0)))  # drone 1 falls in: the win after the cost
        assert term.all()
        np.testing.assert_allclose(rew, [0.9, -1.1], rtol=1e-6)
        assert env.log()["episode_return"] == pytest.approx(0.5 * (0.8 - 1.2))
    finally:
        env.close()


def test_a_dead_drone_waits_masked_until_one_is_left():
    env = make(opponent="none", num_drones=3)
    try:
        env.set_field("num_pits", 1)
        env.set_field("pit_x[0]", 1.0)
        env.set_field("pit_y[0]", 1.0)
        place(env, 0, 8.0, 12.0)
        place(env, 1, 12.0, 12.0)
        place(env, 2, 4.2, 2.5, vx=-0.3)  # into the pit
        _, rew, term, _, _ = env.step(act((NONE, 0), (NONE, 0), (NONE, 0)))
        assert not term.any() and rew.tolist() == [0, 0, 0] and env.masks.tolist() == [True, True, False]
        assert env.field("alive[2]") == 0
        place(env, 1, 3.0, 4.5, vx=-0.6, vy=-0.6)
        _, rew, term, _, _ = env.step(act((NONE, 0), (NONE, 0), (NONE, 0)))
        assert term.all() and rew.tolist() == [1, -1, -1] and env.outcomes.tolist() == [1, 0, 0]
        assert env.masks.all()
    finally:
        env.close()


OWN, OTHER, PITS = 9, 8, 9 + 8 * 3  # where the own entries, each other drone's and the pits' start


def test_the_observation_is_in_the_own_view(duel):
    duel.set_field("num_pits", 1)
    duel.set_field("pit_x[0]", 10.0)
    duel.set_field("pit_y[0]", 2.0)
    place(duel, 0, 4.0, 8.0, vx=0.1, cooldown=3)
    place(duel, 1, 8.0, 12.0, vy=-0.2)
    duel.step(act((NONE, 0), (NONE, 0)))  # cooldowns count down to 2 and 0
    obs = duel.observations
    x0, v0, y1, v1 = 4.0 + 0.1 * DAMP, 0.1 * DAMP, 12.0 - 0.2 * DAMP, -0.2 * DAMP
    assert obs.shape == (2, 45)
    to_sudden_death = (1 - 150) / 150  # tick 1 of the default 150 before sudden death
    np.testing.assert_allclose(obs[0, :OWN], [x0 / 8 - 1, 0, v0, 0, 2 / 15, (10 - x0) / 16, (5 - 8) / 16, 0,
                                              to_sudden_death], atol=1e-6)
    # drone 1's nearest hazard: the pit's top-left corner (10, 5) from (8, y1)
    np.testing.assert_allclose(obs[0, OWN:OWN + OTHER], [(8 - x0) / 16, (y1 - 8) / 16, -v0, v1, 1, 0,
                                                         (10 - 8) / 16, (5 - y1) / 16], atol=1e-6)
    np.testing.assert_allclose(obs[0, OWN + OTHER:PITS], 0)  # no third or fourth drone
    np.testing.assert_allclose(obs[0, PITS:PITS + 3], [(10 - x0) / 16, (5 - 8) / 16, 1], atol=1e-6)
    np.testing.assert_allclose(obs[0, PITS + 3:], 0)  # one pit
    np.testing.assert_allclose(obs[1, OWN:OWN + OTHER], [(x0 - 8) / 16, (8 - y1) / 16, v0, -v1, 1, 2 / 15,
                                                         (10 - x0) / 16, (5 - 8) / 16], atol=1e-6)
    np.testing.assert_allclose(obs[1, PITS:PITS + 3], [(10 - 8) / 16, (5 - y1) / 16, 1], atol=1e-6)


def test_sudden_death_closes_a_deadly_border_in_and_the_observation_sees_it():
    env = make(opponent="none", pits=0, sudden_death=10)
    try:
        place(env, 0, 8.0, 8.0)
        place(env, 1, 1.2, 8.0)  # 0.7 units from the west wall: its circle reaches 0.7
        for _ in range(10):  # ticks 1-10: no border yet
            _, _, term, _, _ = env.step(act((NONE, 0), (NONE, 0)))
        obs = env.observations
        assert not term.any() and obs[0, 7] == 0 and obs[0, 8] == 0 and obs[0, 5:7].tolist() == [0, 0]
        for _ in range(11, 16):  # the border at 0.04 a step: 0.2 at tick 15, not yet at 0.7
            _, _, term, _, _ = env.step(act((NONE, 0), (NONE, 0)))
            assert not term.any()
        obs = env.observations
        np.testing.assert_allclose(obs[0, 7], 2 * 0.2 / 16, rtol=1e-5)
        np.testing.assert_allclose(obs[0, 5:7], [-(8 - 0.2) / 16, 0], atol=1e-5)  # the border, all ways alike
        np.testing.assert_allclose(obs[0, OWN + 6:OWN + 8], [-(1.2 - 0.2) / 16, 0], atol=1e-5)  # drone 1's: west
        ended = None
        for tick in range(16, 40):
            _, rew, term, _, _ = env.step(act((NONE, 0), (NONE, 0)))
            if term.any():
                ended = tick
                break
        # drone 1's circle (from 0.7) meets the border at tick 10 + 0.7 / 0.04 = 27.5: dead at 28
        assert ended == 28 and rew.tolist() == [1, -1] and env.outcomes.tolist() == [1.0, 0.0]
    finally:
        env.close()
    env = make(opponent="none", pits=0, sudden_death=1, max_steps=1000)
    try:
        place(env, 0, 7.0, 8.0)
        place(env, 1, 9.0, 8.0)
        for _ in range(300):  # the square of side 3 left (border 6.5) stays: both inside, both live
            _, _, term, trunc, _ = env.step(act((NONE, 0), (NONE, 0)))
            assert not term.any() and not trunc.any()
        np.testing.assert_allclose(env.observations[0, 7], 2 * 6.5 / 16, rtol=1e-5)
    finally:
        env.close()


def test_push_reward_pays_a_kick_toward_the_rivals_nearest_hazard():
    env = make(opponent="none", push_reward=0.1)
    try:
        env.set_field("num_pits", 1)
        env.set_field("pit_x[0]", 10.0)
        env.set_field("pit_y[0]", 6.5)  # the pit spans x 10-13, y 6.5-9.5
        place(env, 0, 6.0, 8.0)
        place(env, 1, 8.0, 8.0)  # 2 east of drone 0, the pit 2 further east: the kick points at it
        _, rew, _, _, _ = env.step(act((NONE, 1), (NONE, 0)))
        np.testing.assert_allclose(rew, [0.1 * 0.525 / 0.7, 0], rtol=1e-5)
        place(env, 0, 8.0, 10.0)
        place(env, 1, 8.0, 12.0)  # kicked north, away from the pit (south-east of it): nothing
        _, rew, _, _, _ = env.step(act((NONE, 1), (NONE, 0)))
        assert rew.tolist() == [0, 0]
    finally:
        env.close()


def test_the_scripted_drone_beats_random_play_more_than_random_play_does():
    scores = {}
    for opponent in ("scripted", "random"):
        env = envs.ImpulseWars(num_envs=128, opponent=opponent, log_interval=10**6)
        try:
            env.reset(seed=1)
            rng = np.random.default_rng(0)
            for _ in range(600):
                env.step(rng.integers(0, [9, 2], (128, 2)).astype(np.int32))
            scores[opponent] = env.log()["score"]
        finally:
            env.close()
    assert scores["scripted"] < 0.25 and scores["scripted"] < scores["random"] - 0.1


def test_same_seed_same_game_and_pits_away_from_the_drones():
    runs = []
    for _ in range(2):
        env = envs.ImpulseWars(num_envs=4, num_drones=4, opponent="none", pits=4)
        try:
            obs, _ = env.reset(seed=7)
            rng = np.random.default_rng(3)
            trace = [obs.copy()]
            for _ in range(50):
                trace.append(env.step(rng.integers(0, [9, 2], (16, 2)).astype(np.int32))[0].copy())
            runs.append(np.stack(trace))
        finally:
            env.close()
    np.testing.assert_array_equal(runs[0], runs[1])
    pits = runs[0][0][:, PITS:PITS + 12].reshape(16, 4, 3)  # the reset: 4 games of 4 rows
    assert (pits[..., 0, 2] == 1).all() and (pits[..., 2] == 1).any(1).all()  # every game has a pit
    assert (pits[..., 2] == 1).sum() > 16  # 64 tries each: a crowded arena may get fewer than 4
    assert (np.hypot(pits[..., 0], pits[..., 1])[pits[..., 2] == 1] * 16 > 2.5).all()  # clear of the spawns


def test_the_renders_show_walls_pits_and_drones(duel):
    duel.set_field("num_pits", 1)
    duel.set_field("pit_x[0]", 2.0)
    duel.set_field("pit_y[0]", 2.0)
    place(duel, 0, 8.5, 8.5)
    place(duel, 1, 12.5, 12.5, cooldown=4)
    text = duel.render()
    rows = text.splitlines()
    assert len(rows) == 18 and rows[0] == "#" * 18 and text.count("X") == 9
    assert rows[16 - 8][9] == "A" and rows[16 - 12][13] == "b"  # 'b': drone 1 is cooling down
    env = make(render_mode="rgb_array")
    try:
        first = env.render().copy()
        env.step(act((EAST, 0)))
        env.step(act((EAST, 0)))
        assert first.shape == (256, 256, 3) and (env.render() != first).any()
    finally:
        env.close()


class Still(torch.nn.Module):
    """Equal logits for every move and fire choice, value 0."""

    def forward(self, obs):
        return torch.zeros(obs.shape[0], 11), torch.zeros(obs.shape[0], 1)


def test_an_evaluation_reports_the_episodes_of_its_last_steps_too():
    """`puffer eval --json`'s env/score came out at 0.52 where 0.25 of the counted games were won:
    the env reports its stats every log_interval (128) steps, and the games that ran to the step
    limit, the longest, ended after its last report and were never counted in env/*. Here every
    game runs its 20 steps out, before any report."""
    env = pufferlib.make("ocean-impulse_wars", num_envs=4, pits=0, sudden_death=0, max_steps=20)
    try:
        result = evaluate(env, Still(), 4)
    finally:
        env.close()
    figures = result.as_dict()
    assert figures["env/n"] == 4 and figures["env/episode_length"] == 20 and figures["env/score"] == 0
    assert figures["no_result_rate"] == 1 and figures["win_share"] == 0 and "win_rate" not in figures
