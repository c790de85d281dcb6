"""The policy contract: one way to build a policy for `puffer train`, `puffer eval` and `PuffeRL`.

A policy class gets the env and only the [policy] keys it accepts; core defaults never leak
into it; a key set by the user that it does not accept is an APIUsageError naming the key
and the accepted ones; the LSTM wrapper's needs are checked with clear errors.
"""

import numpy as np
import pytest
import torch
from torch import nn

import pufferlib
from pufferlib import cli, models
from pufferlib.train.policy import make_policy, policy_kwargs

TINY = ["--train.total-timesteps", "512", "--train.batch-size", "256", "--train.minibatch-size", "128",
        "--vec.num-envs", "2", "--train.update-epochs", "1", "--train.device", "cpu"]


class EnvOnly(nn.Module):
    """A third-party policy in the style of the issue: `def __init__(self, env)`."""

    def __init__(self, env):
        super().__init__()
        self.net = nn.Linear(int(np.prod(env.single_observation_space.shape)), env.single_action_space.n + 1)

    def forward(self, obs):
        out = self.net(obs.float())
        return out[:, :-1], out[:, -1:]


class SpacesStyle(nn.Module):
    """The user guide's style: `(observation_space, action_space)`."""

    def __init__(self, observation_space, action_space, width=8):
        super().__init__()
        self.width = width
        self.net = nn.Linear(int(np.prod(observation_space.shape)), action_space.n + 1)

    def forward(self, obs):
        out = self.net(obs.float())
        return out[:, :-1], out[:, -1:]


class Split(nn.Module):
    """encode/decode without a hidden_size attribute: the LSTM input is measured."""

    def __init__(self, env, features=12):
        super().__init__()
        self.enc = nn.Linear(4, features)
        self.dec = nn.Linear(features, 3)

    def encode_observations(self, obs):
        return torch.relu(self.enc(obs.float()))

    def decode_actions(self, hidden):
        out = self.dec(hidden)
        return out[:, :2], out[:, 2:]

    def forward(self, obs):
        return self.decode_actions(self.encode_observations(obs))


class Exploding(nn.Module):
    def __init__(self, env):
        super().__init__()
        raise RuntimeError("boom in the author's code")


@pytest.fixture
def env():
    vec = pufferlib.make("gym-CartPole-v1", num_envs=2)
    yield vec
    vec.close()


@pytest.fixture
def plugin_env():
    """An env whose spec names a policy class taking only the env (as a plugin would)."""
    pufferlib.register("test-envonly", "gymnasium.envs.classic_control:CartPoleEnv",
                       policy="tests.core.train.test_policy:EnvOnly", overwrite=True)
    yield "test-envonly"
    pufferlib.registry.unregister("test-envonly")


def test_core_defaults_do_not_leak_into_a_policy_that_takes_only_the_env(env):
    config = {"policy": {"hidden_size": 64}, "rnn": {"enabled": False}}  # hidden_size = the core default
    assert isinstance(make_policy(env, config, policy=EnvOnly), EnvOnly)


def test_an_explicit_key_the_policy_lacks_names_the_key_and_the_accepted_ones(env):
    with pytest.raises(pufferlib.APIUsageError, match=r"widht \(did you mean width\?\).*It accepts: width"):
        make_policy(env, {"policy": {"widht": 3}}, policy=SpacesStyle)
    with pytest.raises(pufferlib.APIUsageError, match="hidden_size.*no keyword arguments"):
        make_policy(env, {"policy": {"hidden_size": 128}}, policy=EnvOnly)  # not the default value: explicit


def test_explicit_keys_can_be_named_even_at_default_values():
    with pytest.raises(pufferlib.APIUsageError, match="hidden_size"):
        policy_kwargs(EnvOnly, {"hidden_size": 64}, explicit={"hidden_size"})
    assert policy_kwargs(models.Default, {"hidden_size": 64, "other": 1}, explicit=set()) == {"hidden_size": 64}


