"""puffer-loggers through the trainer hooks: each logger's local records are read back."""

from __future__ import annotations

import json
import sys

import pytest

from pufferlib import APIUsageError
from pufferlib.registry.plugins import plugin_manager

from .records import neptune_operations, tensorboard_scalars, wandb_history

STEPS = [(1000, 10.0), (2000, 20.0), (3000, 30.0)]


class FakeTrainer:
    """What the hooks read of a PuffeRL trainer: config, run_dir, global_step."""

    def __init__(self, run_dir, names, **sections):
        self.run_dir = run_dir
        self.global_step = 0
        self.config = {"train": {"learning_rate": 0.01}, "logger": {"names": names}, **sections}


def run_hooks(trainer, steps=STEPS):
    hook = plugin_manager().hook
    hook.pufferlib_train_start(trainer=trainer)
    for step, value in steps:
        trainer.global_step = step
        hook.pufferlib_train_log(trainer=trainer, step=step,
                                 metrics={"SPS": value, "environment/score": value / 2, "note": "text"})
    checkpoint = trainer.run_dir / f"model_{trainer.global_step}.pt"
    checkpoint.write_bytes(b"weights")
    hook.pufferlib_checkpoint(trainer=trainer, path=str(checkpoint))
    hook.pufferlib_train_end(trainer=trainer, metrics={})


@pytest.fixture
def quiet_services(monkeypatch, tmp_path):
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.chdir(tmp_path)  # neptune's offline records go to ./.neptune


def test_tensorboard_scalars_against_global_step(tmp_path):
    run_hooks(FakeTrainer(tmp_path, ["tensorboard"]))
    scalars = tensorboard_scalars(tmp_path / "tensorboard")
    assert scalars["SPS"] == [(1000, 10.0), (2000, 20.0), (3000, 30.0)]
    assert scalars["environment/score"][-1] == (3000, 15.0)
    assert "note" not in scalars


def test_wandb_offline_records_and_resume(tmp_path, quiet_services):
    trainer = FakeTrainer(tmp_path, ["wandb"], wandb={"project": "p", "mode": "offline", "tags": ["t"]})
    run_hooks(trainer)
    run_id = json.loads((tmp_path / "loggers.json").read_text())["wandb"]
    rows, config, artifacts = wandb_history(tmp_path, min_rows=3)
    logged = [(row["global_step"], row["SPS"]) for row in rows if "SPS" in row]
    assert logged == [(1000, 10.0), (2000, 20.0), (3000, 30.0)]
    assert config["train"]["learning_rate"] == 0.01
    assert artifacts == [f"model-{run_id}"]
    # --resume: the same run dir continues the same wandb run.
    run_hooks(FakeTrainer(tmp_path, ["wandb"], wandb={"project": "p", "mode": "offline"}), [(4000, 40.0)])
    assert json.loads((tmp_path / "loggers.json").read_text())["wandb"] == run_id
    rows, _, _ = wandb_history(tmp_path, min_rows=4)
    steps = [row["global_step"] for row in rows if "SPS" in row]
    assert 4000 in steps, (steps, sorted(str(p) for p in tmp_path.rglob("run-*.wandb")))
    assert len(list(tmp_path.rglob(f"*{run_id}*.wandb"))) == 2


def test_neptune_offline_records(tmp_path, quiet_services):
    run_hooks(FakeTrainer(tmp_path, ["neptune"], neptune={"project": "ws/puffer", "mode": "offline"}))
    ops = neptune_operations(tmp_path)
    sps = [v for op in ops if op["path"] == ["metrics", "SPS"] and op["type"] == "LogFloats" for v in op["values"]]
    assert [(v["step"], v["value"]) for v in sps] == [(1000, 10.0), (2000, 20.0), (3000, 30.0)]
    assert any(op["path"] == ["config", "train", "learning_rate"] and op["value"] == 0.01 for op in ops)
    assert any(op["path"] == ["checkpoints", "latest"] and "Upload" in op["type"] for op in ops)


def test_missing_package_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # import wandb now raises ImportError
    with pytest.raises(APIUsageError, match=r"pip install puffer-loggers\[wandb\]"):
        plugin_manager().hook.pufferlib_train_start(trainer=FakeTrainer(tmp_path, ["wandb"]))


def test_entry_module_imports_no_service():
    import subprocess

    code = ("import sys, puffer_loggers.plugin; "
            "print([m for m in ('wandb', 'neptune', 'tensorboard', 'torch') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name, package", [("wandb", "wandb"), ("tensorboard", "tensorboard")])
def test_a_logger_whose_package_is_missing_stops_puffer_train_before_the_env_is_made(tmp_path, monkeypatch, capsys,
                                                                                     name, package):
    from pufferlib import cli

    monkeypatch.setitem(sys.modules, package, None)  # as if it were not installed: find_spec answers None
    data = tmp_path / "runs"
    assert cli.main(["train", "gym-CartPole-v1", "--logger", name, "--train.data-dir", str(data),
                     "--train.total-timesteps", "128", "--vec.num-envs", "2", "--train.batch-size", "64"]) == 2
    err = capsys.readouterr().err
    assert err == (f"puffer train: error: Logger {name!r} cannot start: the {package} package is not installed: "
                   f"pip install 'puffer-loggers[{package}]'.\n")
    assert not data.exists()  # nothing trained


def test_an_installed_logger_has_nothing_to_report():
    from pufferlib.registry.plugins import call_hook

    assert call_hook("pufferlib_check_logger", name="tensorboard") == []
    assert call_hook("pufferlib_check_logger", name="not-a-logger") == []


def test_a_trainer_made_in_python_with_a_logger_it_cannot_start_stops_before_it_trains(tmp_path, monkeypatch):
    import pufferlib
    from pufferlib import PuffeRL

    monkeypatch.setitem(sys.modules, "wandb", None)  # as if it were not installed
    env = pufferlib.make("gym-CartPole-v1", num_envs=2)
    try:
        for names, match in ((["wandb"], "Logger 'wandb' cannot start: the wandb package is not installed"),
                             (["wandbb"], "No logger plugin provides 'wandbb'. Did you mean: wandb?")):
            with pytest.raises(pufferlib.APIUsageError, match=match):
                PuffeRL({"logger": {"names": names}, "train": {"data_dir": str(tmp_path / "runs")}}, env)
    finally:
        env.close()
    assert not (tmp_path / "runs").exists()
