"""`puffer new NAME [--multiagent | --c]`: a pip-installable plugin package that installs, lists,
passes `puffer check`, passes its own tests, trains to its stated score and builds a wheel.

The package is installed into a throwaway virtualenv layered over the test one (see
overlay_venv.py): nothing stays installed. The default (Python) variant goes through the
same steps in the "Writing a plugin" guide (tests/core/test_docs.py).
"""

import ast
import fnmatch
import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pufferlib
from pufferlib import cli
from pufferlib._compat import tomllib
from pufferlib.scaffold import LAYOUT, package_files, template_values, write_package
from tests.core.overlay_venv import overlay_venv


@pytest.mark.parametrize("variant", ["python", "multiagent", "c"])
def test_new_writes_a_complete_package_with_no_placeholders_left(variant, tmp_path):
    root = write_package("demo-pkg", tmp_path, variant)
    values = template_values("demo-pkg", variant)
    written = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
    assert written == set(package_files(values, variant))
    rendered = {target.format(**values) for folder in ("common", variant) for target in LAYOUT[folder].values()}
    for path in rendered:
        assert "{{" not in (root / path).read_text(), path
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


def test_force_never_overwrites_a_pyproject_toml_the_scaffold_did_not_write(tmp_path, capsys):
    mine = tmp_path / "my-proj"
    mine.mkdir()
    (mine / "pyproject.toml").write_text('[project]\nname = "my-proj"\nversion = "3.1"\n')
    (mine / "README.md").write_text("my notes")
    assert cli.main(["new", "my-proj", "--dir", str(tmp_path), "--force"]) == 2
    err = capsys.readouterr().err
    assert f"{mine / 'pyproject.toml'} exists" in err and "replaces only the scaffold's own files" in err
    assert err.count("\n") == 1
    assert (mine / "pyproject.toml").read_text() == '[project]\nname = "my-proj"\nversion = "3.1"\n'
    assert (mine / "README.md").read_text() == "my notes" and sorted(p.name for p in mine.iterdir()) == [
        "README.md", "pyproject.toml"]  # nothing written


def test_force_rewrites_its_own_package_and_writes_beside_foreign_files(tmp_path):
    root = write_package("demo-pkg", tmp_path)
    (root / "README.md").write_text("edited")
    (root / "notes.txt").write_text("mine")
    assert write_package("demo-pkg", tmp_path, force=True) == root  # its own pyproject.toml: regenerated
    assert "edited" not in (root / "README.md").read_text() and (root / "notes.txt").read_text() == "mine"
    other = tmp_path / "other-pkg"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    write_package("other-pkg", tmp_path, force=True)  # nothing of the package there yet: no file replaced
    assert (other / "pyproject.toml").is_file() and (other / "notes.txt").read_text() == "mine"


def test_force_never_writes_through_a_symlink_out_of_the_folder(tmp_path):
    from pufferlib.errors import APIUsageError

    root = write_package("demo-pkg", tmp_path / "pkgs")
    victim = tmp_path / "victim.md"
    victim.write_text("precious")
    (root / "README.md").unlink()
    (root / "README.md").symlink_to(victim)
    with pytest.raises(APIUsageError, match="README.md leads out of .* \\(a symlink\\)"):
        write_package("demo-pkg", tmp_path / "pkgs", force=True)
    assert victim.read_text() == "precious"


