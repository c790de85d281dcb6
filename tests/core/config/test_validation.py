"""Config values are validated up front, in one place, for the CLI and for PuffeRL(...)."""

import re

import pytest

import pufferlib
from pufferlib import APIUsageError, PuffeRL, cli
from pufferlib.config import load_default
from pufferlib.config.validation import CONSTRAINTS, validate

BAD_FLAGS = [
    (["--train.gamma", "2"], "train.gamma = 2.0 must be in [0, 1] (discount factor)"),
    (["--train.learning-rate", "-0.001"], "train.learning_rate = -0.001 must be in [0, inf)"),
    (["--vec.num-envs", "0"], "vec.num_envs = 0 must be in [1, 1048576]"),
    (["--train.batch-size", "-256"], "train.batch_size = -256 must be in [1, 1073741824]"),
    (["--train.total-timesteps", "-5"], "train.total_timesteps = -5 must be in [1, 1e+15]"),
    (["--train.update-epochs", "0"], "train.update_epochs = 0 must be in [1, 65536]"),
    (["--policy.hidden-size", "0"], "policy.hidden_size = 0 must be in [1, 65536]"),
    (["--train.device", "gpu"], "train.device = 'gpu' is not a torch device"),
    (["--train.optimizer", "sgd"], "train.optimizer = 'sgd' must be one of 'adam', 'muon'"),
    (["--train.clip-coef", "nan"], "train.clip_coef = nan must be finite"),
]


@pytest.mark.parametrize("flags,message", BAD_FLAGS, ids=[f[0][0] for f in BAD_FLAGS])
def test_bad_config_values_exit_2_before_training(tmp_path, capsys, flags, message):
    data = tmp_path / "runs"
    code = cli.main(["train", "gym-CartPole-v1", "--train.data-dir", str(data), *flags])
    err = capsys.readouterr().err
    assert code == 2 and f"puffer train: error: invalid config: {message}" in err
    assert not data.exists()  # nothing trained, nothing saved


def test_uncreatable_data_dir_is_reported_up_front_with_its_whole_path(tmp_path, capsys):
    deep = tmp_path / ("d" * 60) / ("e" * 60)  # a path of CI's depth is quoted whole, never cut
    deep.mkdir(parents=True)
    blocker = deep / "file"
    blocker.write_text("")
    assert cli.main(["train", "gym-CartPole-v1", "--train.data-dir", str(blocker / "runs")]) == 2
    assert f"train.data_dir = '{blocker / 'runs'}' cannot be created: '{blocker}' is a file" in capsys.readouterr().err


def test_string_where_a_number_belongs_in_a_config_file(tmp_path, capsys):
    file = tmp_path / "c.toml"
    file.write_text('[train]\nlearning_rate = "fast"\ngamma = true\n[vec]\nnum_envs = 2.5\n')
    assert cli.main(["train", "gym-CartPole-v1", "--config", str(file)]) == 2
    err = capsys.readouterr().err
    assert "train.learning_rate = 'fast' must be a number" in err  # every problem, in one message
    assert "train.gamma = True must be a number, not a bool" in err and "vec.num_envs = 2.5 must be an integer" in err


def test_puffer_rl_raises_api_usage_error_for_bad_values():
    env = pufferlib.make("gym-CartPole-v1", num_envs=2)
    try:
        with pytest.raises(APIUsageError, match=r"train.gamma = 2 must be in \[0, 1\]"):
            PuffeRL(env=env, device="cpu", gamma=2)
        with pytest.raises(APIUsageError, match="train.device = 'tpu9' is not a torch device"):
            PuffeRL(env=env, device="tpu9")
    finally:
        env.close()


def test_integral_floats_are_accepted_as_integers():
    config = load_default()
    config["train"]["total_timesteps"] = 1e6
    validate(config, load_default())
    assert config["train"]["total_timesteps"] == 1_000_000 and isinstance(config["train"]["total_timesteps"], int)


def test_defaults_pass_and_every_constraint_names_a_default_key():
    default = load_default()
    validate(load_default(), default)
    for dotted in CONSTRAINTS:
        section, key = dotted.split(".")
        assert key in default[section], dotted


def test_dotted_keys_are_read_and_written_in_one_place():
    from pufferlib.config import get_dotted, set_dotted

    config = {"train": {"learning_rate": 0.1}}
    assert get_dotted(config, "train.learning_rate") == 0.1
    with pytest.raises(KeyError, match="train.gamma"):
        get_dotted(config, "train.gamma")
    with pytest.raises(KeyError, match="'policy'"):
        get_dotted(config, "policy.hidden_size")
    with pytest.raises(KeyError, match="train.learning_rate.x"):
        get_dotted(config, "train.learning_rate.x")  # a value, not a table
    assert set_dotted(config, "policy.hidden_size", 64) is config
    assert config == {"train": {"learning_rate": 0.1}, "policy": {"hidden_size": 64}}


@pytest.mark.parametrize("key, value, problem", [("goal", "max", "must be one of 'maximize', 'minimize'"),
                                                 ("backend", "slurm", "must be one of 'local', 'ray'"),
                                                 ("workers", 0, r"must be in \[1, 65536\]"),
                                                 ("early_stop_quantile", 1.5, r"must be in \[0, 1\)")])
def test_sweep_settings_have_their_ranges_and_choices(key, value, problem):
    config = load_default()
    config["sweep"][key] = value
    with pytest.raises(APIUsageError, match=f"sweep.{key} = .* {problem}"):
        validate(config, load_default())


