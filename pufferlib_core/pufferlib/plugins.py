"""Plugin discovery: entry points of the group `pufferlib.plugins`, managed by pluggy.

Discovery runs on first use (not at `import pufferlib`). A plugin that fails to load
is reported with a warning naming it and its version, and the rest keeps working; so is
a plugin whose `Requires-Dist: puffer-core ...` range excludes this core's version (it is
not imported).
`PUFFERLIB_DISABLE_PLUGIN_AUTOLOAD=1` turns discovery off (the core's own gym-/pettingzoo-
families stay available).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pluggy

from pufferlib import hookspecs

ENTRY_POINT_GROUP = "pufferlib.plugins"
DISABLE_ENV_VAR = "PUFFERLIB_DISABLE_PLUGIN_AUTOLOAD"


@dataclass(frozen=True)
class PluginInfo:
    """An installed plugin: entry-point name, distribution, version, and load error if any."""

    name: str
    distribution: str
    version: str
    error: str | None = None


_manager: pluggy.PluginManager | None = None
_infos: list[PluginInfo] = []


def _load_entry_points(pm: pluggy.PluginManager) -> None:
    from importlib_metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        dist_name = dist.metadata["Name"] if dist is not None else "?"
        version = dist.version if dist is not None else "?"
        if pm.has_plugin(ep.name):
            continue
        incompatible = _core_incompatibility(dist)
        if incompatible:
            _infos.append(PluginInfo(ep.name, dist_name, version, incompatible))
            warnings.warn(f"pufferlib: plugin {ep.name!r} ({dist_name} {version}) is skipped: {incompatible}",
                          RuntimeWarning, stacklevel=3)
            continue
        try:
            plugin = ep.load()
            pm.register(plugin, name=ep.name)
            try:
                pm.check_pending()  # hooks this core does not specify: a plugin for another version
            except pluggy.PluginValidationError:
                pm.unregister(plugin)
                raise
            _infos.append(PluginInfo(ep.name, dist_name, version))
        except Exception as exc:  # a broken plugin must never break pufferlib
            _infos.append(PluginInfo(ep.name, dist_name, version, f"{type(exc).__name__}: {exc}"))
            warnings.warn(f"pufferlib: plugin {ep.name!r} ({dist_name} {version}) failed to load and is "
                          f"skipped: {type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=3)


if TYPE_CHECKING:
    from importlib_metadata import Distribution


def _core_incompatibility(dist: Distribution | None) -> str | None:
    """Why `dist` (a plugin's distribution) cannot run on this core, or None if it can.

    Reads the plugin's `Requires-Dist: puffer-core ...` and checks this core's version against
    its specifier. A plugin that does not require puffer-core, or whose metadata is unreadable,
    is not judged here (loading it is).
    """
    if dist is None:
        return None
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    from pufferlib import __version__ as core_version

    for line in dist.requires or []:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) != "puffer-core" or (req.marker and not req.marker.evaluate({"extra": ""})):
            continue
        try:
            compatible = req.specifier.contains(Version(core_version), prereleases=True)
        except InvalidVersion:
            return None
        if not compatible:
            return (f"it requires puffer-core{req.specifier} but this is puffer-core {core_version}; "
                    f"install a matching pair: pip install --upgrade {dist.metadata['Name']} puffer-core")
    return None


def plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, created (and plugins discovered) on first call."""
    global _manager
    if _manager is None:
        from pufferlib import builtin_envs, version as core_version

        pm = pluggy.PluginManager(hookspecs.PROJECT)
        pm.add_hookspecs(hookspecs)
        pm.register(builtin_envs, name="core")
        _infos.clear()
        _infos.append(PluginInfo("core", "puffer-core", core_version()))
        if os.environ.get(DISABLE_ENV_VAR, "").lower() not in ("1", "true", "yes"):
            _load_entry_points(pm)
        _manager = pm
    return _manager


def reset_plugin_manager() -> None:
    """Forget discovered plugins; the next use rediscovers them (tests, new installs)."""
    global _manager
    _manager = None


def installed_plugins() -> list[PluginInfo]:
    """Every discovered plugin, including those that failed to load."""
    plugin_manager()
    return list(_infos)


def owned_prefixes() -> list[str]:
    """Id prefixes claimed by the loaded plugins."""
    return [p for prefixes in plugin_manager().hook.pufferlib_env_prefixes() for p in prefixes]
