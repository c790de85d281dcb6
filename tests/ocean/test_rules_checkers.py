"""Rules of ocean-checkers (English draughts): mandatory captures, multi-jumps as consecutive steps
of the same seat, promotion ending the move, kings moving backwards, no move loses, the quiet-turn
draw, an illegal action losing, each seat's frame, the legal moves in the observation (checked
against a reference move generator over random games), the built-in players, and the renders."""

import numpy as np
import pytest
import torch

from puffer_ocean import envs
from pufferlib.pytorch import action_mask, sample_logits
from tests.ocean.rules_helpers import random_legal

EMPTY, MAN0, KING0, MAN1, KING1 = range(5)
UL, UR, DL, DR = range(4)  # up-left, up-right, down-left, down-right (actual frame = player 0's)


def sq(r, c):
    """The index of dark square (row r from the top, column c)."""
    assert (r + c) % 2 == 1
    return 4 * r + c // 2


def nxt(s, d):
    r, c = s // 4, 2 * (s % 4) + (1 if (s // 4) % 2 == 0 else 0)
    r, c = r + (-1 if d < 2 else 1), c + (1 if d % 2 else -1)
    return sq(r, c) if 0 <= r < 8 and 0 <= c < 8 else None


def owner(v):
    return None if v == EMPTY else (v - 1) // 2


def reference_moves(board, player, jumper):
    """Legal moves (s * 4 + d, actual frame) by the rules, written apart from the C code."""
    def dirs(v):
        return range(4) if v in (KING0, KING1) else ((UL, UR) if owner(v) == 0 else (DL, DR))

    jumps, steps = [], []
    for s, v in enumerate(board):
        if owner(v) != player:
            continue
        for d in dirs(v):
            a = nxt(s, d)
            if a is None:
                continue
            if board[a] == EMPTY:
                steps.append(4 * s + d)
            elif owner(board[a]) == 1 - player and nxt(a, d) is not None and board[nxt(a, d)] == EMPTY:
                if jumper < 0 or s == jumper:
                    jumps.append(4 * s + d)
    return set(jumps) if jumps or jumper >= 0 else set(steps)


def attacked(board, s):
    """Whether the piece on s can be jumped at once by an adjacent piece of the other player."""
    for d in range(4):
        a, land = nxt(s, d), nxt(s, 3 - d)
        if a is None or land is None or board[land] != EMPTY or owner(board[a]) != 1 - owner(board[s]):
            continue
        if board[a] in (KING0, KING1) or (owner(board[a]) == 0) == (3 - d < 2):
            return True
    return False


def hangs(board, player, m):
    """Whether legal move m ends the turn with the moved piece where it can be jumped at once."""
    s, d = divmod(m, 4)
    b, to = list(board), nxt(s, d)
    if b[to] != EMPTY:
        b[to], to = EMPTY, nxt(to, d)
        jumped = True
    else:
        jumped = False
    b[to], b[s] = b[s], EMPTY
    if b[to] in (MAN0, MAN1) and to // 4 == (0 if player == 0 else 7):
        return attacked([v if i != to else b[to] + 1 for i, v in enumerate(b)], to)
    if jumped and reference_moves(b, player, to):
        return False  # the multi-jump goes on
    return attacked(b, to)


def own_action(player, s, d):
    """The action of actual square s, direction d for `player` (player 1's frame: 31 - s, 3 - d)."""
    return 4 * s + d if player == 0 else 4 * (31 - s) + 3 - d


def setup(env, pieces, to_move=0, quiet=0):
    for s in range(32):
        env.set_field(f"sq[{s}]", pieces.get(s, EMPTY))
    env.set_field("to_move", to_move)
    env.set_field("jumper", -1)
    env.set_field("quiet", quiet)


def board(env):
    return [int(env.field(f"sq[{s}]")) for s in range(32)]


def move(env, player, s, d, waiting_action=0):
    actions = np.full(2, waiting_action, np.int32)
    actions[player] = own_action(player, s, d)
    return env.step(actions)


