"""`puffer new`: the names of the new package come from NAME, and names or id prefixes that are
taken (installed, importable, first-party, or another plugin's) are refused before anything
is written, with one line naming the clash."""

import sys

import pytest

from pufferlib import EnvSpec, cli
from pufferlib.registry import plugins
from pufferlib.scaffold import template_values
from tests.core.registry.test_plugins import fake_plugin
from tests.core.registry.test_registry import install_fake_distribution


@pytest.fixture
def register(fresh_plugins, monkeypatch):
    """Register plugin objects on a manager without the installed plugins (autoload off)."""
    monkeypatch.setenv(plugins.DISABLE_ENV_VAR, "1")
    return lambda name, plugin: plugins.plugin_manager().register(plugin, name=name)


def refusal(argv, dest, capsys) -> str:
    """The one-line error of `puffer new ARGV --dir DEST` (exit status 2); checks nothing was written."""
    assert cli.main(["new", *argv, "--dir", str(dest)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("puffer new: error: ") and err.count("\n") == 1, err
    assert not dest.exists() or list(dest.iterdir()) == []
    return err


def test_ids_and_prefix_come_from_the_whole_import_name():
    first, second = template_values("mygame", "python"), template_values("mygame_c", "c")
    assert (first["prefix"], first["env_id"]) == ("mygame-", "mygame-walk")
    assert (second["prefix"], second["env_id"]) == ("mygame_c-", "mygame_c-walk")
    assert not second["prefix"].startswith(first["prefix"])  # a nested prefix belongs to whichever loads first


def test_the_prefix_flag_sets_the_ids(tmp_path, capsys):
    assert cli.main(["new", "mygame-c", "--prefix", "mgc-", "--dir", str(tmp_path)]) == 0
    plugin = (tmp_path / "mygame-c" / "mygame_c" / "plugin.py").read_text()
    assert 'ENV_ID = "mgc-walk"' in plugin and 'return ["mgc-"]' in plugin
    assert "(mgc-walk)" in capsys.readouterr().out
    assert "ending with '-' or '_'" in refusal(["other", "--prefix", "mgc"], tmp_path / "other", capsys)


@pytest.mark.parametrize("argv, clash", [
    (["clash-pkg"], "the id prefix 'clash_pkg-' belongs to plugin 'other'"),  # the default prefix
    (["fine-pkg", "--prefix", "clash_pkg-x-"], "'clash_pkg-x-' overlaps 'clash_pkg-', which belongs to plugin"),
    (["fine-pkg", "--prefix", "clash_"], "'clash_' overlaps 'clash_pkg-'"),  # would own the other's ids
    (["fine-pkg", "--prefix", "listed-"], "would take 'listed-env', listed by plugin 'other'"),
    (["fine-pkg", "--prefix", "procgen-"], "belongs to PufferLib's puffer-procgen"),  # installed or not
    (["babyai"], "the id prefix 'babyai-' belongs to PufferLib's puffer-minigrid"),  # the default prefix
], ids=["default-prefix", "inside-another", "around-another", "over-a-listed-id", "first-party", "first-party-default"])
def test_a_prefix_another_plugin_owns_or_lists_ids_under_is_refused(argv, clash, register, tmp_path, capsys):
    register("other", fake_plugin(pufferlib_env_prefixes=lambda: ["clash_pkg-"],
                                  pufferlib_env_specs=lambda: [EnvSpec("listed-env", "tests.core.envs:CountingEnv")]))
    err = refusal(argv, tmp_path, capsys)
    assert clash in err and "--prefix" in err


@pytest.mark.parametrize("name, why", [
    ("numpy", "is installed: `pip install` of a package named 'numpy' would replace it"),
    ("torch", "is installed"),
    ("gymnasium", "is installed"),
    ("puffer-atari", "reserved for PufferLib's first-party plugin puffer-atari"),
    ("ocean", "reserved for PufferLib's first-party plugin puffer-ocean (entry point 'ocean')"),
    ("json", "the import name 'json' of 'json' is taken by a module of Python's standard library"),
    ("some_module", "is taken by the module at"),
], ids=["numpy", "torch", "gymnasium", "puffer-atari", "ocean", "json", "importable-module"])
def test_names_that_are_taken_are_refused(name, why, tmp_path, capsys, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "some_module.py").write_text("")  # importable, though no distribution installed it
    monkeypatch.syspath_prepend(str(site))
    assert why in refusal([name], tmp_path / "out", capsys)


def test_an_entry_point_name_an_installed_plugin_uses_is_refused(fresh_plugins, tmp_path, capsys, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    install_fake_distribution(site, "other-dist", "otherdist", "", entry_name="walker")
    monkeypatch.syspath_prepend(str(site))
    try:
        assert "the entry-point name 'walker' is used by the installed plugin other-dist" in \
            refusal(["walker"], tmp_path / "out", capsys)
    finally:
        sys.modules.pop("otherdist", None)  # imported by plugin discovery
