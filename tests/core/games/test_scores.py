"""`pufferlib.games.scores`: the one outcome tally (self-play's pool, matches and evaluation count
with it) and the Wilson interval, against hand-computed values."""

import math

import pytest

from pufferlib.errors import APIUsageError
from pufferlib.games.scores import Tally, outcome_kind, wilson


def test_a_tally_counts_wins_draws_and_losses_and_leaves_games_without_a_result_unscored():
    tally = Tally.of([1.0, 0.5, 0.0, 1.0, math.nan])
    assert (tally.wins, tally.draws, tally.losses, tally.games) == (2, 1, 1, 4)
    assert tally.score == pytest.approx(2.5 / 4)
    assert tally.metrics("x/") == pytest.approx({"x/score": 0.625, "x/win_rate": 0.5, "x/draw_rate": 0.25,
                                                 "x/loss_rate": 0.25})
    assert math.isnan(Tally().score) and Tally().metrics("x/") == {}


def test_an_outcome_outside_the_game_contract_is_refused_naming_its_source():
    assert [outcome_kind(o) for o in (1.0, 0.5, 0.0, math.nan)] == ["wins", "draws", "losses", "no_result"]
    with pytest.raises(APIUsageError, match=r"^my-env: outcome 0.3 of a game is not 1, 0.5, 0 or NaN"):
        outcome_kind(0.3, "my-env")
    with pytest.raises(APIUsageError, match="is not 1, 0.5, 0 or NaN"):
        Tally().add(2.0)


def test_the_wilson_interval_of_hand_computed_scores():
    # 8 of 10: centre (0.8 + 1.96^2/20) / (1 + 1.96^2/10) = 0.7210, half-width 0.2307
    low, high = wilson(0.8, 10)
    assert (low, high) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert Tally(8, 0, 2).interval() == (low, high)
    assert wilson(1.0, 5)[1] == 1.0 and wilson(0.0, 5)[0] == 0.0  # clipped to [0, 1]
    assert wilson(math.nan, 0) == (0.0, 1.0)
