"""`pufferlib.games.ratings`: the Elo update and Bradley-Terry against hand-computed games and win
matrices, the rank correlation, and the fit's refusal of fewer than two players."""

import math

import pytest

from pufferlib.errors import APIUsageError
from pufferlib.games.ratings import elo_update, fit, rank_correlation


def test_the_elo_update_of_hand_computed_games():
    assert elo_update(1000, 1000, 1.0, 16) == (1008, 992)
    learner, opponent = elo_update(1200, 1000, 0.5, 32)  # the favourite draws: it loses points
    expected = 1 / (1 + 10 ** (-200 / 400))
    assert learner == pytest.approx(1200 + 32 * (0.5 - expected)) and learner + opponent == pytest.approx(2200)


def test_two_players_rate_by_the_log_odds_of_their_score():
    ratings = {r.player: r for r in fit([("a", "b", 3, 0, 1)])}
    gap = ratings["a"].elo - ratings["b"].elo
    assert gap == pytest.approx(400 * math.log10(3), abs=0.5)  # 3 wins in 4: odds 3 to 1
    assert ratings["a"].elo + ratings["b"].elo == pytest.approx(2000)  # mean 1000
    assert ratings["a"].games == 4 and ratings["a"].score == 0.75 and ratings["b"].score == 0.25
    # 95% interval of a - mean = (a - b) / 2: 1.96 * sqrt(1 / (n p (1 - p))) / 2 on the natural scale
    half = 1.96 * math.sqrt(1 / (4 * 0.75 * 0.25)) / 2 * 400 / math.log(10)
    assert ratings["a"].ci95 == pytest.approx(half, rel=1e-3)


def test_draws_count_half_and_a_consistent_matrix_is_recovered():
    assert {r.player: r.elo for r in fit([("a", "b", 0, 10, 0)])} == pytest.approx({"a": 1000, "b": 1000})
    # True ratings 0, 200, 400 (Elo): games in proportion to the model's expected scores.
    true = {"x": 0.0, "y": 200.0, "z": 400.0}
    matches = []
    for a, b in (("x", "y"), ("x", "z"), ("y", "z")):
        p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
        matches.append((a, b, round(10000 * p), 0, 10000 - round(10000 * p)))
    ratings = {r.player: r.elo for r in fit(matches)}
    assert ratings["y"] - ratings["x"] == pytest.approx(200, abs=2)
    assert ratings["z"] - ratings["y"] == pytest.approx(200, abs=2)
    assert [r.player for r in fit(matches)] == ["z", "y", "x"]  # best first


def test_rank_correlation():
    assert rank_correlation([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1)
    assert rank_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1)
    assert math.isnan(rank_correlation([1], [2]))


def test_a_fit_of_fewer_than_two_players_is_refused():
    with pytest.raises(APIUsageError, match="ratings need games between two players"):
        fit([])
