"""`puffer train --logger ...` end to end: metrics.jsonl, tensorboard and wandb agree; resume continues."""

import json
import subprocess
import sys

from pufferlib.cli import main
from pufferlib.train.metrics import read_metrics

from .records import tensorboard_scalars, wandb_history


def puffer(*args, cwd):
    env_vars = {"WANDB_SILENT": "true", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "pufferlib", *args], capture_output=True, text=True,
                         timeout=300, cwd=cwd, env=env_vars)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_train_with_loggers_then_resume_then_plot(tmp_path):
    common = ["--train.data-dir", str(tmp_path), "--train.device", "cpu", "--vec.num-envs", "4",
              "--train.batch-size", "512", "--train.minibatch-size", "256"]
    out = puffer("train", "gym-CartPole-v1", "--train.total-timesteps", "2048", "--logger", "tensorboard",
                 "--logger", "wandb", "--wandb.mode", "offline", *common, cwd=tmp_path)
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir() and (p / "metrics.jsonl").exists()]
    started = json.loads((run_dir / "loggers.json").read_text())
    assert set(started) == {"tensorboard", "wandb"}
    wandb_id = started["wandb"]
    assert f"wandb: run {wandb_id}" in out and "tensorboard: logging to" in out

    head, rows = read_metrics(run_dir)
    assert head["env_id"] == "gym-CartPole-v1" and head["config"]["logger"]["names"] == ["tensorboard", "wandb"]
    steps = [r["step"] for r in rows]
    assert steps == sorted(steps) and steps[-1] == 2048
    assert [s for s, _ in tensorboard_scalars(run_dir / "tensorboard")["SPS"]] == steps
    history, config, artifacts = wandb_history(run_dir)
    assert [r["global_step"] for r in history if "SPS" in r] == steps
    assert config["train"]["total_timesteps"] == 2048
    assert artifacts and all(a == f"model-{wandb_id}" for a in artifacts)

    puffer("train", "gym-CartPole-v1", "--resume", str(run_dir), "--train.total-timesteps", "4096",
           "--logger", "tensorboard", "--logger", "wandb", "--wandb.mode", "offline", *common, cwd=tmp_path)
    assert json.loads((run_dir / "loggers.json").read_text())["wandb"] == wandb_id
    _, rows = read_metrics(run_dir)
    assert rows[-1]["step"] == 4096 and [r["step"] for r in rows][:len(steps)] == steps
    history, _, _ = wandb_history(run_dir)
    assert [r["global_step"] for r in history if "SPS" in r][-1] == 4096

    png = tmp_path / "curves.png"
    assert puffer("plot", str(run_dir), "-o", str(png), cwd=tmp_path).strip() == str(png)
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_unknown_logger_suggests(tmp_path, capsys):
    code = main(["train", "gym-CartPole-v1", "--logger", "wandbb", "--train.data-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "Did you mean: wandb?" in err and "Traceback" not in err
