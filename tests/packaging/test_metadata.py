"""Distribution names, versions and the core/plugin compatibility check."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib
from packaging.requirements import Requirement
from packaging.version import Version

import pufferlib
from pufferlib.registry import spec

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_DIRS = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))
FOREIGN = "pufferlib-core"  # an unrelated project on the package index


def core_requirement(pyproject: Path) -> Requirement:
    """The single puffer-core requirement a plugin's pyproject.toml declares."""
    deps = [Requirement(d) for d in tomllib.loads(pyproject.read_text())["project"]["dependencies"]]
    found = [r for r in deps if r.name == "puffer-core"]
    assert len(found) == 1, f"{pyproject}: expected one puffer-core requirement, got {deps}"
    return found[0]


def test_no_file_names_the_foreign_pufferlib_core_as_a_dependency():
    for pyproject in [ROOT / "pyproject.toml", *(d / "pyproject.toml" for d in PLUGIN_DIRS)]:
        project = tomllib.loads(pyproject.read_text())["project"]
        assert project["name"] != FOREIGN
        requirements = project.get("dependencies", []) + sum(project.get("optional-dependencies", {}).values(), [])
        assert all(Requirement(r).name != FOREIGN for r in requirements), pyproject


@pytest.mark.parametrize("plugin_dir", PLUGIN_DIRS, ids=lambda p: p.name)
def test_plugin_pins_the_core_to_a_bounded_range_holding_this_version(plugin_dir):
    specifier = core_requirement(plugin_dir / "pyproject.toml").specifier
    assert any(s.operator == "<" for s in specifier) and any(s.operator == ">=" for s in specifier), specifier
    assert Version(pufferlib.__version__) in specifier


@pytest.mark.parametrize("project_dir", [ROOT, *PLUGIN_DIRS], ids=lambda p: p.name)
def test_version_is_read_from_the_package_not_written_in_pyproject(project_dir):
    pyproject = tomllib.loads((project_dir / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"]["attr"].endswith(".__version__")


def test_installed_versions_come_from_the_packages_own_version_attribute():
    assert importlib.metadata.version("puffer-core") == pufferlib.__version__ == pufferlib.version()
    installed = [d for d in PLUGIN_DIRS if d.name in {canonical(x) for x in importlib.metadata.distributions()}]
    assert installed, "no plugin of plugins/ is installed"
    for plugin_dir in installed:
        module = plugin_dir.name.replace("-", "_")
        declared = __import__(module).__version__
        assert importlib.metadata.version(plugin_dir.name) == declared, plugin_dir.name


def canonical(dist: importlib.metadata.Distribution) -> str:
    return dist.metadata["Name"].lower().replace("_", "-")


def write_distribution(root: Path, name: str, version: str, requires: list[str], entry_point: str | None = None):
    """A .dist-info as pip writes it: METADATA (with Requires-Dist) and optionally an entry point."""
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
             *(f"Requires-Dist: {r}" for r in requires)]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    if entry_point:
        (info / "entry_points.txt").write_text(f"[pufferlib.plugins]\n{entry_point} = {entry_point}\n")


PLUGIN_SOURCE = '''
import pufferlib
from pufferlib.registry import spec
from pufferlib import EnvSpec

@pufferlib.hookimpl
def pufferlib_env_specs():
    return [EnvSpec("{id}", "gymnasium.envs.classic_control:CartPoleEnv")]
'''


def test_plugin_built_for_another_core_is_skipped_with_a_warning(tmp_path, monkeypatch, fresh_plugins):
    from pufferlib.registry.plugins import installed_plugins

    current = Version(pufferlib.__version__)
    write_distribution(tmp_path, "old-plugin", "0.0.1", [f"puffer-core<{current.major}.{current.minor}", "numpy"],
                       "oldplugin")
    (tmp_path / "oldplugin.py").write_text("raise AssertionError('an incompatible plugin must not be imported')")
    write_distribution(tmp_path, "good-plugin", "1.0", [f"puffer-core>={current.major}.{current.minor}"], "goodplugin")
    (tmp_path / "goodplugin.py").write_text(PLUGIN_SOURCE.format(id="good-cartpole"))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.warns(RuntimeWarning, match=r"'oldplugin' \(old-plugin 0.0.1\) is skipped: it requires "
                                                r"puffer-core<\d+\.\d+ but this is puffer-core"):
            infos = {info.name: info for info in installed_plugins()}
        assert "pip install --upgrade old-plugin puffer-core" in infos["oldplugin"].error
        assert "oldplugin" not in sys.modules
        assert infos["goodplugin"].error is None
        assert spec("good-cartpole").id == "good-cartpole"
    finally:
        sys.modules.pop("goodplugin", None)


def test_requirement_only_under_an_extra_is_not_judged(tmp_path):
    from pufferlib.registry.plugins import _core_incompatibility

    write_distribution(tmp_path, "extra-plugin", "1.0", ['puffer-core<0.0.1; extra == "legacy"'])
    dist = importlib.metadata.PathDistribution(next(tmp_path.glob("*.dist-info")))
    assert _core_incompatibility(dist) is None
    write_distribution(tmp_path, "pinned-plugin", "1.0", ["puffer-core==0.0.1"])
    dist = importlib.metadata.PathDistribution(tmp_path / "pinned_plugin-1.0.dist-info")
    assert "requires puffer-core==0.0.1" in _core_incompatibility(dist)


def run_import(extra_path: Path | None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(extra_path), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-W", "error", "-c", "import pufferlib"], capture_output=True, text=True,
                          env=env, cwd=extra_path or ROOT, timeout=60)


@pytest.mark.parametrize("other", ["pufferlib", FOREIGN])
def test_import_says_when_another_distribution_of_the_pufferlib_package_is_installed(tmp_path, other):
    write_distribution(tmp_path, other, "3.0.23", [])
    result = run_import(tmp_path)
    assert result.returncode != 0  # -W error: the warning became the exception
    folder = tmp_path / f"{other.replace('-', '_')}-3.0.23.dist-info"
    assert f"RuntimeWarning: pufferlib: {folder} is installed in this environment" in result.stderr
    assert "pip uninstall pufferlib pufferlib-core" in result.stderr


def test_import_is_silent_without_a_conflicting_distribution():
    result = run_import(None)
    assert result.returncode == 0 and result.stderr == ""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pufferlib._warn_about_conflicting_distributions()