def test_a_huge_value_is_cut_in_the_error():
    from pufferlib.config import load_default, merge
    from pufferlib.config.validation import validate

    default = load_default()
    with pytest.raises(APIUsageError) as info:
        validate(merge(default, {"train": {"device": "x" * 10_000_000}}), default)
    assert len(str(info.value)) < 1000 and "(10,000,002 characters)" in str(info.value)  # its repr, quoted


BOUNDED_COUNTS = ["vec.num_envs", "vec.num_workers", "vec.env_batch_size", "vec.seed", "policy.hidden_size",
                  "rnn.hidden_size", "train.seed", "train.cpu_threads", "train.total_timesteps", "train.batch_size",
                  "train.minibatch_size", "train.microbatch_size", "train.bptt_horizon", "train.update_epochs",
                  "train.log_interval_steps", "selfplay.snapshot_interval", "eval.interval_steps", "eval.episodes",
                  "eval.num_envs", "sweep.workers", "sweep.seed"]


@pytest.mark.parametrize("dotted", BOUNDED_COUNTS)
@pytest.mark.parametrize("value", [1e30, 10**400], ids=["1e30", "401-digits"])
def test_counts_have_an_upper_bound_so_a_typo_like_1e30_is_refused_up_front(dotted, value):
    from pufferlib.config import set_dotted

    config = set_dotted(load_default(), dotted, value)
    with pytest.raises(APIUsageError, match=rf"^invalid config: {re.escape(dotted)} = .+ must be in \[\d, [\d.e+]+\]"):
        validate(config, load_default())


@pytest.mark.parametrize("flags", [["--vec.num-envs", "1e30"], ["--vec.num-envs", "1" + "0" * 400],
                                   ["--train.seed", "1e30"], ["--train.cpu-threads", "1e30"]],
                         ids=["num-envs-1e30", "num-envs-401-digits", "seed", "cpu-threads"])
def test_a_huge_count_flag_is_a_one_line_error_before_anything_is_made(tmp_path, capsys, flags):
    data = tmp_path / "runs"
    assert cli.main(["train", "gym-CartPole-v1", "--train.data-dir", str(data), *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"puffer train: error: invalid config: {flags[0][2:].replace('-', '_')} = ") and \
        "must be in [" in err and "Traceback" not in err, err
    assert not data.exists()


def test_flag_values_raise_nothing_but_argparse_errors():
    import argparse

    from pufferlib.config import _parse_value, open_section_flags

    digits = "9" * 5000  # more digits than Python converts to an int
    for default in (1, True):
        with pytest.raises(argparse.ArgumentTypeError, match=r"\(5,002 characters\)"):
            _parse_value(digits, default)
    assert _parse_value(digits, [1]) == [digits] and _parse_value(digits, None) == digits
    assert open_section_flags(["--env.size", digits], {"env": {}}) == ({"env": {"size": digits}}, [])


def test_a_tilde_path_is_the_home_folder_once_validated(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    config = load_default()
    config["train"].update(data_dir="~/runs", init_from="~/runs/model_000001.pt")
    config["hub"]["dir"] = "~/hub"
    validate(config, load_default())
    assert config["train"]["data_dir"] == str(tmp_path / "runs") and config["hub"]["dir"] == str(tmp_path / "hub")
    assert config["train"]["init_from"] == str(tmp_path / "runs" / "model_000001.pt")


def test_cuda_without_a_cuda_device_says_so_and_names_cpu_or_auto(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    config = load_default()
    config["train"]["device"] = "cuda"
    with pytest.raises(APIUsageError, match=r"train.device = 'cuda' but no CUDA device is available here.*; "
                                            r"use 'cpu' or 'auto'"):
        validate(config, load_default())


def test_a_device_torch_cannot_compute_on_is_refused_up_front():
    config = load_default()
    config["train"]["device"] = "meta"  # a torch device that holds no values
    with pytest.raises(APIUsageError, match=r"train.device = 'meta' but this torch cannot use it \(.+\); use 'cpu'"):
        validate(config, load_default())


@pytest.mark.parametrize("section", ["env", "eval.env"])
@pytest.mark.parametrize("key, fix", [("num_envs", "set --vec.num-envs"), ("seed", "set --vec.seed"),
                                      ("zero_copy", "it is an option of pufferlib.make() only")])
def test_env_keys_that_are_the_vectorizers_settings_name_the_vec_flag(section, key, fix):
    from pufferlib.config import set_dotted

    config = set_dotted(load_default(), f"{section}.{key}", 4)
    with pytest.raises(APIUsageError, match=rf"{section}.{key} is a setting of the vectorizer, not an env argument: "
                                            rf"{re.escape(fix)}"):
        validate(config, load_default())


def test_the_vectorizer_settings_are_the_keyword_arguments_of_make():
    import inspect

    from pufferlib.config.validation import VEC_ARGUMENTS
    from pufferlib.registry.make import make

    parameters = inspect.signature(make).parameters.values()
    assert set(VEC_ARGUMENTS) == {p.name for p in parameters if p.kind is p.KEYWORD_ONLY or
                                  p.kind is p.POSITIONAL_OR_KEYWORD} - {"env_id"}
    assert all(vec is None or vec in CONSTRAINTS or vec == "vec.backend" for vec in VEC_ARGUMENTS.values())
