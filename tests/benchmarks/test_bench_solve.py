"""The pure parts of benchmarks/bench_solve.py: the solve rule, a run's figures and the table row.

The benchmark itself trains for minutes and never runs here; its module imports only the
standard library, so loading it is cheap.
"""

from __future__ import annotations

import json

import pytest

from tests.benchmarks import load_benchmark

bench = load_benchmark("bench_solve")

T0 = 1_000.0


def rows(*points: tuple[float, int, float | None], key: str = "environment/score") -> list[dict]:
    """Log rows at (seconds after T0, step, value); a None value leaves the key out (no episode ended)."""
    return [{"time": T0 + t, "step": s, **({} if v is None else {key: v})} for t, s, v in points]


def test_the_first_row_at_or_above_the_threshold_solves():
    log = rows((5, 1000, 10.0), (6, 2000, None), (7, 3000, 19.9), (8, 4000, 20.0), (9, 5000, 30.0))
    assert bench.first_crossing(log, "score", 20) == 3
    assert bench.first_crossing(log, "score", 31) is None
    result = bench.run_result(log, "score", 20, T0, timeout=900, end=None)
    assert result.solved and result.wall == 8 and result.steps == 4000
    assert result.sps == pytest.approx(3000 / 3) and result.first_log == 5  # from the first log to the crossing


def test_a_difference_metric_needs_both_keys():
    row = {"environment/score": 21.0, "environment/opponent_score": 2.0}
    assert bench.metric_value(row, "score - opponent_score") == 19.0
    assert bench.metric_value({"environment/score": 21.0}, "score - opponent_score") is None
    assert bench.metric_value(row, "score") == 21.0


def test_unsolved_runs_say_why():
    log = rows((5, 1000, 1.0), (950, 9000, 99.0))  # crosses only after the timeout: does not count
    timed_out = bench.run_result(log, "score", 20, T0, timeout=900, end=None)
    assert not timed_out.solved and timed_out.why == "timeout" and timed_out.wall == 900
    ended = bench.run_result(rows((5, 1000, 1.0), (40, 200_000, 2.0)), "score", 20, T0, timeout=900, end=T0 + 45)
    assert not ended.solved and ended.why == "ended" and ended.wall == 45 and ended.steps == 200_000
    assert timed_out.last == 1.0 and ended.last == 2.0  # the last value within the watch, not the best
    assert bench.run_result(rows((5, 1000, None)), "score", 20, T0, timeout=900, end=None).last is None


def test_row_gives_medians_and_the_ratio():
    solved = bench.RunResult(True, 10.0, 1000, 500.0, 2.0)
    ours = [solved, bench.RunResult(True, 20.0, 3000, 700.0, 2.0), bench.RunResult(True, 30.0, 2000, 600.0, 2.0)]
    upstream = [bench.RunResult(True, w, 5000, 100.0, 9.0) for w in (50.0, 60.0, 70.0)]
    th = bench.Threshold("score", "score", 20, 20, "a source")
    row = bench.format_row("cartpole", th, ours, upstream)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == ["cartpole", "score >= 20 (a source)", "20.0 [10.0, 30.0]", "2,000 [1,000, 3,000]", "600",
                     "60.0 [50.0, 70.0]", "5,000 [5,000, 5,000]", "100", "3.00x"]


def test_unsolved_shows_as_such_and_bounds_the_ratio():
    ours = [bench.RunResult(True, 30.0, 2000, 600.0, 2.0)]
    upstream = [bench.RunResult(False, 900.0, 4000, 50.0, 9.0, "timeout")]
    th = bench.Threshold("score", "perf", 97.2, 0.45, "x")
    cells = [c.strip() for c in bench.format_row("breakout", th, ours, upstream).strip("|").split("|")]
    assert cells[1].startswith("ours score >= 97.2, upstream perf >= 0.45")
    assert cells[5] == "not solved in 900 s" and cells[6] == "-" and cells[8] == "> 30.00x"
    mixed = [bench.RunResult(True, 30.0, 2000, 600.0, 2.0), bench.RunResult(False, 45.0, 200_000, 600.0, 2.0, "ended"),
             bench.RunResult(False, 50.0, 200_000, 600.0, 2.0, "ended")]
    assert bench.wall_cell(mixed) == "30.0; 2 of 3 not solved by the end of its steps (48 [45, 50] s)"
    lasts = [bench.RunResult(False, 300.0, 9000, 50.0, 9.0, "timeout", v) for v in (15.8, 9.25, 12.0)]
    assert bench.wall_cell(lasts) == "not solved in 300 s (last log: 12 [9.25, 15.8])"
    big = [bench.RunResult(False, 300.0, 9000, 50.0, 9.0, "timeout", v) for v in (1257.4, 244.0)]
    assert bench.wall_cell(big) == "not solved in 300 s (last log: 751 [244, 1,257])"
    assert bench.ratio_cell(mixed, upstream) == "-" and bench.ratio_cell(mixed, ours) == "< 0.67x"