def test_spaces_style_policies_get_the_spaces_and_their_keys(env):
    policy = make_policy(env, {"policy": {"width": 5, "hidden_size": 64}}, policy=SpacesStyle)
    assert policy.width == 5
    logits, value = policy(torch.zeros(2, 4))
    assert logits.shape == (2, 2) and value.shape == (2, 1)


def test_policies_taking_var_kwargs_get_every_key(env):
    class Loose(EnvOnly):
        def __init__(self, env, **kwargs):
            super().__init__(env)
            self.kwargs = kwargs

    assert make_policy(env, {"policy": {"hidden_size": 64, "x": 1}}, policy=Loose).kwargs == {"hidden_size": 64, "x": 1}


def test_recurrent_policy_needs_encode_and_decode(env):
    with pytest.raises(pufferlib.APIUsageError, match="lacks encode_observations, decode_actions.*rnn.enabled false"):
        make_policy(env, {"rnn": {"enabled": True, "hidden_size": 16}}, policy=EnvOnly)


def test_recurrent_sizes_are_measured_and_a_mismatch_says_which_flag(env):
    lstm = make_policy(env, {"rnn": {"enabled": True, "hidden_size": 12}}, policy=Split)
    assert isinstance(lstm, models.LSTMWrapper) and lstm.lstm.input_size == 12
    logits, value, state = lstm(torch.zeros(2, 4))
    assert logits.shape == (2, 2) and state[0].shape == (2, 12)
    with pytest.raises(pufferlib.APIUsageError, match="gives 12 features but rnn.hidden_size=16.*--rnn.hidden-size 12"):
        make_policy(env, {"rnn": {"enabled": True, "hidden_size": 16}}, policy=Split)
    default = make_policy(env, {"policy": {"hidden_size": 32}, "rnn": {"enabled": True, "hidden_size": 16}})
    assert default.lstm.input_size == 32  # models.Default's ActionHead is rebuilt for the LSTM width


def test_import_and_construction_failures_name_the_policy(env):
    with pytest.raises(pufferlib.APIUsageError, match="Cannot import policy 'no_such_pkg.policy:Policy'"):
        make_policy(env, {}, policy="no_such_pkg.policy:Policy")
    with pytest.raises(pufferlib.APIUsageError, match="Exploding.*RuntimeError: boom in the author's code"):
        make_policy(env, {}, policy=Exploding)


def test_puffer_rl_rejects_what_is_not_a_module(env):
    with pytest.raises(pufferlib.APIUsageError, match="torch.nn.Module"):
        pufferlib.PuffeRL(env=env, policy=lambda obs: obs, device="cpu")


def test_puffer_rl_builds_the_env_default_policy_like_puffer_train(plugin_env, tmp_path):
    env = pufferlib.make(plugin_env, num_envs=2)
    trainer = pufferlib.PuffeRL(env=env, device="cpu", data_dir=str(tmp_path))
    try:
        assert isinstance(trainer.policy, EnvOnly)
    finally:
        trainer.close()
    env = pufferlib.make(plugin_env, num_envs=2)
    with pytest.raises(pufferlib.APIUsageError, match="EnvOnly does not accept.*hidden_size"):
        pufferlib.PuffeRL({"policy": {"hidden_size": 64}}, env, device="cpu")  # explicitly given: an error
    env.close()


def test_puffer_train_with_a_plugin_policy_taking_only_the_env(plugin_env, tmp_path, capsys):
    assert cli.main(["train", plugin_env, *TINY, "--train.data-dir", str(tmp_path)]) == 0
    assert "Trained test-envonly" in capsys.readouterr().out


def test_puffer_train_flag_the_policy_lacks_is_a_message_not_a_traceback(plugin_env, tmp_path, capsys):
    rc = cli.main(["train", plugin_env, *TINY, "--train.data-dir", str(tmp_path), "--policy.hidden-size", "32"])
    err = capsys.readouterr().err
    assert rc != 0 and "does not accept the [policy] key(s) hidden_size" in err and "Traceback" not in err


