"""Which plugin owns which env ids: ids belong to plugins by prefix.

A first-party prefix (`gym-`, `ocean-`, ... from `pufferlib/data/first_party.toml`) belongs to
its first-party plugin whether or not it is installed; other plugins claim prefixes through the
`pufferlib_env_prefixes` hook, first claim wins, and a claim inside a prefix that another plugin
owns is reported and ignored. Matching is case-insensitive and the longest owned prefix wins.

So the owner of an id under a first-party prefix is known without asking any plugin (no claim
can beat a first-party prefix: a claim inside it is ignored, a shorter one loses to it), which
`owners_for` uses: resolving such an id never waits on another plugin's hooks. The claims are
asked once until the plugins change (`plugins.generation()`).
"""

from __future__ import annotations

from pufferlib.registry import plugins

#: (plugins.generation() the claims were asked for, prefix -> owner).
_cache: tuple[object, dict[str, str]] | None = None


def reserved_prefixes() -> dict[str, str]:
    """First-party id prefix -> the first-party entry-point name that owns it."""
    return {prefix: name for name, (_, prefixes) in plugins.FIRST_PARTY.items() for prefix in prefixes}


def prefix_owners() -> dict[str, str]:
    """Id prefix -> owning plugin: first-party prefixes (installed or not), then the prefixes
    that plugins claim in `pufferlib_env_prefixes`, first claim wins.

    A claim inside a prefix that another plugin owns is reported and ignored.
    """
    global _cache
    key = plugins.generation()
    if _cache is None or _cache[0] != key:
        _cache = (key, _claimed())
    return dict(_cache[1])


def _claimed() -> dict[str, str]:
    owners = reserved_prefixes()
    for name, claimed in plugins.iter_hook("pufferlib_env_prefixes"):
        for prefix in claimed:
            held = owning_prefix(prefix, owners)
            if held is None:
                owners[prefix] = name
            elif owners[held] != name:
                plugins.report(name, "ids", f"claims the id prefix {prefix!r}, but ids starting with {held!r} "
                                            f"belong to plugin {plugins.label(owners[held])}; its claim is ignored",
                               key=prefix)
    return owners


def owners_for(env_id: str) -> dict[str, str]:
    """The prefix owners that decide who owns `env_id`: the first-party prefixes alone when one
    of them covers it (no plugin is asked), else every owner (`prefix_owners`)."""
    reserved = reserved_prefixes()
    return reserved if owning_prefix(env_id, reserved) is not None else prefix_owners()


def owning_prefix(env_id: str, owners: dict[str, str]) -> str | None:
    """The longest owned prefix of `env_id` (case-insensitive), or None."""
    lowered = env_id.lower()
    matches = [p for p in owners if lowered.startswith(p.lower())]
    return max(matches, key=len) if matches else None


def owner_of(env_id: str, owners: dict[str, str]) -> str | None:
    """The plugin owning the longest prefix of `env_id`, or None."""
    prefix = owning_prefix(env_id, owners)
    return None if prefix is None else owners[prefix]
