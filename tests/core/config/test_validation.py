"""Config values are validated up front, in one place, for the CLI and for PuffeRL(...)."""

import pytest

import pufferlib
from pufferlib import APIUsageError, PuffeRL, cli
from pufferlib.config import load_default
from pufferlib.config.validation import CONSTRAINTS, validate

BAD_FLAGS = [
    (["--train.gamma", "2"], "train.gamma = 2.0 must be in [0, 1] (discount factor)"),
    (["--train.learning-rate", "-0.001"], "train.learning_rate = -0.001 must be in [0, inf)"),
    (["--vec.num-envs", "0"], "vec.num_envs = 0 must be in [1, inf)"),
    (["--train.batch-size", "-256"], "train.batch_size = -256 must be in [1, inf)"),
    (["--train.total-timesteps", "-5"], "train.total_timesteps = -5 must be in [1, inf)"),
    (["--train.update-epochs", "0"], "train.update_epochs = 0 must be in [1, inf)"),
    (["--policy.hidden-size", "0"], "policy.hidden_size = 0 must be in [1, inf)"),
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
                                                 ("workers", 0, r"must be in \[1, inf\)"),
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
