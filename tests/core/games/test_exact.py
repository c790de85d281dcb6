"""`pufferlib.games.exact` and `pufferlib.match.exact_match`: a greedy player's
exact probabilities against random play, checked against an independent tictactoe solver."""

import functools
import json
import time

import numpy as np
import pettingzoo
import pytest
import torch

from pufferlib import cli
from pufferlib.agent import build
from pufferlib.config import env_config, load_default, merge
from pufferlib.errors import APIUsageError
from pufferlib.games.exact import estimate_exact_positions, exact_against_random
from pufferlib.match import exact_match, play_match

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board):
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def after(board, square, mark):
    return board[:square] + mark + board[square + 1:]


@functools.cache
def value(board, turn, me, loss):
    """The expected return of `me` playing best against uniformly random play (a loss scores `loss`)."""
    won = winner(board)
    if won or "." not in board:
        return 0.0 if not won else 1.0 if won == me else loss
    values = [value(after(board, i, turn), "xo"[turn == "x"], me, loss) for i in range(9) if board[i] == "."]
    return max(values) if turn == me else sum(values) / len(values)


def solver_outcome(board, turn, me, rule):
    """(win, draw, loss) probabilities of `me` playing `rule(board, me)` against uniformly random play."""
    won = winner(board)
    if won or "." not in board:
        return (float(won == me), float(not won), float(bool(won) and won != me))
    nxt = "xo"[turn == "x"]
    if turn == me:
        return solver_outcome(after(board, rule(board, me), turn), nxt, me, rule)
    parts = [solver_outcome(after(board, i, turn), nxt, me, rule) for i in range(9) if board[i] == "."]
    return tuple(sum(p[k] for p in parts) / len(parts) for k in range(3))


def first_empty(board, me):
    return board.index(".")


def expectimax(board, me, loss=-1.0):
    return max((i for i in range(9) if board[i] == "."),
               key=lambda i: value(after(board, i, me), "xo"[me == "x"], me, loss))


def as_player(rule, mark):
    """`rule` as `exact_against_random`'s deterministic player of PettingZoo's tictactoe (squares row-major in
    the observation: plane 0 the mover's marks, plane 1 the opponent's)."""
    def choose(obs, state):
        planes = obs["observation"].reshape(9, 2)
        other = "xo"[mark == "x"]
        board = "".join(mark if mine else other if theirs else "." for mine, theirs in planes)
        return rule(board, mark), state
    return choose


def game():
    return pettingzoo.make("aec", "classic/tictactoe-v3")


@pytest.mark.parametrize("rule", [first_empty, expectimax, functools.partial(expectimax, loss=-5.0)],
                         ids=["first-empty-square", "best-against-random", "best-with-a-loss-of-5"])
def test_the_walk_gives_the_exact_probabilities_of_an_independent_solver(rule):
    env = game()
    for seat, mark in zip(env.possible_agents, "xo"):
        outcome = exact_against_random(env, as_player(rule, mark), seat)
        expected = solver_outcome("." * 9, "x", mark, rule)
        np.testing.assert_allclose((outcome.win, outcome.draw, outcome.loss), expected, atol=1e-12)
        assert outcome.games > 100 and outcome.positions > outcome.games


def test_the_best_player_against_random_play_loses_a_few_games_unless_a_loss_weighs_more():
    """Why `loss_penalty` exists: on the game's own rewards the best policy against random play loses as O."""
    env = game()
    best = exact_against_random(env, as_player(expectimax, "o"), "player_2")
    careful = exact_against_random(env, as_player(functools.partial(expectimax, loss=-5.0), "o"), "player_2")
    assert 0.007 < best.loss < 0.0075 and careful.loss == 0.0 and careful.win < best.win


def test_the_players_state_follows_each_line():
    seen = []

    def choose(obs, moves_so_far):  # the state counts this seat's moves on its line
        planes = obs["observation"].reshape(9, 2)
        seen.append((int(planes[:, 0].sum()), moves_so_far))
        return int(np.flatnonzero(obs["action_mask"])[0]), moves_so_far + 1

    exact_against_random(game(), choose, "player_2", state=0)
    assert len(seen) > 100 and all(marks == moves for marks, moves in seen)


