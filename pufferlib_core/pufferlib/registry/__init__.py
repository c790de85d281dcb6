"""Environment specs and the registry that resolves ids to them.

Ids are resolved, in order: in-process registrations (`pufferlib.register`), specs
listed by plugins, `"package.module:Callable"` ids, then the `pufferlib_resolve_env` hook
(open-ended families such as `gym-<any Gymnasium id>`): of the plugin that owns the id's
prefix when one does, else of each plugin in turn. An id under a prefix that a plugin owns
is looked up in that plugin's specs alone: no other plugin's listing hook is called, so a
slow or hanging plugin never holds up `pufferlib.make('gym-CartPole-v1')` (and ids under
first-party prefixes ask no other plugin anything, see `prefixes.owners_for`).

Ids belong to plugins by prefix (`pufferlib.registry.prefixes`): a plugin may not list
ids inside a prefix that another plugin owns (first-party prefixes such as `gym-` or
`ocean-` included, installed or not), and when two plugins list the same id the first in
plugin order keeps it. Ignored ids are reported with both plugins' names.

Each plugin's listing hook is called once until the plugins change (`plugins.generation()`);
the listing (what every plugin lists, after these rules) is combined from those once, and
again when an in-process registration changes.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from pufferlib.errors import APIUsageError, EnvNotFoundError
from pufferlib.registry import plugins, prefixes
from pufferlib.registry.spec import EnvSpec, load_object

__all__ = ["EnvSpec", "listed_specs", "load_object", "register", "spec", "unregister"]

#: What the registry lists: (specs per plugin, id or alias -> spec, prefix owners).
Listing = tuple[dict[str, list[EnvSpec]], dict[str, EnvSpec], dict[str, str]]
_LOCAL: dict[str, EnvSpec] = {}
_local_changes = 0  # counts register/unregister calls: the cached listing holds the local specs
#: ((plugins.generation(), _local_changes) the cached listing was computed for, the listing).
_cache: tuple[tuple, Listing] | None = None
#: (plugins.generation() they were asked for, plugin -> the specs its listing hook returned).
_listed_by: tuple[object, dict[str, list[EnvSpec]]] | None = None


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
    _local_changed()
    _LOCAL[env_id] = spec
    return spec


def unregister(env_id: str) -> None:
    """Remove an in-process registration."""
    _local_changed()
    _LOCAL.pop(env_id, None)


def _local_changed() -> None:
    global _local_changes
    _local_changes += 1


def listed_specs() -> dict[str, list[EnvSpec]]:
    """Listed specs per plugin name (in-process registrations under "local"), after the id rules."""
    return {name: list(specs) for name, specs in _listing()[0].items()}


def _listing() -> Listing:
    """(specs per plugin, id or alias -> spec, prefix owners), cached until plugins or
    in-process registrations change."""
    global _cache
    key = (plugins.generation(), _local_changes)
    if _cache is None or _cache[0] != key:
        _cache = (key, _list_specs())
    return _cache[1]


def _list_specs() -> Listing:
    """(specs per plugin, id or alias -> spec, prefix owners), ignoring and reporting the
    ids that a plugin may not list."""
    owners = prefixes.prefix_owners()
    out: dict[str, list[EnvSpec]] = {}
    index: dict[str, EnvSpec] = {}
    lister = _local_lister()  # lowercased id -> the plugin whose spec it names
    if _LOCAL:
        out["local"] = list(_LOCAL.values())
        for local in _LOCAL.values():
            index.setdefault(local.id, local)
    for name in plugins.implementers("pufferlib_env_specs"):
        accepted = _accept(name, _specs_of(name), owners, lister, index)
        if accepted:
            out[name] = accepted
    return out, index, owners


def _local_lister() -> dict[str, str]:
    """Lowercased id -> "local" for the in-process registrations (they come before any plugin's)."""
    return {local.id.lower(): "local" for local in _LOCAL.values()}


def _specs_of(plugin: str) -> list[EnvSpec]:
    """The specs `plugin`'s listing hook returns; it is called once until the plugins change."""
    global _listed_by
    key = plugins.generation()
    if _listed_by is None or _listed_by[0] != key:
        _listed_by = (key, {})
    listed = _listed_by[1]
    if plugin not in listed:
        listed[plugin] = [s for _, specs in plugins.iter_hook("pufferlib_env_specs", only=[plugin]) for s in specs]
    return listed[plugin]


def _accept(plugin: str, specs: list[EnvSpec], owners: dict[str, str], lister: dict[str, str],
            index: dict[str, EnvSpec]) -> list[EnvSpec]:
    """The specs of `plugin` that it may list (see the module doc), added to `index` under their
    id and aliases and to `lister`; the others are reported."""
    accepted = []
    for env_spec in specs:
        names = [n for n in (env_spec.id, *env_spec.aliases) if _may_list(plugin, n, owners, lister)]
        if env_spec.id not in names:
            continue
        accepted.append(env_spec)
        for listed in names:
            index.setdefault(listed, env_spec)
            lister.setdefault(listed.lower(), plugin)
    return accepted


def _may_list(plugin: str, env_id: str, owners: dict[str, str], lister: dict[str, str]) -> bool:
    """Whether `plugin` may list `env_id`; reports it when not."""
    prefix = prefixes.owning_prefix(env_id, owners)
    if prefix is not None and owners[prefix] != plugin:
        plugins.report(plugin, "ids", f"lists {env_id!r}, but ids starting with {prefix!r} belong to plugin "
                                      f"{plugins.label(owners[prefix])}; ignored", key=env_id)
        return False
    first = lister.get(env_id.lower(), plugin)
    if first != plugin:
        what = "pufferlib.register() took it in this process" if first == "local" else \
            f"{plugins.label(first)} lists it first"
        plugins.report(plugin, "ids", f"lists {env_id!r}, but {what}; ignored", key=env_id)
        return False
    return True


def spec(env_id: str) -> EnvSpec:
    """Resolve an id to its EnvSpec, or raise EnvNotFoundError with what to do."""
    if env_id in _LOCAL:
        return _LOCAL[env_id]
    owners = prefixes.owners_for(env_id)
    owner = prefixes.owner_of(env_id, owners)
    if owner is None:
        _, index, _ = _listing()
    else:  # only its owner may list it: the other plugins are not asked
        index = {local.id: local for local in _LOCAL.values()}
        _accept(owner, _specs_of(owner), owners, _local_lister(), index)
    if env_id in index:
        return index[env_id]
    lowered = {k.lower(): v for k, v in index.items()}
    if env_id.lower() in lowered:
        return lowered[env_id.lower()]
    if ":" in env_id:
        return EnvSpec(env_id, env_id)
    asked = None if owner is None else [owner]
    passthrough = () if owner is None else (EnvNotFoundError,)
    for _, resolved in plugins.iter_hook("pufferlib_resolve_env", only=asked, passthrough=passthrough,
                                         env_id=env_id):
        return resolved
    raise EnvNotFoundError(_not_found_message(env_id, index, owner))


def _not_found_message(env_id: str, index: dict[str, EnvSpec], owner: str | None) -> str:
    lines = [f"No environment {env_id!r}."]
    if owner is not None and not plugins.plugin_manager().has_plugin(owner):  # a first-party prefix
        package = plugins.distribution_of(owner)
        failed = [info.error for info in plugins.installed_plugins()
                  if info.name == owner and info.error and plugins.is_distribution(info.distribution, package)]
        if failed:
            lines.append(f"Its ids come from {package}, which failed to load: {failed[0]} (see `puffer plugins`).")
        elif not plugins.autoload_enabled():
            lines.append(f"Its ids come from {package}, but plugin autoloading is off ({plugins.DISABLE_ENV_VAR} "
                         f"is set): unset it to use installed plugins"
                         f"{'' if _installed(package) else f', and pip install {package}'}.")
        else:
            lines.append(f"Its ids come from {package}: pip install {package}")
    elif owner is None and not plugins.autoload_enabled():
        lines.append(f"Plugin autoloading is off ({plugins.DISABLE_ENV_VAR} is set): unset it to "
                     "use the envs of installed plugins.")
    close = difflib.get_close_matches(env_id, list(index), n=5, cutoff=0.6)
    if close:
        lines.append(f"Did you mean: {', '.join(close)}?")
    lines.append("See `puffer list` for the installed ids, or use 'package.module:Creator', "
                 "'gym-<Gymnasium id>', 'pettingzoo-<env>'.")
    return " ".join(lines)


def _installed(distribution: str) -> bool:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import distribution as find

    try:
        find(distribution)
        return True
    except PackageNotFoundError:
        return False
