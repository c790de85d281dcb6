"""The names of a new plugin package, and the check that they are free.

Everything comes from the package name NAME (e.g. `my-plugin`): the distribution NAME, the
import name and entry-point name (NAME lowercased with '-' as '_': `my_plugin`) and the env-id
prefix (the import name and '-': `my_plugin-`, so ids such as `my_plugin-walk`); `--prefix`
chooses another prefix. Two packages of one environment cannot share an import name, and a
prefix made of an import name and '-' never starts another such prefix, so two generated
plugins never share or nest prefixes (a nested prefix belongs to whichever plugin loads first).

`check_free(names)` refuses, before anything is written, a package that would break something
once installed, with one `APIUsageError` naming the clash and how to choose another name:

- a first-party name: a distribution or entry-point name of `pufferlib/data/first_party.toml`;
- an installed distribution (`pip install -e .` would replace it);
- an import name that is already taken: the standard library, or any module importable from
  `sys.path` (the current folder aside: it is not installed);
- an entry-point name an installed plugin already uses;
- a prefix that starts, or is started by, one that a plugin owns (first-party prefixes too,
  installed or not), or that starts an id an installed plugin lists.

The installed plugins are those discovery finds: with autoloading off
(`PUFFERLIB_DISABLE_PLUGIN_AUTOLOAD`), only the first-party names and prefixes are known.
"""

from __future__ import annotations

import keyword
import os
import re
import sys
from dataclasses import dataclass
from importlib.machinery import PathFinder

from pufferlib.errors import APIUsageError
from pufferlib.registry import listed_specs, plugins, prefixes

#: Longer names are refused (a file name of the package holds the name, and 255 bytes is the
#: usual limit of one).
MAX_NAME_LENGTH = 64
#: Import names the package may not take beyond the taken ones: its own `tests/` folder.
OWN_FOLDERS = ("tests",)

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_PREFIX = re.compile(r"[a-z][a-z0-9_-]*[-_]")


@dataclass(frozen=True)
class Names:
    """What a new package is called: distribution, import (and entry-point) name, id prefix."""

    name: str
    package: str
    prefix: str


def derive(name: str, prefix: str | None = None) -> Names:
    """The names of package `name`; raises APIUsageError for a malformed name or prefix.

    Only the spelling is checked here; `check_free` checks them against this environment.
    """
    if len(name) > MAX_NAME_LENGTH:
        raise APIUsageError(f"the package name is {len(name)} characters long; use at most {MAX_NAME_LENGTH}.")
    if not _NAME.fullmatch(name):
        raise APIUsageError(f"{name!r} is not a valid package name: use letters, digits, '-' and '_', "
                            "starting with a letter (e.g. my-plugin).")
    package = name.lower().replace("-", "_")
    if keyword.iskeyword(package) or package in OWN_FOLDERS:
        raise APIUsageError(f"{name!r} would make the import name {package!r}, which Python or the package's "
                            "own folders use; choose another name.")
    if prefix is None:
        prefix = package + "-"
    elif not _PREFIX.fullmatch(prefix):
        raise APIUsageError(f"--prefix {prefix!r}: use lowercase letters, digits, '-' and '_', starting with a "
                            "letter and ending with '-' or '_' (ids are the prefix and a name, e.g. mygame-walk).")
    return Names(name, package, prefix)


def check_free(names: Names) -> None:
    """Raise APIUsageError when `names` clash with this environment (see the module docstring)."""
    problem = _name_clash(names) or _prefix_clash(names.prefix)
    if problem is not None:
        raise APIUsageError(problem)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _name_clash(names: Names) -> str | None:
    """Why the distribution, import or entry-point name is taken, or None."""
    name, package = names.name, names.package
    for entry_point, (distribution, _) in plugins.FIRST_PARTY.items():
        if _canonical(name) == _canonical(distribution) or package == entry_point:
            return (f"{name!r} is reserved for PufferLib's first-party plugin {distribution} (entry point "
                    f"{entry_point!r}); choose another name.")
    from importlib.metadata import distributions

    for dist in distributions():
        installed = dist.metadata["Name"] or ""
        if _canonical(installed) == _canonical(name):
            return (f"{installed} {dist.version} is installed: `pip install` of a package named {name!r} would "
                    "replace it; choose another name.")
    where = _importable(package)
    if where is not None:
        return f"the import name {package!r} of {name!r} is taken by {where}; choose another name."
    for info in plugins.installed_plugins():
        if info.name == package:
            return (f"the entry-point name {package!r} is used by the installed plugin {info.distribution}; "
                    "choose another name.")
    return None


def _importable(package: str) -> str | None:
    """Where an import of `package` would come from today, or None when nothing has that name."""
    if package in sys.stdlib_module_names or package in sys.builtin_module_names:
        return "a module of Python's standard library"
    here = os.path.realpath(os.getcwd())
    path = [entry for entry in sys.path if entry and os.path.realpath(entry) != here]
    spec = PathFinder.find_spec(package, path)
    if spec is None:
        return None
    location = spec.origin or next(iter(spec.submodule_search_locations or []), "?")
    return f"the module at {location}"


def _prefix_clash(prefix: str) -> str | None:
    """Why ids starting with `prefix` would not all belong to the new plugin, or None."""
    lowered = prefix.lower()
    hint = "choose another prefix with --prefix (or another package name)"
    for held, owner in prefixes.prefix_owners().items():
        if lowered == held.lower():
            return f"the id prefix {prefix!r} belongs to {_plugin(owner)}; {hint}."
        if lowered.startswith(held.lower()) or held.lower().startswith(lowered):
            return f"the id prefix {prefix!r} overlaps {held!r}, which belongs to {_plugin(owner)}; {hint}."
    for owner, specs in listed_specs().items():
        for spec in specs:
            for env_id in (spec.id, *spec.aliases):
                if env_id.lower().startswith(lowered):
                    return f"the id prefix {prefix!r} would take {env_id!r}, listed by {_plugin(owner)}; {hint}."
    return None


def _plugin(name: str) -> str:
    """A plugin for messages: its distribution for a first-party one, installed or not."""
    if name in plugins.FIRST_PARTY:
        return f"PufferLib's {plugins.distribution_of(name)}"
    return "pufferlib.register() in this process" if name == "local" else f"plugin {plugins.label(name)}"
