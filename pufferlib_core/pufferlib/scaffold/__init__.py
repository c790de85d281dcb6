"""`puffer new NAME`: write a pip-installable env plugin package.

The package holds pyproject.toml (with the `pufferlib.plugins` entry point), a light
plugin module (the EnvSpec), an env, a policy, a default training config (train.toml),
tests (the checker and a short PPO run to the stated score) and a README. Variants:
the default single-agent Python env, `--multiagent` (a cooperative multi-agent env) and
`--c` (a C env, stepped by puffer-ocean's `OceanEnv`).

Names come from NAME and are checked before anything is written (`pufferlib.scaffold.names`):
a package whose distribution, import, entry-point name or id prefix is taken is refused.

The files come from `pufferlib/scaffold/templates/` (package data): `common/` for every variant,
then the variant's folder, whose template of the same name replaces the common one; `{{key}}`
placeholders are filled from `template_values`. The C variant also gets PufferLib's C env
framework (module.c and the authoring headers of the installed puffer-ocean,
`puffer_ocean.get_include()`) copied into `<package>/csrc/` with puffer-ocean's license, so it
builds with setuptools alone, offline, in the layout puffer-ocean's own envs use; its
setup.py derives its env list from `csrc/envs/*.h` as puffer-ocean's does.

Writing: an existing file, or a non-empty folder without `force`, in the way is refused.
`force` writes into a non-empty folder, and replaces files there only in a package this
scaffold wrote for the same name (its pyproject.toml names the project NAME and declares the
`pufferlib.plugins` entry point `<package> = "<package>.plugin"`); otherwise a file of the
package that is already there (the user's own pyproject.toml, say) is refused, naming it. A path
that leads out of the folder (a symlink) is never written through. An OSError while writing is
an APIUsageError naming the path, and a folder this call created is removed again.

This is the one scaffold for a new env package. `scripts/env_template.py` is not a second one:
it holds worked single-file examples of env patterns that the user guide runs and reads.
"""

from __future__ import annotations

import importlib
import re
import shutil
from importlib import resources
from pathlib import Path

from pufferlib.errors import APIUsageError
from pufferlib.scaffold.names import check_free, derive

__all__ = ["LAYOUT", "VARIANTS", "package_files", "render", "template_values", "write_package"]

VARIANTS = ("python", "multiagent", "c")

#: template file -> path in the package ({package} and {env_name} are filled in), per folder.
LAYOUT: dict[str, dict[str, str]] = {
    "common": {"pyproject.toml": "pyproject.toml", "README.md": "README.md", "__init__.py": "{package}/__init__.py",
               "plugin.py": "{package}/plugin.py", "policy.py": "{package}/policy.py",
               "train.toml": "{package}/train.toml", "test_env.py": "tests/test_env.py",
               "test_train.py": "tests/test_train.py"},
    "python": {"env.py": "{package}/env.py"},
    "multiagent": {"env.py": "{package}/env.py"},
    "c": {"env.py": "{package}/env.py", "setup.py": "setup.py", "env.h": "{package}/csrc/envs/{env_name}.h",
          "pyproject.toml": "pyproject.toml", "README.md": "README.md"},
}
#: Where the C variant's copy of PufferLib's C env framework goes, and its license file there.
C_FRAMEWORK = "{package}/csrc"
C_LICENSE = "LICENSE.puffer-ocean"


def template_values(name: str, variant: str, prefix: str | None = None) -> dict[str, str]:
    """The placeholders of the templates for package `name` (e.g. 'my-plugin').

    `prefix` is the env-id prefix (default: the import name and '-'). Raises APIUsageError for
    a malformed name, prefix or variant; whether the names are free is `names.check_free`'s job.
    """
    if variant not in VARIANTS:
        raise APIUsageError(f"variant must be one of {VARIANTS}, got {variant!r}.")
    names = derive(name, prefix)
    package = names.package
    base = "".join(part.capitalize() for part in package.split("_"))
    multi = variant == "multiagent"
    flags = {"python": "", "multiagent": " --multiagent", "c": " --c"}[variant]
    values = {
        "name": name, "package": package, "prefix": names.prefix,
        "env_id": f"{names.prefix}{'team' if multi else 'walk'}",
        "Class": base + ("Team" if multi else "Walk"), "env_name": f"{package}_walk",
        "description": "cooperative navigation in a corridor" if multi else "walk to the goal end of a corridor",
        "backend": "pufferlib.NATIVE" if variant == "c" else "None",
        "target_score": "0.8", "num_envs": "8" if variant != "c" else "64",
        "timesteps": "30_000" if multi else "20_000",
        "flags": flags + ("" if prefix is None else f" --prefix {prefix}"),
    }
    if variant == "c":
        version = _puffer_ocean()[1]
        values.update(ocean_version=version, ocean_range=_same_minor(version))
    return values


def render(text: str, values: dict[str, str]) -> str:
    """Fill `{{key}}` placeholders; an unknown key is an error (a template bug)."""
    def sub(match: re.Match) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"template placeholder {{{{{key}}}}} has no value")
        return values[key]
    return re.sub(r"\{\{(\w+)\}\}", sub, text)


