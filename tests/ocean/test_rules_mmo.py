"""Rules of ocean-mmo: moving and what blocks it, eating and drinking (and what they restore, pay and
deplete, and the regrowth), hunger and thirst, healing, melee and range attacks and their targets,
NPCs that hit back and return, kills, XP and levels, ends of lives (terminal, truncated), the
observation's layout, the generated map, seeding, the scripted forager, renders, bad arguments.

Most tests use the fixed test layout (`terrain=1`): column 0 water, column 2 forest, column 4
stone, grass elsewhere. Positions are (row, column); tests move entities with `set_field` and
then set `relink` so that the next step puts them on the map where the fields say."""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs
from puffer_ocean.mmo import forager_actions

STAY, UP, DOWN, LEFT, RIGHT, USE, MELEE, RANGE = range(8)
ROWS, COLS, CH = 11, 15, 8
WATER, STONE, FOREST, FOOD, DRINK, AGENT, NPC, HP = range(CH)
WINDOW = ROWS * COLS * CH


def make(**kwargs):
    args = dict(num_agents=3, map_size=16, num_npcs=0, terrain=1, render_mode="ansi")
    env = envs.Mmo(num_envs=1, **{**args, **kwargs})
    env.reset(seed=0)
    return env


@pytest.fixture
def env():
    env = make()
    place(env, {0: (8, 8), 1: (12, 12), 2: (14, 8)})
    yield env
    env.close()


def place(env, agents=None, npcs=None):
    """Agents {k: (row, col)} and NPCs {j: (row, col)}: the next step puts them on the map there."""
    for k, (r, c) in (agents or {}).items():
        env.set_field(f"r[{k}]", r)
        env.set_field(f"c[{k}]", c)
    for j, (r, c) in (npcs or {}).items():
        env.set_field(f"npc_r[{j}]", r)
        env.set_field(f"npc_c[{j}]", c)
    env.set_field("relink", 1)


def set_stats(env, **fields):
    for name, value in fields.items():
        env.set_field(name, value)
    env.set_field("relink", 1)


def step(env, *actions):
    rows = list(actions) + [STAY] * (env.num_agents - len(actions))
    return env.step(np.array(rows, np.int32))


def pos(env, k):
    return env.field(f"r[{k}]"), env.field(f"c[{k}]")


def window(obs, k):
    return np.asarray(obs)[k, :WINDOW].reshape(ROWS, COLS, CH)


def own(obs, k):
    return np.asarray(obs)[k, WINDOW:].tolist()


def test_moves_go_to_empty_passable_cells_only(env):
    step(env, UP)
    assert pos(env, 0) == (7, 8)
    step(env, LEFT, LEFT)
    assert pos(env, 0) == (7, 7) and pos(env, 1) == (12, 11)
    place(env, {0: (5, 5), 1: (5, 1), 2: (5, 3)})
    step(env, LEFT, LEFT, RIGHT)  # into stone (column 4), into water (column 0), into stone
    assert (pos(env, 0), pos(env, 1), pos(env, 2)) == ((5, 5), (5, 1), (5, 3))
    place(env, {0: (0, 8), 1: (15, 15), 2: (1, 8)})
    step(env, UP, DOWN, UP)  # off the map; off the map; into agent 0
    assert (pos(env, 0), pos(env, 1), pos(env, 2)) == ((0, 8), (15, 15), (1, 8))
    step(env, RIGHT, STAY, UP)  # agent 0 leaves first, so agent 2 may take its cell
    assert pos(env, 0) == (0, 9) and pos(env, 2) == (0, 8)


def test_eating_restores_food_pays_and_empties_the_forest_until_it_regrows():
    env = make(food_regrow=3)
    try:
        place(env, {0: (8, 2), 1: (12, 12), 2: (14, 8)})
        set_stats(env, **{"food[0]": 40})
        obs, rew, term, trunc, _ = step(env, USE)  # tick 1
        assert env.field("food[0]") == 40 + 50 - 1 and rew[0] == pytest.approx(0.5)
        assert env.field("xp[0]") == 1 and not term.any() and not trunc.any()
        assert window(obs, 0)[5, 7, FOOD] == 0 and window(obs, 0)[6, 7, FOOD] == 1  # eaten here, not below
        obs, rew, _, _, _ = step(env, USE)  # nothing left to eat here
        assert rew[0] == 0 and env.field("food[0]") == 88 and own(obs, 0)[6] == 0
        obs, _, _, _, _ = step(env)
        assert window(obs, 0)[5, 7, FOOD] == 0
        obs, _, _, _, _ = step(env)  # tick 4: back 3 steps after it was eaten
        assert window(obs, 0)[5, 7, FOOD] == 1 and own(obs, 0)[6] == 1
    finally:
        env.close()


