"""Rules of ocean-terraform: digging and dumping pay the fall of the worked cell's error, the blade's
bounds (capacity, the cell's soil, max_height), moves refused off the map, onto another dozer or up
a slope steeper than max_climb, the blade working the cell reached, the episode's truncation and
score (the share of the start's error removed), the generated maps, the observation's layout,
seeding, the scripted digger against random play, renders and bad arguments.

Hand-set states use an 8 x 8 map, whose 64 cells are fields `height[i]` / `target[i]` (i = y * 8 + x)."""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs
from puffer_ocean.terraform import scripted_actions

STAY, UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3, 4
NOTHING, DIG, DUMP = 0, 1, 2
N, PLANE, CENTRE = 8, 121, 60


@pytest.fixture
def env():
    env = envs.Terraform(num_envs=1, map_size=N, num_agents=2, max_steps=50, render_mode="ansi")
    env.reset(seed=0)
    flat(env, height=4.0, target=4.0)
    put(env, 0, 2, 2)
    put(env, 1, 6, 6)
    yield env
    env.close()


def flat(env, height, target):
    for i in range(N * N):
        env.set_field(f"height[{i}]", height)
        env.set_field(f"target[{i}]", target)


def cell(env, x, y, height=None, target=None):
    """Set (when given) and return (height, target) of cell (x, y)."""
    if height is not None:
        env.set_field(f"height[{y * N + x}]", height)
    if target is not None:
        env.set_field(f"target[{y * N + x}]", target)
    return env.field(f"height[{y * N + x}]"), env.field(f"target[{y * N + x}]")


def put(env, a, x, y, load=0.0):
    env.set_field(f"dx[{a}]", x)
    env.set_field(f"dy[{a}]", y)
    env.set_field(f"load[{a}]", load)


def at(env, a):
    return env.field(f"dx[{a}]"), env.field(f"dy[{a}]")


def step(env, *actions):
    rows = list(actions) + [(STAY, NOTHING)] * (env.num_agents - len(actions))
    return env.step(np.array(rows, np.int32))


def test_digging_a_high_cell_pays_the_fall_of_its_error(env):
    cell(env, 2, 2, height=6.0, target=4.5)
    _, rew, term, trunc, _ = step(env, (STAY, DIG))
    assert cell(env, 2, 2)[0] == 5.0 and env.field("load[0]") == 1.0 and rew[0] == pytest.approx(1.0)
    _, rew, *_ = step(env, (STAY, DIG))   # 5 -> 4 against 4.5: the error goes 0.5 -> 0.5
    assert rew[0] == pytest.approx(0.0)
    _, rew, *_ = step(env, (STAY, DIG))   # 4 -> 3: 0.5 -> 1.5
    assert rew[0] == pytest.approx(-1.0) and env.field("load[0]") == 3.0
    assert not term.any() and not trunc.any() and rew[1] == 0


def test_dumping_into_a_hollow_pays_and_empties_the_blade(env):
    put(env, 0, 2, 2, load=2.0)
    cell(env, 2, 2, height=1.0, target=3.0)
    _, rew, *_ = step(env, (STAY, DUMP))
    assert cell(env, 2, 2)[0] == 2.0 and env.field("load[0]") == 1.0 and rew[0] == pytest.approx(1.0)
    step(env, (STAY, DUMP))
    _, rew, *_ = step(env, (STAY, DUMP))  # empty blade: nothing happens
    assert cell(env, 2, 2)[0] == 3.0 and env.field("load[0]") == 0 and rew[0] == 0


def test_the_blade_is_bounded_by_capacity_soil_and_max_height(env):
    put(env, 0, 2, 2, load=3.5)
    cell(env, 2, 2, height=6.0, target=0.0)
    step(env, (STAY, DIG))                # room for 0.5 of the 4
    assert env.field("load[0]") == 4.0 and cell(env, 2, 2)[0] == 5.5
    put(env, 0, 2, 2, load=0.0)
    cell(env, 2, 2, height=0.25)
    step(env, (STAY, DIG))                # only 0.25 of soil there
    assert env.field("load[0]") == 0.25 and cell(env, 2, 2)[0] == 0.0
    put(env, 0, 2, 2, load=3.0)
    cell(env, 2, 2, height=7.5, target=8.0)
    step(env, (STAY, DUMP))               # at most max_height (8)
    assert env.field("load[0]") == 2.5 and cell(env, 2, 2)[0] == 8.0


