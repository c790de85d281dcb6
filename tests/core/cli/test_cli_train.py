"""`puffer train` / `puffer eval`: config layering, dotted flags, checkpoints, resume."""

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import pufferlib
from pufferlib import cli
from pufferlib.cli.options import base_parser as _base_parser
from pufferlib.cli.options import parse_config
from pufferlib.train import checkpoint

TINY = ["--train.total-timesteps", "512", "--train.batch-size", "256", "--train.minibatch-size", "128",
        "--vec.num-envs", "2", "--train.update-epochs", "1"]


class Walk(gym.Env):
    """A corridor of `length` cells; action 1 walks right, reaching the end gives reward 1."""

    def __init__(self, length=4):
        self.length = length
        self.observation_space = spaces.Box(0, 100, (1,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.pos = 0

    def reset(self, seed=None, options=None):
        self.pos = 0
        return np.array([0], np.float32), {}

    def step(self, action):
        self.pos += int(action)
        done = self.pos >= self.length
        return np.array([self.pos], np.float32), float(done), done, False, {}


@pytest.fixture
def walk_env():
    pufferlib.register("test-walk", Walk, kwargs={"length": 3}, config={"train": {"gamma": 0.5}}, overwrite=True)
    yield "test-walk"
    pufferlib.registry.unregister("test-walk")


def parse(argv):
    return parse_config(_base_parser("puffer train", ""), argv)


def test_layers_default_env_file_flags(walk_env, tmp_path):
    config, _ = parse([walk_env])
    assert config["train"]["gamma"] == 0.5  # env layer over default.toml
    assert config["env"]["length"] == 3 and config["train"]["clip_coef"] == 0.2
    file = tmp_path / "c.toml"
    file.write_text("[train]\ngamma = 0.7\nlearning_rate = 0.01\n[env]\nlength = 5\n")
    config, _ = parse([walk_env, "--config", str(file), "--train.learning-rate", "3e-4", "--env.length", "9",
                       "--rnn.enabled", "true", "--train.total-timesteps", "1e4"])
    assert config["train"]["gamma"] == 0.7  # file over env layer
    assert config["train"]["learning_rate"] == 3e-4 and config["env"]["length"] == 9  # flags over file
    assert config["rnn"]["enabled"] is True and config["train"]["total_timesteps"] == 10_000


def test_unknown_flags_and_keys_get_close_matches(walk_env, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["train", walk_env, "--train.learning-rat", "1e-3"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "unknown flag --train.learning-rat; did you mean --train.learning-rate" in err
    with pytest.raises(SystemExit):
        parse([walk_env, "--env.lenght", "3"])
    assert "did you mean --env.length" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[train]\ngama = 0.5\n")
    assert cli.main(["train", walk_env, "--config", str(bad)]) == 2
    assert "Did you mean: train.gamma" in capsys.readouterr().err


def test_train_eval_and_resume(walk_env, tmp_path, capsys):
    data = str(tmp_path / "runs")
    assert cli.main(["train", walk_env, *TINY, "--train.data-dir", data, "--train.checkpoint-interval", "1"]) == 0
    out = capsys.readouterr().out
    assert "Trained test-walk for 512 steps (2 epochs)" in out and "epoch 2 | steps 512" in out
    path = Path(out.split("Checkpoint: ")[-1].strip())
    assert path.name == "model_000002.pt" and sorted(p.name for p in path.parent.iterdir()) == [
        ".lock", "metrics.jsonl", "model_000001.pt", "model_000002.pt"]  # .lock: the writer's (pufferlib._locks)
    payload = checkpoint.load(path)
    assert payload["env_id"] == walk_env and payload["config"]["vec"]["num_envs"] == 2

    assert cli.main(["eval", walk_env, "--load-model-path", "latest", "--train.data-dir", data,
                     "--episodes", "3"]) == 0
    captured = capsys.readouterr()
    assert "test-walk: mean return 1.00 ± 0.00 (95% t interval), std 0.00, over 3 episodes" in captured.out
    assert f"loaded {path} (test-walk, step 512)" in captured.err

    # resume continues the run in place: step count, epochs and the LR schedule go on
    assert cli.main(["train", walk_env, "--resume", str(path.parent), "--train.total-timesteps", "1024"]) == 0
    out = capsys.readouterr().out
    assert "for 1,024 steps (4 epochs)" in out and str(path.parent / "model_000004.pt") in out
    final = checkpoint.load(path.parent)
    assert final["global_step"] == 1024 and final["config"]["train"]["batch_size"] == 256


def test_resuming_without_more_timesteps_than_the_run_has_done_is_refused_before_anything_is_written(
        walk_env, tmp_path, capsys):
    data = str(tmp_path / "runs")
    assert cli.main(["train", walk_env, *TINY, "--train.data-dir", data]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    before = {f.name: f.read_bytes() for f in run.iterdir()}
    capsys.readouterr()
    for steps in ("256", "512"):  # fewer than the 512 done, or as many: nothing to train
        assert cli.main(["train", walk_env, "--resume", str(run), "--train.total-timesteps", steps]) == 2
        err = capsys.readouterr().err
        assert "has trained 512 steps already" in err and "--train.total-timesteps" in err and f"is {steps}" in err
    assert {f.name: f.read_bytes() for f in run.iterdir()} == before  # the checkpoint keeps its config


@pytest.mark.parametrize("suffix", ["gif", "mp4"])
def test_eval_writes_a_video(tmp_path, suffix):
    import imageio.v3 as iio

    video = tmp_path / f"v.{suffix}"
    assert cli.main(["eval", "gym-CartPole-v1", "--episodes", "1", "--vec.num-envs", "1",
                     "--video-path", str(video)]) == 0
    frames = iio.imread(video, plugin="pillow" if suffix == "gif" else "FFMPEG")
    assert frames.ndim == 4 and frames.shape[0] > 5 and frames.shape[-1] == 3


def test_eval_video_without_imageio_says_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "imageio", None)  # as if the `video` extra were not installed
    monkeypatch.setitem(sys.modules, "imageio.v3", None)
    code = cli.main(["eval", "gym-CartPole-v1", "--episodes", "1", "--vec.num-envs", "1",
                     "--video-path", str(tmp_path / "v.gif")])
    assert code == 2 and "pip install 'puffer-core[video]'" in capsys.readouterr().err


def test_eval_mp4_without_imageio_ffmpeg_says_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    code = cli.main(["eval", "gym-CartPole-v1", "--episodes", "1", "--vec.num-envs", "1",
                     "--video-path", str(tmp_path / "v.mp4")])
    err = capsys.readouterr().err
    assert code == 2 and "needs imageio_ffmpeg" in err and "[video]" in err, err


def test_help_lists_every_config_flag_with_its_documentation(walk_env, capsys):
    with pytest.raises(SystemExit):
        cli.main(["train", walk_env, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--train.gamma FLOAT discount factor (default: 0.5)" in out  # env layer's default
    assert "--env.length INT" in out and "--vec.num-envs INT environment copies (default: 8)" in out


def test_plugins_add_config_sections_and_loggers(walk_env, tmp_path, capsys):
    """A logger plugin's config section becomes dotted flags; --logger picks it; its hooks see both."""
    from pufferlib.registry.plugins import plugin_manager

    seen = {}

    class FakeLogger:
        @pufferlib.hookimpl
        def pufferlib_config_defaults(self):
            return {"fakelog": {"project": "default-project", "tags": []}}

        @pufferlib.hookimpl
        def pufferlib_loggers(self):
            return {"fakelog": "a test logger"}

        @pufferlib.hookimpl
        def pufferlib_train_start(self, trainer):
            seen.update(names=trainer.config["logger"]["names"], section=trainer.config["fakelog"],
                        run_dir=trainer.run_dir)

    pm = plugin_manager()
    pm.register(FakeLogger(), name="fake-logger")
    try:
        data = tmp_path / "runs"
        assert cli.main(["train", walk_env, *TINY, "--train.data-dir", str(data), "--logger", "fakelog",
                         "--fakelog.project", "mine", "--fakelog.tags", "a,b"]) == 0
        assert seen["names"] == ["fakelog"] and seen["section"] == {"project": "mine", "tags": ["a", "b"]}
        assert seen["run_dir"].parent == data  # known at start; the checkpoint lands there
        assert str(seen["run_dir"]) in capsys.readouterr().out
        assert cli.main(["train", walk_env, "--logger", "fakelgo"]) == 2
        assert "No logger plugin provides 'fakelgo'. Did you mean: fakelog?" in capsys.readouterr().err
    finally:
        pm.unregister(name="fake-logger")


def test_the_seed_makes_a_run_repeatable_initial_weights_included(walk_env, tmp_path, capsys):
    def weights(seed: int, name: str) -> dict:
        data = str(tmp_path / name)
        assert cli.main(["train", walk_env, *TINY, "--train.data-dir", data, "--train.seed", str(seed)]) == 0
        path = Path(capsys.readouterr().out.split("Checkpoint: ")[-1].strip())
        return checkpoint.policy_state(checkpoint.load(path)["policy"])

    first, again, other = weights(1, "a"), weights(1, "b"), weights(2, "c")
    assert first.keys() == again.keys()
    assert all(np.array_equal(first[k].numpy(), again[k].numpy()) for k in first)
    assert not all(np.array_equal(first[k].numpy(), other[k].numpy()) for k in first)


def test_eval_makes_the_env_as_the_checkpoints_run_did_and_flags_still_win(tmp_path, capsys):
    """A run trained with --env.* settings that shape the observation (go on 5 x 5 with its legal
    moves) evaluates without repeating them; a flag given to eval overrides the checkpoint's."""
    data = str(tmp_path / "runs")
    flags = ["--env.grid-size", "5", "--env.legal-actions", "1", "--env.max-steps", "60"]
    assert cli.main(["train", "ocean-go", *flags, *TINY, "--train.data-dir", data]) == 0
    capsys.readouterr()
    assert cli.main(["eval", "ocean-go", "--load-model-path", "latest", "--train.data-dir", data,
                     "--episodes", "2"]) == 0
    assert "ocean-go: mean return" in capsys.readouterr().out
    assert cli.main(["eval", "ocean-go", "--load-model-path", "latest", "--train.data-dir", data,
                     "--episodes", "2", "--env.grid-size", "7"]) == 2
    assert "does not fit this policy" in capsys.readouterr().err


SELFPLAY = ["--selfplay.enabled", "true", "--selfplay.anchors", "scripted", "--selfplay.snapshot-interval", "2048",
            "--train.total-timesteps", "8192", "--vec.num-envs", "32", "--train.batch-size", "2048",
            "--train.minibatch-size", "2048", "--train.update-epochs", "1"]


def test_selfplay_alone_makes_every_seat_an_agent_and_shows_its_scores(tmp_path, capsys):
    """--selfplay.enabled true on Ocean connect4 (whose scripted opponent holds a seat) sets
    --env.opponent none once; the log lines and the final line show the pool's and the anchors'
    scores, not the learner's 0.50 against itself."""
    assert cli.main(["train", "ocean-connect4", *SELFPLAY, "--train.data-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert err.count("--env.opponent none") == 1
    final = out.strip().splitlines()[-1]
    assert "self-play vs pool" in final and "vs scripted" in final and "score 0.50" not in final, final
    assert any("vs scripted" in line for line in out.splitlines()[:-1])  # the log lines
    (run,) = tmp_path.iterdir()
    assert checkpoint.load(next(run.glob("model_*.pt")))["config"]["env"]["opponent"] == "none"


def test_selfplay_with_an_opponent_given_is_refused(tmp_path, capsys):
    flags = [*SELFPLAY, "--env.opponent", "scripted", "--train.data-dir", str(tmp_path)]
    assert cli.main(["train", "ocean-connect4", *flags]) != 0
    assert "game_seats = 1: pass --env.opponent none" in capsys.readouterr().err
