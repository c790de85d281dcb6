"""Rules of ocean-tron: simultaneous moves, relative turns, trails, who crashes loses, a head-on
meeting is a draw, the built-in riders, and the renders."""

import numpy as np
import pytest

from puffer_ocean import envs

STRAIGHT, LEFT, RIGHT = 0, 1, 2


@pytest.fixture
def two_seats():
    env = envs.Tron(num_envs=1, size=8, opponent="none", render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def heads(env):
    return [(env.field(f"x[{p}]"), env.field(f"y[{p}]")) for p in (0, 1)]


def test_both_cycles_move_at_once_and_turn_relative_to_their_heading(two_seats):
    assert heads(two_seats) == [(2, 4), (5, 4)] and two_seats.masks.all()  # both act every step
    two_seats.step(np.array([STRAIGHT, LEFT], np.int32))  # 0 right; 1 heading left turns left: down
    assert heads(two_seats) == [(3, 4), (5, 5)]
    two_seats.step(np.array([RIGHT, STRAIGHT], np.int32))  # 0 turns right: down
    assert heads(two_seats) == [(3, 5), (5, 6)]
    assert two_seats.render().count("#") == 4  # the trails behind the two heads


def test_riding_into_a_trail_loses(two_seats):
    # 0 turns left each step: up to (2, 3), left to (1, 3), down to (1, 4); 1 rides straight
    # left from (5, 4) and enters 0's starting cell (2, 4), a trail, on the third step.
    for step in range(3):
        _, rew, term, _, _ = two_seats.step(np.array([LEFT, STRAIGHT], np.int32))
        assert term.all() == (step == 2)
    assert rew.tolist() == [1, -1] and two_seats.outcomes.tolist() == [1.0, 0.0]
    assert heads(two_seats) == [(2, 4), (5, 4)]  # a new game


def test_a_head_on_meeting_in_one_cell_is_a_draw():
    env = envs.Tron(num_envs=1, size=7, opponent="none")  # heads at x 1 and 5: they meet at x 3
    try:
        env.reset(seed=0)
        env.step(np.array([STRAIGHT, STRAIGHT], np.int32))
        _, rew, term, _, _ = env.step(np.array([STRAIGHT, STRAIGHT], np.int32))
        assert term.all() and rew.tolist() == [0, 0] and env.outcomes.tolist() == [0.5, 0.5]
    finally:
        env.close()


def test_the_scripted_rider_outlasts_the_random_one():
    results = {}
    for opponent in ("scripted", "random"):
        env = envs.Tron(num_envs=256, opponent=opponent)
        try:
            env.reset(seed=1)
            for _ in range(200):  # the agent rides straight: it hits the far wall
                env.step(np.zeros(256, np.int32))
            results[opponent] = env.log()["score"]
        finally:
            env.close()
    assert results["scripted"] < 0.05 and results["scripted"] <= results["random"]


def test_the_frames_change_as_the_cycles_move():
    env = envs.Tron(num_envs=1, size=8, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        first = env.render().copy()
        env.step(np.array([STRAIGHT], np.int32))
        assert first.shape == (128, 128, 3) and (env.render() != first).any()
    finally:
        env.close()
