"""Plugins are untrusted neighbours: a misbehaving one is reported and skipped, and never
changes what core or first-party ids (prefixes, entry-point names, config keys) mean."""

import sys
import threading
import types
import warnings

import pytest

import pufferlib
from pufferlib import EnvNotFoundError, EnvSpec, cli
from pufferlib.registry import plugins, prefixes, spec

from .test_registry import install_fake_distribution

MOUNTAIN_CAR = "pufferlib.registry.builtin:make_gymnasium"


def fake_plugin(**hooks):
    """A plugin object whose hooks are the given functions (named like the hooks)."""
    plugin = types.ModuleType("fake_plugin")
    for hook, function in hooks.items():
        setattr(plugin, hook, pufferlib.hookimpl(function))
    return plugin


@pytest.fixture
def register(fresh_plugins, monkeypatch):
    """Register plugin objects on a manager without the installed plugins (autoload off)."""
    monkeypatch.setenv(plugins.DISABLE_ENV_VAR, "1")

    def register(name, plugin):
        plugins.plugin_manager().register(plugin, name=name)

    return register


def boom(*args, **kwargs):
    raise RuntimeError("boom")


# -- item 2: one broken plugin must not break everything ------------------------------

def test_raising_env_specs_hook_is_reported_once_and_others_keep_working(register):
    register("bad", fake_plugin(pufferlib_env_specs=lambda: boom()))
    register("good", fake_plugin(pufferlib_env_specs=lambda: [EnvSpec("good-walk", "tests.core.envs:CountingEnv")]))
    with pytest.warns(RuntimeWarning, match=r"plugin 'bad' raised RuntimeError: boom in pufferlib_env_specs"):
        assert spec("good-walk").id == "good-walk"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reported once per (plugin, hook)
        assert spec("good-walk").id == "good-walk"
        assert "good" in pufferlib.registry.listed_specs()
        with pufferlib.make("gym-CartPole-v1", num_envs=2) as env:
            assert env.num_agents == 2
    assert [(p.plugin, p.where) for p in plugins.problems()] == [("bad", "pufferlib_env_specs")]


def test_installed_plugin_with_a_raising_hook_is_named_with_its_version(tmp_path, monkeypatch, fresh_plugins, capsys):
    source = "import pufferlib\n@pufferlib.hookimpl\ndef pufferlib_env_specs():\n    raise ValueError('bad data')\n"
    install_fake_distribution(tmp_path, "specs-plugin", "specsplugin", source, "0.4")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pufferlib.make("gym-CartPole-v1", num_envs=1) as env:
            assert env.num_agents == 1
        with pytest.warns(RuntimeWarning, match=r"plugin 'specsplugin' \(specs-plugin 0.4\) raised ValueError: "
                                                r"bad data in pufferlib_env_specs; that hook of it is skipped"):
            assert cli.main(["list"]) == 0 and "gym-<name>" in capsys.readouterr().out
    finally:
        sys.modules.pop("specsplugin", None)


@pytest.mark.parametrize("result", ["ocean-snake", [EnvSpec("x-a", "m:a"), "x-b"], {"id": "x"}])
def test_env_specs_of_the_wrong_type_are_reported_and_skipped(register, result):
    register("wrong", fake_plugin(pufferlib_env_specs=lambda: result))
    with pytest.warns(RuntimeWarning, match=r"'wrong' returned .* from pufferlib_env_specs, which should return "
                                            r"list\[EnvSpec\]"):
        assert "wrong" not in pufferlib.registry.listed_specs()
    assert spec("gym-CartPole-v1").id == "gym-CartPole-v1"


def test_prefixes_given_as_a_string_are_not_read_letter_by_letter(register):
    register("wrong", fake_plugin(pufferlib_env_prefixes=lambda: "g"))
    with pytest.warns(RuntimeWarning, match="pufferlib_env_prefixes, which should return list"):
        owners = prefixes.prefix_owners()
    assert "g" not in owners and owners["gym-"] == "core"


