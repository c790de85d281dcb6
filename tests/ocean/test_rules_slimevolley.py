"""Rules of ocean-slimevolley: running and jumping in the own frame, the ball's bounces off
walls, net and slimes, a point where the ball lands, the game to `points` with outcomes, the
scripted slime, and its renders."""

import math

import numpy as np
import pytest

from puffer_ocean import envs

STAY, BACK, FORWARD, JUMP, JUMP_BACK, JUMP_FORWARD = range(6)


@pytest.fixture
def env():
    env = envs.Slimevolley(num_envs=1, opponent="none", points=2, render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def step(env, a, b):
    return env.step(np.array([a, b], np.int32))


def hold_ball(env, x=0.5, y=1.5):
    """Park the ball high above (x, y) with no speed, out of the slimes' way."""
    for key, value in (("bx", x), ("by", y), ("bvx", 0.0), ("bvy", 0.0)):
        env.set_field(key, value)


def test_forward_is_toward_the_net_for_both_and_jumps_need_the_ground(env):
    hold_ball(env)
    step(env, FORWARD, FORWARD)
    assert env.field("px[0]") == pytest.approx(0.52) and env.field("px[1]") == pytest.approx(1.48)
    hold_ball(env)
    step(env, JUMP, BACK)
    assert env.field("py[0]") == pytest.approx(0.047) and env.field("px[1]") == pytest.approx(1.5)
    hold_ball(env)
    step(env, JUMP, STAY)  # in the air: no second jump
    assert env.field("py[0]") == pytest.approx(0.047 + 0.044)


def test_slimes_stay_on_their_side_of_the_net(env):
    for _ in range(60):
        hold_ball(env)
        step(env, FORWARD, FORWARD)
    assert env.field("px[0]") == pytest.approx(1 - 0.02 - 0.12)
    assert env.field("px[1]") == pytest.approx(1 + 0.02 + 0.12)


def test_the_ball_bounces_off_the_wall_and_the_net(env):
    hold_ball(env, 0.05, 1.0)
    env.set_field("bvx", -0.03)
    step(env, STAY, STAY)
    assert env.field("bvx") > 0
    hold_ball(env, 0.93, 0.1)  # at the net's left side, flying right
    env.set_field("bvx", 0.03)
    step(env, STAY, STAY)
    assert env.field("bvx") < 0 and env.field("bx") < 1


def test_a_slime_heads_the_ball_back_up(env):
    hold_ball(env, 0.5, 0.17)
    env.set_field("bvy", -0.02)
    step(env, STAY, STAY)
    assert env.field("bvy") > 0 and env.field("by") >= 0.12 + 0.04 - 1e-5


def test_the_ball_landing_scores_for_the_other_side_and_the_game_ends_at_points(env):
    hold_ball(env, 0.2, 0.045)
    env.set_field("bvy", -0.01)
    _, rew, term, _, _ = step(env, STAY, STAY)
    assert list(rew) == [-1, 1] and env.field("score[1]") == 1 and not term.any()
    assert env.field("bx") == pytest.approx(0.5) and env.field("by") == pytest.approx(0.8)  # served above the loser
    hold_ball(env, 1.8, 0.045)
    env.set_field("bvy", -0.01)
    step(env, STAY, STAY)
    assert env.field("score[0]") == 1
    hold_ball(env, 0.3, 0.045)
    env.set_field("bvy", -0.01)
    _, rew, term, _, _ = step(env, STAY, STAY)
    assert list(rew) == [-1, 1] and term.all()
    assert list(env.outcomes) == [0, 1]
    assert env.field("score[0]") == 0 and env.field("score[1]") == 0  # a new game


def test_each_seat_sees_its_own_mirrored_frame(env):
    hold_ball(env, 0.4, 1.0)
    obs, *_ = step(env, STAY, STAY)
    assert obs[0][4] == pytest.approx(0.4 - 1) and obs[1][4] == pytest.approx(2 - 0.4 - 1)
    assert obs[0][0] == pytest.approx(obs[1][0])  # both slimes at their own 0.5


def test_the_scripted_slime_keeps_the_ball_up_better_than_a_random_one():
    won = {}
    for opponent in ("scripted", "random"):
        env = envs.Slimevolley(num_envs=64, opponent=opponent, points=1)
        env.reset(seed=1)
        rng = np.random.default_rng(0)
        for _ in range(3000):  # the agent plays randomly
            env.step(rng.integers(0, 6, 64).astype(np.int32))
        won[opponent] = env.log()["score"]
        env.close()
    assert won["scripted"] < won["random"] - 0.2, won


def test_renders():
    env = envs.Slimevolley(num_envs=1, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "A" in text and "B" in text and "|" in text and "first to 3" in text
    env.close()
    env = envs.Slimevolley(num_envs=1, render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (160, 256, 3) and len(np.unique(frame.reshape(-1, 3), axis=0)) >= 4
    env.close()
    assert math.isfinite(frame.mean())
