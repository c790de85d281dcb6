"""Rules of ocean-moba: the spaces and seats, the turned view of team 1, moves and walls, hits,
kills and respawns, the towers' order, the ancient's fall ending the game, the time limit's
result by structures, creep waves, the built-in teams and determinism per seed."""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs

N = 48
LIST = 7 * 121 + 32  # the target list's first value: 1 where the nearest listed enemy exists
RIVER = (10, 10)     # a river cell away from the lanes, towers and bases
T1_TOP_INNER, T1_TOP_OUTER, T1_ANCIENT = 17, 18, 23


@pytest.fixture
def all_agents():
    env = envs.Moba(num_envs=1, opponent="none", render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def place(env, unit, x, y):
    env.set_field(f"u[{unit}].x", x)
    env.set_field(f"u[{unit}].y", y)


def pos(env, unit):
    return env.field(f"u[{unit}].x"), env.field(f"u[{unit}].y")


def act(env, **rows):
    """Every row stays and does nothing, but the rows named (row_3=(move, target, ability))."""
    actions = np.zeros((env.num_agents, 3), np.int32)
    for name, action in rows.items():
        actions[int(name.split("_")[1])] = action
    return env.step(actions)


def test_spaces_seats_and_built_in_players():
    env = envs.Moba(num_envs=2)
    try:
        assert env.single_observation_space.shape == (940,)
        assert env.single_action_space.nvec.tolist() == [9, 6, 3]
        assert env.num_agents == 10 and env.game_seats == 1  # five heroes a copy, each its team's outcome
    finally:
        env.close()
    env = envs.Moba(num_envs=2, opponent="none")
    try:
        assert env.num_agents == 20 and env.game_seats == 10
        assert env.builtin_players == {"scripted": 1, "random": 2}
    finally:
        env.close()


def test_the_map_is_point_symmetric_with_both_teams_structures(all_agents):
    rows = all_agents.render().splitlines()[1:]
    assert len(rows) == N and all(len(r) == N for r in rows)
    for y in range(N):
        for x in range(N):
            a, b = rows[y][x], rows[N - 1 - y][N - 1 - x]
            if a in "#.~" or b in "#.~":
                assert (a == "#") == (b == "#"), (x, y)
    text = "".join(rows)
    assert text.count("t") == text.count("T") == 6 and text.count("a") == text.count("A") == 1


def test_team_one_sees_the_mirror_of_team_zeros_view_at_the_start(all_agents):
    obs = all_agents.observations
    for slot in range(5):
        np.testing.assert_array_equal(obs[slot], obs[5 + slot])


def test_moves_are_in_the_teams_own_view_and_walls_stop_them(all_agents):
    place(all_agents, 0, *RIVER)
    place(all_agents, 5, 30, 30)
    place(all_agents, 1, 1, 2)
    act(all_agents, row_0=(1, 0, 0), row_5=(1, 0, 0), row_1=(5, 0, 0))  # east, east (team 1's), west
    assert pos(all_agents, 0) == (11, 10)
    assert pos(all_agents, 5) == (29, 30)  # team 1's east is the map's west
    assert pos(all_agents, 1) == (1, 2)    # (0, 2) is the border wall


def test_a_killing_hit_rewards_the_killer_and_the_dead_hero_waits_masked(all_agents):
    place(all_agents, 0, *RIVER)  # a warrior (range 1)
    place(all_agents, 5, RIVER[0] + 1, RIVER[1])
    all_agents.set_field("u[5].hp", 1)
    act(all_agents)  # observe the new places: hero 5 is hero 0's nearest enemy
    assert all_agents.observations[0, LIST] == 1
    _, rew, _, _, _ = act(all_agents, row_0=(0, 1, 0))
    assert all_agents.field("u[5].alive") == 0 and not all_agents.masks[5] and all_agents.masks[0]
    assert rew[0] == pytest.approx(0.3) and rew[5] == pytest.approx(-0.3)
    for _ in range(14):
        act(all_agents)
    assert all_agents.field("u[5].alive") == 0
    act(all_agents)  # respawn_time 15: back at its fountain, full
    assert all_agents.field("u[5].alive") == 1 and all_agents.masks[5]
    assert pos(all_agents, 5) == (N - 3, 2) and all_agents.field("u[5].hp") == 500


def test_a_hit_deals_its_damage_within_a_quarter(all_agents):
    place(all_agents, 1, *RIVER)  # a ranger: 14 damage, range 4
    place(all_agents, 5, RIVER[0] + 4, RIVER[1])
    act(all_agents)
    act(all_agents, row_1=(0, 1, 0))
    assert 500 - 14 * 1.25 <= all_agents.field("u[5].hp") <= 500 - 14 * 0.75 + 1  # + its regeneration


def test_an_inner_tower_cannot_be_hurt_or_targeted_while_its_outer_tower_stands(all_agents):
    inner = pos(all_agents, T1_TOP_INNER)
    place(all_agents, 0, inner[0], inner[1] + 1)
    act(all_agents)
    assert all_agents.observations[0, LIST] == 0  # nothing it may hit within its window
    all_agents.set_field(f"u[{T1_TOP_OUTER}].alive", 0)
    act(all_agents)
    listed = all_agents.observations[0, LIST:LIST + 9]
    assert listed[0] == 1 and listed[7] == 1 and listed[8] == 1  # a structure, in range
    act(all_agents, row_0=(0, 1, 0))
    assert all_agents.field(f"u[{T1_TOP_INNER}].hp") < 800


def test_the_ancients_fall_ends_the_game_with_outcomes_and_rewards(all_agents):
    ax, ay = pos(all_agents, T1_ANCIENT)
    all_agents.set_field(f"u[{T1_TOP_OUTER}].alive", 0)
    all_agents.set_field(f"u[{T1_TOP_INNER}].alive", 0)  # the ancient can be hurt now
    all_agents.set_field(f"u[{T1_ANCIENT}].hp", 5)
    place(all_agents, 0, ax + 1, ay + 1)  # beside the ancient, away from the creeps it sends
    act(all_agents)
    _, rew, term, trunc, _ = act(all_agents, row_0=(0, 1, 0))
    assert term.all() and not trunc.any()
    assert all_agents.outcomes.tolist() == [1.0] * 5 + [0.0] * 5
    assert rew[0] == pytest.approx(1 + 5 / 1500, abs=1e-4) and (rew[5:] == -1).all()
    assert all_agents.field("tick") == 0 and all_agents.field(f"u[{T1_ANCIENT}].hp") == 1500  # a new game


def test_the_time_limit_gives_the_game_to_the_team_that_destroyed_more():
    env = envs.Moba(num_envs=1, opponent="none", max_steps=10)
    try:
        env.reset(seed=0)
        env.set_field(f"u[{T1_TOP_OUTER}].hp", 1)
        place(env, 1, 21, 6)  # a ranger 3 below team 1's top outer tower
        actions = np.zeros((10, 3), np.int32)
        env.step(actions)
        actions[1] = (0, 1, 0)
        for _ in range(9):
            _, _, term, trunc, _ = env.step(actions)
            actions[1] = 0
        assert trunc.all() and not term.any()
        assert env.outcomes.tolist() == [1.0] * 5 + [0.0] * 5
    finally:
        env.close()


def test_creep_waves_walk_their_lanes_on_the_timer():
    env = envs.Moba(num_envs=1, opponent="none", wave_interval=20, creeps_per_wave=2)
    try:
        env.reset(seed=0)
        actions = np.zeros((10, 3), np.int32)
        env.step(actions)
        assert env.field("creeps_alive") == 12  # 2 a lane, 3 lanes, 2 teams
        first = pos(env, 24)
        for _ in range(5):
            env.step(actions)
        assert pos(env, 24) != first and env.field("creeps_alive") == 12
        for _ in range(14):
            env.step(actions)
        assert env.field("creeps_alive") == 12 and env.field("tick") == 20
        env.step(actions)
        assert env.field("creeps_alive") == 24  # the second wave at step 21
    finally:
        env.close()


def test_the_scripted_team_beats_the_random_one():
    env = envs.Moba(num_envs=4, opponent="none", max_steps=600)
    try:
        env.reset(seed=2)
        env.players[:] = 1
        env.players.reshape(4, 10)[:, 5:] = 2
        actions = np.zeros((40, 3), np.int32)
        for _ in range(600):
            env.step(actions)
        wins = env.outcomes.reshape(4, 10)[:, 0]
        assert (wins == 1).sum() >= 3, wins
    finally:
        env.close()


def test_the_same_seed_replays_the_same_game():
    def play(seed):
        env = envs.Moba(num_envs=2, opponent="random")
        try:
            env.reset(seed=seed)
            rng = np.random.default_rng(5)
            total = np.zeros(10)
            for _ in range(100):
                _, rew, _, _, _ = env.step(rng.integers(0, [9, 6, 3], (10, 3)).astype(np.int32))
                total += rew
            enemies = [env.field(f"u[{h}].{axis}", copy) for h in range(5, 10) for axis in "xy" for copy in (0, 1)]
            return env.observations.copy(), total, enemies
        finally:
            env.close()

    (a, ra, ea), (b, rb, eb), (_, _, ec) = play(3), play(3), play(4)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ra, rb)
    assert ea == eb and ea != ec  # the random team walks by the copy's seeded draws


def test_the_renders_show_the_units():
    env = envs.Moba(num_envs=1, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        frame = env.render()
        assert frame.shape == (384, 384, 3) and frame.any()
    finally:
        env.close()


@pytest.mark.parametrize("kwargs, match", [
    ({"creeps_per_wave": 7}, "out of range"), ({"opponent": "bots"}, "not one of"),
    ({"map_file": "lanes.npy"}, "unknown argument"), ({"max_steps": 2.5}, "must be an int"),
])
def test_bad_arguments_name_the_problem(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.Moba(**kwargs)
