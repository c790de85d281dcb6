"""Rules of ocean-hex: the six neighbours, who joins which edges, each seat's frame, the end of
a game (an illegal move loses), the built-in players, and the renders."""

import numpy as np
import pytest

from puffer_ocean import envs


def play(env, *moves):
    """Alternate seats 0 and 1 (two-seat env), each move in its own frame; the last step's results."""
    for i, move in enumerate(moves):
        actions = np.zeros(2, np.int32)
        actions[i % 2] = move
        result = env.step(actions)
    return result


@pytest.fixture
def two_seats():
    env = envs.Hex(num_envs=1, size=3, opponent="none", render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def test_player_0_joins_top_and_bottom_and_wins(two_seats):
    # seat 0: (0,0) (1,0) (2,0); seat 1 in its transposed frame: 8 -> (2,2), 7 -> (1,2)
    _, rew, term, _, _ = play(two_seats, 0, 8, 3, 7)
    assert not term.any() and two_seats.masks.tolist() == [True, False]
    _, rew, term, _, _ = play(two_seats, 6)
    assert term.all() and rew.tolist() == [1, -1] and two_seats.outcomes.tolist() == [1.0, 0.0]


def test_cells_touch_six_neighbours_along_the_short_diagonal_only(two_seats):
    # (0,2) -> (1,1) -> (2,0) is a chain for seat 0 (each step is (r+1, c-1)): it wins
    _, rew, term, _, _ = play(two_seats, 2, 0, 4, 1, 6)  # seat 1: (0,0) and (1,0) in its frame
    assert term.all() and rew[0] == 1
    # (0,0) -> (1,1) -> (2,2) is not: (r+1, c+1) is no neighbour; the game goes on
    _, rew, term, _, _ = play(two_seats, 0, 1, 4, 2, 8)  # seat 1: (1,0) and (2,0) in its frame
    assert not term.any()


def test_each_seat_sees_the_board_in_its_own_frame(two_seats):
    play(two_seats, 1)  # seat 0 at (0,1)
    board0, board1 = (two_seats.observations[k][9:].reshape(3, 3) for k in (0, 1))
    assert board0[0, 1] == 1 and board1[1, 0] == -1 and np.abs(board1).sum() == 1  # transposed, the other's
    legal0, legal1 = (two_seats.observations[k][:9].reshape(3, 3) for k in (0, 1))
    assert not legal0.any() and legal1.sum() == 8 and legal1[1, 0] == 0  # the empty cells, for the seat to move
    assert [leaf.path for leaf in two_seats.obs_layout.leaves] == [("action_mask",), ("observation",)]


def test_playing_an_occupied_cell_loses(two_seats):
    _, rew, term, _, _ = play(two_seats, 4, 4)  # seat 1 plays (1,1) too (its frame transposes the centre onto itself)
    assert term.all() and rew.tolist() == [1, -1] and two_seats.outcomes.tolist() == [1.0, 0.0]
    assert two_seats.log()["illegal"] == 0.5


def test_the_scripted_player_takes_its_win_and_blocks(two_seats):
    env = envs.Hex(num_envs=400, size=3, opponent="scripted")
    try:
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        for _ in range(100):  # legal random play by the agent
            actions = [rng.choice(np.flatnonzero(obs[:9])) for obs in env.observations]
            env.step(np.array(actions, np.int32))
        scripted = env.log()
    finally:
        env.close()
    env = envs.Hex(num_envs=400, size=3, opponent="random")
    try:
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        for _ in range(100):
            actions = [rng.choice(np.flatnonzero(obs[:9])) for obs in env.observations]
            env.step(np.array(actions, np.int32))
        random = env.log()
    finally:
        env.close()
    assert random["illegal"] == 0 and scripted["illegal"] == 0
    assert 0.4 < random["score"] < 0.6 and scripted["score"] < random["score"] - 0.15


def test_the_renders_show_the_stones(two_seats):
    play(two_seats, 0, 8)
    assert two_seats.render().splitlines() == ["X . . ", " . . . ", "  . . O "]
    env = envs.Hex(num_envs=1, size=3, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        first = env.render().copy()
        env.step(np.array([4], np.int32))
        assert (env.render() != first).any()
    finally:
        env.close()