def test_food_is_capped_and_a_full_agent_leaves_the_food(env):
    place(env, {0: (8, 2)})
    set_stats(env, **{"food[0]": 70})
    _, rew, _, _, _ = step(env, USE)
    assert env.field("food[0]") == 99 and rew[0] == pytest.approx(0.3)
    place(env, {0: (9, 2)})
    set_stats(env, **{"food[0]": 100})
    obs, rew, _, _, _ = step(env, USE)
    assert rew[0] == 0 and window(obs, 0)[5, 7, FOOD] == 1 and env.field("xp[0]") == 1


def test_drinking_from_a_neighbouring_water_cell_which_then_runs_dry():
    env = make(water_regrow=4)
    try:
        place(env, {0: (8, 1), 1: (12, 12), 2: (14, 8)})
        set_stats(env, **{"water[0]": 20})
        obs, rew, _, _, _ = step(env, USE)  # tick 1
        assert env.field("water[0]") == 69 and rew[0] == pytest.approx(0.5) and env.field("food[0]") == 99
        assert window(obs, 0)[5, 6, DRINK] == 0 and window(obs, 0)[4, 6, DRINK] == 1  # only the cell drunk from
        assert own(obs, 0)[7] == 0  # nothing left to drink beside it
        _, rew, _, _, _ = step(env, USE)
        assert rew[0] == 0 and env.field("water[0]") == 68
        for _ in range(2):
            obs, _, _, _, _ = step(env)
        assert window(obs, 0)[5, 6, DRINK] == 0
        obs, _, _, _, _ = step(env)  # tick 5
        assert window(obs, 0)[5, 6, DRINK] == 1 and own(obs, 0)[7] == 1
    finally:
        env.close()


def test_hunger_and_thirst_drain_and_hurt_and_full_stats_heal(env):
    set_stats(env, **{"food[0]": 1, "water[0]": 60, "hp[0]": 50, "food[1]": 1, "water[1]": 1, "hp[1]": 50,
                      "hp[2]": 50})
    step(env)
    assert (env.field("food[0]"), env.field("water[0]"), env.field("hp[0]")) == (0, 59, 45)
    assert env.field("hp[1]") == 40  # both empty: 5 each
    assert env.field("hp[2]") == 52  # fed and watered: heals 2
    for _ in range(30):
        step(env)
    assert env.field("hp[2]") == 100  # up to its maximum


def test_starving_to_death_ends_the_life_with_the_death_penalty(env):
    set_stats(env, **{"food[1]": 0, "water[1]": 0, "hp[1]": 10})
    _, rew, term, trunc, _ = step(env)
    assert term.tolist() == [False, True, False] and not trunc.any() and rew[1] == -1
    stats = env.log()
    assert stats["n"] == 1 and stats["starved"] == 1 and stats["killed"] == 0 and stats["episode_return"] == -1
    assert (env.field("hp[1]"), env.field("food[1]"), env.field("age[1]")) == (100, 100, 0)  # born again, full


def test_melee_hits_a_neighbour_and_damage_grows_with_level(env):
    place(env, {0: (8, 8), 1: (9, 9)})
    set_stats(env, **{"food[1]": 40})  # below half: no healing to blur the damage
    step(env, MELEE)
    assert env.field("hp[1]") == 90
    set_stats(env, **{"level[0]": 3, "xp[0]": 40})
    step(env, MELEE)
    assert env.field("hp[1]") == 90 - 14
    place(env, {1: (10, 8)})  # two cells away: out of reach
    step(env, MELEE)
    assert env.field("hp[1]") == 76


def test_range_reaches_three_cells_for_less(env):
    place(env, {0: (8, 8), 1: (11, 11), 2: (8, 12)})
    set_stats(env, **{"food[1]": 40})
    step(env, RANGE)
    assert env.field("hp[1]") == 95 and env.field("hp[2]") == 100  # (8, 12) is 4 cells away


def test_targets_npcs_first_then_the_nearest_then_the_weakest():
    env = make(num_npcs=1)
    try:
        place(env, {0: (8, 8), 1: (8, 9), 2: (12, 12)}, {0: (11, 8)})
        set_stats(env, **{"food[1]": 40, "food[2]": 40})
        step(env, RANGE)
        assert env.field("npc_hp[0]") == 35 and env.field("hp[1]") == 100  # the NPC, though farther
        place(env, {0: (8, 8), 1: (8, 9), 2: (9, 9)}, {0: (14, 14)})
        set_stats(env, **{"hp[1]": 60, "hp[2]": 50})
        step(env, MELEE)
        assert env.field("hp[2]") == 40 and env.field("hp[1]") == 60  # the weaker of two at the same distance
        place(env, {0: (8, 8), 1: (8, 9), 2: (6, 8)})
        set_stats(env, **{"hp[1]": 90, "hp[2]": 20})
        step(env, RANGE)
        assert env.field("hp[1]") == 85 and env.field("hp[2]") == 20  # the nearer, though stronger
    finally:
        env.close()


