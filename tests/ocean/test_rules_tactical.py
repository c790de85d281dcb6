"""Rules of ocean-tactical: the map, reach (move ranges, walls and units block), attacks (range,
the weakest target, removal), turns and masks, the mirrored frame of side 1, the game's end (win,
loss, draw at the round limit), damage rewards, illegal moves, the built-in players, the
observation, determinism, and the renders."""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs

W = 7
STAY = 24
UNITS = 4  # unit slots per side in the C state: side s's unit i is field index s * 4 + i


def offset(dx, dy):
    return (dy + 3) * W + dx + 3


@pytest.fixture
def duel():
    """Both sides agents, an open 8 x 8 field, one warrior each."""
    env = envs.Tactical(num_envs=1, opponent="none", units=1, walls=0.0, render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def put(env, u, x, y, hp=None):
    env.set_field(f"ux[{u}]", x)
    env.set_field(f"uy[{u}]", y)
    if hp is not None:
        env.set_field(f"hp[{u}]", hp)


def act(env, action, row=None):
    actions = np.zeros(env.num_agents, np.int32)
    actions[env.field("side_to_move") if row is None else row] = action
    obs, rew, term, trunc, _ = env.step(actions)
    return obs.copy(), rew.copy(), term.copy()


def test_the_squads_start_on_mirrored_edge_cells():
    env = envs.Tactical(num_envs=1, opponent="none", walls=0.0)
    try:
        env.reset(seed=0)
        cells = [(env.field(f"ux[{u}]"), env.field(f"uy[{u}]")) for u in (0, 1, 2, 4, 5, 6)]
        assert cells == [(0, 1), (0, 4), (0, 6), (7, 6), (7, 3), (7, 1)]
        assert [env.field(f"hp[{u}]") for u in (0, 1, 2, 4, 5, 6)] == [10, 6, 10, 10, 6, 10]
    finally:
        env.close()


def test_maps_are_point_symmetric_connected_and_keep_the_edge_columns_free():
    env = envs.Tactical(num_envs=1, opponent="none", walls=0.4, render_mode="ansi")
    try:
        walled = 0
        for seed in range(20):
            env.reset(seed=seed)
            grid = [row for row in env.render().splitlines()[:8]]
            wall = np.array([[c == "#" for c in row] for row in grid])
            walled += wall.sum()
            assert (wall == wall[::-1, ::-1]).all() and not wall[:, 0].any() and not wall[:, -1].any()
            seen, todo = {(0, 0)}, [(0, 0)]
            while todo:
                x, y = todo.pop()
                for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if 0 <= nx < 8 and 0 <= ny < 8 and not wall[ny, nx] and (nx, ny) not in seen:
                        seen.add((nx, ny))
                        todo.append((nx, ny))
            assert len(seen) == (~wall).sum()
        assert walled > 20 * 8  # walls drawn (40% of the pairs off the edge columns, when connected)
    finally:
        env.close()


def test_a_warrior_reaches_three_steps_an_archer_two_and_units_block(duel):
    obs, _ = duel.reset(seed=0)
    put(duel, 0, 3, 3)
    put(duel, 4, 4, 3)  # the enemy right next to it blocks that cell
    obs, _, _ = act(duel, STAY)  # side 0 stays (and hits the enemy), side 1 to act
    obs, _, _ = act(duel, STAY)  # side 1 stays: side 0 to act again
    legal = obs[0, :49].reshape(W, W)
    expected = np.zeros((W, W))
    for dy in range(-3, 4):
        for dx in range(-3, 4):
            free = (3 + dx, 3 + dy) != (4, 3) and 0 <= 3 + dx < 8 and 0 <= 3 + dy < 8
            expected[dy + 3, dx + 3] = free and abs(dx) + abs(dy) <= 3
    expected[3, 5] = expected[3, 6] = 0  # behind the enemy: 4 and 5 steps around it
    assert (legal == expected).all()
    archer = envs.Tactical(num_envs=1, opponent="none", units=2, walls=0.0)
    try:
        archer.reset(seed=0)
        act(archer, STAY)  # the warrior; now the archer (unit 1) acts
        legal = archer.observations[0, :49].reshape(W, W)
        assert legal.sum() == 1 + 3 + 4  # 2 steps from (0, 6): the map's edge cuts the diamond
        assert legal[3, 3] == 1 and legal[3, 5] == 1 and legal[3, 6] == 0
    finally:
        archer.close()


def test_walls_block_moves():
    env = envs.Tactical(num_envs=1, opponent="none", units=1, walls=0.4)
    try:
        for seed in range(50):
            obs, _ = env.reset(seed=seed)
            window = obs[0, 49:98].reshape(W, W)  # 1: a wall or off the map
            legal = obs[0, :49].reshape(W, W)
            assert not (legal.astype(bool) & window.astype(bool)).any()
    finally:
        env.close()


def test_an_attack_hits_the_weakest_enemy_in_range_and_removes_the_fallen():
    env = envs.Tactical(num_envs=1, opponent="none", units=3, walls=0.0, render_mode="ansi")
    try:
        env.reset(seed=0)
        put(env, 0, 3, 3)  # side 0's warrior
        put(env, 4, 4, 3, hp=9)
        put(env, 5, 3, 4, hp=3)  # the weakest in range: it falls
        put(env, 6, 1, 1, hp=2)  # weaker still, but 4 cells away
        act(env, STAY)
        assert [env.field(f"hp[{u}]") for u in (4, 5, 6)] == [9, 0, 2]
        assert env.render().splitlines()[4][3] == "."  # its cell is free
    finally:
        env.close()


def test_an_archer_shoots_three_cells_a_warrior_one(duel):
    put(duel, 0, 2, 2)
    put(duel, 4, 4, 3)  # distance 3 from the warrior: no hit
    act(duel, STAY)
    assert duel.field("hp[4]") == 10
    archers = envs.Tactical(num_envs=1, opponent="none", units=2, walls=0.0)
    try:
        archers.reset(seed=0)
        act(archers, STAY)  # the warrior
        put(archers, 1, 2, 2)
        put(archers, 4, 4, 3)  # 3 away from the archer, which deals 3
        put(archers, 5, 7, 7)
        act(archers, STAY)
        assert archers.field("hp[4]") == 7 and archers.field("hp[5]") == 6
    finally:
        archers.close()


def test_sides_alternate_whole_turns_and_the_waiting_seat_is_masked():
    env = envs.Tactical(num_envs=1, opponent="none", units=3, walls=0.0)
    try:
        obs, _ = env.reset(seed=0)
        order = []
        for _ in range(7):
            side = env.field("side_to_move")
            assert env.masks.tolist() == [side == 0, side == 1]
            assert obs[1 - side, :49].sum() == 0 and obs[side, :49].sum() > 0
            order.append((side, env.field("unit_to_act")))
            obs, _, _ = act(env, STAY)
        assert order == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (0, 0)]
        assert env.field("round") == 1
        env.set_field("hp[1]", 0)  # a fallen unit is skipped
        act(env, STAY)
        assert (env.field("side_to_move"), env.field("unit_to_act")) == (0, 2)
    finally:
        env.close()


