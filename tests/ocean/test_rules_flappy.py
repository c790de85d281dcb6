"""Rules of ocean-flappy: gravity and flaps, passing a pipe pays 1, touching a pipe, the ground
or the ceiling ends the episode with -1, and its renders."""

import numpy as np
import pytest

from puffer_ocean import envs

NOTHING, FLAP = 0, 1


@pytest.fixture
def env():
    env = envs.Flappy(num_envs=1, render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def step(env, action):
    return env.step(np.array([action], np.int32))


def test_the_bird_falls_and_a_flap_sends_it_up(env):
    y = env.field("y")
    step(env, NOTHING)
    step(env, NOTHING)
    assert env.field("y") < y and env.field("vy") == pytest.approx(-0.004)
    step(env, FLAP)
    assert env.field("vy") == pytest.approx(0.02)


def test_falling_to_the_ground_ends_the_episode_with_minus_one(env):
    steps, term = 0, [False]
    while not term[0] and steps < 200:
        _, rew, term, _, _ = step(env, NOTHING)
        steps += 1
    assert term[0] and rew[0] == -1 and steps < 40 and env.field("y") == 0.5  # a new episode


def test_passing_a_pipe_pays_one_and_touching_one_ends(env):
    for i in range(3):  # open the pipes' gaps around the bird's height
        env.set_field(f"gy[{i}]", 0.5)
    passed = 0
    for _ in range(200):
        _, rew, term, _, _ = step(env, FLAP if env.field("y") < 0.45 else NOTHING)
        assert not term[0]
        passed += rew[0] == 1
    assert passed >= 2 and env.field("passed") == passed
    env.set_field("gy[0]", 0.9)  # close the way: the next pipe's gap far above
    env.set_field("gy[1]", 0.9)
    env.set_field("gy[2]", 0.9)
    for _ in range(100):
        _, rew, term, _, _ = step(env, FLAP if env.field("y") < 0.45 else NOTHING)
        if term[0]:
            break
    assert term[0] and rew[0] == -1


def test_the_renders_show_the_bird_and_the_pipes(env):
    for _ in range(30):  # the first pipe scrolls into view
        step(env, FLAP if env.field("y") < 0.45 else NOTHING)
    text = env.render()
    assert text.count("@") == 1 and "#" in text
    frames = envs.Flappy(num_envs=1, render_mode="rgb_array")
    try:
        frames.reset(seed=0)
        first = frames.render().copy()
        frames.step(np.array([FLAP], np.int32))
        assert first.shape == (256, 256, 3) and (frames.render() != first).any()
    finally:
        frames.close()