def test_rows_are_read_up_to_the_last_complete_line(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text(json.dumps({"config": {}}) + "\n" + json.dumps({"step": 1, "time": 2.0}) + "\n{\"step\": 2, ")
    found, offset = bench.read_rows(path, 0)
    assert found == [{"step": 1, "time": 2.0}]
    with open(path, "a") as f:
        f.write("\"time\": 3.0}\n")
    assert bench.read_rows(path, offset)[0] == [{"step": 2, "time": 3.0}]


def test_every_env_has_a_threshold_or_a_reason():
    issue = {"cartpole", "pong", "breakout", "squared", "snake", "target", "tetris", "convert", "freeway", "enduro",
             "tower_climb", "drone", "pacman"}
    assert issue <= set(bench.THRESHOLDS) | set(bench.LEFT_OUT)
    assert not set(bench.THRESHOLDS) & set(bench.LEFT_OUT)


def test_both_sides_train_on_the_chosen_device(monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(bench, "watch", lambda argv, *args: seen.append(argv))
    bench.run_ours("breakout", 1, 10.0, tmp_path, "cuda")
    bench.run_upstream("/usr/bin/python3", "breakout", 1, 10.0, tmp_path, "cuda")
    assert seen[0][seen[0].index("--train.device") + 1] == "cuda"
    assert seen[1][seen[1].index("--device") + 1] == "cuda"
    bench.run_ours("breakout", 1, 10.0, tmp_path)
    assert seen[2][seen[2].index("--train.device") + 1] == "cpu"  # the default


def test_a_share_counts_only_from_logs_of_enough_episodes():
    points = rows((5, 1000, 1.0), (6, 2000, 0.5), (7, 3000, 0.9))
    log = [{**r, "environment/n": n} for r, n in zip(points, (5, 200, 300))]
    assert bench.first_crossing(log, "score", 0.8) == 0  # the first log: the 5 episodes that ended soonest
    assert bench.first_crossing(log, "score", 0.8, min_episodes=100) == 2
    assert bench.metric_value(rows((5, 1000, 1.0))[0], "score", min_episodes=1) is None  # no count: no value
    result = bench.run_result(log[:1], "score", 0.8, T0, timeout=900, end=None, min_episodes=100)
    assert not result.solved and result.last is None
    assert all(th.min_episodes >= 0 for th in bench.THRESHOLDS.values())
    assert bench.THRESHOLDS["maze"].min_episodes == 100


def test_the_stop_reaches_a_run_started_from_a_process_that_ignores_sigint(tmp_path):
    """A script started in the background (`&`) ignores SIGINT; the run it starts must still hear the
    stop (before: the trainer never did, and was killed after GRACE_S)."""
    import signal
    import sys
    import time

    marker = tmp_path / "stopped"
    child = (f"import pathlib, time\ntry:\n    time.sleep(60)\nexcept KeyboardInterrupt:\n"
             f"    pathlib.Path({str(marker)!r}).write_text('KeyboardInterrupt')\n")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        started = time.time()
        bench.watch([sys.executable, "-c", child], tmp_path, {}, lambda: None, "environment/score", 1.0,
                    timeout=1.0, stop_signal=signal.SIGINT, log_path=tmp_path / "log")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert marker.read_text() == "KeyboardInterrupt"
    assert time.time() - started < bench.GRACE_S


def test_envs_upstream_cannot_run_are_ours_only(monkeypatch):
    ours_only = [env for env, th in bench.THRESHOLDS.items() if th.no_upstream]
    assert {"rocket_lander", "maze", "tactical"} <= set(ours_only)
    monkeypatch.setattr("sys.argv", ["bench_solve.py", "maze", "--reference-python", "/nonexistent/python"])
    with pytest.raises(SystemExit, match=r"maze: ours only \(3.0 has no maze\); run it without --reference-python"):
        bench.main()
