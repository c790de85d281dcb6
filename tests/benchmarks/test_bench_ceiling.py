"""The pure parts of benchmarks/bench_ceiling.py: the bounds, the share of the bound, which one
binds, and the training SPS read from a run's metrics.jsonl.

The benchmark itself steps envs and trains; its module imports only the standard library at
the top (torch and pufferlib inside the measuring functions), so loading it is cheap.
"""

from __future__ import annotations

import json
import math

import pytest

from tests.benchmarks import load_benchmark

bench = load_benchmark("bench_ceiling")


def test_the_bounds_add_times_per_sample():
    assert bench.policy_ceiling(0.25e-3, 0.75e-3) == pytest.approx(1000.0)  # 1 ms per sample
    assert bench.serial_bound(3000.0, 1500.0) == pytest.approx(1000.0)  # 1/3 ms + 2/3 ms
    assert bench.serial_bound(1e12, 1500.0) == pytest.approx(1500.0)  # a free env leaves the policy's bound


def test_the_slower_side_binds_with_its_share_of_the_serial_time():
    assert bench.binding(3000.0, 1500.0) == ("policy", pytest.approx(2 / 3))
    assert bench.binding(1000.0, 4000.0) == ("env", pytest.approx(0.8))
    assert bench.percent(800.0, 1000.0) == pytest.approx(80.0)


def test_result_gives_the_percent_of_the_serial_bound_and_the_verdict():
    result = bench.Result("procgen-coinrun", env_sps=30000.0, act_s=0.05e-3, update_s=0.2e-3, train_sps=3000.0,
                          train_steps=5)
    assert result.policy_sps == pytest.approx(4000.0)
    assert result.serial_sps == pytest.approx(1 / (1 / 30000 + 1 / 4000))
    verdict = result.verdict()
    assert verdict.startswith("bound: policy (88% of the serial time")
    assert "training at 85% of the serial bound (75% of min(env, policy))" in verdict
    cells = [c.strip() for c in result.row().strip("|").split("|")]
    assert cells == ["procgen-coinrun", "30,000", "0.0500", "0.2000", "4,000", "3,529", "3,000", "85%", "policy"]
    assert len(cells) == bench.TABLE_HEAD.splitlines()[0].count("|") - 1


def test_without_training_the_ceilings_still_show():
    result = bench.Result("atari-breakout", env_sps=1000.0, act_s=0.1e-3, update_s=0.15e-3)
    assert "training" not in result.verdict() and result.verdict().startswith("bound: env")
    cells = [c.strip() for c in result.row().strip("|").split("|")]
    assert cells[6:] == ["-", "-", "env"]


def test_training_sps_is_the_median_after_the_first_log_step(tmp_path):
    path = tmp_path / "metrics.jsonl"
    lines = [{"config": {"train": {}}, "env_id": "x"},  # the header line
             {"step": 1024, "SPS": 10.0},  # warm-up: dropped
             {"step": 2048, "SPS": 900.0}, {"step": 3072, "SPS": 1100.0}, {"step": 4096, "SPS": 1000.0},
             {"step": 4096, "environment/episode_return": 3.0}]  # the episode stats written at close
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert bench.training_sps(path) == (1000.0, 3)
    path.write_text(json.dumps(lines[0]) + "\n" + json.dumps(lines[1]) + "\n")
    sps, count = bench.training_sps(path)
    assert math.isnan(sps) and count == 0  # one log step: nothing left after the warm-up
