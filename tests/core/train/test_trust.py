"""Files are data (pufferlib.train.trust): a checkpoint, a published agent, a run folder, a sweep's
database or a config file may name only installed code, and never where to run, log or write.

Each hostile file is made here. The code it names is a canary module on sys.path that writes a
marker file when it is imported: a refused load leaves no marker and never imports it."""

import json
import sys

import pytest
import torch

import pufferlib
from pufferlib.agent import build
from pufferlib.cli import main
from pufferlib.cli.options import base_parser, parse_config
from pufferlib.config import load_default, merge
from pufferlib.sweep.store import Store
from pufferlib.train import checkpoint, published, trust
from pufferlib.train.metrics import FILE_NAME as METRICS_FILE
from pufferlib.train.trust import UntrustedCodeError

ENV = "gym-CartPole-v1"
CANARY = """
import pathlib
pathlib.Path({marker!r}).write_text("imported")
from pufferlib.models import Default


class Policy(Default):
    pass


def make(**kwargs):
    raise RuntimeError("the canary's env creator ran")
"""


@pytest.fixture
def canary(tmp_path, monkeypatch):
    """(the canary module's name, its marker file): a module that leaves the marker when imported."""
    name = f"canary_{tmp_path.name.replace('-', '_')}"
    marker = tmp_path / "IMPORTED"
    (tmp_path / f"{name}.py").write_text(CANARY.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name, marker
    sys.modules.pop(name, None)


def not_imported(canary):
    name, marker = canary
    return not marker.exists() and name not in sys.modules


def write_checkpoint(path, env_id=ENV, **sections):
    """A checkpoint of an untrained CartPole policy whose config has `sections` merged in."""
    config = merge(load_default(), sections)
    agent = build(ENV, merge(load_default(), {"policy": {"class": ""}}))
    checkpoint.save(path, {"policy": agent.policy.state_dict(), "optimizers": [], "global_step": 7, "epoch": 1,
                           "config": config, "env_id": env_id})
    return path


def write_published(folder, env_id=ENV, **sections):
    """A published agent whose config.toml has `sections` merged in (written as a stranger would)."""
    payload = torch.load(write_checkpoint(folder.parent / f"{folder.name}.pt"), weights_only=True)
    published.write(folder, payload["policy"], {}, ENV)
    text = (folder / published.CONFIG).read_text().replace(f'env_id = "{ENV}"', f'env_id = "{env_id}"')
    from pufferlib.config import dump_toml

    (folder / published.CONFIG).write_text(text + "\n" + dump_toml(sections))
    return folder


# -- 1. strings in files name code ---------------------------------------------------------------

def test_a_checkpoints_policy_class_is_refused_before_it_is_imported(tmp_path, canary):
    file = write_checkpoint(tmp_path / "model.pt", policy={"class": f"{canary[0]}:Policy"})
    with pytest.raises(UntrustedCodeError, match=rf"policy.class is '{canary[0]}:Policy'.*--trust-code"):
        pufferlib.load(file)
    assert not_imported(canary)


def test_a_checkpoints_env_id_naming_a_creator_is_refused(tmp_path, canary):
    file = write_checkpoint(tmp_path / "model.pt", env_id=f"{canary[0]}:make")
    with pytest.raises(UntrustedCodeError, match="env id is .*'module:attr' creator"):
        pufferlib.load(file)
    assert not_imported(canary)


def test_a_published_agent_names_no_code_by_address_or_folder(tmp_path, canary, monkeypatch):
    hub_dir = tmp_path / "hub"
    bad_class = write_published(hub_dir / "org" / "cls", policy={"class": f"{canary[0]}:Policy"})
    bad_env = write_published(hub_dir / "org" / "env", env_id=f"{canary[0]}:make")
    monkeypatch.setenv(published.HUB_DIR_ENV, str(hub_dir))
    for source in ("hf://org/cls", bad_class, "hf://org/env", bad_env):
        with pytest.raises(UntrustedCodeError, match="refused"):
            pufferlib.load(source)
    assert main(["pull", "org/cls"]) == 2
    assert not_imported(canary)


def test_trust_code_accepts_what_the_file_names(tmp_path, canary):
    file = write_checkpoint(tmp_path / "model.pt", policy={"class": f"{canary[0]}:Policy"})
    agent = pufferlib.load(file, trust_code=True)
    assert type(agent.policy).__name__ == "Policy" and canary[1].exists()


def test_the_cli_refuses_every_loader_and_trust_code_opts_in(tmp_path, canary, capsys):
    file = write_checkpoint(tmp_path / "run" / "model_000001.pt", policy={"class": f"{canary[0]}:Policy"})
    (tmp_path / "run" / METRICS_FILE).write_text(json.dumps({"env_id": ENV}) + "\n")
    data_dir = str(tmp_path)
    for argv in (["eval", ENV, "--load-model-path", str(file)],
                 ["eval", ENV, "--load-model-path", "latest", "--train.data-dir", data_dir],
                 ["train", ENV, "--resume", str(file.parent)],
                 ["match", "ocean-connect4", str(file), "random", "--games", "1"],
                 ["push", str(file), "me/agent", "--hub.dir", str(tmp_path / "hub"), "--episodes", "1"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "refused" in err and "--trust-code" in err, (argv, err)
    assert not_imported(canary)
    assert main(["eval", ENV, "--load-model-path", str(file), "--episodes", "1", "--trust-code"]) == 0
    assert canary[1].exists()


def test_a_run_folders_metrics_header_names_no_creator(tmp_path, canary, capsys):
    run = tmp_path / "run"
    write_checkpoint(run / "model_000001.pt")
    (run / METRICS_FILE).write_text(json.dumps({"env_id": f"{canary[0]}:make"}) + "\n")
    assert main(["league", str(run), "--games", "1"]) == 2
    assert "metrics.jsonl: refused" in capsys.readouterr().err
    assert not_imported(canary)


def test_a_sweep_databases_config_names_no_code(tmp_path, canary, capsys):
    config = merge(load_default(), {"policy": {"class": f"{canary[0]}:Policy"}})
    store = Store(tmp_path / "sweep")
    for key, value in (("env_id", ENV), ("config", config), ("space", {})):
        store.set_meta(key, value)
    store.close()
    assert main(["sweep", ENV, "--resume", str(tmp_path / "sweep")]) == 2
    assert "sweep.db: refused: its policy.class" in capsys.readouterr().err
    assert not_imported(canary)


def test_a_config_file_names_code_only_when_the_command_line_does(tmp_path, canary):
    path = tmp_path / "config.toml"
    path.write_text(f'[policy]\nclass = "{canary[0]}:Policy"\n')
    parser = lambda: base_parser("puffer train", None)  # noqa: E731
    with pytest.raises(UntrustedCodeError, match="config.toml: refused"):
        parse_config(parser(), [ENV, "--config", str(path)])
    assert not_imported(canary)
    config, _ = parse_config(parser(), [ENV, "--config", str(path), "--policy.class", "ActorCritic"])
    assert config["policy"]["class"] == "ActorCritic"
    with trust.trusting():
        config, _ = parse_config(parser(), [ENV, "--config", str(path)])
    assert config["policy"]["class"] == f"{canary[0]}:Policy"


def test_classes_installed_plugins_declare_are_accepted(tmp_path):
    for name in ("", "Convolutional", "pufferlib.models:ActorCritic", "puffer_atari.policy:AtariCNN"):
        trust.check_policy_class(name, "ocean-breakout", "f")  # any installed spec's policy: the atari plugin's
    assert trust.check_env_id("ocean-breakout", "f") == "ocean-breakout"
    with pytest.raises(UntrustedCodeError):
        trust.check_policy_class("os:system", "ocean-breakout", "f")
    assert trust.check_env_id("my_pkg:make", "f", vouched=["my_pkg:make"]) == "my_pkg:make"


# -- 2. settings in files: where to run, log and write is the user's ---------------------------------

def test_a_loaded_agent_takes_no_address_backend_or_env_count_from_its_file(tmp_path, monkeypatch):
    hostile = {"vec": {"backend": "ray", "num_envs": 4096, "num_workers": 64},
               "ray": {"address": "127.0.0.1:17777"}, "train": {"data_dir": "/etc", "device": "cuda"}}
    folder = write_published(tmp_path / "hub" / "org" / "agent", **hostile)
    monkeypatch.setenv(published.HUB_DIR_ENV, str(tmp_path / "hub"))
    for source in ("hf://org/agent", write_checkpoint(tmp_path / "model.pt", **hostile)):
        agent = pufferlib.load(source)
        default = load_default()
        assert agent.config["vec"] == default["vec"] and agent.config["ray"] == default["ray"]
        assert agent.config["train"]["data_dir"] == default["train"]["data_dir"]
    result = pufferlib.load(folder).evaluate(episodes=2, num_envs=2)
    assert result.episodes == 2
    huge = write_checkpoint(tmp_path / "huge.pt", vec={"num_envs": 100_000_000})
    with pytest.raises(pufferlib.errors.CheckpointError, match=r"huge.pt: its config is not valid here: .*num_envs"):
        pufferlib.load(huge)


def test_resume_takes_training_settings_but_no_logger_folder_or_device(tmp_path):
    file = write_checkpoint(tmp_path / "model.pt", logger={"names": ["tensorboard"]},
                            tensorboard={"log_dir": "/tmp/elsewhere"},
                            train={"data_dir": str(tmp_path / "theirs"), "learning_rate": 0.01})
    payload = checkpoint.load(file)
    assert "logger" not in payload["config"] and "tensorboard" not in payload["config"]
    assert "data_dir" not in payload["config"]["train"] and payload["config"]["train"]["learning_rate"] == 0.01
    assert {"logger", "tensorboard", "train.data_dir"} <= set(payload["dropped"])


def test_resuming_an_older_checkpoint_branches_into_the_users_data_dir(tmp_path, capsys):
    theirs, mine = tmp_path / "theirs", tmp_path / "mine"
    assert main(["train", ENV, "--train.total-timesteps", "512", "--train.batch-size", "256", "--train.minibatch-size",
                 "256", "--vec.num-envs", "2", "--train.checkpoint-interval", "1", "--train.data-dir",
                 str(tmp_path / "runs")]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    first = sorted(run.glob("model_*.pt"))[0]
    payload = torch.load(first, weights_only=True)
    payload["config"]["train"]["data_dir"] = str(theirs)  # as a stranger's file would say
    checkpoint.save(first, payload)
    capsys.readouterr()
    assert main(["train", ENV, "--resume", str(first), "--train.data-dir", str(mine)]) == 0
    assert "train.data_dir left at their defaults" in capsys.readouterr().err
    assert not theirs.exists() and any(mine.iterdir())


def test_a_file_cannot_ask_for_out_of_range_values(tmp_path):
    file = write_checkpoint(tmp_path / "model.pt", train={"learning_rate": -1.0})
    with pytest.raises(pufferlib.errors.CheckpointError,
                       match=r"model.pt: its config is not valid here: invalid config: train.learning_rate"):
        checkpoint.load(file)


def test_a_published_config_given_as_config_file_keeps_the_users_places(tmp_path):
    folder = write_published(tmp_path / "agent", ray={"address": "10.0.0.1:6379"}, train={"data_dir": "/etc"},
                             logger={"names": ["wandb"]})
    config, _ = parse_config(base_parser("puffer train", None), [ENV, "--config", str(folder / "config.toml")])
    default = load_default()
    assert config["ray"] == default["ray"] and config["logger"] == default["logger"]
    assert config["train"]["data_dir"] == default["train"]["data_dir"]


def test_a_plugin_declares_policies_a_file_may_name(tmp_path):
    """puffer-ocean's pufferlib_policies hook declares BoardConv, no env's default policy."""
    file = write_checkpoint(tmp_path / "model.pt", policy={"class": "puffer_ocean.policies:BoardConv"})
    assert checkpoint.load(file)["config"]["policy"]["class"] == "puffer_ocean.policies:BoardConv"


def test_a_files_env_text_reaches_the_env_only_under_a_key_its_plugin_declares(tmp_path):
    """A creator may pass the keyword arguments it does not name on to its framework (NLE's `savedir`
    writes recordings there): a file's env argument holding text is dropped unless the spec's kwargs
    or the creator's named parameters declare its key; numbers and bools, which name nothing, stay."""
    def make(size: int = 3, opponent: str = "easy", **framework_kwargs):
        raise AssertionError("not made: loading reads the signature only")

    pufferlib.register("trust-passes-kwargs-on", make, kwargs={"mode": "a"})
    try:
        env = {"size": 5, "opponent": "hard", "mode": "b", "savedir": "/etc/cron.d", "options": ["x", 1],
               "seeds": [1, 2], "flag": True}
        file = write_checkpoint(tmp_path / "model.pt", env_id="trust-passes-kwargs-on", env=env,
                                eval={"env": {"savedir": "/etc", "depth": 2}})
        payload = checkpoint.load(file)
        assert payload["config"]["env"] == {"size": 5, "opponent": "hard", "mode": "b", "seeds": [1, 2], "flag": True}
        assert payload["config"]["eval"]["env"] == {"depth": 2}
        assert {"env.savedir", "env.options", "eval.env.savedir"} <= set(payload["dropped"])
        assert checkpoint.load(file, trust_code=True)["config"]["env"]["savedir"] == "/etc/cron.d"
        assert trust.declared_env_keys("trust-passes-kwargs-on") == {"size", "opponent", "mode"}
    finally:
        pufferlib.registry.unregister("trust-passes-kwargs-on")
