"""Rules of the Ocean board and card games against a built-in opponent: connect4, tripletriad, go.

Each test plays moves (scripted, or random and legal or not), reads the board from the
observation, and checks the rule: legal and illegal moves, captures, the opponent's answer,
scoring and the end of the game. Go is checked against a small Python reference of the rules
(`go_groups`, `go_play`, `go_area`: groups and liberties, captures and suicide, area score).
"""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs
from tests.ocean.rules_helpers import make

# ---- connect4 ----

def test_connect4_opponent_takes_its_win_and_illegal_moves_lose():
    env = envs.Connect4(num_envs=64)
    try:
        env.reset(seed=0)
        lost = False
        for _ in range(6):  # always play column 0: the opponent must win or the column fills
            _, rew, term, _, _ = env.step(np.zeros(64, np.int32))
            lost |= bool((term & (rew == -1)).any())
        assert lost
        stats = env.log()
        assert stats["score"] == 0 and stats["episode_return"] == -1
    finally:
        env.close()


def test_connect4_agent_can_win_and_the_opponent_blocks():
    env = envs.Connect4(num_envs=1)
    try:
        for seed in range(40):
            obs, _ = env.reset(seed=seed)
            if obs.any():  # the opponent started
                continue
            # Stack three in column 3: the opponent must block the fourth.
            for _ in range(3):
                _, rew, term, _, _ = env.step(np.array([3]))
                if term[0]:
                    break
            board = env.observations[0].reshape(6, 7)
            if not term[0] and (board[:, 3] == 1).sum() == 3:
                assert board[2, 3] == -1  # blocked on top of the agent's three
                return
        pytest.fail("no game reached the blocking position")
    finally:
        env.close()


def test_connect4_with_two_seats_masks_the_waiting_seat_and_reports_both_outcomes():
    env = envs.Connect4(num_envs=1, opponent="none")
    try:
        assert env.num_agents == 2 and env.game_seats == 2
        env.reset(seed=0)
        assert env.masks.tolist() == [True, False]  # seat 0 moves first
        # seat 0 stacks column 0, seat 1 column 1; the waiting seat's action (6) is ignored
        for t in range(6):
            mover = t % 2
            actions = np.array([0 if mover == 0 else 6, 1 if mover == 1 else 6], np.int32)
            _, rew, term, _, _ = env.step(actions)
            assert not term.any() and env.masks.tolist() == [mover == 1, mover == 0]
            board = env.observations[0].reshape(6, 7)
            assert (board[:, 6] == 0).all()
        assert (env.observations[0] == -env.observations[1]).all()  # each seat sees its own pieces as +1
        _, rew, term, _, _ = env.step(np.array([0, 6], np.int32))  # four in column 0
        assert term.tolist() == [True, True] and rew.tolist() == [1, -1] and env.outcomes.tolist() == [1.0, 0.0]
        assert env.masks.tolist() == [True, False] and not env.observations.any()  # a new game
    finally:
        env.close()


def test_connect4_a_full_column_loses_for_the_mover_and_wins_for_the_other_seat():
    env = envs.Connect4(num_envs=1, opponent="none")
    try:
        env.reset(seed=0)
        for _ in range(6):  # both seats fill column 3
            env.step(np.array([3, 3], np.int32))
        _, rew, term, _, _ = env.step(np.array([3, 3], np.int32))  # seat 0 plays the full column
        assert term.all() and rew.tolist() == [-1, 1] and env.outcomes.tolist() == [0.0, 1.0]
        assert env.log()["illegal"] == 0.5  # one of the two seats' episodes ended by its illegal move
    finally:
        env.close()


def test_connect4_opponent_names_and_the_random_player_plays_legal_columns():
    with pytest.raises(pufferlib.APIUsageError, match="opponent='greedy' is not one of"):
        envs.Connect4(num_envs=1, opponent="greedy")
    env = envs.Connect4(num_envs=64, opponent="random")
    try:
        assert env.num_agents == 64 and env.game_seats == 1
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        for _ in range(200):  # the agent plays legal random columns too: no game ends by an illegal move
            legal = [[c for c in range(7) if obs.reshape(6, 7)[0, c] == 0] for obs in env.observations]
            env.step(np.array([rng.choice(cols) for cols in legal], np.int32))
        stats = env.log()
        assert stats["illegal"] == 0 and 0.3 < stats["score"] < 0.7  # random against random
    finally:
        env.close()


# ---- tripletriad ----

def test_tripletriad_placing_needs_a_selected_card_and_the_opponent_answers():
    env = make(envs.Tripletriad)
    try:
        _, rew, _, _, _ = env.step(np.array([5]))  # place with nothing selected
        assert rew[0] == pytest.approx(-0.1) and env.field("owner[0]") == 0
        _, rew, _, _, _ = env.step(np.array([0]))  # select card 1
        assert rew[0] == pytest.approx(-0.1) and env.field("selected") == 0
        obs, rew, term, _, _ = env.step(np.array([5]))  # place it on cell 1
        assert rew[0] == 0 and not term[0] and env.field("owner[0]") == 1 and env.field("selected") == -1
        assert (obs[0, :9] > 0).sum() == 2  # the opponent placed one card too
        env.step(np.array([0]))  # card 1 is on the board: selecting it again does nothing
        assert env.field("selected") == -1
    finally:
        env.close()