def package_files(values: dict[str, str], variant: str) -> dict[str, str]:
    """Every file of the package: its path in the package -> its text (the rendered templates,
    and for the C variant the copied C framework)."""
    templates = resources.files("pufferlib") / "scaffold" / "templates"
    chosen = {template: (folder, target) for folder in ("common", variant)
              for template, target in LAYOUT[folder].items()}
    files = {target.format(**values): render((templates / folder / (template + ".tmpl")).read_text(), values)
             for template, (folder, target) in chosen.items()}
    if variant == "c":
        files.update(_c_framework(C_FRAMEWORK.format(**values)))
    return files


def _c_framework(folder: str) -> dict[str, str]:
    """PufferLib's C env framework for `folder`: module.c and the headers beside it in the
    installed puffer-ocean (its own envs aside), each opened by a comment saying where it came
    from, and puffer-ocean's license."""
    include, version, license_text = _puffer_ocean()
    note = (f"/* Copied from puffer-ocean {version} (puffer_ocean.get_include()) by `puffer new --c`, under "
            f"its license ({C_LICENSE}). Your envs go in envs/. */\n")
    files = {f"{folder}/{path.name}": note + path.read_text()
             for path in sorted(include.iterdir()) if path.is_file() and path.suffix in (".c", ".h")}
    files[f"{folder}/{C_LICENSE}"] = license_text
    return files


def _puffer_ocean() -> tuple[Path, str, str]:
    """The installed puffer-ocean: its C framework folder, version and license text."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        include = Path(importlib.import_module("puffer_ocean").get_include())
        dist = distribution("puffer-ocean")
    except (ImportError, PackageNotFoundError):
        raise APIUsageError("--c copies PufferLib's C env framework from puffer-ocean, whose OceanEnv then runs "
                            "the env: pip install puffer-ocean first.") from None
    texts = [dist.read_text(f"licenses/{file}") for file in dist.metadata.get_all("License-File") or []]
    license_text = "\n".join(text for text in texts if text)
    if not license_text:
        raise APIUsageError(f"the installed puffer-ocean {dist.version} carries no license file to copy beside its "
                            "C framework; reinstall it: pip install --force-reinstall puffer-ocean")
    return include, dist.version, license_text


def _same_minor(version: str) -> str:
    """The requirement range of the releases sharing `version`'s major.minor (e.g. '>=0.1,<0.2')."""
    from packaging.version import Version

    major, minor = (*Version(version).release, 0)[:2]
    return f">={major}.{minor},<{major}.{minor + 1}"


def _check_overwrites(root: Path, files: list[str], name: str, package: str) -> None:
    """APIUsageError unless writing `files` (paths in `root`) stays inside `root` and replaces
    files only of a package this scaffold wrote as `name` (module docstring)."""
    inside = root.resolve()
    for relative in files:
        if not (root / relative).resolve().is_relative_to(inside):
            raise APIUsageError(f"{root / relative} leads out of {root} (a symlink); puffer new writes only inside "
                                "the package folder: remove the link or choose another --dir.")
    existing = [relative for relative in files if (root / relative).exists()]
    if not existing or _is_scaffold_of(root, name, package):
        return
    first = "pyproject.toml" if "pyproject.toml" in existing else existing[0]
    raise APIUsageError(f"{root / first} exists, and {root / 'pyproject.toml'} is not that of a package `puffer new "
                        f"{name}` wrote (project {name!r} with the pufferlib.plugins entry point {package!r}); "
                        "--force replaces only the scaffold's own files: move it away or choose another --dir.")


def _is_scaffold_of(root: Path, name: str, package: str) -> bool:
    """Whether `root` holds the pyproject.toml this scaffold writes for `name` (module docstring)."""
    from pufferlib._compat import tomllib

    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        return project["name"] == name and \
            project["entry-points"]["pufferlib.plugins"][package] == f"{package}.plugin"
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError):
        return False


def write_package(name: str, dest: str | Path = ".", variant: str = "python", force: bool = False,
                  prefix: str | None = None) -> Path:
    """Write the plugin package `name` into dest/name; returns its folder.

    Raises APIUsageError, before writing anything, when a name is malformed or taken
    (`names.check_free`) or something is in the way; and when writing fails.
    """
    values = template_values(name, variant, prefix)
    check_free(derive(name, prefix))
    files = package_files(values, variant)
    root = Path(dest) / name
    created = False
    try:
        if root.exists() and not root.is_dir():
            raise APIUsageError(f"{root} is in the way: it is a file, not a folder; choose another name or --dir.")
        if root.is_dir() and any(root.iterdir()) and not force:
            raise APIUsageError(f"{root} exists and is not empty; choose another name or --dir "
                                "(or --force to write into it).")
        if root.is_dir():
            _check_overwrites(root, list(files), name, values["package"])
        created = not root.exists()
        for relative, text in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    except OSError as exc:
        if created:
            shutil.rmtree(root, ignore_errors=True)
        raise APIUsageError(f"cannot write {exc.filename or root}: {exc.strerror or exc}; free that path or choose "
                            "another folder with --dir.") from None
    return root
