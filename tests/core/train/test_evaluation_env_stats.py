"""Evaluation's env stats and game shares (pufferlib.train.evaluation): an env's reports weigh the
episodes they average, and the share of counted games won counts the games cut short."""

import math

import pytest

from pufferlib.train.evaluation import EvalResult, _env_stats


def test_env_stats_weigh_each_report_by_the_episodes_it_averages():
    # One report of 1 quick win, one of 3 games that ran out: 1 win in 4 episodes, not the 0.5 of
    # the reports' plain mean (what `env/score` showed before).
    infos = [{"score": 1.0, "episode_length": 40.0, "n": 1.0},
             {"score": 0.0, "episode_length": 500.0, "n": 3.0},
             {"other": "text"}]
    stats = _env_stats(infos)
    assert stats["score"] == pytest.approx(0.25)
    assert stats["episode_length"] == pytest.approx((40 + 3 * 500) / 4)
    assert stats["n"] == 4.0 and "other" not in stats
    assert _env_stats([{"score": 1.0}, {"score": 0.0}])["score"] == 0.5  # no `n`: one each


def test_win_share_counts_games_cut_short_and_win_rate_does_not():
    result = EvalResult([1.0, 0.0, 0.0, -1.0], [40, 500, 500, 60], False, 0,
                        outcomes=[1.0, math.nan, math.nan, 0.0])
    figures = result.as_dict()
    assert figures["win_rate"] == 0.5 and figures["score"] == 0.5  # of the 2 decided games
    assert figures["win_share"] == 0.25 and figures["no_result_rate"] == 0.5  # of all 4
    assert "2 without a result" in result.summary()
    plain = EvalResult([1.0, 2.0], [3, 4], False, 0).as_dict()
    assert "win_share" not in plain and "no_result_rate" not in plain
