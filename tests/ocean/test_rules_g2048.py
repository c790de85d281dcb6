"""Rules of ocean-g2048: slides and merges (each tile once, the pair nearest the wall first),
spawns after a move that changes the board only, the end of the game, and its renders."""

import numpy as np
import pytest

from puffer_ocean import envs

UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3


def board(env):
    return [int(env.field(f"cells[{i}]")) for i in range(16)]


def set_board(env, values):
    """Place tiles given by value (0: empty), row-major from the top left."""
    for i, v in enumerate(values):
        env.set_field(f"cells[{i}]", int(np.log2(v)) if v else 0)


def row(values):
    return [*values, *[0] * 12]


@pytest.fixture
def env():
    env = envs.G2048(num_envs=1, render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


@pytest.mark.parametrize("line, action, expected, reward", [
    ([2, 2, 2, 2], LEFT, [4, 4, 0, 0], 0.4),        # two merges, each tile once
    ([4, 4, 8, 0], LEFT, [8, 8, 0, 0], 0.3),        # the new 8 does not merge again
    ([2, 0, 2, 4], LEFT, [4, 4, 0, 0], 0.2),        # tiles slide over gaps before merging
    ([2, 2, 2, 0], RIGHT, [0, 0, 2, 4], 0.2),       # the pair nearest the wall merges first
    ([8, 4, 2, 2], LEFT, [8, 4, 4, 0], 0.2),
])
def test_slides_and_merges_follow_the_original_game(env, line, action, expected, reward):
    set_board(env, row(line))
    _, rew, _, _, _ = env.step(np.array([action], np.int32))
    got = [2 ** v if v else 0 for v in board(env)[:4]]
    # a new tile spawned somewhere empty: the first row holds the merged line, or it plus the spawn
    spawned = [g for g, e in zip(got, expected) if g != e]
    assert len(spawned) <= 1 and all(s in (2, 4) for s in spawned) and rew[0] == pytest.approx(reward)


def test_columns_merge_up_and_down(env):
    set_board(env, [2, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0])
    env.step(np.array([DOWN], np.int32))
    column = [board(env)[i] for i in (0, 4, 8, 12)]
    assert column[2:] == [2, 3]  # 2+2 -> 4 above 4+4 -> 8, at the bottom


def test_a_move_that_changes_nothing_costs_the_penalty_and_spawns_nothing(env):
    set_board(env, row([2, 4, 0, 0]))
    before = board(env)
    _, rew, term, _, _ = env.step(np.array([LEFT], np.int32))
    assert board(env) == before and rew[0] == pytest.approx(-0.1) and not term[0]


def test_spawns_are_twos_nine_times_in_ten():
    env = envs.G2048(num_envs=2000)
    try:
        env.reset(seed=1)
        tiles = np.concatenate([[env.field(f"cells[{i}]", k) for i in range(16)] for k in range(2000)])
        tiles = tiles[tiles > 0]
        assert len(tiles) == 4000 and 0.87 < (tiles == 1).mean() < 0.93  # two tiles per new game
    finally:
        env.close()


def test_the_game_ends_when_no_move_changes_the_board(env):
    # One move left: 16+16 in the bottom row. Whatever spawns in the freed corner (a 2 or a 4,
    # beside 128 and 8), no move changes the board any more: the game ends and a new one starts.
    set_board(env, [2, 4, 2, 4, 4, 2, 4, 2, 2, 4, 2, 8, 16, 16, 64, 128])
    _, rew, term, trunc, _ = env.step(np.array([LEFT], np.int32))
    assert rew[0] == pytest.approx(0.5) and term[0] and not trunc[0]
    assert sum(v > 0 for v in board(env)) == 2  # the new game's two tiles
    assert env.log()["max_tile"] == 128
    final = env.final_observations[0].reshape(16, 18).argmax(axis=1)
    assert final[12:15].tolist() == [5, 6, 7] and final[15] in (1, 2)  # 32 64 128 and the spawn


def test_renders_show_the_tiles(env):
    set_board(env, row([2, 0, 0, 2048]))
    text = env.render()
    assert text.splitlines()[0].split() == ["2", ".", ".", "2048"]
    frames = envs.G2048(num_envs=1, render_mode="rgb_array")
    try:
        frames.reset(seed=0)
        first = frames.render().copy()
        frames.step(np.array([LEFT], np.int32))
        assert first.shape == (192, 192, 3) and (frames.render() != first).any()
    finally:
        frames.close()
