"""Plugin discovery and hook calls: entry points of the group `pufferlib.plugins`, managed by pluggy.

Contract:

- Discovery runs on first use (not at `import pufferlib`). `PUFFERLIB_DISABLE_PLUGIN_AUTOLOAD=1`
  turns it off (the core's own gym-/pettingzoo- families stay available).
- Plugins are untrusted neighbours. The core calls every hook through `call_hook` /
  `iter_hook`, one implementation at a time. An implementation that raises (anything but
  KeyboardInterrupt, SystemExit included) or returns something other than what its hookspec
  promises is skipped, and reported once per (plugin, hook) with a RuntimeWarning naming the
  plugin, its distribution and version, the hook and the error. `problems()` keeps the
  reports for `puffer plugins` and `puffer list`. The core's own implementations are trusted:
  their errors propagate.
- First party: `FIRST_PARTY` (read from `data/first_party.toml`, the one place that knows our
  distribution names) maps each first-party entry-point name to its distribution and the id
  prefixes it owns. Such a name loads only from that distribution, and its prefixes belong to it even when it is not
  installed: no other plugin may list or resolve ids there.
- A plugin whose `Requires-Dist: puffer-core ...` range excludes this core's version is
  skipped without being imported, with the pair to install.
- Order: core first, then first-party plugins, then the others in discovery order. When two
  plugins claim the same id, prefix or entry-point name, the first keeps it and the other is
  reported with both names.
- Slow plugins are named, and cannot hold everything up. A plugin's declaration hooks
  (`DECLARATION_HOOKS`: what it lists and adds) must return at once; each call runs watched
  (`pufferlib.registry.watch`): a warning names the plugin once it has run `SLOW_HOOK_S`,
  and it is reported and skipped once it has run `HOOK_DEADLINE_S`. An entry module that
  takes more than `SLOW_HOOK_S` to import is named in a warning too, and Ctrl-C while a
  plugin is imported or runs a hook reports which one (then interrupts, as always).
"""

from __future__ import annotations

import functools
import os
import time
import types
import typing
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

import pluggy

from pufferlib import version as core_version
from pufferlib._compat import tomllib
from pufferlib.errors import APIUsageError
from pufferlib.registry import builtin as builtin_envs
from pufferlib.registry import hookspecs, watch
from pufferlib.registry.spec import EnvSpec

if TYPE_CHECKING:
    from importlib_metadata import Distribution

ENTRY_POINT_GROUP = "pufferlib.plugins"
DISABLE_ENV_VAR = "PUFFERLIB_DISABLE_PLUGIN_AUTOLOAD"
CORE = "core"
#: Hooks that only declare what a plugin offers, and so must return at once: their calls are watched.
DECLARATION_HOOKS = frozenset({"pufferlib_env_specs", "pufferlib_env_prefixes", "pufferlib_config_defaults",
                               "pufferlib_loggers", "pufferlib_check_logger", "pufferlib_policies"})
#: Seconds after which a plugin's import or declaration hook is named in a warning as slow.
SLOW_HOOK_S = 5.0
#: Seconds after which a declaration hook is given up: reported, and skipped.
HOOK_DEADLINE_S = 60.0


def _read_first_party() -> dict[str, tuple[str, tuple[str, ...]]]:
    table = tomllib.loads((resources.files("pufferlib") / "data" / "first_party.toml").read_text())
    return {name: (entry["distribution"], tuple(entry["prefixes"])) for name, entry in table.items()}


#: First-party entry-point name -> (distribution that must provide it, id prefixes it owns),
#: from `pufferlib/data/first_party.toml`.
FIRST_PARTY: dict[str, tuple[str, tuple[str, ...]]] = _read_first_party()


@dataclass(frozen=True)
class PluginInfo:
    """An installed plugin: entry-point name, distribution, version, and load error if any."""

    name: str
    distribution: str
    version: str
    error: str | None = None


@dataclass(frozen=True)
class PluginProblem:
    """A reported misbehaviour: the plugin, where (a hook name, "load", "import" or "ids"), and what.

    Problems with `where == "load"` are also `PluginInfo.error`s of `installed_plugins()`."""

    plugin: str
    where: str
    message: str