def test_raising_resolve_env_does_not_break_gym_ids(register):
    register("bad", fake_plugin(pufferlib_resolve_env=lambda env_id: boom()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even asked: gym- belongs to the core
        assert spec("gym-CartPole-v1").id == "gym-CartPole-v1"
    with pytest.warns(RuntimeWarning, match="'bad' raised RuntimeError: boom in pufferlib_resolve_env"):
        with pytest.raises(EnvNotFoundError, match="No environment 'walk-far'"):
            spec("walk-far")


def test_raising_config_defaults_does_not_break_the_config(register):
    register("bad", fake_plugin(pufferlib_config_defaults=lambda: boom()))
    register("good", fake_plugin(pufferlib_config_defaults=lambda: {"good": {"key": 1}}))
    from pufferlib import config

    with pytest.warns(RuntimeWarning, match="'bad' raised RuntimeError: boom in pufferlib_config_defaults"):
        defaults = config.load_default()
    assert defaults["good"] == {"key": 1} and "learning_rate" in defaults["train"]


def test_raising_loggers_hook_leaves_the_other_loggers(register):
    from pufferlib.registry.plugins import check_loggers

    register("bad", fake_plugin(pufferlib_loggers=lambda: boom()))
    register("good", fake_plugin(pufferlib_loggers=lambda: {"goodlog": "a logger"}))
    with pytest.warns(RuntimeWarning, match="'bad' raised RuntimeError: boom in pufferlib_loggers"):
        assert check_loggers(["goodlog"]) == ["goodlog"]


@pytest.mark.parametrize("statement", ["raise SystemExit(3)", "raise GeneratorExit()", "import sys; sys.exit('bye')"])
def test_entry_module_that_exits_is_reported_not_fatal(tmp_path, monkeypatch, fresh_plugins, statement):
    install_fake_distribution(tmp_path, "exit-plugin", "exitplugin", statement, "0.3")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "exitplugin", raising=False)
    with pytest.warns(RuntimeWarning, match=r"'exitplugin' \(exit-plugin 0.3\) failed to load and is skipped: "
                                            r"(SystemExit|GeneratorExit)"):
        assert spec("gym-CartPole-v1").id == "gym-CartPole-v1"
    infos = {info.name: info for info in plugins.installed_plugins()}
    assert infos["exitplugin"].error.startswith(("SystemExit", "GeneratorExit"))


def test_keyboard_interrupt_in_a_hook_still_interrupts_and_names_the_plugin(register):
    def interrupt():
        raise KeyboardInterrupt

    register("slow", fake_plugin(pufferlib_env_specs=interrupt))
    with pytest.warns(RuntimeWarning, match="plugin 'slow' was running pufferlib_env_specs when interrupted"):
        with pytest.raises(KeyboardInterrupt):
            pufferlib.registry.listed_specs()


def test_puffer_list_and_plugins_survive_a_broken_plugin_and_show_it(register, capsys):
    register("bad", fake_plugin(pufferlib_env_specs=lambda: boom()))
    register("good", fake_plugin(pufferlib_env_specs=lambda: [EnvSpec("good-walk", "tests.core.envs:CountingEnv")],
                                 pufferlib_env_prefixes=lambda: ["good-"]))
    with pytest.warns(RuntimeWarning):
        assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "good:\n  good-walk" in out and "gym-<name>" in out
    assert "bad: raised RuntimeError: boom in pufferlib_env_specs" in out
    assert cli.main(["plugins"]) == 0
    assert "bad: raised RuntimeError: boom" in capsys.readouterr().out


# -- item 3: ids, prefixes and entry-point names cannot be taken over -----------------

def test_plugin_cannot_take_over_a_core_id(register):
    takeover = EnvSpec("gym-CartPole-v1", MOUNTAIN_CAR, kwargs={"gym_id": "MountainCar-v0"},
                       config={"train": {"learning_rate": 123.0}})
    register("thief", fake_plugin(pufferlib_env_specs=lambda: [takeover]))
    resolved = spec("gym-CartPole-v1")  # the thief is not even asked
    assert resolved is not takeover and resolved.description == "gymnasium.make('CartPole-v1')"
    assert resolved.config == {}  # the thief's training config does not apply either
    with pytest.warns(RuntimeWarning, match=r"'thief' lists 'gym-CartPole-v1', but ids starting with "
                                            r"'gym-' belong to plugin 'core' \(puffer-core .*\); ignored"):
        assert "thief" not in pufferlib.registry.listed_specs()
    assert spec("gym-CartPole-v1").description == resolved.description


def test_first_party_prefixes_are_reserved_even_when_not_installed(register):
    register("thief", fake_plugin(pufferlib_env_specs=lambda: [EnvSpec("ocean-snake", MOUNTAIN_CAR),
                                                               EnvSpec("thief-walk", MOUNTAIN_CAR,
                                                                       aliases=("atari-walk",))],
                                  pufferlib_env_prefixes=lambda: ["babyai-", "thief-"],
                                  pufferlib_resolve_env=lambda env_id: EnvSpec(env_id, MOUNTAIN_CAR)))
    with pytest.raises(EnvNotFoundError, match="puffer-ocean"):
        spec("ocean-snake")
    with pytest.raises(EnvNotFoundError, match="puffer-minigrid"):
        spec("babyai-goto")  # its resolve hook is not asked for another plugin's prefix
    with pytest.raises(EnvNotFoundError, match="puffer-atari"):
        spec("atari-walk")
    with pytest.warns(RuntimeWarning) as record:
        pufferlib.registry.listed_specs()
    messages = "\n".join(str(w.message) for w in record)
    assert "'thief' lists 'ocean-snake', but ids starting with 'ocean-' belong to plugin 'ocean'" in messages
    assert "'thief' lists 'atari-walk', but ids starting with 'atari-' belong to plugin 'atari'" in messages
    assert ("'thief' claims the id prefix 'babyai-', but ids starting with 'babyai-' belong to plugin "
            "'minigrid'") in messages
    assert spec("thief-walk").id == "thief-walk" and spec("thief-other").id == "thief-other"


def test_two_plugins_listing_one_id_first_wins_and_both_are_named(register):
    first = EnvSpec("walk-easy", MOUNTAIN_CAR, description="first")
    register("first", fake_plugin(pufferlib_env_specs=lambda: [first]))
    register("second", fake_plugin(pufferlib_env_specs=lambda: [EnvSpec("Walk-Easy", MOUNTAIN_CAR)]))
    with pytest.warns(RuntimeWarning, match="plugin 'second' lists 'Walk-Easy', but 'first' lists it first"):
        assert spec("walk-easy") is first and spec("Walk-Easy") is first


def test_second_claim_of_a_prefix_is_reported_with_both_names(register):
    register("first", fake_plugin(pufferlib_env_prefixes=lambda: ["walk-"],
                                  pufferlib_resolve_env=lambda env_id: EnvSpec(env_id, MOUNTAIN_CAR, description="1")))
    register("second", fake_plugin(pufferlib_env_prefixes=lambda: ["walk-far-"],
                                   pufferlib_resolve_env=lambda env_id: EnvSpec(env_id, MOUNTAIN_CAR, description="2")))
    with pytest.warns(RuntimeWarning, match="'second' claims the id prefix 'walk-far-', but ids starting "
                                            "with 'walk-' belong to plugin 'first'"):
        assert spec("walk-far-away").description == "1"


def test_puffer_list_shows_id_conflicts(register, capsys):
    register("thief", fake_plugin(pufferlib_env_specs=lambda: [EnvSpec("gym-CartPole-v1", MOUNTAIN_CAR)]))
    with pytest.warns(RuntimeWarning):
        assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "\nthief:\n" not in out
    assert "problems" in out
    assert "thief: lists 'gym-CartPole-v1', but ids starting with 'gym-' belong to plugin 'core'" in out


def test_first_party_entry_point_name_loads_only_from_its_distribution(tmp_path, monkeypatch, fresh_plugins):
    monkeypatch.setitem(plugins.FIRST_PARTY, "party", ("puffer-party", ("party-",)))
    genuine = "import pufferlib\n@pufferlib.hookimpl\ndef pufferlib_env_specs():\n" \
              "    return [pufferlib.EnvSpec('party-walk', 'm:a', description='genuine')]\n"
    impostor = genuine.replace("genuine", "impostor")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    install_fake_distribution(tmp_path / "a", "party-impostor", "impostorparty", impostor, "6.6", entry_name="party")
    install_fake_distribution(tmp_path / "b", "puffer_party", "genuineparty", genuine, "1.0", entry_name="party")
    monkeypatch.syspath_prepend(str(tmp_path / "b"))
    monkeypatch.syspath_prepend(str(tmp_path / "a"))  # the impostor is found first
    try:
        with pytest.warns(RuntimeWarning, match=r"'party' \(party-impostor 6.6\) is skipped: entry-point name "
                                                r"'party' is reserved for puffer-party"):
            assert spec("party-walk").description == "genuine"
        assert plugins.is_first_party("party")
        assert plugins.label("party") == "'party' (puffer_party 1.0)"
    finally:
        for module in ("impostorparty", "genuineparty"):
            sys.modules.pop(module, None)


def test_second_distribution_with_a_taken_entry_point_name_is_reported(tmp_path, monkeypatch, fresh_plugins, capsys):
    source = "import pufferlib\n@pufferlib.hookimpl\ndef pufferlib_env_prefixes():\n    return ['walk-']\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    install_fake_distribution(tmp_path / "a", "walk-one", "walkone", source, "1.0", entry_name="walk")
    install_fake_distribution(tmp_path / "b", "walk-two", "walktwo", source, "2.0", entry_name="walk")
    monkeypatch.syspath_prepend(str(tmp_path / "b"))
    monkeypatch.syspath_prepend(str(tmp_path / "a"))
    try:
        with pytest.warns(RuntimeWarning, match=r"'walk' \(walk-two 2.0\) is skipped: entry-point name 'walk' is "
                                                r"already taken by plugin 'walk' \(walk-one 1.0\)"):
            assert cli.main(["list"]) == 0
        out = capsys.readouterr().out
        assert "walk: (walk-two 2.0) is skipped: entry-point name 'walk' is already taken" in out
        assert "walk:\n  walk-<name>" in out  # the first one keeps it
    finally:
        for module in ("walkone", "walktwo"):
            sys.modules.pop(module, None)


# -- item 4: plugin config defaults only add ------------------------------------------

def test_plugin_defaults_cannot_override_core_hyperparameters(register):
    from pufferlib import config

    core = config.load_default()
    register("greedy", fake_plugin(pufferlib_config_defaults=lambda: {
        "train": {"learning_rate": 123.0, "greedy_extra": 1}, "vec": {"num_envs": 99}, "greedy": {"project": "p"}}))
    with pytest.warns(RuntimeWarning) as record:
        defaults = config.load_default()
    assert defaults["train"]["learning_rate"] == core["train"]["learning_rate"] != 123.0
    assert defaults["vec"] == core["vec"]
    assert defaults["train"]["greedy_extra"] == 1 and defaults["greedy"] == {"project": "p"}  # additions stay
    messages = [str(w.message) for w in record]
    assert any("'greedy' sets a default for train.learning_rate, which already exists; ignored" in m for m in messages)
    assert any("'greedy' sets a default for vec.num_envs," in m for m in messages)


def test_second_plugin_cannot_override_a_section_that_another_added(register):
    from pufferlib import config

    register("one", fake_plugin(pufferlib_config_defaults=lambda: {"shared": {"project": "one"}}))
    register("two", fake_plugin(pufferlib_config_defaults=lambda: {"shared": {"project": "two", "tags": []}}))
    with pytest.warns(RuntimeWarning, match="'two' sets a default for shared.project"):
        assert config.load_default()["shared"] == {"project": "one", "tags": []}


# -- item 5: trainer hooks that raise do not abort training ----------------------------

def test_raising_trainer_hooks_are_reported_and_the_run_goes_on(register, tmp_path):
    from tests.core.train.test_pufferl_train import cartpole_trainer

    calls = []
    register("uploader", fake_plugin(pufferlib_train_start=lambda trainer: boom(),
                                     pufferlib_train_log=lambda trainer, step, metrics: boom(),
                                     pufferlib_checkpoint=lambda trainer, path: boom(),
                                     pufferlib_train_end=lambda trainer, metrics: boom()))
    register("recorder", fake_plugin(pufferlib_checkpoint=lambda trainer, path: calls.append(path)))
    with pytest.warns(RuntimeWarning) as record:
        trainer = cartpole_trainer(tmp_path, total_timesteps=512)
        while not trainer.done_training():
            trainer.evaluate()
            trainer.train()
        trainer.mean_and_log()
        path = trainer.save_checkpoint()
        trainer.close()
    hooks = sorted(p.where for p in plugins.problems() if p.plugin == "uploader")
    assert hooks == ["pufferlib_checkpoint", "pufferlib_train_end", "pufferlib_train_log", "pufferlib_train_start"]
    assert sum("'uploader' raised RuntimeError: boom" in str(w.message) for w in record) == 4
    assert calls and calls[-1] == str(path) and trainer.global_step >= 512


# -- item 6: autoload off is said as such ----------------------------------------------

def test_disabled_autoload_is_named_instead_of_pip_install(tmp_path, monkeypatch, fresh_plugins):
    monkeypatch.setitem(plugins.FIRST_PARTY, "party", ("puffer-party", ("party-",)))
    monkeypatch.setitem(plugins.FIRST_PARTY, "absent", ("puffer-absent", ("absent-",)))
    install_fake_distribution(tmp_path, "puffer-party", "genuineparty", "", "1.0", entry_name="party")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(plugins.DISABLE_ENV_VAR, "1")
    with pytest.raises(EnvNotFoundError) as installed:
        spec("party-walk")
    message = str(installed.value)
    assert f"plugin autoloading is off ({plugins.DISABLE_ENV_VAR} is set): unset it" in message
    assert "pip install" not in message
    with pytest.raises(EnvNotFoundError, match="autoloading is off .* and pip install puffer-absent"):
        spec("absent-walk")
    with pytest.raises(EnvNotFoundError, match="Plugin autoloading is off"):
        spec("nobody-walk")


# -- the listing is cached until plugins or registrations change -------------------------

def test_lookups_list_once_and_a_change_of_plugins_lists_again(register):
    calls = []

    def specs():
        calls.append(1)
        return [EnvSpec("cached-a", "gymnasium.envs.classic_control:CartPoleEnv")]

    register("lister", fake_plugin(pufferlib_env_specs=specs))
    assert spec("cached-a").id == "cached-a"
    assert spec("cached-a").id == "cached-a"
    pufferlib.registry.listed_specs()
    assert len(calls) == 1
    register("other", fake_plugin(pufferlib_env_specs=lambda: [EnvSpec("cached-b", "x.y:Z")]))
    assert spec("cached-b").id == "cached-b"
    assert len(calls) == 2
    pufferlib.register("cached-local", "x.y:Z")
    try:
        assert "local" in pufferlib.registry.listed_specs()
        assert len(calls) == 2  # a registration in this process asks no plugin again
    finally:
        pufferlib.registry.unregister("cached-local")
    plugins.plugin_manager().unregister(name="other")
    with pytest.raises(EnvNotFoundError):
        spec("cached-b")


# -- a slow or hanging plugin holds nothing up, and is named ----------------------------

@pytest.fixture
def hanging(register):
    """Register plugin 'hanging', whose declaration hooks record their calls, then block until the
    test ends; yields the list of calls. The blocked threads are released and joined afterwards."""
    calls, release = [], threading.Event()

    def blocks(hook, result):
        def hook_function():
            calls.append(hook)
            release.wait(30)
            return result
        return hook_function

    register("hanging", fake_plugin(pufferlib_env_specs=blocks("specs", [EnvSpec("hang-walk", MOUNTAIN_CAR)]),
                                    pufferlib_env_prefixes=blocks("prefixes", ["hang-"])))
    yield calls
    release.set()
    for thread in threading.enumerate():
        if thread.name.startswith("pufferlib watched"):
            thread.join(5)


def test_core_and_first_party_ids_never_call_another_plugins_hooks(hanging):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pufferlib.make("gym-CartPole-v1", num_envs=1) as env:
            assert env.num_agents == 1
        with pytest.raises(EnvNotFoundError, match="Its ids come from puffer-ocean"):
            spec("ocean-squared")  # its first-party owner is not loaded here; nobody else is asked
    assert hanging == []


def test_slow_listing_hook_is_named_then_skipped_at_its_deadline(hanging, monkeypatch, capsys):
    monkeypatch.setattr(plugins, "SLOW_HOOK_S", 0.05)
    monkeypatch.setattr(plugins, "HOOK_DEADLINE_S", 0.2)
    with pytest.warns(RuntimeWarning) as record:
        assert cli.main(["list"]) == 0
    messages = "\n".join(str(w.message) for w in record)
    for hook in ("pufferlib_env_prefixes", "pufferlib_env_specs"):
        assert f"plugin 'hanging' is slow: {hook} has not returned after 0.05 s" in messages
        assert f"plugin 'hanging' did not return from {hook} within 0.2 s" in messages
    out = capsys.readouterr().out
    assert "gym-<name>" in out and "hang-walk" not in out
    assert "hanging: did not return from pufferlib_env_specs within 0.2 s" in out


def test_puffer_plugins_lists_without_calling_hooks(hanging, capsys):
    assert cli.main(["plugins"]) == 0
    assert "core" in capsys.readouterr().out and hanging == []


def test_slow_entry_module_import_is_named(tmp_path, monkeypatch, fresh_plugins):
    monkeypatch.setattr(plugins, "SLOW_HOOK_S", 0.05)
    install_fake_distribution(tmp_path, "slow-plugin", "slowplugin", "import time\ntime.sleep(0.1)\n", "0.2")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slowplugin", raising=False)
    with pytest.warns(RuntimeWarning, match=r"plugin 'slowplugin' \(slow-plugin 0.2\) took 0.1 s to import; "
                                            r"a plugin's entry module .* should import nothing heavy"):
        plugins.installed_plugins()
    assert [p.where for p in plugins.problems() if p.plugin == "slowplugin"] == ["import"]
    sys.modules.pop("slowplugin", None)
