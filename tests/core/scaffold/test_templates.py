"""The user guide's scripts/: env_template.py's envs pass the checker; train_template.py trains,
checkpoints, resumes, logs through a logger plugin, and runs under torchrun."""

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.core.netns import loopback_only

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = ROOT / "scripts"


def test_env_template_envs_pass_the_checker(capsys):
    template = runpy.run_path(str(SCRIPTS / "env_template.py"))
    assert template["main"](steps=64) == 0
    out = capsys.readouterr().out
    assert "all templates pass" in out and "puffer check GridWorld" in out and "CoopNav" in out
    assert len(template["TEMPLATES"]) == 11  # grid world, cooperative navigation, 3 x 3 space patterns


def test_env_template_testing_utilities_measure_and_report():
    template = runpy.run_path(str(SCRIPTS / "env_template.py"))
    stats = template["rollout"](template["GridWorld"], num_envs=2, steps=200)
    assert stats["sps"] > 0 and stats["episodes"] > 0
    assert template["check"](lambda **kw: template["CoopNav"](num_agents=2, **kw), steps=32).ok


def test_train_template_trains_checkpoints_resumes_and_logs(tmp_path, capsys):
    template = runpy.run_path(str(SCRIPTS / "train_template.py"))
    common = ["--env", "gym-CartPole-v1", "--data-dir", str(tmp_path), "--checkpoint-interval", "1",
              "--batch-size", "512", "--minibatch-size", "256"]
    template["main"]([*common, "--total-timesteps", "1024", "--logger", "tensorboard"])
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(list(run.glob("model_*.pt"))) == 2
    assert list(run.rglob("events.out.tfevents.*"))  # the tensorboard logger plugin wrote its file
    template["main"]([*common, "--total-timesteps", "2048", "--resume", str(run)])
    payload = torch.load(sorted(run.glob("model_*.pt"))[-1], weights_only=True)
    assert payload["global_step"] == 2048 and payload["epoch"] == 4  # continued, not restarted
    assert "checkpoint" in capsys.readouterr().out


@pytest.mark.slow
def test_train_template_runs_under_torchrun(tmp_path):
    # In a loopback-only namespace (torch's rendezvous store listens on every interface), with the
    # temp dir in tmp_path (torchrun leaves a torchelastic_* folder there).
    cmd = loopback_only([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                         str(SCRIPTS / "train_template.py"), "--total-timesteps", "1024", "--batch-size", "512",
                         "--minibatch-size", "256", "--data-dir", str(tmp_path / "runs")])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={**os.environ, "OMP_NUM_THREADS": "1", "TMPDIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count("score ") == 1  # rank 0 alone reports and saves