def test_an_npc_hits_a_neighbouring_agent():
    env = make(num_npcs=1)
    try:
        place(env, {0: (8, 8), 1: (12, 12), 2: (14, 8)}, {0: (9, 9)})
        obs, _, _, _, _ = step(env)
        assert env.field("hp[0]") == 100 - 8 + 2 and env.field("hp[1]") == 100  # hit for 8, then healed 2
        assert window(obs, 0)[6, 8, NPC] == 1 and window(obs, 0)[6, 8, HP] == 10
    finally:
        env.close()


def test_killing_an_npc_gives_xp_and_it_comes_back_later():
    env = make(num_npcs=1, npc_respawn=3)
    try:
        place(env, {0: (8, 8), 1: (12, 12), 2: (14, 8)}, {0: (9, 9)})
        set_stats(env, **{"npc_hp[0]": 10, "hp[0]": 50})
        obs, _, _, _, _ = step(env, MELEE)
        assert env.field("npc_hp[0]") == 0 and env.field("npc_timer[0]") == 3
        assert env.field("npc_kills[0]") == 1 and env.field("xp[0]") == 10
        assert env.field("hp[0]") == 52  # not hit: the NPC died before its turn; fed, the agent healed
        assert not window(obs, 0)[:, :, NPC].any()
        for _ in range(2):
            step(env)
        assert env.field("npc_timer[0]") == 1
        step(env)
        assert env.field("npc_timer[0]") == 0 and env.field("npc_hp[0]") == 40
    finally:
        env.close()


@pytest.mark.parametrize("kill_xp", [0, 5])
def test_killing_an_agent_ends_its_life_and_pays_its_killer_kill_xp_per_level(kill_xp):
    env = make(kill_xp=kill_xp)
    try:
        place(env, {0: (8, 8), 1: (9, 8), 2: (14, 8)})
        set_stats(env, **{"hp[1]": 10, "level[1]": 2, "xp[1]": 25})
        _, rew, term, _, _ = step(env, MELEE, MELEE)  # agent 1 dies before its own turn
        assert term.tolist() == [False, True, False] and rew[1] == -1
        assert env.field("kills[0]") == 1 and env.field("xp[0]") == 2 * kill_xp and env.field("hp[0]") == 100
        stats = env.log()
        assert stats["killed"] == 1 and stats["level"] == 2 and stats["n"] == 1
    finally:
        env.close()


def test_xp_raises_the_level_health_and_pays_the_level_reward():
    env = make(reward_level=0.5)
    try:
        place(env, {0: (8, 2), 1: (12, 12), 2: (14, 8)})
        set_stats(env, **{"xp[0]": 19, "food[0]": 50, "hp[0]": 100})
        obs, rew, _, _, _ = step(env, USE)
        assert env.field("level[0]") == 2 and env.field("xp[0]") == 20
        assert rew[0] == pytest.approx(0.5 + 0.5) and env.field("hp[0]") == 110  # +10 health; max now 110
        assert own(obs, 0)[3] == 2 and own(obs, 0)[2] == 10
        set_stats(env, **{"xp[0]": 500, "level[0]": 10})
        place(env, {0: (9, 2)})
        set_stats(env, **{"food[0]": 50})
        _, rew, _, _, _ = step(env, USE)
        assert env.field("level[0]") == 10 and rew[0] == pytest.approx(0.5)  # 10 is the highest level
    finally:
        env.close()


def test_lives_are_truncated_at_max_steps_keeping_the_final_view():
    env = make(max_steps=5)
    try:
        place(env, {0: (8, 8), 1: (12, 12), 2: (14, 8)})
        for _ in range(4):
            _, _, term, trunc, _ = step(env, UP)
            assert not (term | trunc).any()
        _, _, term, trunc, _ = step(env, UP)
        assert trunc.all() and not term.any() and env.field("age[0]") == 0
        final = env.final_observations
        assert own(final, 0)[4] == 10  # age 5 of 5
        assert window(final, 0)[5, 7, AGENT] == 1 and window(final, 0)[10, 7, AGENT] == 0  # at (3, 8); not (8, 8)
        stats = env.log()
        assert stats["score"] == 5 and stats["n"] == 3
    finally:
        env.close()


