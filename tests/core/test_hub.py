"""Sharing agents (pufferlib.hub, pufferlib.train.published): push to a local hub and load back
bit-identical, a hand-laid Hugging Face cache served offline, a mocked HfApi upload, the model
card's score against `puffer eval`, init-from, and every refused input. No network."""

import json
import os
import pickle
import shutil
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


@pytest.mark.parametrize("protocol", range(6))
@pytest.mark.parametrize("name", ["model.safetensors", "config.toml", "README.md", "versions.json", "replay.gif",
                                  "replay.mp4", "learning_curve.png"])
def test_a_pickle_of_any_protocol_is_refused_under_every_name_that_is_read(local_hub, tmp_path, name, protocol):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    for data in ({"weights": [1, 2]}, None):  # None: b"N." at protocol 0 and 1, printable text
        (copy / name).write_bytes(pickle.dumps(data, protocol=protocol))
        with pytest.raises(CheckpointError, match=f"{name}: refused: .* a pickle or a torch archive, which can "
                                                  "run code when loaded, is refused under any name"):
            pufferlib.load("hf://me/copy", hub_dir=hub_dir)


def test_files_of_other_names_are_never_read(local_hub, tmp_path):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    (copy / "notes.pkl").write_bytes(pickle.dumps({"weights": [1, 2]}))
    (copy / "extra").mkdir()
    (copy / "extra" / "model.safetensors").write_bytes(pickle.dumps(None))
    assert pufferlib.load("hf://me/copy", hub_dir=hub_dir).env_id == ENV


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
    ("model.safetensors", "\x05\x00\x00\x00\x00\x00\x00\x00{bad", "not a safetensors file"),
    ("model.safetensors", "\x05\x00\x00\x00\x00\x00\x00\x00{bad}", "its header is not a JSON object"),
    ("model.safetensors", b"7\x00\x00\x00\x00\x00\x00\x00" + b'{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}',
     "cannot read the weights"),  # a header, and no data
    ("README.md", "---\ntags: [a]\n---\n\x1b]0;owned\x07", r"not text: it holds the control character '\\x1b'"),
    ("config.toml", "\ufeff\x00", "control character"),
    ("versions.json", b"\xff\xfe{}", "not UTF-8 text"),
    ("replay.gif", b"\x89PNG\r\n\x1a\n", "not a GIF file"),
    ("replay.mp4", b"\x00\x00\x00\x20moov", "not a MP4 file"),
    ("learning_curve.png", b"GIF89a", "not a PNG file"),
])
def test_malformed_files_are_refused_with_the_cause(local_hub, tmp_path, file, text, match):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    (copy / file).write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
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


#: A "billion laughs": 9 ** 9 "lol"s once its aliases are expanded, in under 600 bytes.
BOMB = "\n".join(["---", "a: &a [" + ",".join(['"lol"'] * 9) + "]",
                  *(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]"
                    for prev, name in zip("abcdefgh", "bcdefghi")),
                  "---", "# card", ""])


def test_a_card_with_an_alias_bomb_is_refused_in_well_under_a_second(local_hub, tmp_path):
    import time

    hub_dir, copy = published_copy(local_hub, tmp_path)
    assert len(BOMB) < 600 and "*h" in BOMB  # 9 ** 9 "lol"s once expanded
    (copy / "README.md").write_text(BOMB)
    start = time.perf_counter()
    with pytest.raises(CheckpointError, match="malformed YAML in the card's metadata \\(an anchor or alias"):
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("front, match", [
    ("tags: [" + "a, " * 30_000 + "b]", "front matter\\) is over 65,536 bytes"),
    ("x: " + "[" * 5000 + "]" * 5000, "nested too deeply"),
    ("base: &base {a: 1}\nother:\n  <<: *base", "an anchor or alias"),
])
def test_card_metadata_that_is_too_big_deep_or_aliased_is_refused(local_hub, tmp_path, front, match):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    (copy / "README.md").write_text(f"---\n{front}\n---\n# card\n")
    with pytest.raises(CheckpointError, match=match):
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)


