"""Go and Triple Triad with two seats (`opponent="none"`) and their built-in players.

With two seats both players are agent rows of one game (`game_seats` 2): only the seat to
move acts (the other is masked and its action ignored), each row sees the board from its own
side, and at the game's end both rows get the final reward and complementary outcomes that
agree with the score. Against a built-in player (`"scripted"`, `"random"`) there is one row per
game (`game_seats` 1). Go positions are checked against the Python reference of the rules in
`test_rules_board.py`.
"""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs
from pufferlib.agent import build
from pufferlib.checker import PASS
from pufferlib.config import env_config, load_default, merge
from pufferlib.match import play_match
from tests.ocean.rules_helpers import random_legal
from tests.ocean.test_rules_board import go_area, go_groups, go_play

# ---- go ----

N = 5
CELLS = N * N


def go_seats(**kwargs):
    env = envs.Go(num_envs=1, opponent="none", grid_size=N, **kwargs)
    env.reset(seed=0)
    return env


def stone(row, col):
    """The action of a stone on (row, col)."""
    return 1 + row * N + col


def step(env, mover, action, waiting_action=0):
    """Step a two-seat env: `mover` plays `action`, the other seat sends `waiting_action`."""
    actions = np.full(2, waiting_action, np.int32)
    actions[mover] = action
    return env.step(actions)


def black_board(obs_row, seat):
    """Seat `seat`'s board plane as colours (1 black, 2 white)."""
    plane = obs_row[:CELLS].astype(int)
    return plane.tolist() if seat == 0 else [0 if v == 0 else 3 - v for v in plane]


def test_go_two_seats_alternate_masks_and_ignore_the_waiting_seats_action():
    env = go_seats()
    try:
        assert env.num_agents == 2 and env.game_seats == 2
        assert env.masks.tolist() == [True, False]  # black (seat 0) moves first
        _, rew, term, _, _ = step(env, 0, stone(2, 2), waiting_action=stone(0, 0))
        board = black_board(env.observations[0], 0)
        assert board[2 * N + 2] == 1 and board[0] == 0  # seat 1's stone on (0, 0) was ignored
        assert env.masks.tolist() == [False, True] and rew.tolist() == pytest.approx([0.1, 0.0]) and not term.any()
        _, rew, _, _, _ = step(env, 1, stone(2, 2), waiting_action=stone(4, 4))  # white on black's stone: illegal
        assert rew.tolist() == pytest.approx([0.0, -0.1]) and env.masks.tolist() == [False, True]  # still white
        assert black_board(env.observations[0], 0).count(0) == CELLS - 1
        step(env, 1, stone(0, 0), waiting_action=stone(4, 4))
        board = black_board(env.observations[0], 0)
        assert board[0] == 2 and board[CELLS - 1] == 0 and env.masks.tolist() == [True, False]
        assert env.field("last_opponent_move") == 0
        _, rew, _, _, _ = step(env, 0, 0)  # black passes: the turn goes to white
        assert rew.tolist() == pytest.approx([-0.25, 0.0]) and env.masks.tolist() == [False, True]
    finally:
        env.close()


def test_go_each_seat_sees_the_board_from_its_side():
    env = go_seats()
    try:
        step(env, 0, stone(1, 1))
        step(env, 1, stone(3, 3))
        step(env, 0, stone(1, 2))
        black, white = env.observations
        assert black_board(black, 0) == black_board(white, 1)
        assert black[stone(1, 1) - 1] == 1 and white[stone(1, 1) - 1] == 2  # own stones 1, the other's 2
        assert black[stone(3, 3) - 1] == 2 and white[stone(3, 3) - 1] == 1
        # the board before each seat's own last move: black's second stone, white's first
        assert black[CELLS + stone(1, 1) - 1] == 1 and black[CELLS + stone(3, 3) - 1] == 2
        assert black[CELLS + stone(1, 2) - 1] == 0
        assert white[CELLS:2 * CELLS].tolist() == [2.0 if i == stone(1, 1) - 1 else 0.0 for i in range(CELLS)]
        area = go_area(black_board(black, 0), N)
        assert black[2 * CELLS] * CELLS == pytest.approx(area) and white[2 * CELLS] * CELLS == pytest.approx(-area)
        assert black[2 * CELLS + 1] == pytest.approx(2 / (2 * CELLS))  # its own legal moves made
        assert white[2 * CELLS + 1] == pytest.approx(1 / (2 * CELLS))
    finally:
        env.close()


