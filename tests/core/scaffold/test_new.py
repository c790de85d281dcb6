"""`puffer new NAME [--multiagent | --c]`: a pip-installable plugin package that installs, lists,
passes `puffer check`, passes its own tests, trains to its stated score and builds a wheel.

The package is installed into a throwaway virtualenv layered over the test one (see
overlay_venv.py): nothing stays installed. The default (Python) variant goes through the
same steps in the "Writing a plugin" guide (tests/core/test_docs.py).
"""

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

import pufferlib
from pufferlib import cli
from pufferlib.scaffold import LAYOUT, template_values, write_package
from tests.core.overlay_venv import overlay_venv


@pytest.mark.parametrize("variant", ["python", "multiagent", "c"])
def test_new_writes_a_complete_package_with_no_placeholders_left(variant, tmp_path):
    root = write_package("demo-pkg", tmp_path, variant)
    values = template_values("demo-pkg", variant)
    expected = {target.format(**values) for folder in ("common", variant) for target in LAYOUT[folder].values()}
    written = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
    assert written == expected
    for path in root.rglob("*"):
        if path.is_file():
            assert "{{" not in path.read_text(), path
    pyproject = (root / "pyproject.toml").read_text()
    assert '[project.entry-points."pufferlib.plugins"]\ndemo_pkg = "demo_pkg.plugin"' in pyproject
    plugin = (root / "demo_pkg" / "plugin.py").read_text()
    assert "import torch" not in plugin and "demo_pkg.env:" in plugin  # the entry module stays light
    if variant == "c":
        assert (root / "demo_pkg" / "csrc" / "envs" / f"{values['env_name']}.h").is_file()
        assert "def env_names()" in (root / "setup.py").read_text()  # the env list is derived, as Ocean's


def test_new_refuses_bad_names_and_non_empty_folders(tmp_path, capsys):
    assert cli.main(["new", "9lives", "--dir", str(tmp_path)]) == 2
    assert "not a valid package name" in capsys.readouterr().err
    assert cli.main(["new", "pufferlib", "--dir", str(tmp_path)]) == 2
    assert cli.main(["new", "ok-name", "--dir", str(tmp_path)]) == 0
    assert cli.main(["new", "ok-name", "--dir", str(tmp_path)]) == 2
    assert "exists and is not empty" in capsys.readouterr().err


def test_puffer_ocean_exposes_its_authoring_headers():
    import puffer_ocean

    include = Path(puffer_ocean.get_include())
    assert {"puffer.h", "binding.h", "ocean.h", "module.c"} <= {p.name for p in include.iterdir()}
    assert "OCEAN_REGISTRY" in (include / "module.c").read_text()


def _sh(env, cwd, *cmd, timeout=600):
    proc = subprocess.run(list(cmd), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("variant, flag", [("multiagent", "--multiagent"), ("c", "--c")])
def test_generated_package_installs_checks_tests_trains_and_builds_a_wheel(variant, flag, tmp_path):
    env = overlay_venv(tmp_path)
    values = template_values("demo-pkg", variant)
    _sh(env, tmp_path, "puffer", "new", "demo-pkg", flag)
    root = tmp_path / "demo-pkg"
    _sh(env, root, "pip", "install", "-e", ".")
    assert values["env_id"] in _sh(env, root, "puffer", "list")
    assert "OK:" in _sh(env, root, "puffer", "check", values["env_id"])
    _sh(env, root, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    out = _sh(env, root, "puffer", "train", values["env_id"])
    score = float(re.search(r"mean episode return (-?\d+(?:\.\d+)?)", out).group(1))
    assert score >= float(values["target_score"]), out[-2000:]
    _sh(env, root, "python", "-m", "pip", "wheel", "-w", "dist", ".")
    assert list((root / "dist").glob("demo_pkg-0.1.0-*.whl"))
    assert importlib.util.find_spec("demo_pkg") is None  # the test venv is untouched
    with pytest.raises(pufferlib.EnvNotFoundError):
        pufferlib.registry.spec(values["env_id"])