@pytest.mark.parametrize("name", ["x; rm -rf ~", "$(reboot)", "puffer-foo\n\x1b[2J", "-e git+https://evil", 7])
def test_a_plugin_name_that_is_not_a_package_name_gets_no_install_hint(local_hub, tmp_path, name):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    config = (copy / "config.toml").read_text().replace('env_id = "ocean-cartpole"', 'env_id = "foo-bar"')
    (copy / "config.toml").write_text(config)
    (copy / "versions.json").write_text(json.dumps({"plugin": {"name": name, "version": "1.0"}}))
    with pytest.raises(EnvNotFoundError) as caught:
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)
    message = str(caught.value)
    assert "pip install" not in message and "which is not a valid package name" in message
    assert "\x1b" not in message and "\n" not in message


def test_pull_prints_text_from_the_card_with_its_control_characters_escaped(local_hub, tmp_path, capsys):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    (copy / "README.md").write_text('---\nmodel-index:\n- results:\n  - metrics:\n    - type: mean_reward\n'
                                    '      value: "\\e]0;owned\\a\\e[2J9.00 +/- 0.00"\n---\n# card\n')
    assert main(["pull", "me/copy", "--hub.dir", str(hub_dir)]) == 0
    out = capsys.readouterr().out
    assert "card's mean_reward: \\x1b]0;owned\\x07\\x1b[2J9.00 +/- 0.00" in out and "\x1b" not in out


def test_an_env_id_from_a_published_config_reaches_the_terminal_escaped(local_hub, tmp_path, capsys):
    hub_dir, copy = published_copy(local_hub, tmp_path)
    config = (copy / "config.toml").read_text().replace('env_id = "ocean-cartpole"', 'env_id = "foo\\u001b[2J"')
    (copy / "config.toml").write_text(config)
    assert main(["pull", "me/copy", "--hub.dir", str(hub_dir)]) == 2
    err = capsys.readouterr().err
    assert "foo\\x1b[2J" in err and "\x1b" not in err


def nan_copy(local_hub, tmp_path):
    """A copy of the published agent whose first two weight tensors are NaN."""
    import safetensors.torch

    hub_dir, copy = published_copy(local_hub, tmp_path)
    state = safetensors.torch.load_file(str(copy / "model.safetensors"))
    for name in list(state)[:2]:
        state[name] = torch.full_like(state[name], float("nan"))
    safetensors.torch.save_file(state, str(copy / "model.safetensors"))
    return hub_dir, copy, len(state)


def test_a_published_agent_with_nan_weights_is_refused_by_load_eval_and_pull(local_hub, tmp_path, capsys):
    hub_dir, copy, count = nan_copy(local_hub, tmp_path)
    refused = f"refused: it holds NaN or infinite weights \\(2 of its {count} tensors\\)"
    with pytest.raises(CheckpointError, match=refused):
        pufferlib.load("hf://me/copy", hub_dir=hub_dir)
    for argv in (["pull", "me/copy"], ["eval", ENV, "--load-model-path", "hf://me/copy", "--episodes", "2"]):
        assert main([*argv, "--hub.dir", str(hub_dir)]) == 2
        last = capsys.readouterr().err.splitlines()[-1]  # eval says which file it read first
        assert last.startswith(f"puffer {argv[0]}: error: hf://me/copy: refused: it holds NaN or infinite weights "
                               f"(2 of its {count} tensors)")


@pytest.fixture
def no_evaluation(monkeypatch):
    """Push refusals must come before the evaluation: it fails the test if it starts."""
    def evaluated(*args, **kwargs):
        raise AssertionError("the evaluation started before push refused")

    monkeypatch.setattr(hub, "evaluate_published", evaluated)


def test_push_never_replaces_a_folder_that_is_not_a_published_agent(run_dir, tmp_path, monkeypatch, no_evaluation):
    mine = tmp_path / "myproj" / "data"
    mine.mkdir(parents=True)
    (mine / "results.csv").write_text("precious")
    (mine / "README.md").write_text("precious")
    with pytest.raises(APIUsageError, match="data exists and is not a published agent \\(it holds results.csv\\)"):
        hub.push(run_dir, "myproj/data", hub_dir=tmp_path, replay=False)
    monkeypatch.setenv("PUFFER_HUB_DIR", str(tmp_path))  # a wrong $PUFFER_HUB_DIR: the same rule
    with pytest.raises(APIUsageError, match="is not a published agent"):
        hub.push(run_dir, "myproj/data", replay=False)
    assert sorted(p.name for p in mine.iterdir()) == ["README.md", "results.csv"]
    assert (mine / "results.csv").read_text() == "precious"


