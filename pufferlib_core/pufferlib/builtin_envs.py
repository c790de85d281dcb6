"""The core's own env families: `gym-<any Gymnasium id>` and `pettingzoo-<env>`.

Registered as the plugin "core". Ids are resolved on demand; nothing is imported until
an env of the family is made.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import importlib.util
import os
import re
from typing import Any

from pufferlib.errors import APIUsageError, EnvNotFoundError
from pufferlib.hookspecs import hookimpl
from pufferlib.registry import EnvSpec

GYM_PREFIX = "gym-"
PETTINGZOO_PREFIX = "pettingzoo-"
PETTINGZOO_FAMILIES = ("butterfly", "classic", "sisl", "mpe", "atari")
_VERSION = re.compile(r"^(?P<name>.+?)[-_]v(?P<version>\d+)$")


def make_gymnasium(gym_id: str, **kwargs: Any) -> Any:
    """`gymnasium.make(gym_id, **kwargs)`."""
    import gymnasium

    return gymnasium.make(gym_id, **kwargs)


def make_pettingzoo(module: str, family: str, **kwargs: Any) -> Any:
    """The parallel env of a PettingZoo module (its AEC env when it has no parallel one)."""
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # PettingZoo raises its own DependencyNotInstalled
        raise APIUsageError(
            f"Could not import {module} ({type(exc).__name__}: {exc}). "
            f"Install its extras: pip install 'pettingzoo[{family}]'") from exc
    if hasattr(mod, "parallel_env"):
        return mod.parallel_env(**kwargs)
    return mod.env(**kwargs)


def _gym_spec(name: str) -> EnvSpec:
    import gymnasium

    registry = gymnasium.registry
    if name in registry:
        gym_id = name
    else:
        def version(key: str) -> int:
            match = _VERSION.match(key)
            return int(match["version"]) if match else -1

        wanted = name.lower()
        matches = [k for k in registry if k.lower() == wanted
                   or (_VERSION.match(k) and _VERSION.match(k)["name"].lower() == wanted)]
        if not matches:
            close = difflib.get_close_matches(name, list(registry), n=5, cutoff=0.5)
            hint = f" Did you mean: {', '.join(GYM_PREFIX + c for c in close)}?" if close else ""
            raise EnvNotFoundError(f"Gymnasium has no env {name!r}.{hint}")
        gym_id = max(matches, key=version)
    return EnvSpec(GYM_PREFIX + gym_id, functools.partial(make_gymnasium, gym_id),
                   package="gymnasium", description=f"gymnasium.make({gym_id!r})")


def _pettingzoo_modules() -> dict[str, tuple[str, str, int]]:
    """PettingZoo env name -> (latest module, family, version), read from disk without importing."""
    found = importlib.util.find_spec("pettingzoo")
    if found is None or not found.submodule_search_locations:
        return {}
    root = found.submodule_search_locations[0]
    out: dict[str, tuple[str, str, int]] = {}
    for family in PETTINGZOO_FAMILIES:
        folder = os.path.join(root, family)
        if not os.path.isdir(folder):
            continue
        for entry in os.listdir(folder):
            match = _VERSION.match(entry.removesuffix(".py"))
            if not match or entry.startswith("_"):
                continue
            name, version = match["name"], int(match["version"])
            if name not in out or version > out[name][2]:
                out[name] = (f"pettingzoo.{family}.{entry.removesuffix('.py')}", family, version)
    return out


def _pettingzoo_spec(name: str) -> EnvSpec:
    modules = _pettingzoo_modules()
    key = name.lower().replace("-", "_")
    match = _VERSION.match(key)
    if match and match["name"] in modules:
        module = f"{modules[match['name']][0].rsplit('.', 1)[0]}.{key}"
        family = modules[match["name"]][1]
    elif key in modules:
        module, family, _ = modules[key]
    else:
        close = difflib.get_close_matches(key, list(modules), n=5, cutoff=0.5)
        hint = f" Did you mean: {', '.join(PETTINGZOO_PREFIX + c.replace('_', '-') for c in close)}?" if close else ""
        raise EnvNotFoundError(f"PettingZoo has no env {name!r}.{hint}")
    return EnvSpec(PETTINGZOO_PREFIX + name, functools.partial(make_pettingzoo, module, family),
                   package="pettingzoo", description=f"{module}.parallel_env()")


@hookimpl
def pufferlib_env_prefixes() -> list[str]:
    return [GYM_PREFIX, PETTINGZOO_PREFIX]


@hookimpl
def pufferlib_env_specs() -> list[EnvSpec]:
    return []


@hookimpl
def pufferlib_resolve_env(env_id: str) -> EnvSpec | None:
    if env_id.startswith(GYM_PREFIX):
        return _gym_spec(env_id[len(GYM_PREFIX):])
    if env_id.startswith(PETTINGZOO_PREFIX):
        return _pettingzoo_spec(env_id[len(PETTINGZOO_PREFIX):])
    return None