def test_moves_go_where_they_say_and_the_edge_refuses_them(env):
    for move, expected in ((UP, (2, 1)), (DOWN, (2, 2)), (LEFT, (1, 2)), (RIGHT, (2, 2))):
        step(env, (move, NOTHING))
        assert at(env, 0) == expected
    put(env, 0, 0, 0)
    step(env, (UP, NOTHING))
    step(env, (LEFT, NOTHING))
    assert at(env, 0) == (0, 0)
    put(env, 1, 7, 7)
    step(env, (STAY, NOTHING), (RIGHT, NOTHING))
    step(env, (STAY, NOTHING), (DOWN, NOTHING))
    assert at(env, 1) == (7, 7)


def test_a_dozer_blocks_another_and_the_first_to_act_moves_first(env):
    put(env, 1, 3, 2)
    step(env, (RIGHT, NOTHING))
    assert at(env, 0) == (2, 2)
    step(env, (RIGHT, NOTHING), (RIGHT, NOTHING))  # dozer 0 acts first: 1 has not left yet
    assert at(env, 0) == (2, 2) and at(env, 1) == (4, 2)
    step(env, (STAY, NOTHING), (LEFT, NOTHING))    # and dozer 1 may take the cell 0 left this step
    step(env, (LEFT, NOTHING), (LEFT, NOTHING))
    assert at(env, 0) == (1, 2) and at(env, 1) == (2, 2)


def test_slopes_steeper_than_max_climb_refuse_the_move(env):
    cell(env, 2, 2, height=3.0)
    cell(env, 3, 2, height=7.5)           # 4.5 above the dozer's 3 (max_climb 4): too steep
    cell(env, 2, 1, height=7.0)           # 4 above: allowed
    step(env, (RIGHT, NOTHING))
    assert at(env, 0) == (2, 2)
    step(env, (UP, NOTHING))
    assert at(env, 0) == (2, 1)


def test_the_blade_works_the_cell_the_move_reached(env):
    cell(env, 3, 2, height=6.0, target=4.0)
    _, rew, *_ = step(env, (RIGHT, DIG))
    assert at(env, 0) == (3, 2) and cell(env, 3, 2)[0] == 5.0 and cell(env, 2, 2)[0] == 4.0
    assert rew[0] == pytest.approx(1.0)


def test_the_error_is_tracked_and_the_episode_truncates_with_its_score(env):
    env.set_field("error0", 100.0)
    env.set_field("error", 100.0)
    cell(env, 2, 2, height=6.0, target=4.0)
    step(env, (STAY, DIG))
    step(env, (STAY, DIG))
    assert env.field("error") == pytest.approx(98.0)
    for _ in range(3, 50):
        _, _, term, trunc, _ = step(env)
        assert not trunc.any()
    _, _, term, trunc, _ = step(env)
    assert trunc.all() and not term.any() and env.field("tick") == 0
    log = env.log()
    assert log["n"] == 2 and log["score"] == pytest.approx(0.02)
    assert log["episode_return"] == pytest.approx(1.0) and log["episode_length"] == 50 and log["dug"] == 1.0


def test_each_episode_draws_maps_of_equal_soil_within_bounds():
    env = envs.Terraform(num_envs=1, map_size=N, num_agents=2, max_steps=1)
    seen = []
    for seed in range(4):
        env.reset(seed=seed)
        h = np.array([env.field(f"height[{i}]") for i in range(N * N)])
        t = np.array([env.field(f"target[{i}]") for i in range(N * N)])
        assert h.min() == 0 and h.max() == pytest.approx(8.0) and t.min() >= 0 and t.max() <= 8.0
        assert t.sum() == pytest.approx(h.sum(), rel=0.05)
        assert env.field("error0") == pytest.approx(np.abs(h - t).sum(), rel=1e-5)
        assert at(env, 0) != at(env, 1)
        seen.append(h)
    assert not np.array_equal(seen[0], seen[1])
    env.close()