def test_go_a_capture_rewards_the_mover_and_costs_the_captured_player():
    env = go_seats()
    try:
        step(env, 0, stone(0, 1))
        step(env, 1, stone(0, 0))  # white in the corner, one liberty left
        _, rew, _, _, _ = step(env, 0, stone(1, 0))  # black takes it
        assert rew.tolist() == pytest.approx([0.1 + 0.25, -0.25])
        assert black_board(env.observations[0], 0)[0] == 0
        assert env.observations[1][0] == 0 and env.observations[1][2 * CELLS + 1] == pytest.approx(1 / (2 * CELLS))
    finally:
        env.close()


@pytest.mark.parametrize("komi, black_stone, outcomes", [(7.5, True, [1.0, 0.0]), (7.5, False, [0.0, 1.0]),
                                                        (0.0, False, [0.5, 0.5])])
def test_go_two_passes_end_the_game_scored_by_area_for_both_seats(komi, black_stone, outcomes):
    env = go_seats(komi=komi)
    try:
        if black_stone:
            step(env, 0, stone(2, 2))  # one stone owns the empty board: 25 - 7.5
            step(env, 1, 0)
        else:
            step(env, 0, 0)
        mover = int(np.flatnonzero(env.masks)[0])
        _, rew, term, trunc, _ = step(env, mover, 0)
        assert term.tolist() == [True, True] and not trunc.any()
        assert env.outcomes.tolist() == outcomes
        final = [1.0 if o == 1 else -1.0 if o == 0 else 0.0 for o in outcomes]
        passes = [-0.25 if seat == mover else 0.0 for seat in (0, 1)]
        assert rew.tolist() == pytest.approx(np.add(final, passes).tolist())
        assert env.final_observations[0][2 * CELLS] * CELLS == pytest.approx(25 - komi if black_stone else -komi)
        assert env.masks.tolist() == [True, False] and not env.observations[:, :CELLS].any()  # a new game
    finally:
        env.close()


def test_go_random_two_seat_games_end_with_complementary_outcomes_that_agree_with_the_area():
    env = envs.Go(num_envs=4, opponent="none", grid_size=N)
    rng = np.random.default_rng(0)
    ended = 0
    try:
        env.reset(seed=1)
        for _ in range(1500):
            before = [black_board(env.observations[2 * g], 0) for g in range(4)]
            movers = env.masks.reshape(4, 2).argmax(axis=1)
            acts = np.zeros(8, np.int32)
            for g in range(4):  # the mover plays a random point (legal or not) or passes, the other random
                acts[2 * g:2 * g + 2] = rng.integers(0, CELLS + 1, 2)
                if rng.random() < 0.1:
                    acts[2 * g + movers[g]] = 0
            _, rew, term, trunc, _ = env.step(acts)
            assert (term.reshape(4, 2).all(axis=1) == term.reshape(4, 2).any(axis=1)).all()  # rows end together
            assert not trunc.any()
            for g in range(4):
                if not term[2 * g]:
                    assert env.masks[2 * g:2 * g + 2].sum() == 1
                    continue
                ended += 1
                black_final, white_final = env.final_observations[2 * g:2 * g + 2]
                board = black_board(black_final, 0)
                assert board == black_board(white_final, 1)
                assert all(libs for _, _, libs in go_groups(board, N))
                area = go_area(board, N)
                assert black_final[2 * CELLS] * CELLS == pytest.approx(area, abs=1e-4)
                result = [1.0, 0.0] if area > 0 else [0.0, 1.0]
                assert env.outcomes[2 * g:2 * g + 2].tolist() == result
                shaped = rew[2 * g:2 * g + 2] - (np.array(result) * 2 - 1)  # what is left: the last move's
                assert np.abs(shaped).max() <= 0.35 + 1e-6
                passed = acts[2 * g + movers[g]] == 0
                assert passed or go_play(before[g], acts[2 * g + movers[g]] - 1, movers[g] + 1, N)[0] is not None
        assert ended >= 8
    finally:
        env.close()