def test_a_game_too_big_to_walk_and_a_wrong_seat_are_clear_errors():
    env = game()
    with pytest.raises(APIUsageError, match="more than 100 positions"):
        exact_against_random(env, as_player(first_empty, "o"), "player_2", max_positions=100)
    with pytest.raises(APIUsageError, match="is not one of the game's seats"):
        exact_against_random(env, as_player(first_empty, "o"), "player_3")


def test_exact_match_agrees_with_a_greedy_match_and_the_cli_prints_it(tmp_path, capsys):
    torch.manual_seed(0)  # a fixed untrained policy, so that the seeded match below is one fixed sample
    agent = build("pettingzoo-tictactoe", merge(load_default(), env_config("pettingzoo-tictactoe")[0]))
    exact = exact_match("pettingzoo-tictactoe", agent)
    assert set(exact.seats) == {"player_1", "player_2"} and 0.0 < exact.loss < 1.0
    played = play_match("pettingzoo-tictactoe", agent, "random", 600, seed=3, deterministic=True)
    low, high = played.interval(z=3.29)  # 99.9%
    assert low < exact.score < high  # the walk's observations are the ones a match's policy sees

    data = str(tmp_path)
    assert cli.main(["train", "pettingzoo-tictactoe", "--train.total-timesteps", "2048", "--vec.num-envs", "8",
                     "--train.batch-size", "1024", "--train.minibatch-size", "512", "--train.data-dir", data]) == 0
    capsys.readouterr()
    assert cli.main(["match", "pettingzoo-tictactoe", "latest", "random", "--exact", "--data-dir", data]) == 0
    line = capsys.readouterr().out
    assert "exact over every line of random play" in line and "games per 1,000" in line
    assert cli.main(["match", "pettingzoo-tictactoe", "latest", "random", "--exact", "--json", "--data-dir", data]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["exact"] and set(result["seats"]) == {"player_1", "player_2"}
    assert abs(result["score"] - sum(s["win"] + s["draw"] / 2 for s in result["seats"].values()) / 2) < 1e-12
    for argv, message in [(["tactical", "--exact"], "B must be 'random'"),
                          (["random", "--exact", "--games", "10"], "drop --games")]:
        assert cli.main(["match", "pettingzoo-tictactoe", "latest", *argv, "--data-dir", data]) == 2
        assert message in capsys.readouterr().err


def test_exact_play_of_a_game_too_big_is_refused_at_once_naming_the_env_id():
    agent = build("pettingzoo-connect_four", merge(load_default(), env_config("pettingzoo-connect_four")[0]))
    started = time.perf_counter()
    with pytest.raises(APIUsageError, match=r"^pettingzoo-connect_four has an estimated .* or more positions to walk "
                                            r"on seat player_0 .*more than 2,000,000 positions"):
        exact_match("pettingzoo-connect_four", agent)
    assert time.perf_counter() - started < 5  # the walk gave up after 2,000,000 moves, some 300 s


def test_the_estimate_of_a_walk_is_close_to_the_moves_the_walk_plays():
    env = game()
    for seat, mark in zip(env.possible_agents, "xo"):
        walked = exact_against_random(env, as_player(first_empty, mark), seat).positions
        estimate = estimate_exact_positions(env, as_player(first_empty, mark), seat, lines=300)
        assert 0.8 * walked < estimate < 1.25 * walked


def test_exact_play_of_an_env_that_is_no_turn_based_game_is_a_clear_error():
    agent = build("ocean-connect4", merge(load_default(), env_config("ocean-connect4")[0]))
    with pytest.raises(APIUsageError, match="not a turn-based PettingZoo game"):
        exact_match("ocean-connect4", agent)
    with pytest.raises(APIUsageError, match="needs an agent"):
        exact_match("pettingzoo-tictactoe", "random")
