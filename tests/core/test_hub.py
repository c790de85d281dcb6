"""Sharing agents (pufferlib.hub, pufferlib.train.published): push to a local hub and load back
bit-identical, a hand-laid Hugging Face cache served offline, a mocked HfApi upload, the model
card's score against `puffer eval`, init-from, and every refused input. No network."""

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import pufferlib
from pufferlib import hub
from pufferlib.cli import main
from pufferlib.errors import APIUsageError, CheckpointError, EnvNotFoundError
from pufferlib.train import checkpoint, published

ENV = "ocean-cartpole"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A short ocean-cartpole run (its checkpoint and metrics.jsonl)."""
    data = tmp_path_factory.mktemp("runs")
    assert main(["train", ENV, "--train.total-timesteps", "4096", "--train.data-dir", str(data),
                 "--train.log-interval", "0.01"]) == 0
    (run,) = data.iterdir()
    return run


@pytest.fixture(scope="module")
def local_hub(run_dir, tmp_path_factory):
    """`run_dir` pushed to a local hub as me/cartpole (no replay: tested on its own)."""
    folder = tmp_path_factory.mktemp("hub")
    exported, where = hub.push(run_dir, "me/cartpole", episodes=8, hub_dir=folder, replay=False)
    assert Path(where) == folder / "me" / "cartpole"
    return folder, exported


def observations(n=16):
    env = pufferlib.make(ENV, num_envs=n)
    obs, _ = env.reset(seed=3)
    env.close()
    return obs


def test_push_then_load_gives_bit_identical_actions(run_dir, local_hub):
    folder, _ = local_hub
    original = pufferlib.load(run_dir)
    shared = pufferlib.load("hf://me/cartpole", hub_dir=folder)
    obs = observations()
    for deterministic in (True, False):
        torch.manual_seed(0)
        a, _ = original.act(obs, deterministic=deterministic)
        torch.manual_seed(0)
        b, _ = shared.act(obs, deterministic=deterministic)
        np.testing.assert_array_equal(a, b)
    for name, tensor in original.policy.state_dict().items():
        assert torch.equal(tensor, shared.policy.state_dict()[name]), name
    assert shared.env_id == ENV and shared.checkpoint == "hf://me/cartpole"


def test_the_published_folder_holds_weights_config_card_and_versions_only(local_hub):
    folder, exported = local_hub
    repo = folder / "me" / "cartpole"
    assert sorted(p.name for p in repo.iterdir()) == exported.files == sorted(
        ["README.md", "config.toml", "learning_curve.png", "model.safetensors", "versions.json"])
    versions = json.loads((repo / "versions.json").read_text())
    assert versions["plugin"] == {"name": "puffer-ocean", "version": published.installed_version("puffer-ocean")}
    assert versions["torch"] == torch.__version__
    config = (repo / "config.toml").read_text()
    assert "[published]" in config and 'env_id = "ocean-cartpole"' in config
    assert "data_dir" not in config and "[ray]" not in config  # where the publisher ran and wrote is not published


def test_the_card_parses_and_its_score_is_puffer_eval_s(local_hub, tmp_path, capsys, monkeypatch):
    from huggingface_hub import ModelCard

    folder, exported = local_hub
    card = ModelCard.load(folder / "me" / "cartpole" / "README.md")
    assert card.data.library_name == "pufferlib"
    assert "reinforcement-learning" in card.data.tags and ENV in card.data.tags
    (result,) = card.data.eval_results
    assert result.metric_type == "mean_reward" and result.dataset_type == ENV
    monkeypatch.chdir(tmp_path)  # another folder
    assert main(["eval", ENV, "--load-model-path", "hf://me/cartpole", "--hub.dir", str(folder),
                 "--episodes", "8", "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result.metric_value == f"{evaluated['episode_return']:.2f} +/- {evaluated['episode_return_std']:.2f}"
    assert exported.eval_command == f"puffer eval {ENV} --load-model-path hf://me/cartpole --episodes 8"
    assert exported.eval_command in card.text


def test_a_hand_laid_hugging_face_cache_serves_hf_loads_offline(local_hub, tmp_path):
    folder, _ = local_hub
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "cache" / "models--me--cartpole"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for file in (folder / "me" / "cartpole").iterdir():
        (snapshot / file.name).write_bytes(file.read_bytes())
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}
    env.pop("PUFFER_HUB_DIR", None)
    code = ("import pufferlib, numpy as np\n"
            f"a = pufferlib.load('hf://me/cartpole@{commit}')\n"
            "print(a.checkpoint, a.env_id, a.act(np.zeros(4, np.float32))[0])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == [f"hf://me/cartpole@{commit}", ENV]
    missing = subprocess.run([sys.executable, "-m", "pufferlib", "pull", "me/absent"], env=env, capture_output=True,
                             text=True, timeout=120)
    assert missing.returncode == 2 and "HF_HUB_OFFLINE is set" in missing.stderr


def test_push_to_the_hub_uploads_exactly_the_folder(run_dir, tmp_path, monkeypatch):
    import huggingface_hub

    calls = {}

    class FakeApi:
        def create_repo(self, repo_id, private=False, exist_ok=False):
            calls["create"] = (repo_id, private, exist_ok)
            return f"https://huggingface.co/{repo_id}"

        def upload_folder(self, repo_id, folder_path, commit_message):
            calls["upload"] = (repo_id, sorted(p.name for p in Path(folder_path).iterdir()), commit_message)

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    monkeypatch.delenv("PUFFER_HUB_DIR", raising=False)
    exported, where = hub.push(run_dir, "me/cartpole", episodes=2, private=True)
    assert calls["create"] == ("me/cartpole", True, True) and where == "https://huggingface.co/me/cartpole"
    repo_id, files, message = calls["upload"]
    assert repo_id == "me/cartpole" and message.startswith("puffer push: ocean-cartpole")
    assert files == exported.files == sorted(["README.md", "config.toml", "learning_curve.png", "model.safetensors",
                                              "replay.mp4", "versions.json"])


def test_the_replay_is_one_episode_of_env_copy_0(run_dir, tmp_path):
    payload = checkpoint.load(run_dir)
    config, _ = hub.eval_settings(ENV, payload["config"])
    path = hub.record_replay(payload, config, tmp_path)
    import imageio.v3 as iio

    frames = iio.imread(path)
    assert path.name == "replay.mp4" and 2 <= len(frames) <= hub.MAX_REPLAY_FRAMES
    assert frames.shape[1] % 16 == 0 and frames.shape[2] % 16 == 0


def test_train_init_from_an_address_starts_from_its_weights(local_hub, tmp_path):
    folder, _ = local_hub
    env = pufferlib.make(ENV, num_envs=8)
    try:
        trainer = pufferlib.PuffeRL({"train": {"init_from": "hf://me/cartpole", "total_timesteps": 1024,
                                               "batch_size": 512, "minibatch_size": 256,
                                               "data_dir": str(tmp_path)}, "hub": {"dir": str(folder)}},
                                    env, env_id=ENV)
        shared = pufferlib.load("hf://me/cartpole", hub_dir=folder)
        for name, tensor in shared.policy.state_dict().items():
            assert torch.equal(tensor, trainer.policy.state_dict()[name]), name
        assert trainer.initialized_from.startswith("hf://me/cartpole (ocean-cartpole, step")
        trainer.close()
    finally:
        env.close()


def test_resume_from_an_address_is_refused(capsys):
    assert main(["train", ENV, "--resume", "hf://me/cartpole"]) == 2
    assert "--train.init-from hf://me/cartpole" in capsys.readouterr().err


def published_copy(local_hub, tmp_path):
    folder, _ = local_hub
    copy = tmp_path / "hub" / "me" / "copy"
    copy.mkdir(parents=True)
    for file in (folder / "me" / "cartpole").iterdir():
        (copy / file.name).write_bytes(file.read_bytes())
    return tmp_path / "hub", copy


@pytest.mark.parametrize("name", ["replay.gif", "model.safetensors", "notes.txt"])
def test_a_pickle_under_any_name_is_refused(local_hub, tmp_path, name):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    with open(copy / name, "wb") as f:
        pickle.dump({"weights": [1, 2]}, f)
    with pytest.raises(CheckpointError, match="pickle or a torch archive"):
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)


def test_a_torch_archive_as_weights_is_refused(local_hub, tmp_path):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    torch.save({"w": torch.zeros(2)}, copy / "model.safetensors")
    with pytest.raises(CheckpointError, match="pickle or a torch archive"):
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)


def test_files_over_their_size_limit_are_refused(local_hub, tmp_path, monkeypatch):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    monkeypatch.setattr(published, "MAX_BYTES", 100)
    with pytest.raises(CheckpointError, match="over the limit of 100"):
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)


@pytest.mark.parametrize("file, text, match", [
    ("README.md", "---\ntags: [a, b\n---\n# card\n", "malformed YAML"),
    ("config.toml", "[train\n", "malformed TOML"),
    ("config.toml", "[train]\nlearning_rate = 'fast'\n[published]\nformat = 1\nenv_id = 'ocean-cartpole'\n",
     "not valid here"),
    ("config.toml", "[train]\n", "no \\[published\\] table"),
    ("versions.json", "{not json", "malformed JSON"),
    ("model.safetensors", "\x05\x00\x00\x00\x00\x00\x00\x00{bad", "cannot read the weights"),
])
def test_malformed_files_are_refused_with_the_cause(local_hub, tmp_path, file, text, match):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    (copy / file).write_text(text)
    with pytest.raises(CheckpointError, match=match):
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)


def test_an_env_that_is_not_installed_names_its_plugin(local_hub, tmp_path):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    config = (copy / "config.toml").read_text().replace('env_id = "ocean-cartpole"', 'env_id = "foo-bar"')
    (copy / "config.toml").write_text(config)
    (copy / "versions.json").write_text(json.dumps({"plugin": {"name": "puffer-foo", "version": "1.0"}}))
    with pytest.raises(EnvNotFoundError, match="pip install puffer-foo"):
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)


def test_another_plugin_version_warns(local_hub, tmp_path):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    (copy / "versions.json").write_text(json.dumps({"plugin": {"name": "puffer-ocean", "version": "0.0.1"}}))
    with pytest.warns(UserWarning, match="published with puffer-ocean 0.0.1"):
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)


@pytest.mark.parametrize("address, match", [
    ("hf://nothing", "not a repo id"),
    ("hf://me/../x", "not a repo id"),
    ("hf://me/cartpole@", "nothing after '@'"),
    ("hf://me/cartpole@v2", "one revision per repo"),
    ("hf://me/absent", "no published agent"),
])
def test_bad_addresses_say_what_to_write(local_hub, address, match):
    folder, _ = local_hub
    with pytest.raises(APIUsageError, match=match):
        pufferlib.load(address, hub_dir=folder)


def test_a_checkpoint_of_another_env_is_refused(local_hub):
    folder, _ = local_hub
    with pytest.raises(APIUsageError, match="not 'ocean-pong'"):
        checkpoint.load("hf://me/cartpole", env_id="ocean-pong", hub_dir=folder)


def test_push_refuses_nan_weights(run_dir, tmp_path):
    payload = checkpoint.load(run_dir)
    name = next(iter(payload["policy"]))
    payload["policy"][name] = payload["policy"][name] * float("nan")
    bad = checkpoint.save(tmp_path / "model_000001.pt", {k: v for k, v in payload.items() if k != "path"})
    with pytest.raises(APIUsageError, match="NaN or infinite weights"):
        hub.export(bad, tmp_path / "out", "me/bad", episodes=1, replay=False)


def test_pull_prints_the_folder_and_the_card_score(local_hub, capsys):
    folder, _ = local_hub
    assert main(["pull", "me/cartpole", "--hub.dir", str(folder)]) == 0
    out = capsys.readouterr().out
    assert str(folder / "me" / "cartpole") in out and "card's mean_reward:" in out


def test_a_published_config_trains_as_a_config_file(local_hub, tmp_path):
    folder, _ = local_hub
    assert main(["train", ENV, "--config", str(folder / "me" / "cartpole" / "config.toml"),
                 "--train.total-timesteps", "1024", "--train.data-dir", str(tmp_path)]) == 0


def test_match_takes_an_address_as_a_player(local_hub):
    from pufferlib.agent import Agent
    from pufferlib.match import resolve

    folder, _ = local_hub
    player = resolve("hf://me/cartpole", ENV, hub_dir=folder)
    assert isinstance(player, Agent) and player.checkpoint == "hf://me/cartpole"


def test_normalisation_statistics_travel_with_the_weights(tmp_path):
    data = tmp_path / "runs"
    assert main(["train", ENV, "--train.total-timesteps", "2048", "--train.data-dir", str(data),
                 "--normalize.observations", "true"]) == 0
    (run,) = data.iterdir()
    hub.push(run, "me/normalized", episodes=1, hub_dir=tmp_path / "hub", replay=False)
    original, shared = pufferlib.load(run), pufferlib.load("hf://me/normalized", hub_dir=tmp_path / "hub")
    moments = [name for name in original.policy.state_dict() if "mean" in name or "var" in name]
    assert moments, "the policy keeps running statistics"
    for name in moments:
        assert torch.equal(original.policy.state_dict()[name], shared.policy.state_dict()[name]), name
    obs = observations()
    np.testing.assert_array_equal(original.act(obs)[0], shared.act(obs)[0])