def test_go_a_two_seat_game_cut_short_by_max_steps_has_no_result():
    env = go_seats(max_steps=3)
    try:
        step(env, 0, stone(0, 0))
        step(env, 1, stone(4, 4))
        _, _, term, trunc, _ = step(env, 0, stone(2, 2))
        assert trunc.tolist() == [True, True] and not term.any() and np.isnan(env.outcomes).all()
    finally:
        env.close()


def test_go_random_opponent_plays_a_legal_point_or_passes_and_two_passes_end():
    env = envs.Go(num_envs=1, opponent="random", grid_size=N)
    try:
        assert env.num_agents == 1 and env.game_seats == 1
        env.reset(seed=0)
        replies = passes = 0
        for _ in range(400):  # black always passes: white fills the board at random until it passes too
            board = black_board(env.observations[0], 0)
            _, rew, term, _, _ = env.step(np.array([0], np.int32))
            after = black_board(env.final_observations[0] if term[0] else env.observations[0], 0)
            if term[0]:
                passes += 1
                assert after == board  # white passed
                area = go_area(board, N)
                assert env.outcomes[0] == (1.0 if area > 0 else 0.0) and rew[0] == pytest.approx(-0.25 + np.sign(area))
                continue
            replies += 1
            new = [i for i in range(CELLS) if after[i] == 2 and board[i] != 2]
            assert len(new) == 1 and go_play(board, new[0], 2, N)[0] == after  # one legal white stone
        assert replies > 20 and passes > 3
    finally:
        env.close()


def test_go_scripted_opponent_stays_the_default_with_one_seat_and_outcomes():
    env = envs.Go(num_envs=8, grid_size=N)
    try:
        assert envs.Go.params()["opponent"][1] == 1 and env.num_agents == 8 and env.game_seats == 1
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(400):
            _, rew, term, _, _ = env.step(rng.integers(0, CELLS + 1, 8).astype(np.int32))
            for i in np.flatnonzero(term):
                ended += 1
                area = env.final_observations[i][2 * CELLS] * CELLS
                assert env.outcomes[i] == (1.0 if area > 0 else 0.0 if area < 0 else 0.5)
        assert ended > 0 and env.masks.all()
    finally:
        env.close()


# ---- tripletriad ----

OPPOSITE = {0: 1, 1: 0, 2: 3, 3: 2}
STEPS = {0: (-1, 0), 1: (1, 0), 2: (0, 1), 3: (0, -1)}


def tt_captures(owners, values, mine, card, cell):
    """Cells a card (4 side values) placed on `cell` by the owner `mine` captures; `owners` per cell."""
    r, c = divmod(cell, 3)
    out = []
    for side, (dr, dc) in STEPS.items():
        rr, cc = r + dr, c + dc
        other = rr * 3 + cc
        if not (0 <= rr < 3 and 0 <= cc < 3):
            continue
        if owners[other] not in (0, mine) and values[other][OPPOSITE[side]] < card[side]:
            out.append(other)
    return out


def tt_seats():
    env = envs.Tripletriad(num_envs=1, opponent="none")
    env.reset(seed=0)
    return env


def test_tripletriad_two_seats_take_turns_and_ignore_the_waiting_seats_action():
    env = tt_seats()
    try:
        assert env.num_agents == 2 and env.game_seats == 2 and env.masks.tolist() == [True, False]
        _, rew, _, _, _ = env.step(np.array([0, 1], np.int32))  # seat 0 selects card 1; seat 1's select ignored
        assert env.field("selected") == 0 and env.field("selected_second") == -1
        assert rew.tolist() == pytest.approx([-0.1, 0.0]) and env.masks.tolist() == [True, False]
        _, rew, _, _, _ = env.step(np.array([5 + 4, 5], np.int32))  # places on cell 5; seat 1's placement ignored
        assert rew.tolist() == [0.0, 0.0] and env.masks.tolist() == [False, True]
        assert env.observations[0][:9].tolist() == [1.0 if c == 4 else 0.0 for c in range(9)]
        _, rew, _, _, _ = env.step(np.array([2, 5 + 4], np.int32))  # seat 1 places with nothing selected
        assert rew.tolist() == pytest.approx([0.0, -0.1]) and env.masks.tolist() == [False, True]
        env.step(np.array([2, 3], np.int32))
        env.step(np.array([2, 5 + 0], np.int32))
        assert env.field("owner[0]") == -1 and env.masks.tolist() == [True, False]
        assert env.field("selected") == -1 and env.field("selected_second") == -1
    finally:
        env.close()