def test_tripletriad_captures_follow_the_side_values_and_the_full_board_ends_the_game():
    env = make(envs.Tripletriad)
    opposite = {0: 1, 1: 0, 2: 3, 3: 2}
    moves = {0: (-1, 0), 1: (1, 0), 2: (0, 1), 3: (0, -1)}
    try:
        captures = misses = 0
        for game in range(20):
            env.reset(seed=game)
            for card in range(5):
                obs = env.observations[0].copy()
                owners = obs[:9]
                cell = int(np.flatnonzero(owners == 0)[0])
                hand = obs[64:84].reshape(5, 4)
                env.step(np.array([card]))
                after, rew, term, _, _ = env.step(np.array([5 + cell]))
                row = after[0] if not term[0] else env.final_observations[0]
                if card < 4:  # the opponent answers and may take cards back: check the last move only
                    continue
                r, c = divmod(cell, 3)
                for side, (dr, dc) in moves.items():
                    rr, cc = r + dr, c + dc
                    if not (0 <= rr < 3 and 0 <= cc < 3):
                        continue
                    other = rr * 3 + cc
                    if owners[other] == 0.5:  # an opponent card before the move
                        facing = obs[28 + 4 * other + opposite[side]]
                        captured = facing < hand[card, side]
                        assert (row[other] == 1.0) == captured
                        captures += int(captured)
                        misses += int(not captured)
                if term[0]:
                    scores = row[26:28] * 10
                    assert scores.sum() == pytest.approx(10)
                    expected = np.sign(scores[0] - scores[1])
                    assert rew[0] == pytest.approx(expected) and card == 4
        assert captures > 0 and misses > 0
        log = env.log()  # reset(seed) starts the stats afresh: the last game is reported
        assert log["n"] == 1 and log["win_rate"] in (0, 1)
    finally:
        env.close()


# ---- go ----

def go_groups(board, n):
    """(colour, stones, liberties) of every group of an n x n board (a flat list)."""
    seen, out = set(), []
    for start in range(n * n):
        if not board[start] or start in seen:
            continue
        stones, libs, todo = {start}, set(), [start]
        while todo:
            pos = todo.pop()
            x, y = pos % n, pos // n
            for q in [p for p, ok in ((pos - 1, x > 0), (pos + 1, x < n - 1), (pos - n, y > 0), (pos + n, y < n - 1))
                      if ok]:
                if board[q] == 0:
                    libs.add(q)
                elif board[q] == board[start] and q not in stones:
                    stones.add(q)
                    todo.append(q)
        seen |= stones
        out.append((board[start], stones, libs))
    return out


def go_play(board, pos, colour, n):
    """The board after `colour` plays `pos` and the stones captured; None if occupied or suicide."""
    if board[pos]:
        return None, 0
    after = list(board)
    after[pos] = colour
    captured = 0
    for c, stones, libs in go_groups(after, n):
        if c != colour and not libs:
            captured += len(stones)
            for s in stones:
                after[s] = 0
    if any(pos in stones and not libs for c, stones, libs in go_groups(after, n)):
        return None, 0
    return after, captured


def go_area(board, n, komi=7.5):
    seen, black, white = set(), board.count(1), board.count(2)
    for start in range(n * n):
        if board[start] or start in seen:
            continue
        region, touch, todo = {start}, set(), [start]
        while todo:
            pos = todo.pop()
            x, y = pos % n, pos // n
            for q in [p for p, ok in ((pos - 1, x > 0), (pos + 1, x < n - 1), (pos - n, y > 0), (pos + n, y < n - 1))
                      if ok]:
                if board[q]:
                    touch.add(board[q])
                elif q not in region:
                    region.add(q)
                    todo.append(q)
        seen |= region
        black += len(region) if touch == {1} else 0
        white += len(region) if touch == {2} else 0
    return black - white - komi


def test_go_legality_captures_scoring_and_the_greedy_opponent_follow_the_rules():
    n = 5
    env = make(envs.Go, grid_size=n)
    rng = np.random.default_rng(0)
    checked = {"legal": 0, "illegal": 0, "capture": 0, "atari_answer": 0, "end": 0}
    try:
        for _step in range(800):
            obs = env.observations[0]
            board = [int(v) for v in obs[:n * n]]
            empty = [i for i in range(n * n) if board[i] == 0]
            legal = [i for i in empty if go_play(board, i, 1, n)[0] is not None]
            move = int(rng.choice(empty)) if empty and rng.random() < 0.9 else int(rng.integers(0, n * n))
            if not legal or rng.random() < 0.03:
                move = -1  # pass: the opponent moves, or the game ends if it cannot
            after, captured = go_play(board, move, 1, n) if move >= 0 else (None, 0)
            ko_possible = captured == 1
            new_obs, rew, term, trunc, _ = env.step(np.array([move + 1]))
            final = env.final_observations[0] if (term[0] or trunc[0]) else new_obs[0]
            new_board = [int(v) for v in final[:n * n]]
            assert all(libs for _, _, libs in go_groups(new_board, n))  # nothing left without liberties
            assert final[2 * n * n] * n * n == pytest.approx(go_area(new_board, n), abs=1e-4)
            if term[0]:
                checked["end"] += 1
                area = go_area(new_board, n)
                assert rew[0] == pytest.approx(np.sign(area) + 0.1 + (0.25 if captured else 0), abs=0.26)
                continue
            if ko_possible or move < 0:
                continue
            if after is None:  # occupied or suicide: refused, nothing changes
                checked["illegal"] += 1
                assert rew[0] == pytest.approx(-0.1) and new_board == board
                continue
            checked["legal"] += 1
            checked["capture"] += captured > 0
            reply = env.field("last_opponent_move")
            assert after[reply] == 0 and new_board[reply] == 2  # the opponent answered on an empty point
            in_atari = {next(iter(libs)) for c, _, libs in go_groups(after, n) if len(libs) == 1}
            legal_atari = [p for p in in_atari if go_play(after, p, 2, n)[0] is not None]
            if legal_atari:  # capturing or saving a group in atari comes first
                checked["atari_answer"] += 1
                assert reply in in_atari
        assert all(count > 0 for count in checked.values()), checked
    finally:
        env.close()
