"""Environment specs and the registry that resolves ids to them.

Ids are resolved, in order: in-process registrations (`pufferlib.register`), specs
listed by plugins, `"package.module:Callable"` ids, then each plugin's
`pufferlib_resolve_env` hook (open-ended families such as `gym-<any Gymnasium id>`).
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from pufferlib.errors import APIUsageError, EnvNotFoundError

#: First-party id prefixes -> the distribution that provides them, for helpful errors.
KNOWN_PACKAGES = {
    "atari-": "puffer-atari",
    "procgen-": "puffer-procgen",
    "nethack-": "puffer-nethack",
    "minigrid-": "puffer-minigrid",
    "babyai-": "puffer-minigrid",
    "ocean-": "puffer-ocean",
    "puffer_": "puffer-ocean",
}


def load_object(path: str) -> Any:
    """Import `"package.module:attr"` (attr may be dotted) and return the attribute."""
    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise APIUsageError(f"{path!r} is not of the form 'package.module:attr'.")
    obj = importlib.import_module(module_name)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise APIUsageError(f"{module_name!r} has no attribute {attr!r} (from {path!r}).") from None
    return obj


@dataclass
class EnvSpec:
    """How to make one environment id, and the defaults that come with it.

    `creator` is a callable or a lazy `"module:attr"` string, called as
    `creator(**{**kwargs, **user_kwargs})`. `policy` names the default policy class
    (`"module:attr"`); `config` holds default training settings (nested dict, same keys as
    the trainer config); `backend` is the default vectorization backend.
    """

    id: str
    creator: str | Callable
    kwargs: dict = field(default_factory=dict)
    policy: str | Callable | None = None
    config: dict = field(default_factory=dict)
    backend: str | None = None
    package: str | None = None
    description: str = ""
    aliases: tuple[str, ...] = ()

    def load_creator(self) -> Callable:
        """The creator callable (imports its module on first use)."""
        return load_object(self.creator) if isinstance(self.creator, str) else self.creator

    def load_policy(self) -> Callable | None:
        """The default policy class, or None."""
        return load_object(self.policy) if isinstance(self.policy, str) else self.policy


_LOCAL: dict[str, EnvSpec] = {}


def register(env_id: str, creator: str | Callable, *, kwargs: dict | None = None,
             policy: str | Callable | None = None, config: dict | None = None,
             backend: str | None = None, description: str = "", overwrite: bool = False) -> EnvSpec:
    """Register an environment id in this process; `pufferlib.make(env_id)` then makes it."""
    if not isinstance(env_id, str) or not env_id:
        raise APIUsageError("env_id must be a non-empty string.")
    if env_id in _LOCAL and not overwrite:
        raise APIUsageError(f"{env_id!r} is already registered; pass overwrite=True to replace it.")
    if not (callable(creator) or isinstance(creator, str)):
        raise APIUsageError("creator must be a callable or a 'module:attr' string.")
    spec = EnvSpec(env_id, creator, dict(kwargs or {}), policy, dict(config or {}), backend,
                   package=None, description=description)
    _LOCAL[env_id] = spec
    return spec


def unregister(env_id: str) -> None:
    """Remove an in-process registration."""
    _LOCAL.pop(env_id, None)


def listed_specs() -> dict[str, list[EnvSpec]]:
    """Listed specs per plugin name (in-process registrations under "local")."""
    from pufferlib.plugins import plugin_manager

    pm = plugin_manager()
    out: dict[str, list[EnvSpec]] = {}
    if _LOCAL:
        out["local"] = list(_LOCAL.values())
    for name, plugin in pm.list_name_plugin():
        impl = getattr(plugin, "pufferlib_env_specs", None)
        if impl is None:
            continue
        specs = list(impl() or [])
        if specs:
            out[name] = specs
    return out


def _listed_index() -> dict[str, EnvSpec]:
    index: dict[str, EnvSpec] = {}
    for specs in listed_specs().values():
        for spec in specs:
            for name in (spec.id, *spec.aliases):
                index.setdefault(name, spec)
    return index


def spec(env_id: str) -> EnvSpec:
    """Resolve an id to its EnvSpec, or raise EnvNotFoundError with what to do."""
    if env_id in _LOCAL:
        return _LOCAL[env_id]
    index = _listed_index()
    if env_id in index:
        return index[env_id]
    lowered = {k.lower(): v for k, v in index.items()}
    if env_id.lower() in lowered:
        return lowered[env_id.lower()]
    if ":" in env_id:
        return EnvSpec(env_id, env_id)
    from pufferlib.plugins import plugin_manager

    resolved = plugin_manager().hook.pufferlib_resolve_env(env_id=env_id)
    if resolved is not None:
        return resolved
    raise EnvNotFoundError(_not_found_message(env_id, index))


def _not_found_message(env_id: str, index: dict[str, EnvSpec]) -> str:
    from pufferlib.plugins import owned_prefixes

    lines = [f"No environment {env_id!r}."]
    owned = owned_prefixes()
    for prefix, package in KNOWN_PACKAGES.items():
        if env_id.lower().startswith(prefix) and not any(p.startswith(prefix) for p in owned):
            lines.append(f"Ids starting with {prefix!r} come from {package}: pip install {package}")
    close = difflib.get_close_matches(env_id, list(index), n=5, cutoff=0.6)
    if close:
        lines.append(f"Did you mean: {', '.join(close)}?")
    lines.append("See `puffer list` for the installed ids, or use 'package.module:Creator', "
                 "'gym-<Gymnasium id>', 'pettingzoo-<env>'.")
    return " ".join(lines)