class PluginHost:
    """The plugins of this process: the pluggy manager (None until first use), what discovery
    found (`infos`), the names loaded from their first-party distribution, and the problems
    reported since discovery."""

    def __init__(self) -> None:
        self.manager: pluggy.PluginManager | None = None
        self.infos: list[PluginInfo] = []
        self.first_party: set[str] = set()
        self.problems: dict[tuple, PluginProblem] = {}

    def discover(self) -> pluggy.PluginManager:
        """A fresh manager holding the core and, unless autoload is off, the installed plugins."""
        pm = pluggy.PluginManager(hookspecs.PROJECT)
        pm.add_hookspecs(hookspecs)
        pm.register(builtin_envs, name=CORE)
        self.infos = [PluginInfo(CORE, FIRST_PARTY[CORE][0], core_version())]
        self.first_party = {CORE}
        self.problems = {}
        if autoload_enabled():
            _load_entry_points(pm, self)
        self.manager = pm
        return pm


#: The one host of this process.
_host = PluginHost()


def autoload_enabled() -> bool:
    """False when `PUFFERLIB_DISABLE_PLUGIN_AUTOLOAD` is set to 1/true/yes."""
    return os.environ.get(DISABLE_ENV_VAR, "").lower() not in ("1", "true", "yes")


def is_distribution(name: str, other: str) -> bool:
    """Whether two distribution names are the same project (case, `-`, `_`, `.` aside)."""
    def normal(dist: str) -> str:
        return dist.lower().replace("_", "-").replace(".", "-")

    return normal(name) == normal(other)


def _is_interrupt(exc: BaseException) -> bool:
    return isinstance(exc, KeyboardInterrupt)


#: What a slow plugin is told.
_LIGHT = "a plugin's entry module and declaration hooks should import nothing heavy (see pufferlib.registry.hookspecs)"


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def label(name: str) -> str:
    """`'name' (distribution version)` for messages; just `'name'` for plugins registered in code."""
    for info in sorted(_host.infos, key=lambda info: info.error is not None):  # the loaded one first
        if info.name == name:
            return f"{name!r} ({info.distribution} {info.version})"
    return repr(name)


def report(plugin: str, where: str, message: str, key: Any = None) -> None:
    """Record a problem with `plugin` and warn about it once per (plugin, where, key).

    `message` completes the sentence "pufferlib: plugin 'x' (dist version) ...".
    """
    token = (plugin, where, key)
    if token in _host.problems:
        return
    _host.problems[token] = PluginProblem(plugin, where, message)
    warnings.warn(f"pufferlib: plugin {label(plugin)} {message}", RuntimeWarning, stacklevel=3)


def problems() -> list[PluginProblem]:
    """The problems reported since plugins were (re)discovered, in order."""
    return list(_host.problems.values())


def _load_entry_points(pm: pluggy.PluginManager, host: PluginHost) -> None:
    from importlib_metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        dist_name = dist.metadata["Name"] if dist is not None else "?"
        version = dist.version if dist is not None else "?"
        reserved = FIRST_PARTY.get(ep.name)
        error: str | None
        if reserved is not None and not is_distribution(dist_name, reserved[0]):
            error, why = f"entry-point name {ep.name!r} is reserved for {reserved[0]}", "is skipped"
        elif pm.has_plugin(ep.name):
            error, why = f"entry-point name {ep.name!r} is already taken by plugin {label(ep.name)}", "is skipped"
        elif (incompatible := _core_incompatibility(dist)) is not None:
            error, why = incompatible, "is skipped"
        else:
            error, took = _register(pm, ep, f"{dist_name} {version}")
            why = "failed to load and is skipped"
            if error is None:
                host.infos.append(PluginInfo(ep.name, dist_name, version))
                if reserved is not None:
                    host.first_party.add(ep.name)
                if took > SLOW_HOOK_S:
                    report(ep.name, "import", f"took {took:.1f} s to import; {_LIGHT}")
                continue
        host.infos.append(PluginInfo(ep.name, dist_name, version, error))
        message = f"({dist_name} {version}) {why}: {error}"
        host.problems[(ep.name, "load", dist_name)] = PluginProblem(ep.name, "load", message)
        warnings.warn(f"pufferlib: plugin {ep.name!r} ({dist_name} {version}) {why}: {error}",
                      RuntimeWarning, stacklevel=3)


