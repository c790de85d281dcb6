"""`puffer new NAME`: write a pip-installable env plugin package.

The package holds pyproject.toml (with the `pufferlib.plugins` entry point), a light
plugin module (the EnvSpec), an env, a policy, a default training config (train.toml),
tests (the checker and a short PPO run to the stated score) and a README. Variants:
the default single-agent Python env, `--multiagent` (a cooperative multi-agent env) and
`--c` (a C env built against puffer-ocean's authoring headers, `puffer_ocean.get_include()`).

The files come from `pufferlib/scaffold/templates/` (package data): `common/` for every variant,
then the variant's folder; `{{key}}` placeholders are filled from `template_values`. The C
variant's setup.py derives its env list from `csrc/envs/*.h` as puffer-ocean's does.

This is the one scaffold for a new env package. `scripts/env_template.py` is not a second one:
it holds worked single-file examples of env patterns that the user guide runs and reads.
"""

from __future__ import annotations

import keyword
import re
from importlib import resources
from pathlib import Path

from pufferlib.errors import APIUsageError

VARIANTS = ("python", "multiagent", "c")

#: template file -> path in the package ({package} and {env_name} are filled in).
LAYOUT: dict[str, dict[str, str]] = {
    "common": {"pyproject.toml": "pyproject.toml", "README.md": "README.md", "__init__.py": "{package}/__init__.py",
               "plugin.py": "{package}/plugin.py", "policy.py": "{package}/policy.py",
               "train.toml": "{package}/train.toml", "test_env.py": "tests/test_env.py",
               "test_train.py": "tests/test_train.py"},
    "python": {"env.py": "{package}/env.py"},
    "multiagent": {"env.py": "{package}/env.py"},
    "c": {"env.py": "{package}/env.py", "setup.py": "setup.py", "env.h": "{package}/csrc/envs/{env_name}.h",
          "module.c": "{package}/csrc/{package}_module.c"},
}


def template_values(name: str, variant: str) -> dict[str, str]:
    """The placeholders of the templates for package `name` (e.g. 'my-plugin')."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name):
        raise APIUsageError(f"{name!r} is not a valid package name: use letters, digits, '-' and '_', "
                            "starting with a letter (e.g. my-plugin).")
    if variant not in VARIANTS:
        raise APIUsageError(f"variant must be one of {VARIANTS}, got {variant!r}.")
    package = name.lower().replace("-", "_")
    if keyword.iskeyword(package) or package in ("pufferlib", "puffer_ocean", "test", "tests"):
        raise APIUsageError(f"{name!r} would make the import name {package!r}, which is taken; choose another.")
    prefix = package.split("_")[0] + "-"
    base = "".join(part.capitalize() for part in package.split("_"))
    multi = variant == "multiagent"
    return {
        "name": name, "package": package, "prefix": prefix, "env_id": f"{prefix}{'team' if multi else 'walk'}",
        "Class": base + ("Team" if multi else "Walk"), "env_name": f"{package}_walk",
        "description": "cooperative navigation in a corridor" if multi else "walk to the goal end of a corridor",
        "backend": "pufferlib.NATIVE" if variant == "c" else "None",
        "target_score": "0.8", "num_envs": "8" if variant != "c" else "64",
        "timesteps": "30_000" if multi else "20_000",
        "flags": {"python": "", "multiagent": " --multiagent", "c": " --c"}[variant],
        "c_note": ": csrc/ holds the C code, setup.py builds it" if variant == "c" else "",
        "build_requires": ', "puffer-ocean"' if variant == "c" else "",
        "extra_deps": ', "puffer-ocean"' if variant == "c" else "",
        "package_data": ', "csrc/*.h", "csrc/*.c"' if variant == "c" else "",
    }


def render(text: str, values: dict[str, str]) -> str:
    """Fill `{{key}}` placeholders; an unknown key is an error (a template bug)."""
    def sub(match: re.Match) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"template placeholder {{{{{key}}}}} has no value")
        return values[key]
    return re.sub(r"\{\{(\w+)\}\}", sub, text)


def write_package(name: str, dest: str | Path = ".", variant: str = "python", force: bool = False) -> Path:
    """Write the plugin package `name` into dest/name; returns its folder."""
    values = template_values(name, variant)
    if variant == "c":
        import importlib.util

        if importlib.util.find_spec("puffer_ocean") is None:
            raise APIUsageError("--c builds against the headers of puffer-ocean (puffer_ocean.get_include()): "
                                "pip install puffer-ocean first.")
    root = Path(dest) / name
    if root.exists() and any(root.iterdir()) and not force:
        raise APIUsageError(f"{root} exists and is not empty; choose another name or folder (or --force).")
    templates = resources.files("pufferlib") / "scaffold" / "templates"
    for folder in ("common", variant):
        for template, target in LAYOUT[folder].items():
            path = root / target.format(**values)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render((templates / folder / (template + ".tmpl")).read_text(), values))
    return root
