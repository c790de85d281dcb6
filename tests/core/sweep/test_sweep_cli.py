"""`puffer sweep` end to end: trials as processes, kill -9 and --resume, best.toml, plot, errors."""

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pufferlib import cli
from pufferlib.cli.options import base_parser as _base_parser
from pufferlib.cli.options import parse_config
from tests.core.signals import default_sigint

SPACE = """
[sweep]
method = "protein"
num_random = 2

[sweep.train.learning_rate]
distribution = "log_normal"
min = 1e-3
max = 3e-2

[sweep.train.update_epochs]
distribution = "int_uniform"
min = 1
max = 2
"""
TINY = ["--train.total-timesteps", "6144", "--train.batch-size", "512", "--train.minibatch-size", "256",
        "--vec.num-envs", "2", "--train.log-interval", "0.2", "--train.checkpoint-interval", "0"]


def _db(sweep_dir):
    """The trials of a sweep's database ([] while it is being created)."""
    if not (sweep_dir / "sweep.db").exists():
        return []
    db = sqlite3.connect(f"file:{sweep_dir / 'sweep.db'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT id, idx, status, score, retry_of, params FROM trials ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # the driver has created the file, not yet its tables
        return []
    finally:
        db.close()


@contextlib.contextmanager
def _running(proc):
    """Kill `proc` if the test fails while it runs."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _sweep(args, **kw):
    return subprocess.Popen([sys.executable, "-m", "pufferlib", "sweep", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kw)


def _children_of(pid):
    out = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "pufferlib train" in line and str(pid) in line.split()[1:2]]


@pytest.mark.slow
def test_sweep_survives_kill_9_and_resumes_without_losing_or_repeating_trials(tmp_path):
    space = tmp_path / "space.toml"
    space.write_text(SPACE)
    sweep_dir = tmp_path / "sweep"
    args = ["gym-CartPole-v1", "--config", str(space), "--dir", str(sweep_dir), "--quiet",
            "--sweep.max-runs", "4", "--sweep.early-stop-quantile", "0", *TINY]
    with _running(_sweep(args)) as proc:
        deadline = time.time() + 240
        while time.time() < deadline:  # wait for one finished trial and one running
            rows = _db(sweep_dir)
            if any(r[2] == "done" for r in rows) and rows[-1][2] == "running":
                break
            time.sleep(0.3)
        else:
            pytest.fail("no trial finished in time")
        trial_pids = [int(line.split()[0]) for line in _children_of(proc.pid)]
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
    before = _db(sweep_dir)
    done_before = [r for r in before if r[2] == "done"]
    time.sleep(1.0)
    for pid in trial_pids:  # the trial died with the driver
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()

    with _running(_sweep(["gym-CartPole-v1", "--resume", str(sweep_dir), "--quiet"])) as proc:
        out = proc.communicate(timeout=300)[0]
    assert proc.returncode == 0, out
    after = _db(sweep_dir)
    assert [r for r in after if r[0] in {d[0] for d in done_before}] == done_before  # kept, not rerun
    finished = [r for r in after if r[2] in ("done", "stopped", "failed", "timeout")]
    assert len(finished) == 4 and all(r[2] == "done" for r in finished), after
    assert sorted(r[1] for r in finished) == [0, 1, 2, 3]  # every suggestion index once
    interrupted = [r for r in after if r[2] == "interrupted"]
    assert len(interrupted) == 1
    retry = next(r for r in after if r[4] == interrupted[0][0])
    assert retry[5] == interrupted[0][5]  # run again with the same parameters
    assert "best: trial" in out

    best = sweep_dir / "best.toml"
    config, _ = parse_config(_base_parser("puffer train", ""), ["gym-CartPole-v1", "--config", str(best)])
    best_row = max(finished, key=lambda r: r[3])
    params = json.loads(best_row[5])
    assert config["train"]["learning_rate"] == pytest.approx(params["train.learning_rate"])
    assert config["train"]["update_epochs"] == params["train.update_epochs"]
    # trial 0 is the unswept config
    assert json.loads(after[0][5]) == {"train.learning_rate": pytest.approx(0.0025), "train.update_epochs": 4}
    for trial in (sweep_dir / "trials").iterdir():
        assert (trial / "train.log").exists() and (trial / "trial.toml").exists()
    # every finished trial is an ordinary run folder (the interrupted one may have died before logging)
    assert len(list((sweep_dir / "trials").glob("*/*/metrics.jsonl"))) >= 4

    png = tmp_path / "sweep.png"
    assert cli.main(["plot", "--sweep", str(sweep_dir), "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_crashing_trial_is_recorded_as_a_failure(tmp_path, capsys):
    space = tmp_path / "space.toml"
    space.write_text(SPACE + "\n[train]\nminibatch_size = 384\n")  # does not divide batch_size: PuffeRL refuses
    sweep_dir = tmp_path / "sweep"
    code = cli.main(["sweep", "gym-CartPole-v1", "--config", str(space), "--dir", str(sweep_dir), "--quiet",
                     "--sweep.max-runs", "1", "--sweep.method", "random",
                     *[a for a in TINY if a not in ("--train.minibatch-size", "256")]])
    assert code == 1
    rows = _db(sweep_dir)
    db = sqlite3.connect(sweep_dir / "sweep.db")
    error = db.execute("SELECT error FROM trials").fetchone()[0]
    db.close()
    assert [r[2] for r in rows] == ["failed"] and "minibatch_size" in error


@pytest.mark.parametrize("extra, message", [
    (["--sweep.max-rus", "3"], "--sweep.max-runs"),
    (["--sweep.train.learning-rate.min", "1.0"], "greater than max"),
])
def test_bad_sweep_flags_fail_before_any_trial(tmp_path, capsys, extra, message):
    try:
        code = cli.main(["sweep", "gym-CartPole-v1", "--dir", str(tmp_path / "s"), *extra])
    except SystemExit as exc:  # argparse's usage error
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2 and message in captured.err + captured.out
    assert not (tmp_path / "s").exists()


def test_bad_space_file_fails_before_any_trial(tmp_path, capsys):
    space = tmp_path / "space.toml"
    space.write_text("[sweep]\nmax_run = 3\n[sweep.train.gama]\ndistribution = 'uniform'\nmin = 0.9\nmax = 0.99\n")
    assert cli.main(["sweep", "gym-CartPole-v1", "--config", str(space), "--dir", str(tmp_path / "s")]) == 2
    assert "sweep.max_runs" in capsys.readouterr().err
    space.write_text("[sweep.train.gama]\ndistribution = 'uniform'\nmin = 0.9\nmax = 0.99\n")
    assert cli.main(["sweep", "gym-CartPole-v1", "--config", str(space), "--dir", str(tmp_path / "s")]) == 2
    assert "Did you mean: train.gamma" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_a_trial_past_its_time_limit_is_killed_and_recorded(tmp_path):
    space = tmp_path / "space.toml"
    space.write_text(SPACE)
    sweep_dir = tmp_path / "sweep"
    code = cli.main(["sweep", "gym-CartPole-v1", "--config", str(space), "--dir", str(sweep_dir), "--quiet",
                     "--sweep.max-runs", "1", "--sweep.trial-timeout", "0.5", "--train.total-timesteps", "1e7"])
    assert code == 1
    db = sqlite3.connect(sweep_dir / "sweep.db")
    status, error = db.execute("SELECT status, error FROM trials").fetchone()
    db.close()
    assert status == "timeout" and "0.5 s" in error


def test_ctrl_c_marks_the_running_trial_interrupted_and_stops_it(tmp_path):
    space = tmp_path / "space.toml"
    space.write_text(SPACE)
    sweep_dir = tmp_path / "sweep"
    with _running(_sweep(["gym-CartPole-v1", "--config", str(space), "--dir", str(sweep_dir), "--quiet",
                          "--sweep.max-runs", "2", "--train.total-timesteps", "1e7"],
                         preexec_fn=default_sigint)) as proc:
        deadline = time.time() + 120
        while time.time() < deadline and not _children_of(proc.pid):
            time.sleep(0.2)
        trial_pids = [int(line.split()[0]) for line in _children_of(proc.pid)]
        assert trial_pids, "the trial never started"
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=60)[0]
    assert proc.returncode == 130 and f"--resume {sweep_dir}" in out
    assert [r[2] for r in _db(sweep_dir)] == ["interrupted"]
    assert not any(Path(f"/proc/{pid}").exists() for pid in trial_pids)