def test_tripletriad_each_seat_sees_the_game_from_its_side():
    env = tt_seats()
    try:
        env.step(np.array([1, 0], np.int32))
        env.step(np.array([5 + 4, 0], np.int32))
        env.step(np.array([0, 3], np.int32))  # seat 1 selects card 4 and keeps it selected
        first, second = env.observations
        assert first[4] == 1 and second[4] == 0.5 and first[:9].sum() == 1
        assert (first[64:84] == second[84:104]).all() and (first[84:104] == second[64:84]).all()  # hands
        assert (first[104:109] == second[109:114]).all() and first[105] == pytest.approx(5 / 9)  # card 2 on cell 5
        assert first[9:14].tolist() == [0, 1, 0, 0, 0] and second[9:14].tolist() == [0] * 5
        assert second[23] == 1 and second[24] == pytest.approx(0.8) and first[23] == 0  # its own selection
        assert second[25] == pytest.approx(0.4) and first[25] == 0  # the other's last placed card (card 2)
        assert (first[14:23] == second[14:23]).all() and (first[28:64] == second[28:64]).all()
    finally:
        env.close()


def test_tripletriad_two_seat_games_end_with_outcomes_that_agree_with_the_cards_owned():
    env = envs.Tripletriad(num_envs=8, opponent="none")
    rng = np.random.default_rng(0)
    results = set()
    try:
        env.reset(seed=0)
        for _ in range(200):  # the mover selects a card in hand, then places it on an empty cell
            acts = np.zeros(16, np.int32)
            for g in range(8):
                seat = int(np.flatnonzero(env.masks[2 * g:2 * g + 2])[0])
                obs = env.observations[2 * g + seat]
                if obs[23]:
                    acts[2 * g + seat] = 5 + rng.choice(np.flatnonzero(obs[14:23] == 0))
                else:
                    acts[2 * g + seat] = rng.choice(np.flatnonzero(obs[9:14] == 0))
            _, rew, term, trunc, _ = env.step(acts)
            assert not trunc.any()
            for g in np.flatnonzero(term[0::2]):
                assert term[2 * g + 1]
                first, second = env.final_observations[2 * g:2 * g + 2]
                scores = first[26:28] * 10
                assert scores.sum() == pytest.approx(10) and (second[26:28] == first[27:25:-1]).all()
                assert first[:9].tolist() == [1.0 if v == 0.5 else 0.5 for v in second[:9]]  # a full board
                assert (first[:9] == 1).sum() == pytest.approx(scores[0])
                sign = np.sign(scores[0] - scores[1])
                result = {1: [1.0, 0.0], 0: [0.5, 0.5], -1: [0.0, 1.0]}[int(sign)]
                assert env.outcomes[2 * g:2 * g + 2].tolist() == result
                assert rew[2 * g:2 * g + 2].tolist() == pytest.approx([sign, -sign])  # placing is free
                results.add(int(sign))
        assert results == {-1, 0, 1}
    finally:
        env.close()


def test_tripletriad_a_two_seat_game_cut_short_by_max_steps_has_no_result():
    env = envs.Tripletriad(num_envs=1, opponent="none", max_steps=4)
    try:
        env.reset(seed=0)
        for _ in range(3):
            _, _, term, trunc, _ = env.step(np.array([0, 0], np.int32))
            assert not trunc.any()
        _, _, term, trunc, _ = env.step(np.array([0, 0], np.int32))
        assert trunc.tolist() == [True, True] and not term.any() and np.isnan(env.outcomes).all()
    finally:
        env.close()


