"""Rules of ocean-cpr (a common-pool resource): eating an apple pays its agent 1, apples regrow
only next to apples, an orchard eaten bare ends the episode, agents block each other, and its
renders."""

import numpy as np
import pytest

from puffer_ocean import envs

UP, DOWN, LEFT, RIGHT, STAY = 0, 1, 2, 3, 4


@pytest.fixture
def env():
    env = envs.Cpr(num_envs=1, size=5, num_agents=2, density=0.0, regrow=0.0, render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def place(env, agents, apples):
    """Agents at (x, y) cells of the top two rows; apples on cells 0-9 (row-major, 5 wide)."""
    for a, (x, y) in enumerate(agents):
        env.set_field(f"ax[{a}]", x)
        env.set_field(f"ay[{a}]", y)
    for cell in range(10):
        env.set_field(f"apple[{cell}]", int(cell in apples))
    env.set_field("apples", len(apples))


def step(env, *actions):
    return env.step(np.array(actions, np.int32))


def test_stepping_onto_an_apple_pays_that_agent_one(env):
    place(env, [(0, 0), (4, 1)], apples=[1, 9])
    _, rew, term, trunc, _ = step(env, RIGHT, STAY)
    assert list(rew) == [1, 0] and env.field("eaten") == 1 and env.field("apple[1]") == 0
    assert env.field("apples") == 1 and not term.any() and not trunc.any()


def test_eating_the_last_apple_ends_the_episode_for_everyone(env):
    place(env, [(0, 0), (4, 1)], apples=[1])
    _, rew, term, _, infos = step(env, RIGHT, STAY)
    assert rew[0] == 1 and term.all()
    assert env.field("tick") == 0  # a new episode began


def test_apples_regrow_next_to_apples_only():
    env = envs.Cpr(num_envs=1, size=5, num_agents=1, density=0.0, regrow=1.0)
    env.reset(seed=0)
    # A full top-left block: its empty neighbour (2, 0) has 5 apples around it and grows for sure;
    # far cells (the bottom rows) have none and never grow.
    env.set_field("ax[0]", 4)
    env.set_field("ay[0]", 1)
    for cell in range(10):
        env.set_field(f"apple[{cell}]", int(cell in (0, 1, 5, 6, 7, 8)))
    env.set_field("apples", 6)
    step(env, STAY)
    assert env.field("apple[2]") == 1
    assert env.field("apples") < 6 + 5  # nothing grows in the empty bottom rows (they have no neighbour)
    env.close()


def test_an_agent_blocks_another_and_the_edge_blocks_both(env):
    place(env, [(0, 0), (1, 0)], apples=[9])
    step(env, RIGHT, UP)
    assert (env.field("ax[0]"), env.field("ay[0]")) == (0, 0)
    assert (env.field("ax[1]"), env.field("ay[1]")) == (1, 0)


def test_the_view_shows_apples_agents_and_the_outside():
    env = envs.Cpr(num_envs=1, size=5, num_agents=2, density=0.0, regrow=0.0, sight=1)
    obs, _ = env.reset(seed=0)
    env.set_field("ax[0]", 0)
    env.set_field("ay[0]", 0)
    env.set_field("ax[1]", 1)
    env.set_field("ay[1]", 1)
    for cell in range(10):
        env.set_field(f"apple[{cell}]", int(cell == 1))
    env.set_field("apples", 1)
    obs, *_ = step(env, STAY, STAY)
    view = obs[0].reshape(3, 3, 3)
    assert view[0, 1, 2] == 1 and view[0].sum() == 1      # the apple right of agent 0
    assert view[1, 2, 2] == 1 and view[1].sum() == 1      # agent 1 diagonally below
    assert view[2, 0].all() and view[2, :, 0].all() and view[2].sum() == 5  # above and left: outside
    env.close()


def test_renders():
    env = envs.Cpr(num_envs=1, size=6, num_agents=2, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "A" in text and "B" in text and "apples" in text
    env.close()
    env = envs.Cpr(num_envs=1, size=6, render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (96, 96, 3) and len(np.unique(frame.reshape(-1, 3), axis=0)) >= 3
    env.close()