def test_push_never_writes_through_a_symlinked_org_folder(local_hub, run_dir, tmp_path, no_evaluation):
    _, copy = published_copy(local_hub, tmp_path / "elsewhere")  # a published agent outside the hub
    hub_dir = tmp_path / "hub"
    hub_dir.mkdir()
    (hub_dir / "me").symlink_to(copy.parent)
    before = sorted(p.name for p in copy.iterdir())
    with pytest.raises(APIUsageError, match="copy resolves to .*elsewhere.*, which is not .* inside the local hub"):
        hub.push(run_dir, "me/copy", hub_dir=hub_dir, replay=False)
    assert sorted(p.name for p in copy.iterdir()) == before


def test_a_push_killed_midway_does_not_block_the_next_one(local_hub, run_dir, tmp_path):
    _, copy = published_copy(local_hub, tmp_path)
    hub_dir = copy.parent.parent
    old, staged = copy.parent / ".old_copy", copy.parent / ".tmp_copy"
    copy.rename(old)  # killed between its two renames: the repo's folder moved away, the new one staged
    staged.mkdir()
    (staged / "model.safetensors").write_bytes((old / "model.safetensors").read_bytes()[:100])  # a partial copy
    exported, where = hub.push(run_dir, "me/copy", episodes=1, hub_dir=hub_dir, replay=False)
    assert where == str(copy) and published.is_published(copy)
    assert not old.exists() and not staged.exists()
    shutil.copytree(copy, old)  # killed after its renames: the new folder in place, the old one not yet removed
    hub.push(run_dir, "me/copy", episodes=1, hub_dir=hub_dir, replay=False)
    assert pufferlib.load("hf://me/copy", hub_dir=hub_dir).env_id == ENV and not old.exists()


def test_a_staging_folder_that_push_did_not_leave_is_refused(run_dir, tmp_path, no_evaluation):
    (tmp_path / "me" / ".old_x").mkdir(parents=True)
    (tmp_path / "me" / ".old_x" / "thesis.tex").write_text("precious")
    with pytest.raises(APIUsageError, match="old_x is in the way and was not left by push \\(it holds thesis.tex\\)"):
        hub.push(run_dir, "me/x", hub_dir=tmp_path, replay=False)
    assert (tmp_path / "me" / ".old_x" / "thesis.tex").read_text() == "precious"


def test_an_unwritable_hub_or_an_offline_upload_fails_before_the_evaluation(run_dir, tmp_path, monkeypatch, capsys,
                                                                             no_evaluation):
    import huggingface_hub.constants

    def refused(argv, message):
        assert main(["push", str(run_dir), "me/x", "--no-replay", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err

    with monkeypatch.context() as patch:  # simulated: the tests may run as root, who may write anywhere
        patch.setattr(os, "access", lambda *args, **kwargs: False)
        refused(["--hub.dir", str(tmp_path / "hub")], f"Cannot write into the local hub folder '{tmp_path}/hub/me'")
    monkeypatch.delenv("PUFFER_HUB_DIR", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    refused([], "HF_HUB_OFFLINE is set, so nothing can be uploaded to the Hugging Face Hub: unset HF_HUB_OFFLINE")
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # not installed
    refused([], "needs huggingface_hub: pip install 'puffer-core[hub]'")


def test_a_failed_upload_is_one_line_naming_the_repo(run_dir, monkeypatch):
    import huggingface_hub

    from pufferlib.errors import OutputError

    class DownApi:
        def create_repo(self, repo_id, private=False, exist_ok=False):
            raise ConnectionError("Max retries exceeded\nwith url: /api/repos/create")

    monkeypatch.setattr(huggingface_hub, "HfApi", DownApi)
    monkeypatch.delenv("PUFFER_HUB_DIR", raising=False)
    with pytest.raises(OutputError, match=r"the upload of me/x to the Hugging Face Hub failed \(ConnectionError: Max "
                                          r"retries exceeded\)\. Check your network and token"):
        hub.push(run_dir, "me/x", episodes=1, replay=False)
