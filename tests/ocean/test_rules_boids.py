"""Rules of ocean-boids: turns and speed limits, alignment paid by neighbours' headings,
crowding and edges cost, truncation for every bird, and its renders."""

import math

import numpy as np
import pytest

from puffer_ocean import envs

KEEP, LEFT, RIGHT, FASTER, SLOWER = 0, 1, 2, 3, 4


@pytest.fixture
def env():
    env = envs.Boids(num_envs=1, num_agents=2, radius=0.2, turn=0.15, crowding=0.25, max_steps=50,
                     render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def put(env, i, x, y, heading):
    env.set_field(f"x[{i}]", x)
    env.set_field(f"y[{i}]", y)
    env.set_field(f"a[{i}]", heading)


def step(env, *actions):
    return env.step(np.array(actions, np.int32))


def test_turns_and_speed_stay_within_their_limits(env):
    put(env, 0, 0.5, 0.5, 1.0)
    step(env, LEFT, KEEP)
    assert env.field("a[0]") == pytest.approx(1.15, abs=1e-5)
    step(env, RIGHT, KEEP)
    step(env, RIGHT, KEEP)
    assert env.field("a[0]") == pytest.approx(0.85, abs=1e-5)
    for _ in range(20):
        step(env, FASTER, KEEP)
    assert env.field("v[0]") == pytest.approx(0.01)
    for _ in range(20):
        step(env, SLOWER, KEEP)
    assert env.field("v[0]") == pytest.approx(0.002)


def test_neighbours_pay_their_alignment(env):
    put(env, 0, 0.4, 0.5, 0.0)
    put(env, 1, 0.5, 0.5, 0.0)  # 0.1 apart: neighbours, not crowded (radius / 4 = 0.05)
    _, rew, *_ = step(env, KEEP, KEEP)
    assert rew == pytest.approx([1, 1], abs=1e-5)
    put(env, 0, 0.4, 0.5, math.pi / 2)
    put(env, 1, 0.5, 0.5, 3 * math.pi / 2)  # opposite headings
    _, rew, *_ = step(env, KEEP, KEEP)
    assert rew == pytest.approx([-1, -1], abs=1e-4)
    put(env, 0, 0.1, 0.5, math.pi / 2)
    put(env, 1, 0.9, 0.5, math.pi / 2)  # out of each other's radius: alone
    _, rew, *_ = step(env, KEEP, KEEP)
    assert list(rew) == [0, 0]


def test_crowding_and_edges_cost(env):
    put(env, 0, 0.50, 0.5, 0.0)
    put(env, 1, 0.52, 0.5, 0.0)  # closer than radius / 4
    _, rew, *_ = step(env, KEEP, KEEP)
    assert rew == pytest.approx([0.75, 0.75], abs=1e-5)
    put(env, 0, 0.999, 0.5, 0.0)  # about to leave through the right edge
    put(env, 1, 0.3, 0.5, 0.0)
    _, rew, *_ = step(env, KEEP, KEEP)
    assert env.field("x[0]") == 1 and env.field("a[0]") == pytest.approx(math.pi, abs=1e-4)  # heads to the centre
    assert rew[0] == pytest.approx(-0.5)


def test_every_bird_is_truncated_together_and_scored(env):
    for _ in range(50):
        _, _, term, trunc, _ = step(env, KEEP, KEEP)
        assert not term.any()
    assert trunc.all() and env.field("tick") == 0
    stats = env.log()
    assert -1 <= stats["score"] <= 1 and stats["episode_length"] == 50


def test_the_observation_names_the_nearest_neighbours(env):
    put(env, 0, 0.5, 0.5, 0.0)
    put(env, 1, 0.6, 0.5, math.pi / 2)
    obs, *_ = step(env, SLOWER, SLOWER)
    first = obs[0]
    assert first[5] == pytest.approx(1 / 8)  # one neighbour
    dx, dy, c, s, present = first[6:11]
    assert present == 1 and c == pytest.approx(0, abs=1e-5) and s == pytest.approx(1)
    assert (dx, dy) == pytest.approx((0.095 / 0.2, 0.005 / 0.2), abs=1e-4)  # after both moved at 0.005
    assert list(first[11:]) == [0] * 15


def test_renders():
    env = envs.Boids(num_envs=1, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert len(text.splitlines()) == 16 and any(ch in text for ch in "<>^v")
    env.close()
    env = envs.Boids(num_envs=1, render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (256, 256, 3) and len(np.unique(frame.reshape(-1, 3), axis=0)) >= 3
    env.close()