def test_the_observation_layout(env):
    put(env, 0, 0, 0, load=1.0)
    cell(env, 0, 0, height=6.0, target=2.0)
    cell(env, 1, 0, height=2.0, target=4.0)
    put(env, 1, 2, 1)
    obs, *_ = step(env)
    o = obs[0]
    assert o.shape == (399,)
    window = o[:PLANE].reshape(11, 11)
    diff = o[PLANE:2 * PLANE].reshape(11, 11)
    dozers = o[2 * PLANE:3 * PLANE].reshape(11, 11)
    assert window[5, 5] == 6 / 8 and diff[5, 5] == -4 / 8 and window[5, 6] == 2 / 8 and diff[5, 6] == 2 / 8
    assert (window[:5] == -1).all() and (window[:, :5] == -1).all() and (diff[:5] == 0).all()
    assert window[10, 10] == 4 / 8        # cell (5, 5), on the map
    assert dozers.sum() == 1 and dozers[5 + 1, 5 + 2] == 1
    assert o[363] == 1 / 4 and o[364] == 0 and o[365] == 0 and o[366] == pytest.approx(1 / 50)
    assert obs[1, 364] == pytest.approx(2 / 7) and obs[1, 365] == pytest.approx(1 / 7)


def test_the_region_summary_after_a_reset():
    env = envs.Terraform(num_envs=1, map_size=N, num_agents=1)
    obs, _ = env.reset(seed=3)
    h = np.array([env.field(f"height[{i}]") for i in range(N * N)]).reshape(N, N)
    t = np.array([env.field(f"target[{i}]") for i in range(N * N)]).reshape(N, N)
    d = (h - t).reshape(4, 2, 4, 2)       # 4 x 4 regions of 2 x 2 cells
    regions = obs[0, 367:].reshape(16, 2)
    np.testing.assert_allclose(regions[:, 0], d.mean((1, 3)).ravel() / 8, atol=1e-6)
    np.testing.assert_allclose(regions[:, 1], np.abs(d).mean((1, 3)).ravel() / 8, atol=1e-6)
    env.close()


def run(seed, steps=40, num_envs=2):
    env = envs.Terraform(num_envs=num_envs, map_size=16, num_agents=2)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    frames = [obs.copy()]
    for _ in range(steps):
        obs, *_ = env.step(np.stack([rng.integers(0, 5, env.num_agents), rng.integers(0, 3, env.num_agents)], 1))
        frames.append(obs.copy())
    env.close()
    return np.array(frames)


def test_same_seed_same_world_and_seeds_differ():
    assert np.array_equal(run(5), run(5))
    assert not np.array_equal(run(5), run(6))
    both = run(5)
    assert not np.array_equal(both[:, :2], both[:, 2:])  # the copies draw their own maps


def removed(player, copies=4, steps=300):
    """The error the dozers removed (their summed reward) over `steps` steps of the default world."""
    env = envs.Terraform(num_envs=copies)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(steps):
        if player == "random":
            actions = np.stack([rng.integers(0, 5, env.num_agents), rng.integers(0, 3, env.num_agents)], 1)
        else:
            actions = scripted_actions(obs, rng)
        obs, rew, *_ = env.step(actions)
        total += rew.sum()
    env.close()
    return total


def test_the_scripted_digger_removes_error_and_random_play_adds_it():
    assert removed("scripted") > 50 and removed("random") < 0


def test_renders(env):
    text = env.render()
    assert text.count("\n") == N + 1 and "0" in text and "1" in text and "tick" in text
    rgb = envs.Terraform(num_envs=1, map_size=N, num_agents=1, render_mode="rgb_array")
    rgb.reset(seed=0)
    assert rgb.render().shape == (64, 64, 3)
    rgb.close()


@pytest.mark.parametrize("kwargs, match", [
    ({"map_size": 8, "num_agents": 33}, "at most half"), ({"dig_amount": 5.0, "capacity": 4.0}, "must not exceed"),
    ({"map_size": 65}, "out of range"), ({"digging": 1}, "unknown argument"),
])
def test_bad_arguments_say_how_to_fix(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.Terraform(**kwargs)