def test_side_1_sees_and_acts_in_the_map_turned_half_round(duel):
    act(duel, STAY)  # side 0's warrior stays at (0, 4); side 1's stands at (7, 3)
    act(duel, offset(2, 1), row=1)  # in its frame: 2 right, 1 down; actually 2 left, 1 up
    assert (duel.field("ux[4]"), duel.field("uy[4]")) == (5, 2)
    enemy = duel.observations[:, 98 + 6:98 + 12]  # the map is point-symmetric: both see the same
    assert enemy[0].tolist() == pytest.approx([1, 5 / 8, -2 / 8, 1, 0, 0]) and (enemy[0] == enemy[1]).all()


def test_destroying_the_last_enemy_wins(duel):
    put(duel, 0, 3, 3)
    put(duel, 4, 3, 4, hp=4)
    _, rew, term = act(duel, STAY)
    assert term.all() and duel.outcomes.tolist() == [1.0, 0.0]
    assert rew[0] == pytest.approx(1 + 0.02 * 4) and rew[1] == pytest.approx(-1 - 0.02 * 4)
    assert duel.field("hp[4]") == 10  # a new game
    log = duel.log()
    assert log["score"] == 0.5 and log["units_left"] == 0.5  # one row won with its unit, one lost


def test_the_round_limit_is_a_draw():
    env = envs.Tactical(num_envs=1, opponent="none", units=1, walls=0.0, max_rounds=2)
    try:
        env.reset(seed=0)
        for i in range(4):
            _, rew, term = act(env, STAY)
            assert term.all() == (i == 3)
        assert env.outcomes.tolist() == [0.5, 0.5] and rew.tolist() == [0, 0]
        assert env.log()["draws"] == 1
    finally:
        env.close()


def test_damage_is_paid_to_each_side_at_its_next_action(duel):
    put(duel, 0, 3, 3)
    put(duel, 4, 4, 3)
    _, rew, _ = act(duel, STAY)  # side 0 deals 4; side 1 acts next: it is paid its -0.08
    assert rew.tolist() == pytest.approx([0, -0.08])
    _, rew, _ = act(duel, STAY)  # side 1 hits back for 4: side 0 is paid +0.08 - 0.08
    assert rew.tolist() == pytest.approx([0, 0])
    _, rew, _ = act(duel, STAY)
    assert rew.tolist() == pytest.approx([0, 0.08 - 0.08])


