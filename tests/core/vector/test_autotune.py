"""`pufferlib.vector.autotune` and `puffer bench`."""

from __future__ import annotations

import pytest

import pufferlib
from pufferlib.cli import main
from pufferlib.vector.autotune import autotune, candidates
from tests.core.mp_envs import cartpole

pytestmark = pytest.mark.timeout(120)


def test_candidates_cover_serial_and_worker_counts_near_the_cores():
    options = candidates(8, cores=2)
    assert options[0] == {"backend": "serial"}
    assert {"backend": "multiprocessing", "num_workers": 2} in options
    assert {"backend": "multiprocessing", "num_workers": 4, "batch_size": 4} in options
    assert all(8 % o.get("num_workers", 1) == 0 for o in options)
    assert all(o.get("num_workers", 1) <= 8 for o in candidates(3, cores=16))
    assert candidates(4, native=True, cores=2) == [{"num_workers": 1}, {"num_workers": 2}, {"num_workers": 4}]


def test_autotune_times_every_candidate_and_returns_the_fastest():
    lines: list[str] = []
    best = autotune(cartpole, num_envs=4, seconds=0.05, print_fn=lines.append)
    rows = [line for line in lines[2:-1]]
    assert len(rows) == len(candidates(4))
    rates = [float(line.split()[-1].replace(",", "")) for line in rows]
    assert best["steps_per_second"] == pytest.approx(max(rates), rel=1e-3)
    assert best["num_envs"] == 4 and lines[-1].startswith("best: ")
    assert "--vec.num-envs 4" in lines[-1]


def test_puffer_bench_command(capsys):
    assert main(["bench", "gym-CartPole-v1", "--num-envs", "2", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "gym-CartPole-v1: 2 envs" in out and "multiprocessing" in out and "best: " in out


def test_autotune_points_an_env_id_to_puffer_bench():
    with pytest.raises(pufferlib.APIUsageError, match="puffer bench gym-CartPole-v1"):
        autotune("gym-CartPole-v1")
