"""`puffer sweep` on a folder it has written before: one writer at a time, the same search space,
an intact sweep.db; each refusal is one line. Trials are stand-ins that end at once (no training)."""

import os
import sqlite3

import pytest

from pufferlib import cli
from pufferlib._locks import folder_lock
from pufferlib.sweep import driver, runner
from pufferlib.sweep.runner import Outcome, Report
from pufferlib.sweep.store import Store

SPACE = """
[sweep.train.learning_rate]
distribution = "log_normal"
min = 1e-3
max = 3e-2
"""


class _DoneTrial:
    """A trial that reports one score and is done at its first look."""

    def __init__(self, spec):
        self.score = spec.config["train"]["learning_rate"]

    def poll(self, below_line=runner.never_stop):
        return [Report(100, 1.0, self.score, 1.0)], Outcome("done")

    def kill(self):
        pass


@pytest.fixture
def sweep(tmp_path, monkeypatch):
    """A function running `puffer sweep gym-CartPole-v1 --quiet ARGS` in-process, with stand-in
    trials; returns its exit status. tmp_path/space.toml holds `SPACE`."""
    monkeypatch.setattr(runner.LocalTrial, "start", _DoneTrial)
    monkeypatch.setitem(driver.POLL_SECONDS, "local", 0.0)
    (tmp_path / "space.toml").write_text(SPACE)

    def run(*args):
        return cli.main(["sweep", "gym-CartPole-v1", "--quiet", *args])

    return run


def _statuses(sweep_dir):
    db = sqlite3.connect(f"file:{sweep_dir / 'sweep.db'}?mode=ro", uri=True)
    try:
        return [row[0] for row in db.execute("SELECT status FROM trials ORDER BY id")]
    finally:
        db.close()


def _error(capsys):
    """The one line a refused `puffer sweep` printed to stderr."""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("puffer sweep: error: "), err
    return err


def test_a_second_writer_of_a_sweep_folder_is_refused_naming_the_pid_of_the_first(sweep, tmp_path, capsys):
    folder = tmp_path / "s"
    assert sweep("--config", str(tmp_path / "space.toml"), "--dir", str(folder), "--sweep.max-runs", "1") == 0
    with folder_lock(folder, "a sweep"):  # as a running `puffer sweep --resume` holds it
        capsys.readouterr()
        assert sweep("--resume", str(folder), "--sweep.max-runs", "2") == 2
        error = _error(capsys)
        assert f"{folder} is in use" in error and f"PID {os.getpid()}" in error
    assert _statuses(folder) == ["done"]  # no trial added, max_runs not exceeded
    assert sweep("--resume", str(folder), "--sweep.max-runs", "2") == 0  # once it is free
    assert _statuses(folder) == ["done", "done"]


@pytest.mark.parametrize("change, shown", [
    (["--sweep.train.learning-rate.max", "0.1"], "train.learning_rate max 0.03 -> 0.1"),
    (["--config", "{tmp}/more.toml"], "train.gamma added"),
])
def test_resuming_with_a_changed_search_space_is_refused_saying_what_changed(sweep, tmp_path, capsys, change, shown):
    (tmp_path / "more.toml").write_text(SPACE + "[sweep.train.gamma]\ndistribution = 'logit_normal'\n"
                                                "min = 0.9\nmax = 0.99\n")
    folder = tmp_path / "s"
    assert sweep("--config", str(tmp_path / "space.toml"), "--dir", str(folder), "--sweep.max-runs", "1") == 0
    capsys.readouterr()
    assert sweep("--resume", str(folder), "--sweep.max-runs", "2", *[a.format(tmp=tmp_path) for a in change]) == 2
    error = _error(capsys)
    assert shown in error and "--dir NEW_FOLDER" in error
    assert _statuses(folder) == ["done"]


@pytest.mark.parametrize("damage", ["empty", "truncated", "garbage"])
def test_a_damaged_sweep_db_is_a_one_line_error_naming_the_file(tmp_path, capsys, damage):
    folder = tmp_path / "s"
    store = Store(folder)
    store.set_meta("env_id", "gym-CartPole-v1")
    store.add_trial(0, {"train.learning_rate": 0.01}, [0.5], "t0")
    store.close()
    path = folder / "sweep.db"
    data = path.read_bytes()
    path.write_bytes({"empty": b"", "truncated": data[:len(data) // 2], "garbage": b"not sqlite " * 100}[damage])
    before = path.read_bytes()
    assert cli.main(["sweep", "gym-CartPole-v1", "--resume", str(folder)]) == 2
    error = _error(capsys)
    assert f"{path} is not a readable sweep database (" in error
    assert path.read_bytes() == before  # left as it was


def test_a_sweep_that_stored_only_its_keys_is_checked_against_the_ranges_of_its_config(sweep, tmp_path, capsys):
    folder = tmp_path / "s"
    assert sweep("--config", str(tmp_path / "space.toml"), "--dir", str(folder), "--sweep.max-runs", "1") == 0
    store = Store(folder)
    store.set_meta("space", ["train.learning_rate"])  # what puffer-core 0.1.0 stored
    store.close()
    assert sweep("--resume", str(folder), "--sweep.max-runs", "2") == 0
    capsys.readouterr()
    assert sweep("--resume", str(folder), "--sweep.max-runs", "3", "--sweep.train.learning-rate.max", "0.1") == 2
    assert "train.learning_rate max 0.03 -> 0.1" in _error(capsys)
    assert _statuses(folder) == ["done", "done"]


@pytest.mark.parametrize("params", [{"policy.class": "os:system"}, {"train.data_dir": "/etc"},
                                    {"train.learning_rate": "fast"}])
def test_a_trial_to_retry_runs_only_swept_keys_with_numbers(sweep, tmp_path, capsys, params):
    """sweep.db is a file: a trial left running is run again with its stored parameters, which may
    only be the sweep's swept keys with numbers (a class or a folder there would reach the trial)."""
    folder = tmp_path / "s"
    assert sweep("--config", str(tmp_path / "space.toml"), "--dir", str(folder), "--sweep.max-runs", "1") == 0
    store = Store(folder)
    store.add_trial(0, params, [0.5], "t1")  # 'running': resume retries it
    store.close()
    capsys.readouterr()
    assert sweep("--resume", str(folder), "--sweep.max-runs", "2") == 2
    error = _error(capsys)
    assert "sweep.db: trial 2 holds" in error and "not swept keys (train.learning_rate)" in error
    assert _statuses(folder) == ["done", "interrupted"]  # nothing was run with them