def test_tripletriad_scripted_player_takes_the_placement_capturing_the_most_cards():
    env = envs.Tripletriad(num_envs=1, opponent="scripted")
    checked = greedy_captures = 0
    try:
        assert env.game_seats == 1 and env.num_agents == 1
        for game in range(30):
            env.reset(seed=game)
            for card in range(5):
                obs = env.observations[0].copy()
                owners = [1 if v == 1 else -1 if v == 0.5 else 0 for v in obs[:9]]
                values = obs[28:64].reshape(9, 4) * 10
                mine, theirs = obs[64:84].reshape(5, 4) * 10, obs[84:104].reshape(5, 4) * 10
                cell = int(np.flatnonzero(obs[:9] == 0)[0])
                env.step(np.array([card]))
                after, _, term, _, _ = env.step(np.array([5 + cell]))
                if term[0]:
                    break
                for c in tt_captures(owners, values, 1, mine[card], cell):  # the agent's move, replayed
                    owners[c] = 1
                owners[cell], values[cell] = 1, mine[card]
                placed = np.flatnonzero((after[0][109:114] > 0) & (obs[109:114] == 0))
                assert len(placed) == 1
                k, at = int(placed[0]), int(round(after[0][109 + placed[0]] * 9)) - 1
                best = max(len(tt_captures(owners, values, -1, theirs[j], c))
                           for j in range(5) if obs[109 + j] == 0 for c in range(9) if owners[c] == 0)
                got = tt_captures(owners, values, -1, theirs[k], at)
                assert owners[at] == 0 and len(got) == best
                checked += 1
                greedy_captures += best > 0
        assert checked > 50 and greedy_captures > 5
    finally:
        env.close()


def test_tripletriad_random_stays_the_default_and_the_scripted_player_is_stronger():
    assert envs.Tripletriad.params()["opponent"][1] == 2  # "random": the reference's opponent
    scores = {}
    for opponent in ("random", "scripted"):
        env = envs.Tripletriad(num_envs=32, opponent=opponent)
        rng = np.random.default_rng(0)
        try:
            assert env.game_seats == 1
            env.reset(seed=0)
            for _ in range(200):  # a random legal agent: select a card in hand, then place it on an empty cell
                obs = env.observations
                env.step(np.array([5 + rng.choice(np.flatnonzero(o[14:23] == 0)) if o[23]
                                   else rng.choice(np.flatnonzero(o[9:14] == 0)) for o in obs], np.int32))
            scores[opponent] = env.log()["score"]  # cards the agent owns at the end, of 10
        finally:
            env.close()
    assert scores["random"] > 5 and scores["scripted"] < scores["random"] - 1, scores


# ---- the game contract: checker and matches ----

@pytest.mark.parametrize("env_id, kwargs, steps", [("ocean-go", {"grid_size": N}, 300),
                                                   ("ocean-tripletriad", {}, 200),
                                                   ("ocean-tripletriad", {"legal_actions": 1}, 200),
                                                   ("ocean-hex", {"size": 5}, 200),
                                                   ("ocean-tron", {"size": 6}, 200), ("ocean-checkers", {}, 200),
                                                   ("ocean-slimevolley", {"points": 1}, 600),
                                                   ("ocean-chess", {"max_plies": 60}, 200)])
def test_two_seat_games_pass_the_checker(env_id, kwargs, steps):
    report = pufferlib.check_env(env_id, steps=steps, opponent="none", **kwargs)
    assert report.ok, str(report)
    assert report["games"].status == PASS and "of 2 seat(s)" in report["games"].detail, str(report)
    assert report["determinism"].status == PASS


@pytest.mark.parametrize("env_id, env_kwargs", [("ocean-go", {"grid_size": 4}), ("ocean-tripletriad", {}),
                                               ("ocean-hex", {"size": 5}), ("ocean-tron", {"size": 6}),
                                               ("ocean-checkers", {}), ("ocean-slimevolley", {"points": 1}),
                                               ("ocean-chess", {"max_plies": 60})])
def test_a_match_of_an_untrained_agent_against_itself_splits_the_games_over_the_seats(env_id, env_kwargs):
    config = merge(load_default(), env_config(env_id)[0])
    config["env"] = {**config.get("env", {}), **env_kwargs}  # go on 4 x 4: short games for the suite
    agent = build(env_id, config)
    result = play_match(env_id, agent, agent, 20, seed=0)
    assert result.games + result.no_result == 20 and result.games_by_seat == (10, 10)
    against = play_match(env_id, agent, "scripted", 4, seed=0)  # the built-in player in the other seat
    assert against.games + against.no_result == 4 and against.games_by_seat == (2, 2)


# ---- built-in players in a seat (the `players` input: self-play's anchors) ----