@pytest.fixture
def two_seats():
    env = envs.Checkers(num_envs=1, opponent="none", render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def test_the_opening_position_and_each_seats_frame(two_seats):
    assert two_seats.num_agents == 2 and two_seats.game_seats == 2 and two_seats.masks.tolist() == [True, False]
    first, second = two_seats.observations
    for obs in (first, second):  # each seat's own men on its three bottom rows, the other's on the top three
        assert np.flatnonzero(obs[128:160]).tolist() == list(range(20, 32))
        assert np.flatnonzero(obs[192:224]).tolist() == list(range(12))
        assert not obs[160:192].any() and not obs[224:256].any()
    assert sorted(np.flatnonzero(first[:128])) == sorted(reference_moves(board(two_seats), 0, -1))
    assert len(np.flatnonzero(first[:128])) == 7 and first[417] == 1
    assert not second[:128].any() and second[417] == 0  # the waiting seat has no legal moves shown
    move(two_seats, 0, sq(5, 2), UR, waiting_action=5)  # seat 1's action is ignored
    assert board(two_seats)[sq(4, 3)] == MAN0 and two_seats.masks.tolist() == [False, True]
    second = two_seats.observations[1]
    assert second[192 + 31 - sq(4, 3)] == 1 and len(np.flatnonzero(second[:128])) == 7
    assert sorted(np.flatnonzero(second[:128])) == sorted(own_action(1, m // 4, m % 4)
                                                             for m in reference_moves(board(two_seats), 1, -1))


def test_a_capture_is_mandatory(two_seats):
    pieces = {sq(5, 2): MAN0, sq(5, 6): MAN0, sq(4, 3): MAN1, sq(0, 1): MAN1}
    setup(two_seats, pieces)
    _, rew, term, _, _ = move(two_seats, 0, sq(5, 6), UR)  # a plain step while a jump is due: illegal
    assert term.all() and rew.tolist() == [-1, 1] and two_seats.outcomes.tolist() == [0.0, 1.0]
    assert two_seats.log()["illegal"] == 0.5
    setup(two_seats, pieces)
    _, rew, term, _, _ = move(two_seats, 0, sq(5, 2), UR)  # the jump
    assert not term.any() and board(two_seats)[sq(4, 3)] == EMPTY and board(two_seats)[sq(3, 4)] == MAN0
    assert two_seats.masks.tolist() == [False, True] and two_seats.field("quiet") == 0


def test_a_multi_jump_continues_with_the_same_piece_as_steps_of_the_same_seat(two_seats):
    pieces = {sq(6, 1): MAN0, sq(7, 4): MAN0, sq(5, 2): MAN1, sq(3, 2): MAN1, sq(0, 7): MAN1}
    setup(two_seats, pieces)
    _, rew, term, _, _ = move(two_seats, 0, sq(6, 1), UR)
    assert not term.any() and board(two_seats)[sq(5, 2)] == EMPTY and board(two_seats)[sq(4, 3)] == MAN0
    assert two_seats.field("jumper") == sq(4, 3) and two_seats.masks.tolist() == [True, False]
    assert np.flatnonzero(two_seats.observations[0][:128]).tolist() == [4 * sq(4, 3) + UL]  # only that jump
    move(two_seats, 0, sq(4, 3), UL)
    assert board(two_seats)[sq(3, 2)] == EMPTY and board(two_seats)[sq(2, 1)] == MAN0
    assert two_seats.field("jumper") == -1 and two_seats.masks.tolist() == [False, True]
    setup(two_seats, pieces)
    move(two_seats, 0, sq(6, 1), UR)
    _, rew, term, _, _ = move(two_seats, 0, sq(7, 4), UL)  # another piece in the middle of a multi-jump
    assert term.all() and rew.tolist() == [-1, 1]


def test_a_man_on_the_far_row_becomes_a_king_and_its_move_ends(two_seats):
    # the man jumps onto the far row; as a king it could jump on over (1, 4), but the move ends
    setup(two_seats, {sq(2, 1): MAN0, sq(1, 2): MAN1, sq(1, 4): MAN1, sq(0, 7): MAN1})
    move(two_seats, 0, sq(2, 1), UR)
    assert board(two_seats)[sq(0, 3)] == KING0 and two_seats.field("jumper") == -1
    assert two_seats.masks.tolist() == [False, True]
    setup(two_seats, {sq(6, 3): MAN1, sq(4, 1): MAN0}, to_move=1)  # player 1 promotes on the bottom row
    move(two_seats, 1, sq(6, 3), DR)
    assert board(two_seats)[sq(7, 4)] == KING1
    assert two_seats.observations[1][224 + 31 - sq(7, 4)] == 0 and two_seats.observations[1][160 + 31 - sq(7, 4)] == 1


def test_kings_move_backwards_and_men_do_not(two_seats):
    setup(two_seats, {sq(3, 2): KING0, sq(5, 6): MAN0, sq(0, 7): MAN1})
    _, _, term, _, _ = move(two_seats, 0, sq(3, 2), DL)
    assert not term.any() and board(two_seats)[sq(4, 1)] == KING0
    setup(two_seats, {sq(3, 2): KING0, sq(5, 6): MAN0, sq(0, 7): MAN1})
    _, rew, term, _, _ = move(two_seats, 0, sq(5, 6), DR)
    assert term.all() and rew.tolist() == [-1, 1]  # a man backwards: illegal
    setup(two_seats, {sq(4, 3): KING0, sq(5, 4): MAN1, sq(0, 7): MAN1}, to_move=0)
    move(two_seats, 0, sq(4, 3), DR)  # a king's backward jump
    assert board(two_seats)[sq(5, 4)] == EMPTY and board(two_seats)[sq(6, 5)] == KING0


def test_a_player_without_a_legal_move_loses(two_seats):
    # player 1's only man on (6, 7) is blocked by player 0's man on (7, 6), which it cannot jump
    setup(two_seats, {sq(6, 7): MAN1, sq(7, 6): MAN0, sq(5, 4): MAN0})
    _, rew, term, _, _ = move(two_seats, 0, sq(5, 4), UL)
    assert term.all() and rew.tolist() == [1, -1] and two_seats.outcomes.tolist() == [1.0, 0.0]
    assert two_seats.final_observations[1][417] == 1 and not two_seats.final_observations[1][:128].any()
    setup(two_seats, {sq(5, 2): MAN0, sq(4, 3): MAN1})  # taking the last piece
    _, rew, term, _, _ = move(two_seats, 0, sq(5, 2), UR)
    assert term.all() and rew.tolist() == [1, -1]
    assert board(two_seats)[:12] == [MAN1] * 12  # a new game


def test_the_game_is_drawn_after_draw_moves_quiet_moves_of_each_player():
    env = envs.Checkers(num_envs=1, opponent="none", draw_moves=2)
    try:
        env.reset(seed=0)
        setup(env, {sq(7, 0): KING0, sq(0, 7): KING1})
        path = [(0, sq(7, 0), UR), (1, sq(0, 7), DL), (0, sq(6, 1), DL)]
        for player, s, d in path:
            _, rew, term, _, _ = move(env, player, s, d)
            assert not term.any()
        assert env.field("quiet") == 3 and env.observations[0][416] == pytest.approx(3 / 4)
        _, rew, term, trunc, _ = move(env, 1, sq(1, 6), UR)
        assert term.all() and not trunc.any() and rew.tolist() == [0, 0] and env.outcomes.tolist() == [0.5, 0.5]
        assert env.log()["draw"] == 1
    finally:
        env.close()


def test_a_game_cut_short_by_max_steps_has_no_result():
    env = envs.Checkers(num_envs=1, opponent="none", max_steps=2)
    try:
        env.reset(seed=0)
        move(env, 0, sq(5, 2), UR)
        _, rew, term, trunc, _ = move(env, 1, sq(2, 1), DL)
        assert trunc.all() and not term.any() and rew.tolist() == [0, 0] and np.isnan(env.outcomes).all()
    finally:
        env.close()


def test_random_two_seat_games_follow_the_reference_and_end_with_outcomes_adding_up_to_one():
    env = envs.Checkers(num_envs=4, opponent="none")
    rng = np.random.default_rng(0)
    results, jumps = set(), 0
    try:
        env.reset(seed=1)
        for _ in range(3000):
            acts = np.zeros(8, np.int32)
            for g in range(4):
                seat = int(env.field("to_move", g))
                assert env.masks[2 * g:2 * g + 2].tolist() == [seat == 0, seat == 1]
                jumper = int(env.field("jumper", g))
                jumps += jumper >= 0
                want = {own_action(seat, m // 4, m % 4) for m in reference_moves(board_of(env, g), seat, jumper)}
                obs = env.observations[2 * g + seat]
                legal = np.flatnonzero(obs[:128])
                assert set(legal.tolist()) == want
                b = board_of(env, g)
                assert {a for a in legal if obs[256 + a]} == {
                    own_action(seat, m // 4, m % 4) for m in reference_moves(b, seat, jumper) if hangs(b, seat, m)}
                for k in (0, 1):  # each row's own pieces that the other could jump now
                    assert np.flatnonzero(env.observations[2 * g + k][384:416]).tolist() == sorted(
                        31 * k + (1 - 2 * k) * s for s in range(32) if owner(b[s]) == k and attacked(b, s))
                assert not env.observations[2 * g + 1 - seat][:128].any()
                acts[2 * g + seat] = rng.choice(legal)
            _, rew, term, trunc, _ = env.step(acts)
            assert not trunc.any()
            for g in np.flatnonzero(term[0::2]):
                assert term[2 * g + 1]
                out = env.outcomes[2 * g:2 * g + 2]
                assert out.sum() == 1 and rew[2 * g:2 * g + 2].tolist() == [2 * out[0] - 1, 2 * out[1] - 1]
                results.add(float(out[0]))
        assert results == {0.0, 0.5, 1.0} and jumps > 50 and env.log()["illegal"] == 0
    finally:
        env.close()


def board_of(env, g):
    return [int(env.field(f"sq[{s}]", g)) for s in range(32)]


def random_legal_agent_score(opponent):
    env = envs.Checkers(num_envs=32, opponent=opponent)
    rng = np.random.default_rng(0)
    try:
        assert env.num_agents == 32 and env.game_seats == 1
        obs, _ = env.reset(seed=0)
        for _ in range(1000):
            obs = env.step(random_legal(env, obs, rng))[0]
        return env.log()
    finally:
        env.close()


def test_the_scripted_player_is_the_default_and_beats_random_play():
    assert envs.Checkers.params()["opponent"][1] == 1
    scripted, random = random_legal_agent_score("scripted"), random_legal_agent_score("random")
    assert scripted["illegal"] == 0 and random["illegal"] == 0
    assert 0.25 < random["score"] < 0.75 and scripted["score"] < random["score"] - 0.2, (scripted, random)


def test_the_legal_moves_are_the_action_mask_so_a_masked_sampler_never_plays_an_illegal_move():
    env = envs.Checkers(num_envs=16, opponent="none")
    try:
        assert [leaf.path for leaf in env.obs_layout.leaves] == [("action_mask",), ("observation",)]
        assert env.single_observation_space.shape == (418,)
        env.reset(seed=1)
        torch.manual_seed(0)
        games = 0
        for _ in range(2000):
            obs = torch.from_numpy(env.observations)
            mask = action_mask(obs, env.obs_layout)
            assert mask.shape == (32, 128) and (mask.sum(1) > 0).tolist() == env.masks.tolist()
            actions, _, _ = sample_logits(torch.randn(32, 128) * 10, action_mask=mask)
            _, _, terminals, _, _ = env.step(actions.numpy().astype(np.int32))
            games += int(terminals.sum()) // 2
        assert games > 10 and env.log()["illegal"] == 0
        unmasked, _, _ = sample_logits(torch.randn(32, 128) * 10)
        env.step(unmasked.numpy().astype(np.int32))  # the same sampler without the mask: illegal moves
        assert env.log()["illegal"] > 0
    finally:
        env.close()


def test_the_renders_show_the_board(two_seats):
    assert two_seats.render().splitlines() == [" o o o o", "o o o o ", " o o o o", ". . . . ",
                                               " . . . .", "x x x x ", " x x x x", "x x x x "]
    setup(two_seats, {sq(3, 2): KING0, sq(0, 7): KING1, sq(5, 6): MAN0})
    assert two_seats.render().splitlines()[3] == ". X . . " and two_seats.render().splitlines()[0][7] == "O"
    env = envs.Checkers(num_envs=1, opponent="none", render_mode="rgb_array")
    try:
        env.reset(seed=0)
        first = env.render().copy()
        assert first.shape == (256, 256, 3)
        move(env, 0, sq(5, 2), UR)
        assert (env.render() != first).any()
    finally:
        env.close()