def test_in_the_way_too_long_and_unwritable_are_one_line_errors(tmp_path, capsys, monkeypatch):
    (tmp_path / "taken").write_text("")

    def refused(argv, dest):
        assert cli.main(["new", *argv, "--dir", str(dest)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("puffer new: error: ") and err.count("\n") == 1, err
        return err

    assert "taken is in the way: it is a file" in refused(["taken"], tmp_path)
    assert "300 characters long; use at most 64" in refused(["a" * 300], tmp_path)
    assert "cannot write" in refused(["fine"], tmp_path / "taken")  # --dir is a file

    def unwritable(path, *args, **kwargs):  # simulated: the tests may run as root, who may write anywhere
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(Path, "write_text", unwritable)
    assert "Permission denied; free that path or choose another folder" in refused(["fine"], tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []  # the package folder it had made is removed again


def test_generated_modules_import_on_python_3_10_which_has_no_tomllib(tmp_path, monkeypatch):
    import pufferlib.config  # noqa: F401  (imported already in a real 3.10 process, reading TOML with tomli)

    root = write_package("demo-310", tmp_path)
    for path in root.rglob("*.py"):
        ast.parse(path.read_text(), str(path), feature_version=(3, 10))
    monkeypatch.setitem(sys.modules, "tomllib", None)  # `import tomllib` raises ImportError, as on 3.10
    monkeypatch.syspath_prepend(str(root))
    try:
        assert importlib.import_module("demo_310.plugin").train_config()["vec"]["num_envs"] == 8
    finally:
        for module in [m for m in sys.modules if m.split(".")[0] == "demo_310"]:
            del sys.modules[module]


def _globbed(relative: str, pattern: str) -> bool:
    """Whether setuptools' package-data glob `pattern` (no '**') takes the file `relative`."""
    parts, globs = relative.split("/"), pattern.split("/")
    return len(parts) == len(globs) and all(fnmatch.fnmatchcase(p, g) for p, g in zip(parts, globs))


def test_c_package_builds_from_its_own_files_and_its_readme_says_how_to_rebuild_and_publish(tmp_path):
    root = write_package("demo-c", tmp_path, "c")
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    assert [r for r in pyproject["build-system"]["requires"] if not r.startswith(("setuptools", "wheel"))] == []
    assert "puffer_ocean" not in (root / "setup.py").read_text()
    csrc, patterns = root / "demo_c" / "csrc", pyproject["tool"]["setuptools"]["package-data"]["demo_c"]
    assert {"module.c", "puffer.h", "binding.h", "LICENSE.puffer-ocean"} <= {p.name for p in csrc.iterdir()}
    for path in csrc.rglob("*"):
        if path.is_file():  # in the sdist, so that it builds wherever it is installed
            assert any(_globbed(path.relative_to(csrc.parent).as_posix(), p) for p in patterns), path
            for included in re.findall(r'#include\s+"([^"]+)"', path.read_text()):
                if not included.startswith("envs/_gen/"):  # written by setup.py at build time
                    assert (path.parent / included).is_file() or (csrc / included).is_file(), (path, included)
    readme = (root / "README.md").read_text()
    assert "python setup.py build_ext --inplace" in readme  # an edit of the C code needs a rebuild
    assert "cibuildwheel" in readme and "for this machine only" in readme  # a local wheel is not for the index


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
    assert (tmp_path / "pytest").is_dir()  # its temporary folders go under ours, not /tmp/pytest-of-USER
    out = _sh(env, root, "puffer", "train", values["env_id"])
    score = float(re.search(r"mean episode return (-?\d+(?:\.\d+)?)", out).group(1))
    assert score >= float(values["target_score"]), out[-2000:]
    hidden = tmp_path / "hidden" / "puffer_ocean"  # the build must not need puffer-ocean (nor an index)
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('puffer_ocean is hidden from this build')\n")
    offline = {**env, "PYTHONPATH": str(hidden.parent)}
    _sh(offline, root, "python", "-m", "pip", "wheel", "--no-deps", "--no-index", "--no-build-isolation", "-w", "dist",
        ".")
    assert list((root / "dist").glob("demo_pkg-0.1.0-*.whl" if variant == "c" else "demo_pkg-0.1.0-py3-none-any.whl"))
    if variant == "c":  # the README's edit-build loop: an edited header takes effect after build_ext --inplace
        header = root / "demo_pkg" / "csrc" / "envs" / f"{values['env_name']}.h"
        header.write_text(header.read_text().replace("P(int, size, 7, 3, 255)", "P(int, size, 9, 3, 255)"))
        _sh(offline, root, "python", "setup.py", "build_ext", "--inplace")
        params = _sh(env, root, "python", "-c", f"import demo_pkg._ocean as m; print(m.params({values['env_name']!r}))")
        assert "('size', 'int', 9.0" in params, params
    assert importlib.util.find_spec("demo_pkg") is None  # the test venv is untouched
    with pytest.raises(pufferlib.EnvNotFoundError):
        pufferlib.registry.spec(values["env_id"])