def test_an_unreachable_destination_stays_and_counts_as_illegal(duel):
    x, y = duel.field("ux[0]"), duel.field("uy[0]")
    act(duel, offset(-3, 0))  # off the map
    assert (duel.field("ux[0]"), duel.field("uy[0]")) == (x, y)
    duel.set_field("hp[4]", 1)
    put(duel, 0, 3, 3)
    put(duel, 4, 3, 4)
    act(duel, 0, row=1)  # side 1's (-3, -3) in its frame, 6 cells: it stays, and hits back
    assert (duel.field("ux[4]"), duel.field("uy[4]"), duel.field("hp[0]")) == (3, 4, 6)
    act(duel, STAY)  # side 0 ends the game: each row made one illegal move
    assert duel.log()["illegal"] == 1


def test_the_scripted_squad_beats_random_play_and_random_play_is_even():
    scores = {}
    for opponent in ("scripted", "random"):
        env = envs.Tactical(num_envs=64, opponent=opponent, log_interval=10**9)
        try:
            obs, _ = env.reset(seed=1)
            rng = np.random.default_rng(0)
            for _ in range(400):
                legal = obs[:, :49] > 0
                obs, *_ = env.step((rng.random(legal.shape) * legal).argmax(1).astype(np.int32))
            scores[opponent] = env.log()
        finally:
            env.close()
    assert scores["scripted"]["score"] < 0.05 and scores["scripted"]["n"] > 300
    assert 0.25 < scores["random"]["score"] < 0.55 and scores["random"]["draws"] > 0.05


def test_built_in_players_take_a_seat_of_a_two_seat_game():
    env = envs.Tactical(num_envs=64, opponent="none")
    try:
        assert env.builtin_players == {"scripted": 1, "random": 2}
        env.players[:] = np.tile([1, 2], 64)  # the scripted squad as side 0, random play as side 1
        env.reset(seed=2)
        outcomes = []
        for _ in range(600):
            _, _, term, _, _ = env.step(np.zeros(128, np.int32))  # every action is a built-in player's
            outcomes += env.outcomes[0::2][term[0::2]].tolist()
        assert len(outcomes) > 100 and np.mean(outcomes) > 0.9
    finally:
        env.close()


def test_the_observation_lists_the_focus_unit_then_its_squad_then_the_enemies():
    env = envs.Tactical(num_envs=1, opponent="none", units=2, walls=0.0)
    try:
        env.reset(seed=0)
        act(env, STAY)  # side 0's warrior stays; its archer (unit 1, at (0, 6)) acts next
        env.set_field("hp[5]", 3)
        act(env, offset(1, 0))  # the archer moves to (1, 6); side 1's warrior (unit 4) acts
        obs = env.observations[1, 98:]
        focus, mate, enemy0, enemy1 = obs[0:6], obs[6:12], obs[12:18], obs[18:24]
        assert focus.tolist() == pytest.approx([1, 0, 0, 1, 0, 0])
        # (7, 5) the focus; its archer at (7, 1): 4 rows up, 4 down in the frame turned half round
        assert mate.tolist() == pytest.approx([1, 0, 4 / 8, 3 / 6, 1, 0])
        # side 0's warrior at (0, 2) and archer at (1, 6)
        assert enemy0.tolist() == pytest.approx([1, 7 / 8, 3 / 8, 1, 0, 0])
        assert enemy1.tolist() == pytest.approx([1, 6 / 8, -1 / 8, 1, 1, 0])
        assert obs[24:].tolist() == pytest.approx([0, (10 + 3) / 16, 1])
    finally:
        env.close()


def test_the_same_seed_replays_the_same_games():
    runs = []
    for _ in range(2):
        env = envs.Tactical(num_envs=4, opponent="random")
        try:
            obs, _ = env.reset(seed=5)
            frames = [obs.copy()]
            for _ in range(100):
                legal = obs[:, :49] > 0
                obs, *_ = env.step(legal.argmax(1).astype(np.int32))
                frames.append(obs.copy())
            runs.append(np.stack(frames))
        finally:
            env.close()
    assert np.array_equal(runs[0], runs[1])


def test_the_renders_show_the_squads():
    env = envs.Tactical(num_envs=1, opponent="none", walls=0.0, render_mode="ansi")
    try:
        env.reset(seed=0)
        text = "".join(env.render().splitlines()[:8])
        assert text.count("W") == 2 and text.count("A") == 1 and text.count("w") == 2 and text.count("a") == 1
    finally:
        env.close()
    env = envs.Tactical(num_envs=1, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        frame = env.render()
        assert frame.shape == (192, 192, 3) and len(np.unique(frame.reshape(-1, 3), axis=0)) >= 4
    finally:
        env.close()


@pytest.mark.parametrize("kwargs, match", [({"units": 5}, "out of range"), ({"size": 13}, "out of range"),
                                           ({"opponent": "greedy"}, "not one of"), ({"map": "x"}, "unknown argument")])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.Tactical(**kwargs)