def _register(pm: pluggy.PluginManager, ep: Any, who: str) -> tuple[str | None, float]:
    """Load and register one entry point (`who`: its distribution and version, for messages);
    (the error text or None when it worked, the seconds its import took)."""
    started = time.monotonic()
    try:
        plugin = ep.load()
        pm.register(plugin, name=ep.name)
    except BaseException as exc:  # SystemExit too: a broken plugin must never end the program
        if _is_interrupt(exc):
            warnings.warn(f"pufferlib: plugin {ep.name!r} ({who}) was being imported when interrupted",
                          RuntimeWarning, stacklevel=3)
            raise
        return _error_text(exc), time.monotonic() - started
    took = time.monotonic() - started
    try:
        pm.check_pending()  # hooks this core does not specify: a plugin for another version
    except pluggy.PluginValidationError as exc:
        pm.unregister(plugin)
        return _error_text(exc), took
    return None, took


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

    for line in dist.requires or []:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) != "puffer-core" or (req.marker and not req.marker.evaluate({"extra": ""})):
            continue
        try:
            compatible = req.specifier.contains(Version(core_version()), prereleases=True)
        except InvalidVersion:
            return None
        if not compatible:
            return (f"it requires puffer-core{req.specifier} but this is puffer-core {core_version()}; "
                    f"install a matching pair: pip install --upgrade {dist.metadata['Name']} puffer-core")
    return None


def plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, created (and plugins discovered) on first call.

    Call hooks through `call_hook`, which skips and reports misbehaving plugins, rather than
    through `plugin_manager().hook`.
    """
    return _host.manager if _host.manager is not None else _host.discover()


def reset_plugin_manager() -> None:
    """Forget discovered plugins and reported problems; the next use rediscovers them."""
    global _host
    _host = PluginHost()


def generation() -> tuple[int, frozenset[int]]:
    """A token that changes whenever the set of registered plugins does (rediscovery, or a
    plugin registered or unregistered in code): caches of what plugins list key on it."""
    pm = plugin_manager()
    return id(pm), frozenset(map(id, pm.get_plugins()))


def installed_plugins() -> list[PluginInfo]:
    """Every discovered plugin, including those that failed to load."""
    plugin_manager()
    return list(_host.infos)


def is_first_party(name: str) -> bool:
    """Whether the registered plugin `name` is the core or loaded from its first-party distribution."""
    plugin_manager()
    return name in _host.first_party


# -- calling hooks ----------------------------------------------------------------------

@functools.cache
def _promised(hook: str) -> Any:
    """The return type the hookspec of `hook` promises (NoneType: the result is not used)."""
    return typing.get_type_hints(getattr(hookspecs, hook), localns={"EnvSpec": EnvSpec}).get("return")


def conforms(value: Any, promised: Any) -> bool:
    """Whether `value` is of the type `promised` (classes, `X | None`, `list[X]`, `dict[K, V]`, Any).

    A list may also come as a tuple.
    """
    if promised is Any:
        return True
    if promised is None or promised is type(None):
        return value is None
    origin, args = typing.get_origin(promised), typing.get_args(promised)
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, arg) for arg in args)
    if origin is list:
        return isinstance(value, (list, tuple)) and (not args or all(conforms(v, args[0]) for v in value))
    if origin is dict:
        return isinstance(value, dict) and (not args or all(
            conforms(k, args[0]) and conforms(v, args[1]) for k, v in value.items()))
    return isinstance(value, origin or promised)


def _type_name(promised: Any) -> str | None:
    return getattr(promised, "__name__", None) if not typing.get_args(promised) else str(promised).replace(
        "pufferlib.registry.spec.", "")


def _ordered_impls(hook: str) -> list[Any]:
    impls = getattr(plugin_manager().hook, hook).get_hookimpls()
    rank = {CORE: 0}
    return sorted(impls, key=lambda impl: rank.get(impl.plugin_name, 1 if impl.plugin_name in _host.first_party else 2))


def iter_hook(hook: str, /, *, only: Iterable[str] | None = None,
              passthrough: tuple[type[BaseException], ...] = (), **kwargs: Any) -> Iterator[tuple[str, Any]]:
    """Call each implementation of `hook` in turn; yield (plugin name, result) for valid results.

    Order: core, first-party plugins, then the others in discovery order. `None` results
    are skipped silently; an implementation that raises or returns another type than its
    hookspec promises is reported once and skipped, as is a declaration hook still running at
    its deadline (see the module doc). `only` restricts the call to those
    plugin names; exceptions of the `passthrough` types propagate (a hook's documented
    signals, such as EnvNotFoundError from the owner of an id prefix). Stop iterating to
    stop calling (first-result hooks).
    """
    promised = _promised(hook)
    allowed = None if only is None else set(only)
    for impl in _ordered_impls(hook):
        name = impl.plugin_name
        if allowed is not None and name not in allowed:
            continue
        if getattr(impl, "hookwrapper", False) or getattr(impl, "wrapper", False):
            report(name, hook, f"implements {hook} as a hook wrapper, which pufferlib does not call; skipped")
            continue
        try:
            result = _call(name, hook, impl.function, [kwargs[arg] for arg in impl.argnames])
        except passthrough:
            raise
        except watch.Overdue:
            report(name, hook, f"did not return from {hook} within {HOOK_DEADLINE_S:g} s; {_LIGHT}. "
                               "That hook of it is skipped")
            continue
        except BaseException as exc:
            if _is_interrupt(exc) and name != CORE:
                report(name, hook, f"was running {hook} when interrupted", key="interrupt")
            if _is_interrupt(exc) or name == CORE:
                raise
            report(name, hook, f"raised {_error_text(exc)} in {hook}; that hook of it is skipped")
            continue
        if result is None:
            continue
        if promised is not type(None) and not conforms(result, promised):
            report(name, hook, f"returned {type(result).__name__} {_short(result)} from {hook}, which should "
                               f"return {_type_name(promised)}; that hook of it is skipped")
            continue
        yield name, result


def _call(name: str, hook: str, function: Any, args: list[Any]) -> Any:
    """`function(*args)`: the implementation of `hook` by plugin `name`, watched when it is a
    plugin's declaration hook (see the module doc)."""
    if name == CORE or hook not in DECLARATION_HOOKS:
        return function(*args)
    return watch.call_watched(function, args, SLOW_HOOK_S, HOOK_DEADLINE_S, lambda: report(
        name, hook, f"is slow: {hook} has not returned after {SLOW_HOOK_S:g} s (waiting up to {HOOK_DEADLINE_S:g} s); "
                    f"{_LIGHT}", key="slow"))


def implementers(hook: str) -> list[str]:
    """The plugins implementing `hook`, in the order `iter_hook` calls them."""
    return [impl.plugin_name for impl in _ordered_impls(hook)]


def call_hook(hook: str, /, **kwargs: Any) -> list[tuple[str, Any]]:
    """Call every implementation of `hook` (see `iter_hook`); the (plugin name, result) pairs."""
    return list(iter_hook(hook, **kwargs))


def check_loggers(names: list[str]) -> list[str]:
    """`names` when logger plugins provide them all (`pufferlib_loggers`) and each can start here
    (`pufferlib_check_logger`: its package is installed); else APIUsageError naming what to
    install. `puffer train` and `PuffeRL` call it before anything is made."""
    if not names:
        return names
    import difflib

    available = {name for _, provided in call_hook("pufferlib_loggers") for name in provided}
    for name in names:
        if name not in available:
            close = difflib.get_close_matches(name, sorted(available), n=3)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise APIUsageError(f"No logger plugin provides {name!r}.{hint} Installed loggers: "
                                f"{', '.join(sorted(available)) or 'none'} (pip install puffer-loggers).")
        for _, problem in call_hook("pufferlib_check_logger", name=name):
            raise APIUsageError(f"Logger {name!r} cannot start: {str(problem)[:300]}.")
    return names


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def distribution_of(name: str) -> str:
    """The first-party distribution of entry-point name `name` (for install hints)."""
    return FIRST_PARTY[name][0]