def test_choosing_another_class_leaves_the_plugin_keys_of_its_default_policy(tmp_path, capsys):
    """A plugin's [policy] keys configure its own default policy (Atari's `cnn_width`): with
    `--policy.class` naming another class they are not an error; a value the user sets is."""
    pufferlib.register("test-widthplugin", "gymnasium.envs.classic_control:CartPoleEnv",
                       policy="tests.core.train.test_policy:SpacesStyle",
                       config={"policy": {"width": 5, "hidden_size": 32}}, overwrite=True)
    try:
        env = pufferlib.make("test-widthplugin", num_envs=2)
        section = {"width": 5, "hidden_size": 64}
        assert make_policy(env, {"policy": section}, env_id="test-widthplugin").width == 5  # its own class
        default = make_policy(env, {"policy": {**section, "hidden_size": 32, "class": "Default"}},
                              env_id="test-widthplugin")
        assert isinstance(default, models.Default) and default.hidden_size == 32  # a key it takes: passed
        with pytest.raises(pufferlib.APIUsageError, match="Default does not accept.*width"):
            make_policy(env, {"policy": {"width": 6, "class": "Default"}}, env_id="test-widthplugin")
        env.close()
        data = ["--train.data-dir", str(tmp_path)]
        assert cli.main(["train", "test-widthplugin", *TINY, *data, "--policy.class", "Default"]) == 0
        capsys.readouterr()
        assert cli.main(["train", "test-widthplugin", *TINY, *data, "--policy.class", "Default",
                         "--policy.width", "6"]) != 0
        assert "does not accept the [policy] key(s) width" in capsys.readouterr().err
    finally:
        pufferlib.registry.unregister("test-widthplugin")


def test_policy_class_is_chosen_from_flags_and_config_files_and_kept_in_the_checkpoint(tmp_path, capsys):
    from pufferlib import cli
    from pufferlib.agent import load

    data = str(tmp_path / "runs")
    tiny = ["--train.total-timesteps", "256", "--train.batch-size", "128", "--train.minibatch-size", "128",
            "--vec.num-envs", "2", "--train.data-dir", data]
    assert cli.main(["train", "gym-CartPole-v1", "--policy.class", "pufferlib.models:ActorCritic",
                     "--policy.num-layers", "3", *tiny]) == 0
    agent = load("latest", env="gym-CartPole-v1", data_dir=data)
    assert type(agent.policy).__name__ == "ActorCritic"
    assert sum(isinstance(m, torch.nn.Linear) for m in agent.policy.actor_trunk.modules()) == 3
    settings = tmp_path / "conv.toml"
    settings.write_text('[policy]\nclass = "ActorCritic"\nnum_layers = 1\n')
    assert cli.main(["train", "gym-CartPole-v1", "--config", str(settings), *tiny]) == 0
    agent = load("latest", env="gym-CartPole-v1", data_dir=data)
    assert sum(isinstance(m, torch.nn.Linear) for m in agent.policy.actor_trunk.modules()) == 1
    capsys.readouterr()
    assert cli.main(["train", "gym-CartPole-v1", "--policy.class", "Convlutional", *tiny]) == 2
    assert "Unknown policy 'Convlutional' (did you mean Convolutional?)" in capsys.readouterr().err
    assert cli.main(["train", "gym-CartPole-v1", "--policy.numlayers", "3", *tiny]) == 2
    assert "does not accept the [policy] key(s) numlayers" in capsys.readouterr().err


def test_open_section_flags_read_toml_values():
    from pufferlib.config import open_section_flags

    tree = {"policy": {"hidden_size": 64}, "env": {"length": 5}}
    layer, rest = open_section_flags(["--policy.num-layers", "3", "--env.name=maze", "--env.sizes", "[1, 2]",
                                      "--train.nope", "1", "--env.lenght", "4", "--policy.flag"], tree)
    assert layer == {"policy": {"num_layers": 3}, "env": {"name": "maze", "sizes": [1, 2]}}
    assert rest == ["--train.nope", "1", "--env.lenght", "4", "--policy.flag"]  # a typo of length stays unknown
