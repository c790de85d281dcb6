"""Runs that go wrong: non-finite values stop training unsaved; interrupts save and say how to resume."""

import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces

import pufferlib
from pufferlib import PuffeRL, cli
from pufferlib.errors import APIUsageError, NonFiniteError
from pufferlib.train import checkpoint
from pufferlib.train.dashboard import Dashboard
from tests.core.signals import default_sigint

REPO = Path(__file__).resolve().parents[3]


class Faulty(gym.Env):
    """A 4-step corridor whose observation or reward becomes `value` from its `bad_at`-th step on."""

    def __init__(self, what="obs", value=math.nan, bad_at=40):
        self.what, self.value, self.bad_at = what, value, bad_at
        self.observation_space = spaces.Box(-10, 10, (2,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.t = self.steps = 0

    def reset(self, seed=None, options=None):
        self.t = 0
        return np.zeros(2, np.float32), {}

    def step(self, action):
        self.t += 1
        self.steps += 1
        bad = self.steps >= self.bad_at
        obs = np.array([self.t, self.value if bad and self.what == "obs" else 0], np.float32)
        reward = self.value if bad and self.what == "reward" else float(action)
        return obs, reward, self.t >= 4, False, {}


def trainer_on(tmp_path, **env_kw):
    env = pufferlib.emulate(lambda: Faulty(**env_kw), num_envs=2)
    return PuffeRL(env=env, device="cpu", batch_size=64, minibatch_size=32, update_epochs=1, checkpoint_interval=1,
                   run_dir=tmp_path / "run", dashboard=Dashboard(interval=1e9, rich=False))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # numpy's GAE on inf rewards
@pytest.mark.parametrize("what,value,source", [("obs", math.nan, "observations"), ("reward", math.inf, "rewards")])
def test_non_finite_env_values_stop_training_naming_the_source_and_save_nothing(tmp_path, what, value, source):
    trainer = trainer_on(tmp_path, what=what, value=value, bad_at=40)  # bad from the 2nd batch on
    trainer.evaluate()
    trainer.train()  # epoch 1: fine, saved
    trainer.evaluate()
    with pytest.raises(NonFiniteError, match=f"Non-finite {source} at step \\d+ of agent row 0 in the batch "
                                             "collected from global step 64 .epoch 2.: the env returned NaN or inf"):
        trainer.train()
    with pytest.raises(NonFiniteError, match="Not saving"):
        trainer.save_checkpoint()
    trainer.close()
    assert [p.name for p in (tmp_path / "run").glob("model_*.pt")] == ["model_000001.pt"]
    saved = checkpoint.load(tmp_path / "run")
    assert all(torch.isfinite(v).all() for v in saved["policy"].values())


def test_save_checkpoint_refuses_non_finite_weights(tmp_path):
    trainer = trainer_on(tmp_path, bad_at=10**9)
    with torch.no_grad():
        next(trainer.policy.parameters())[0] = math.nan
    with pytest.raises(NonFiniteError, match="weights hold NaN"):
        trainer.save_checkpoint()
    trainer.close()
    assert not list((tmp_path / "run").glob("*.pt"))


def test_puffer_train_exits_1_on_nan_observations_without_a_checkpoint(tmp_path, capsys):
    pufferlib.register("test-faulty", Faulty, kwargs={"what": "obs", "bad_at": 10}, overwrite=True)
    data = tmp_path / "runs"
    try:
        code = cli.main(["train", "test-faulty", "--train.data-dir", str(data), "--vec.num-envs", "2",
                         "--train.batch-size", "64", "--train.minibatch-size", "32", "--train.total-timesteps", "640"])
    finally:
        pufferlib.registry.unregister("test-faulty")
    err = capsys.readouterr().err
    assert code == 1 and "puffer train: error: Non-finite observations at step" in err
    assert not list(data.glob("*/model_*.pt"))


def test_import_pufferlib_installs_no_signal_handlers():
    code = ("import signal; before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)); "
            "import pufferlib, pufferlib.pufferl, pufferlib.cli.train; "
            "assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_puffer_train_restores_signal_handlers_after_the_run(tmp_path):
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    assert cli.main(["train", "gym-CartPole-v1", "--train.data-dir", str(tmp_path), "--vec.num-envs", "2",
                     "--train.batch-size", "64", "--train.minibatch-size", "32", "--train.total-timesteps", "64"]) == 0
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def _logged_steps(data: Path) -> int:
    lines = [line for f in data.glob("*/metrics.jsonl") for line in f.read_text().splitlines()[1:] if line]
    return json.loads(lines[-1])["step"] if lines else 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_train_saves_and_prints_the_resume_command(tmp_path, sig, capsys):
    data = tmp_path / "runs"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pufferlib", "train", "gym-CartPole-v1", "--train.data-dir", str(data),
         "--vec.num-envs", "2", "--train.batch-size", "128", "--train.minibatch-size", "64",
         "--train.total-timesteps", "100000000", "--train.checkpoint-interval", "0", "--train.log-interval", "0"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        deadline = time.time() + 120
        while _logged_steps(data) < 256 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + sig, err
    run = next(data.iterdir())
    assert f"interrupted by {signal.Signals(sig).name} at step" in err
    saved = checkpoint.load(run)
    assert f"saved checkpoint {saved['path']}" in err and saved["global_step"] >= 256
    assert f"Resume with: puffer train gym-CartPole-v1 --resume {run}" in err
    # the printed command resumes the run where it stopped
    assert cli.main(["train", "gym-CartPole-v1", "--resume", str(run),
                     "--train.total-timesteps", str(saved["global_step"] + 128)]) == 0
    assert checkpoint.load(run)["global_step"] == saved["global_step"] + 128


def test_resume_from_a_checkpoint_file_continues_in_its_run_folder(tmp_path, capsys):
    data = tmp_path / "runs"
    tiny = ["--vec.num-envs", "2", "--train.batch-size", "64", "--train.minibatch-size", "32"]
    assert cli.main(["train", "gym-CartPole-v1", "--train.data-dir", str(data), *tiny,
                     "--train.total-timesteps", "128", "--train.checkpoint-interval", "1"]) == 0
    run = next(data.iterdir())
    (run / "model_000002.pt").write_bytes(b"torn by a kill")  # the newest file is broken
    with pytest.warns(UserWarning, match="model_000002.pt"):
        assert cli.main(["train", "gym-CartPole-v1", "--resume", str(run), "--train.total-timesteps", "192"]) == 0
    assert checkpoint.load(run)["global_step"] == 192  # resumed from model_000001 (64 steps) to 192
    assert cli.main(["train", "gym-CartPole-v1", "--resume", str(run / "model_000003.pt"),
                     "--train.total-timesteps", "256"]) == 0
    assert sorted(p.name for p in run.glob("*.pt")) == [f"model_00000{i}.pt" for i in (1, 2, 3, 4)]
    assert checkpoint.load(run)["global_step"] == 256


def test_bad_sizes_fail_before_the_env_is_reset_or_a_process_group_starts(monkeypatch):
    """Validation comes before acquisition: a config that cannot train leaves no reset env behind."""
    import torch.distributed as dist

    env = pufferlib.make("gym-CartPole-v1", num_envs=4)
    resets = []
    monkeypatch.setattr(env, "async_reset", lambda *a, **k: resets.append(1))
    try:
        with pytest.raises(APIUsageError, match="minibatch_size=96 must divide batch_size=128"):
            PuffeRL({"train": {"batch_size": 128, "minibatch_size": 96, "device": "cpu"}}, env)
        with pytest.raises(APIUsageError, match="batch_size=130 must be a multiple"):
            PuffeRL({"train": {"batch_size": 130, "minibatch_size": 130, "device": "cpu"}}, env)
        assert resets == [] and not dist.is_initialized()
    finally:
        env.close()


def test_resuming_an_older_checkpoint_branches_into_a_new_run_folder(tmp_path, capsys):
    data = tmp_path / "runs"
    tiny = ["--vec.num-envs", "2", "--train.batch-size", "64", "--train.minibatch-size", "32",
            "--train.data-dir", str(data)]
    assert cli.main(["train", "gym-CartPole-v1", *tiny, "--train.total-timesteps", "256",
                     "--train.checkpoint-interval", "1"]) == 0
    run = next(data.iterdir())
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.suffix == ".pt"}
    capsys.readouterr()
    assert cli.main(["train", "gym-CartPole-v1", "--resume", str(run / "model_000001.pt"),
                     "--train.total-timesteps", "192", "--train.data-dir", str(data)]) == 0
    assert "model_000001.pt is not the newest checkpoint" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.suffix == ".pt"} == before  # the run is untouched
    branch = next(p for p in data.iterdir() if p != run)
    assert checkpoint.load(branch)["global_step"] == 192
    steps = [json.loads(line)["step"] for line in (branch / "metrics.jsonl").read_text().splitlines()[1:]]
    assert steps == sorted(steps) and steps[0] > 64


def test_a_run_folder_has_one_writer_at_a_time(tmp_path):
    def trainer():
        return PuffeRL({"train": {"batch_size": 64, "minibatch_size": 64, "cpu_threads": 1}},
                       pufferlib.make("gym-CartPole-v1", num_envs=2), run_dir=tmp_path / "run")

    first = trainer()
    env = pufferlib.make("gym-CartPole-v1", num_envs=2)
    with pytest.raises(APIUsageError, match=r"run is in use: another process \(PID \d+\) is writing a training run"):
        PuffeRL({"train": {"batch_size": 64, "minibatch_size": 64}}, env, run_dir=tmp_path / "run")
    env.close()
    first.close()
    trainer().close()  # free again once the first writer closed


def test_metrics_rows_past_the_resumed_checkpoint_are_set_aside(tmp_path):
    from pufferlib.train.metrics import FILE_NAME, MetricsFile, read_metrics

    log = MetricsFile(tmp_path, {}, "gym-CartPole-v1")
    for step in (100, 200, 300):
        log.write(step, {"x": step})
    log.close()
    with pytest.warns(UserWarning, match="moved 1 row"):
        resumed = MetricsFile(tmp_path, {}, "gym-CartPole-v1", resumed_step=200)
    resumed.write(250, {"x": 250})
    resumed.close()
    assert [row["step"] for row in read_metrics(tmp_path)[1]] == [100, 200, 250]
    assert json.loads((tmp_path / (FILE_NAME + ".superseded")).read_text())["step"] == 300