def seat_one_results(env, rng, games=300):
    """Outcomes of seat 1 over `games` games of random (legal) actions on every row."""
    obs, _ = env.reset(seed=int(rng.integers(1 << 30)))
    results = []
    while len(results) < games:
        obs, _, term, trunc, _ = env.step(random_legal(env, obs, rng))
        done = (term | trunc)[1::2]
        results += env.outcomes[1::2][done & ~np.isnan(env.outcomes[1::2])].tolist()
    return np.array(results)


@pytest.mark.parametrize("cls, kwargs, min_score", [
    (envs.Tron, {}, 0.95), (envs.Slimevolley, {}, 0.9), (envs.Hex, {}, 0.9), (envs.Connect4, {}, 0.9),
    (envs.Checkers, {}, 0.9), (envs.Chess, {"max_plies": 120}, 0.7),
    (envs.Go, {"komi": 0.5}, 0.85),  # komi 7.5 would make white (seat 1) the favourite of random play
    (envs.Tripletriad, {}, 0.75)])  # random placements still win some hands
def test_a_builtin_player_takes_the_seat_its_players_entry_names(cls, kwargs, min_score):
    """With opponent "none", a row whose `players` entry is 1 is played by the scripted player (its
    action ignored): it beats random legal moves on the other seat, as the one-seat env's scripted
    player does; 0 gives the row back to its agent (about even)."""
    env = cls(num_envs=16, opponent="none", **kwargs)
    assert env.builtin_players == {"scripted": 1, "random": 2}
    rng = np.random.default_rng(0)
    try:
        env.players[1::2] = 1
        assert seat_one_results(env, rng).mean() >= min_score
        env.players[:] = 0
        assert 0.3 < seat_one_results(env, rng).mean() < 0.7
    finally:
        env.close()


def test_games_without_seat_players_say_so():
    env = envs.Tron(num_envs=1)  # the built-in rider already plays one side: no seat to give
    try:
        assert env.builtin_players == {}
    finally:
        env.close()


@pytest.mark.parametrize("opponent", ["none", "random"])
def test_tripletriad_legal_actions_lead_the_observation_and_make_every_move_a_card_then_a_cell(opponent):
    """With `legal_actions` 1 the observation starts with the mover's legal actions (its cards in hand
    with none selected, then the empty cells), the rest is the plain observation of the same game,
    and random legal play never pays an illegal action's cost (in this mode a legal selection is free)."""
    plain = envs.Tripletriad(num_envs=4, opponent=opponent)
    legal = envs.Tripletriad(num_envs=4, opponent=opponent, legal_actions=1)
    rng = np.random.default_rng(0)
    try:
        assert legal.legal_actions and legal.observations.shape[1] == plain.observations.shape[1] + 14
        plain.reset(seed=3)
        obs, _ = legal.reset(seed=3)
        for _ in range(120):
            mask = obs[:, :14] > 0
            movers = legal.masks.copy() if opponent == "none" else np.ones(legal.num_agents, bool)
            assert (mask.any(1) == movers).all()
            picking = obs[:, 14 + 23] == 0  # no card selected: the cards in hand are legal, no cell
            assert (mask[movers & picking, 5:].sum(1) == 0).all() and (mask[movers & ~picking, :5].sum(1) == 0).all()
            assert (mask[:, :5] == (obs[:, 14 + 9:14 + 14] == 0) & picking[:, None] & movers[:, None]).all()
            actions = random_legal(legal, obs, rng)[:, 0].astype(np.int32)
            obs, rewards, _, _, _ = legal.step(actions)
            plain_obs, plain_rewards, _, _, _ = plain.step(actions)
            np.testing.assert_array_equal(obs[:, 14:], plain_obs)
            selections = (actions < 5) & movers  # cost 0.1 in the plain env, nothing when legal
            np.testing.assert_allclose(rewards, plain_rewards + 0.1 * selections, atol=1e-6)
            assert set(rewards.tolist()) <= {-1.0, 0.0, 1.0}  # game results only: no action cost
        legal.reset(seed=4)  # a selection while card 1 is selected: refused, at a cost
        legal.step(np.zeros(legal.num_agents, np.int32))
        assert legal.field("selected") == 0 and legal.observations[0, :14].tolist() == [0] * 5 + [1] * 9
        _, rewards, _, _, _ = legal.step(np.ones(legal.num_agents, np.int32))
        assert legal.field("selected") == 0 and rewards[0] == pytest.approx(-0.1)
    finally:
        plain.close()
        legal.close()
