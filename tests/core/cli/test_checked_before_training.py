"""Settings that used to fail late (after epochs of training, after every game) or with a traceback:
each is checked before the work starts, and stops it with one line naming the key and the fix."""

import sys

import pytest

from pufferlib import cli

from .test_cli_errors import TINY, one_line_error

EVAL = ["--eval.interval", "1", "--eval.episodes", "1"]


def test_an_eval_env_key_the_env_does_not_take_stops_the_run_before_it_trains(tmp_path, capsys):
    data = tmp_path / "runs"
    config = tmp_path / "c.toml"
    config.write_text("[eval.env]\nbogus = 1\n")
    for given in (["--eval.env.bogus", "1"], ["--config", str(config)]):
        assert cli.main(["train", "gym-CartPole-v1", *TINY, *EVAL, "--train.data-dir", str(data), *given]) == 2
        err = one_line_error(capsys, "train")
        assert "[eval.env] bogus = 1: the evaluation env cannot be made: gym-CartPole-v1 does not take" in err, err
        assert "[env]" not in err and "epoch" not in err
        assert not data.exists()  # nothing trained, nothing saved


def test_an_eval_opponent_the_env_does_not_have_stops_the_run_before_it_trains(tmp_path, capsys):
    data = tmp_path / "runs"
    assert cli.main(["train", "gym-CartPole-v1", *TINY, *EVAL, "--train.data-dir", str(data),
                     "--eval.opponent", "tactical"]) == 2
    err = one_line_error(capsys, "train")
    assert "eval.opponent 'tactical': gym-CartPole-v1's built-in players are none" in err, err
    assert not data.exists()


def test_eval_env_flags_reach_every_evaluation(tmp_path, capsys):
    from pufferlib.train.metrics import read_metrics

    data = tmp_path / "runs"
    assert cli.main(["train", "gym-CartPole-v1", *TINY, *EVAL, "--train.data-dir", str(data),
                     "--eval.env.max-episode-steps", "3"]) == 0
    (run,) = data.iterdir()
    head, rows = read_metrics(run)
    assert head["config"]["eval"]["env"] == {"max_episode_steps": 3}
    assert {row["eval/episode_length"] for row in rows if "eval/episode_length" in row} == {3.0}


def test_a_sweep_on_an_eval_metric_without_evaluations_is_refused_before_any_trial(tmp_path, capsys):
    sweep_dir = tmp_path / "sweep"
    assert cli.main(["sweep", "gym-CartPole-v1", *TINY, "--sweep.max-runs", "1", "--sweep.metric", "eval/score",
                     "--dir", str(sweep_dir)]) == 2
    err = one_line_error(capsys, "sweep")
    assert "sweep.metric = 'eval/score'" in err and "set --eval.interval N" in err, err
    assert not sweep_dir.exists()


@pytest.mark.parametrize("flag, fix", [("--env.num-envs", "--vec.num-envs"), ("--env.seed", "--vec.seed")])
def test_env_flags_that_are_vectorizer_settings_name_the_vec_flag(tmp_path, capsys, flag, fix):
    data = tmp_path / "runs"
    assert cli.main(["train", "gym-CartPole-v1", *TINY, "--train.data-dir", str(data), flag, "4"]) == 2
    assert f"is a setting of the vectorizer, not an env argument: set {fix}" in one_line_error(capsys, "train")
    assert not data.exists()


def test_a_tilde_data_dir_is_the_home_folder_for_every_writer_and_every_printed_path(tmp_path, capsys, monkeypatch):
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    assert cli.main(["train", "gym-CartPole-v1", *TINY, "--train.data-dir", "~/runs"]) == 0
    printed = capsys.readouterr().out.split("Checkpoint: ")[-1].strip()
    (run,) = (home / "runs").iterdir()
    assert printed.startswith(f"{run}/model_") and (run / "metrics.jsonl").exists()
    assert list(work.iterdir()) == []  # no folder named "~"


def test_a_pettingzoo_game_without_its_extra_names_the_extra_to_install(capsys, monkeypatch):
    from pettingzoo.env_registry import spec as pettingzoo_spec

    monkeypatch.setitem(sys.modules, "chess", None)  # as if pettingzoo[classic] were not installed
    for name in [m for m in sys.modules if m.startswith("pettingzoo.classic.chess")]:
        monkeypatch.delitem(sys.modules, name)
    # PettingZoo caches each env's creator once loaded: a chess game an earlier test of this process
    # made (the game matrix) would be made again from it, and nothing would be imported
    pettingzoo_spec._load_env_creator.cache_clear()
    assert cli.main(["train", "pettingzoo-chess", *TINY]) == 2
    err = one_line_error(capsys, "train")
    assert "needs its classic extra" in err and "pip install 'pettingzoo[classic]'" in err, err


def test_a_video_into_a_folder_that_does_not_exist_yet_is_written(tmp_path):
    video = tmp_path / "new" / "folder" / "v.gif"
    assert cli.main(["eval", "gym-CartPole-v1", "--episodes", "1", "--vec.num-envs", "1",
                     "--video-path", str(video)]) == 0
    assert video.read_bytes()[:3] == b"GIF"


def test_a_plot_into_a_folder_that_does_not_exist_yet_is_written(tmp_path):
    from pufferlib.plot import plot_ratings

    png = tmp_path / "new" / "folder" / "ratings.png"
    assert plot_ratings([(100, 1000.0, 30.0), (200, 1050.0, 30.0)], {"random": 900.0}, png, "t") == png
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_a_league_plot_that_cannot_be_written_is_refused_before_any_game(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert cli.main(["league", str(tmp_path), "--plot", str(blocker / "ratings.png")]) == 2
    assert f"Cannot write the plot '{blocker / 'ratings.png'}'" in one_line_error(capsys, "league")


@pytest.mark.parametrize("device", ["meta", "nodevice"])
def test_a_match_on_a_device_torch_cannot_use_is_refused_before_any_game(capsys, device):
    assert cli.main(["match", "gym-CartPole-v1", "random", "random", "--device", device]) == 2
    err = one_line_error(capsys, "match")
    assert f"--device {device!r} " in err and "use --device cpu" in err, err
