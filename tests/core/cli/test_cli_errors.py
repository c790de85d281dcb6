"""Input that used to end in a traceback, or fail only after work had started: one line
`puffer COMMAND: error: ...` naming the file and the cause, exit 2 for wrong input, 1 for a
failed run; output paths are checked before the work starts."""

import errno
import os

import pytest
import torch

from pufferlib import cli

TINY = ["--train.total-timesteps", "128", "--train.batch-size", "64", "--train.minibatch-size", "64",
        "--vec.num-envs", "2"]


def one_line_error(capsys, command):
    err = capsys.readouterr().err
    assert err.startswith(f"puffer {command}: error: ") and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("kind", ["binary", "folder", "deep_arrays", "deep_tables"])
def test_config_files_that_cannot_be_read_are_one_line_errors(kind, tmp_path, capsys):
    path = tmp_path / "c.toml"
    if kind == "binary":
        path.write_bytes(os.urandom(2000) + b"\xde\xad")
    elif kind == "folder":
        path.mkdir()
    elif kind == "deep_arrays":
        path.write_text("a = " + "[" * 1000 + "]" * 1000 + "\n")
    else:
        path.write_text("[" + ".".join(["a"] * 1000) + "]\n")
    assert cli.main(["train", "gym-CartPole-v1", "--config", str(path)]) == 2
    assert str(path) in one_line_error(capsys, "train")


def test_an_env_key_gymnasium_does_not_take_is_a_one_line_error(capsys):
    assert cli.main(["train", "gym-CartPole-v1", "--env.foo", "3", *TINY]) == 2
    assert "gym-CartPole-v1 does not take one of the keyword arguments given (foo)" in one_line_error(capsys, "train")


@pytest.mark.parametrize("argv", [["list"], ["--help"], []])
def test_a_closed_output_pipe_ends_the_command_quietly(monkeypatch, argv):
    read, write = os.pipe()
    os.close(read)  # the reader left, as `head` does
    with open(write, "w", buffering=1) as closed:  # line-buffered, as a terminal's stdout
        monkeypatch.setattr("sys.stdout", closed)
        assert cli.main(argv) == 1


def test_a_run_folder_that_cannot_be_made_is_refused_before_training(tmp_path):
    import pufferlib
    from pufferlib.pufferl import PuffeRL

    blocker = tmp_path / "experiments"
    blocker.write_text("a file where the runs should go")
    with pufferlib.make("gym-CartPole-v1", num_envs=2) as env:
        with pytest.raises(pufferlib.APIUsageError, match=f"Cannot write the run folder .*: {blocker} is not a folder"):
            PuffeRL({"train": {"batch_size": 64, "minibatch_size": 64}}, env, run_dir=blocker / "run")


def test_a_full_disk_on_save_is_a_failed_run_naming_the_file(tmp_path, capsys, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(torch, "save", full)
    assert cli.main(["train", "gym-CartPole-v1", *TINY, "--train.data-dir", str(tmp_path)]) == 1
    err = one_line_error(capsys, "train")
    assert "Cannot write checkpoint" in err and "model_000002.pt" in err and "(the disk is full)" in err


def test_video_and_plot_targets_are_checked_before_the_work(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert cli.main(["eval", "gym-CartPole-v1", "--video-path", str(tmp_path / "run.txt")]) == 2
    assert "write a .gif or .mp4" in one_line_error(capsys, "eval")
    assert cli.main(["eval", "gym-CartPole-v1", "--video-path", str(blocker / "run.gif")]) == 2
    assert f"Cannot write the video {str(blocker / 'run.gif')!r}: {blocker} is not a folder" in one_line_error(
        capsys, "eval")
    assert cli.main(["plot", str(tmp_path), "-o", str(blocker / "plot.png")]) == 2
    assert "Cannot write the plot" in one_line_error(capsys, "plot")


def test_random_bytes_are_not_a_metrics_file(tmp_path, capsys):
    (tmp_path / "metrics.jsonl").write_bytes(os.urandom(200_000))
    assert cli.main(["plot", str(tmp_path), "-o", str(tmp_path / "p.png")]) == 2
    assert "is not a metrics file written by `puffer train`" in one_line_error(capsys, "plot")


def test_logger_names_in_a_config_file_are_checked_like_flags(tmp_path, capsys):
    settings = tmp_path / "c.toml"
    settings.write_text('[logger]\nnames = ["wandbb"]\n')
    assert cli.main(["train", "gym-CartPole-v1", "--config", str(settings), *TINY]) == 2
    assert "No logger plugin provides 'wandbb'" in one_line_error(capsys, "train")


def test_an_error_naming_a_file_of_a_run_folder_reaches_the_terminal_escaped(tmp_path, capsys):
    run = tmp_path / "downloaded_run"
    run.mkdir()
    (run / "model_000001\x1b]0;owned\x07\x1b[2J.pt").write_bytes(b"not a checkpoint")
    assert cli.main(["eval", "gym-CartPole-v1", "--load-model-path", str(run), "--episodes", "1"]) == 2
    err = one_line_error(capsys, "eval")
    assert "model_000001\\x1b]0;owned\\x07\\x1b[2J.pt: cannot read the checkpoint" in err and "\x1b" not in err
    assert "No intact checkpoint in" in err.splitlines()[0]  # a message of several lines keeps them
