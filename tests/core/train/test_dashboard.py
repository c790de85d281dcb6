"""The plain log line of `puffer train` (`pufferlib.train.dashboard.summary_line`)."""

import math

from pufferlib.train.dashboard import selfplay_scores, summary_line


def test_the_log_line_shows_selfplay_scores_against_the_pool_and_each_anchor():
    metrics = {"epoch": 3, "global_step": 3000, "SPS": 1e5, "selfplay/games": 412.0, "selfplay/score": 0.6212,
               "selfplay/pool_size": 3.0, "selfplay/elo": 1010.0, "selfplay/scripted/games": 96.0,
               "selfplay/scripted/score": 0.71, "selfplay/scripted/elo": 990.0, "selfplay/random/games": 0.0,
               "selfplay/random/score": math.nan}
    assert selfplay_scores(metrics) == ["vs pool 0.62 (412 games)", "vs random - (0 games)",
                                        "vs scripted 0.71 (96 games)"]
    assert "| vs pool 0.62 (412 games) | vs random - (0 games) | vs scripted 0.71 (96 games)" in summary_line(metrics)
    assert selfplay_scores({"epoch": 1, "environment/score": 0.5}) == []


def test_the_live_panel_shows_the_selfplay_metrics():
    import io

    from pufferlib.train.dashboard import Dashboard

    stream = io.StringIO()
    board = Dashboard(stream=stream, rich=True)
    board.update({"epoch": 1, "global_step": 10, "SPS": 1.0, "selfplay/scripted/score": 0.71}, final=True)
    board.close()
    assert "selfplay/scripted/score" in stream.getvalue() and "0.71" in stream.getvalue()