def test_the_observation_layout(env):
    place(env, {0: (3, 1), 1: (3, 3), 2: (14, 8)})
    set_stats(env, **{"food[0]": 58, "water[0]": 91, "hp[0]": 50, "hp[1]": 30, "xp[0]": 7})
    obs, _, _, _, _ = step(env)
    w = window(obs, 0)  # window (row, col) (5, 7) is the agent's own cell, map (3, 1)
    assert w[5, 7, AGENT] == 1 and w[5, 7, HP] == 6  # itself: 50 + 2 healed of 100, in tenths rounded up
    assert w[5, 6, WATER] == 1 and w[5, 6, DRINK] == 1 and w[5, 8, FOREST] == 1 and w[5, 8, FOOD] == 1
    assert w[5, 10, STONE] == 1 and w[5, 5, STONE] == 1  # column 4; column -1, outside the map
    assert w[2, 7, STONE] == 0 and w[1, 7, STONE] == 1  # map row 0; row -1, outside
    assert w[5, 9, AGENT] == 1 and w[5, 9, HP] == 4 and w[5, 9, NPC] == 0  # agent 1: 30 + 2 of 100
    assert w[5, 11:].sum() == 0  # grass
    # food 57 // 10, water 90 // 10, health in tenths, level, age in tenths, XP 7 / 2, can eat, can drink
    assert own(obs, 0) == [5, 9, 6, 1, 0, 3, 0, 1]


def test_the_generated_map_has_water_stone_forest_and_grass_and_follows_the_seed():
    a, b = (envs.Mmo(num_envs=2, num_agents=8, num_npcs=4, map_size=64, render_mode="ansi") for _ in range(2))
    try:
        a.reset(seed=3)
        b.reset(seed=3)
        grid = np.array([list(line) for line in a.render().splitlines()[:64]])
        share = {ch: float((grid == ch).mean()) for ch in "~#T"}
        assert 0.13 <= share["~"] <= 0.16 and 0.08 <= share["#"] <= 0.11
        land = 1 - share["~"] - share["#"]
        assert 0.27 <= share["T"] / land <= 0.31  # forest: 30% of the land (less cells that entities stand on)
        assert a.render(env_id=1) != a.render(env_id=0)  # each copy its own map
        rng = np.random.default_rng(0)
        for _ in range(50):
            actions = rng.integers(0, 8, a.num_agents).astype(np.int32)
            oa, ra, *_ = a.step(actions)
            ob, rb, *_ = b.step(actions)
            np.testing.assert_array_equal(oa, ob)
            np.testing.assert_array_equal(ra, rb)
        b.reset(seed=4)
        assert a.render() != b.render()
    finally:
        a.close()
        b.close()


def test_the_scripted_forager_outlives_random_play():
    lives = {}
    for name in ("random", "forager"):
        env = envs.Mmo(num_envs=1, num_agents=64, map_size=48, num_npcs=0, log_interval=10**9)
        try:
            obs, _ = env.reset(seed=1)
            rng = np.random.default_rng(0)
            for _ in range(400):
                actions = (rng.integers(0, 8, env.num_agents).astype(np.int32) if name == "random"
                           else forager_actions(obs, rng))
                obs, *_ = env.step(actions)
            lives[name] = env.log()
        finally:
            env.close()
    assert lives["random"]["score"] < 130 and lives["random"]["n"] > 64
    assert lives["forager"]["n"] < lives["random"]["n"] / 2  # far fewer lives ended
    assert lives["forager"]["score"] > lives["random"]["score"]


def test_the_forager_walks_to_food_and_eats_when_hungry(env):
    place(env, {0: (8, 3)})
    set_stats(env, **{"food[0]": 30})
    rng = np.random.default_rng(0)
    obs, *_ = step(env)
    assert forager_actions(obs, rng)[0] == LEFT  # the forest is column 2
    obs, *_ = step(env, LEFT)
    assert forager_actions(obs, rng)[0] == USE
    set_stats(env, **{"food[0]": 90, "water[0]": 30})
    obs, *_ = step(env)
    assert forager_actions(obs, rng)[0] == LEFT  # to column 1, beside the water


def test_bad_arguments_say_how_to_fix():
    with pytest.raises(pufferlib.APIUsageError, match="raise map_size"):
        envs.Mmo(num_envs=1, num_agents=200, map_size=16)
    with pytest.raises(pufferlib.APIUsageError, match="terrain"):
        envs.Mmo(num_envs=1, terrain=2)


def test_renders_show_the_map_and_entities(env):
    step(env)  # the agents go where the fixture placed them
    text = env.render()
    lines = text.splitlines()
    assert len(lines) == 17 and all(len(line) == 16 for line in lines[:16])
    assert lines[5][:6] == "~.T.#." and lines[8][8] == "@" and text.count("@") == 3 and lines[16].startswith("tick 1")
    rgb = envs.Mmo(num_envs=1, num_agents=3, map_size=16, num_npcs=1, render_mode="rgb_array")
    try:
        rgb.reset(seed=0)
        frame = rgb.render()
        assert frame.shape == (512, 512, 3) and len(np.unique(frame.reshape(-1, 3), axis=0)) >= 4
    finally:
        rgb.close()
