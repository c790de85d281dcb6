"""pufferlib.train.checkpoint: safe loading (weights_only), clear errors, fallback, durable atomic saves."""

import os
import time
import warnings
from pathlib import Path

import pytest
import torch

import pufferlib
from pufferlib import cli
from pufferlib.errors import CheckpointError
from pufferlib.train import checkpoint


def payload(step=1, **extra):
    return {"policy": {"w": torch.full((2, 2), float(step))}, "optimizers": [], "global_step": step,
            "epoch": step, "config": {"train": {"gamma": 0.9}}, "env_id": "gym-CartPole-v1", **extra}


class WritesAFile:
    """Unpickling this runs os.mkdir(marker): what a crafted checkpoint could do."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return os.mkdir, (self.marker,)


def crafted(path, marker):
    torch.save({**payload(), "policy": {"w": WritesAFile(marker)}}, path)


def test_crafted_pickle_is_refused_and_its_code_never_runs(tmp_path):
    marker = tmp_path / "pwned"
    evil = tmp_path / "run" / "model_000009.pt"
    evil.parent.mkdir()
    crafted(evil, marker)
    with pytest.raises(CheckpointError, match="refused to load.*could run code") as info:
        checkpoint.load(evil)
    assert str(evil) in str(info.value)
    assert not marker.exists()


def test_crafted_checkpoint_as_latest_is_skipped_by_eval_without_running(tmp_path, capsys):
    """`puffer eval --load-model-path latest` with a crafted newest file: refused, never executed."""
    data = tmp_path / "experiments"
    marker = tmp_path / "pwned"
    (data / "evil").mkdir(parents=True)
    crafted(data / "evil" / "model_000001.pt", marker)
    code = cli.main(["eval", "gym-CartPole-v1", "--load-model-path", "latest", "--train.data-dir", str(data),
                     "--episodes", "1", "--vec.num-envs", "1"])
    assert code == 2 and "refused to load" in capsys.readouterr().err
    assert not marker.exists()


def test_saved_checkpoint_is_plain_data_loadable_with_weights_only(tmp_path):
    path = checkpoint.save(tmp_path / "model_000001.pt",
                           payload(extra_path=Path("/x"), config={"train": {"data_dir": Path("runs")}}))
    loaded = torch.load(path, weights_only=True)
    assert loaded["config"] == {"train": {"data_dir": "runs"}} and loaded["extra_path"] == "/x"


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty"])
def test_corrupt_checkpoint_names_the_file_and_the_cause(tmp_path, damage):
    path = checkpoint.save(tmp_path / "model_000001.pt", payload())
    data = path.read_bytes()
    path.write_bytes({"truncated": data[: len(data) // 2], "garbage": b"not a checkpoint" * 10, "empty": b""}[damage])
    with pytest.raises(CheckpointError, match="truncated") as info:
        checkpoint.load(path)
    assert str(path) in str(info.value)


def test_foreign_file_names_what_is_missing(tmp_path):
    path = tmp_path / "model_000001.pt"
    torch.save({"policy": {"w": torch.zeros(1)}}, path)
    with pytest.raises(CheckpointError, match="not a PufferLib checkpoint: it lacks optimizers.*config"):
        checkpoint.load(path)
    torch.save([1, 2], path)
    with pytest.raises(CheckpointError, match="holds a list"):
        checkpoint.load(path)


def test_run_folder_falls_back_to_the_newest_intact_checkpoint_with_a_warning(tmp_path):
    checkpoint.save(tmp_path / "model_000001.pt", payload(1))
    checkpoint.save(tmp_path / "model_000002.pt", payload(2))
    (tmp_path / "model_000003.pt").write_bytes(b"torn")
    with pytest.warns(UserWarning, match="model_000003.pt.*truncated"):
        loaded = checkpoint.load(tmp_path)
    assert loaded["global_step"] == 2 and loaded["path"].endswith("model_000002.pt")
    with pytest.raises(CheckpointError):  # an explicit file gets no fallback
        checkpoint.load(tmp_path / "model_000003.pt")
    (tmp_path / "model_000001.pt").write_bytes(b"")
    (tmp_path / "model_000002.pt").write_bytes(b"")
    with pytest.raises(CheckpointError, match="No intact checkpoint"):
        checkpoint.load(tmp_path)


def test_checkpoint_of_another_env_says_it_does_not_fit(tmp_path):
    def policy_of(env_id):
        env = pufferlib.make(env_id, num_envs=1)
        policy = pufferlib.models.Default(env)
        env.close()
        return policy

    other = policy_of("gym-Acrobot-v1")  # 6 observations, 3 actions
    path = checkpoint.save(tmp_path / "model_000001.pt",
                           payload(env_id="gym-Acrobot-v1", policy=other.state_dict(),
                                   config={"policy": {"hidden_size": 64}, "rnn": {"enabled": False}}))
    with pytest.raises(CheckpointError, match=r"model_000001.pt does not fit this policy \(size mismatch for "
                                              r".*'gym-Acrobot-v1'"):
        checkpoint.load_policy(policy_of("gym-CartPole-v1"), checkpoint.load(path))


def test_save_removes_stale_temp_files_of_killed_saves(tmp_path):
    stale, fresh = tmp_path / ".tmp_dead.pt", tmp_path / ".tmp_live.pt"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"being written")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    checkpoint.save(tmp_path / "model_000001.pt", payload())
    assert not stale.exists() and fresh.exists()


def test_save_fsyncs_file_and_folder_before_and_after_the_rename(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append(("fsync", os.path.isdir(f"/proc/self/fd/{fd}"))),
                                                  real_fsync(fd)))
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("replace", None)), real_replace(a, b)))
    checkpoint.save(tmp_path / "model_000001.pt", payload())
    assert events == [("fsync", False), ("replace", None), ("fsync", True)]


def test_no_warnings_when_the_newest_checkpoint_is_intact(tmp_path):
    checkpoint.save(tmp_path / "model_000001.pt", payload(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert checkpoint.load(tmp_path)["global_step"] == 1


def run_folder(data, name, env_id, step, header=True):
    """A run folder holding one checkpoint of `env_id` (and its metrics.jsonl header when `header`)."""
    import json

    folder = data / name
    folder.mkdir(parents=True)
    if header:
        (folder / "metrics.jsonl").write_text(json.dumps({"config": {}, "env_id": env_id}) + "\n")
    path = checkpoint.save(folder / f"model_{step:06d}.pt", payload(step, env_id=env_id))
    mtime = 1_700_000_000 + step  # newer by step, whatever the file system's clock resolution
    os.utime(path, (mtime, mtime))
    return path


def test_latest_is_the_newest_checkpoint_of_this_env_id(tmp_path):
    data = tmp_path / "experiments"
    mine = run_folder(data, "cartpole_run", "gym-CartPole-v1", 1)
    run_folder(data, "squared_run", "ocean-squared", 2)  # newer, another env
    run_folder(data, "unlabelled_run", "ocean-squared", 3, header=False)  # newest: its file says which env
    loaded = checkpoint.load("latest", data, env_id="gym-CartPole-v1")
    assert loaded["path"] == str(mine) and loaded["env_id"] == "gym-CartPole-v1"
    assert checkpoint.resolve("latest", data, env_id="ocean-squared").parent.name in ("unlabelled_run", "squared_run")
    with pytest.raises(pufferlib.APIUsageError, match="No checkpoint of 'ocean-bandit'"):
        checkpoint.load("latest", data, env_id="ocean-bandit")


def test_checkpoint_of_another_env_is_refused_naming_both_unless_allowed(tmp_path):
    other = run_folder(tmp_path, "squared_run", "ocean-squared", 2)
    with pytest.raises(pufferlib.APIUsageError, match="is a checkpoint of 'ocean-squared', not 'gym-CartPole-v1'.*"
                                                      "--allow-env-mismatch"):
        checkpoint.load(other, env_id="gym-CartPole-v1")
    assert checkpoint.load(other, env_id="gym-CartPole-v1", allow_env_mismatch=True)["env_id"] == "ocean-squared"


def test_eval_says_which_checkpoint_it_loaded_and_refuses_another_envs(tmp_path, capsys):
    data = tmp_path / "experiments"
    assert cli.main(["train", "gym-CartPole-v1", "--train.total-timesteps", "256", "--train.batch-size", "128",
                     "--train.minibatch-size", "128", "--vec.num-envs", "2", "--train.data-dir", str(data)]) == 0
    capsys.readouterr()
    common = ["--load-model-path", "latest", "--train.data-dir", str(data), "--episodes", "1", "--vec.num-envs", "1"]
    assert cli.main(["eval", "gym-CartPole-v1", *common]) == 0
    saved = next(data.glob("gym-CartPole-v1_*/model_*.pt"))
    assert f"puffer eval: loaded {saved} (gym-CartPole-v1, step 256)" in capsys.readouterr().err
    assert cli.main(["eval", "gym-Acrobot-v1", *common]) == 2
    assert "No checkpoint of 'gym-Acrobot-v1'" in capsys.readouterr().err
    explicit = ["--load-model-path", str(saved), *common[2:]]
    assert cli.main(["eval", "gym-MountainCar-v0", *explicit]) == 2
    assert "is a checkpoint of 'gym-CartPole-v1', not 'gym-MountainCar-v0'" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused_when_loaded_to_act_naming_the_file_and_the_count(tmp_path, capsys, bad):
    env = pufferlib.make("gym-CartPole-v1", num_envs=1)
    state = pufferlib.models.Default(env).state_dict()
    env.close()
    poisoned = {name: torch.full_like(t, bad) if i < 3 else t for i, (name, t) in enumerate(state.items())}
    path = checkpoint.save(tmp_path / "run" / "model_000001.pt",
                           payload(policy=poisoned, config={"policy": {}, "rnn": {"enabled": False}}))
    refused = f"model_000001.pt: refused: it holds NaN or infinite weights \\(3 of its {len(state)} tensors\\)"
    with pytest.raises(CheckpointError, match=refused):
        pufferlib.load(path)
    with pytest.raises(CheckpointError, match=refused):  # every load into a policy: eval, match, self-play, init
        checkpoint.load_policy(torch.nn.Module(), checkpoint.load(path))
    assert cli.main(["eval", "gym-CartPole-v1", "--load-model-path", str(path), "--episodes", "1"]) == 2
    assert "refused: it holds NaN or infinite weights (3 of its" in capsys.readouterr().err.splitlines()[-1]


def test_the_loaded_line_escapes_what_the_file_says():
    assert checkpoint.describe({"path": "run/model_000001.pt", "env_id": "x\x1b]0;owned\x07", "global_step": 3}) == \
        "run/model_000001.pt (x\\x1b]0;owned\\x07, step 3)"
