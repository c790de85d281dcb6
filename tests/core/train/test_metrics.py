"""RUN_DIR/metrics.jsonl and `puffer plot`."""

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

from pufferlib import APIUsageError
from pufferlib.plot import plot_runs
from pufferlib.train.metrics import MetricsFile, read_metrics


def test_config_line_then_one_line_per_log_step_and_append_on_resume(tmp_path):
    run = tmp_path / "run"
    f = MetricsFile(run, {"train": {"learning_rate": 0.1}}, "gym-CartPole-v1")
    f.write(100, {"SPS": np.float32(5.5), "environment/score": 1, "nan": math.nan})
    f.close()
    f = MetricsFile(run, {"ignored": True}, "gym-CartPole-v1")  # resumed: no second config line
    f.write(200, {"SPS": 6.0})
    f.close()
    head, rows = read_metrics(run)
    assert head == {"config": {"train": {"learning_rate": 0.1}}, "env_id": "gym-CartPole-v1"}
    assert [r["step"] for r in rows] == [100, 200]
    assert rows[0]["SPS"] == 5.5 and rows[0]["nan"] is None and rows[1]["SPS"] == 6.0


def test_plot_draws_a_png(tmp_path):
    for name, slope in (("a", 1.0), ("b", 2.0)):
        f = MetricsFile(tmp_path / name, {}, "env")
        for step in range(1, 6):
            f.write(step * 100, {"SPS": 1000.0, "environment/episode_return": slope * step})
        f.close()
    out = plot_runs([tmp_path / "a", tmp_path / "b"], tmp_path / "curves.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
    with pytest.raises(APIUsageError, match="No run logged 'environment/nope'"):
        plot_runs([tmp_path / "a"], tmp_path / "x.png", metric="environment/nope")
    with pytest.raises(APIUsageError, match="run directory"):
        plot_runs([tmp_path / "missing"], tmp_path / "x.png")


def test_puffer_plot_draws_without_importing_torch(tmp_path):
    """`puffer plot` writes no checkpoint: it starts without torch's import (~3 s of CPU here)."""
    f = MetricsFile(tmp_path / "run", {}, "env")
    for step in range(1, 4):
        f.write(step * 100, {"SPS": 1000.0, "environment/episode_return": float(step)})
    f.close()
    code = ("import sys\nfrom pufferlib.cli import main\n"
            f"assert main(['plot', {str(tmp_path / 'run')!r}, '-o', {str(tmp_path / 'c.png')!r}]) == 0\n"
            "assert 'torch' not in sys.modules, 'torch'")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_torn_last_line_is_skipped_with_a_warning_when_read(tmp_path):
    f = MetricsFile(tmp_path, {}, "env")
    f.write(100, {"SPS": 1.0, "environment/episode_return": 1.0})
    f.close()
    with open(tmp_path / "metrics.jsonl", "a") as raw:
        raw.write('{"step": 200, "SPS": 2.')  # a kill mid-write
    with pytest.warns(UserWarning, match="skipped 1 undecodable line"):
        head, rows = read_metrics(tmp_path)
    assert head["env_id"] == "env" and [r["step"] for r in rows] == [100]
    with pytest.warns(UserWarning):
        assert plot_runs([tmp_path], tmp_path / "p.png").exists()


def test_resume_cuts_the_torn_tail_before_appending(tmp_path):
    f = MetricsFile(tmp_path, {"a": 1}, "env")
    f.write(100, {"SPS": 1.0})
    f.close()
    with open(tmp_path / "metrics.jsonl", "a") as raw:
        raw.write('{"step": 200, "SP')
    with pytest.warns(UserWarning, match="cut off a torn last line"):
        f = MetricsFile(tmp_path, {"a": 1}, "env")
    f.write(300, {"SPS": 3.0})
    f.close()
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == 3 and '"step": 300' in lines[2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the file is whole again
        head, rows = read_metrics(tmp_path)
    assert head["config"] == {"a": 1} and [r["step"] for r in rows] == [100, 300]


def test_torn_config_line_is_rewritten(tmp_path):
    (tmp_path / "metrics.jsonl").write_text('{"config": {"trai')
    with pytest.warns(UserWarning, match="torn last line"):
        MetricsFile(tmp_path, {"b": 2}, "env").close()
    assert read_metrics(tmp_path) == ({"config": {"b": 2}, "env_id": "env"}, [])
