"""Files we load are data, never instructions: the one place where a file's values become what
a loader may use.

A checkpoint, a published agent (`config.toml`), a run folder's `metrics.jsonl`, a sweep's
database and a `--config` file may all come from a stranger. Their values may select among
what the installed code registered; they never name code to import, an address to connect to,
or a place to write:

- Code. An env id read from a file is resolved by the registry (ids and id families of the
  installed plugins); one of the `module:attr` form, which would import that module and call
  the attribute, is refused. A `[policy] class` read from a file is "" (the env's default
  policy), a policy of `pufferlib.models` by name (`POLICIES`), or a `module:attr` string that
  an installed plugin declares (an env spec's policy, or its `pufferlib_policies` hook); any
  other is refused.
- The user vouches for other code on their own command line or in their own Python call: the
  env id they pass and their own `--policy.class` are theirs (`vouched`), and `--trust-code`
  (`trust_code=True`) accepts whatever the file names. `UntrustedCodeError` says both.
- Where to run, log and write is the user's: the sections and keys of `USER_KEYS` (Ray's
  address, the vectorization backend and worker count, the device, the data, init and hub
  folders, logger names, and every section a plugin adds, such as a logger's folder) are
  dropped from a file's config by `from_file`, so that the loader's defaults and the user's
  flags apply.
- Env arguments (`[env]`, `[eval.env]`) reach the env's creator, and a creator may hand the
  ones it does not name to its framework (NLE's `savedir`, where it writes recordings). A file's
  env argument is kept when its value holds no string (a number, a bool, lists of them: none can
  name code, an address or a path) or when the installed code declares its key (the spec's
  kwargs, or a named parameter of the creator); any other is dropped by `from_file`, listed with
  the user's keys, for the user to pass on their own command line.
- Every other value is validated like any config (types, ranges, choices), so a file cannot
  ask for 10^8 envs or a negative learning rate; a bad value is a `CheckpointError` naming the file.

`from_file(config, where)` is that function for a config; `checked_payload(payload)` applies
it (and the env id rule) to a loaded checkpoint, which `pufferlib.train.checkpoint.load` does
for every file and published agent it returns.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Collection, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from pufferlib.config import core_defaults, load_default, merge
from pufferlib.config.validation import validate
from pufferlib.errors import APIUsageError, CheckpointError, PufferError

#: The policies of `pufferlib.models` that `[policy] class` may name without their module.
POLICIES = ("Default", "ActorCritic", "Convolutional", "ImpalaResNet")
#: Sections (whole) and "section.key"s that say where to run, log and write: the user's alone.
USER_KEYS = ("ray", "hub", "logger", "vec.backend", "vec.num_workers", "train.device", "train.data_dir",
             "train.init_from", "sweep.backend", "sweep.workers")
#: The flag that accepts whatever a file names (named in every refusal); `puffer` sets `trusting()` for it.
TRUST_FLAG = "--trust-code"
_TRUSTED: ContextVar[bool] = ContextVar("pufferlib_trust_code", default=False)


@contextlib.contextmanager
def trusting(enabled: bool = True) -> Iterator[None]:
    """Inside the block, loaders accept whatever files name (`--trust-code`); `trust_code=None`
    arguments read this."""
    token = _TRUSTED.set(enabled)
    try:
        yield
    finally:
        _TRUSTED.reset(token)


def _trusted(trust_code: bool | None) -> bool:
    return _TRUSTED.get() if trust_code is None else trust_code


class UntrustedCodeError(CheckpointError):
    """A value read from a file names code that no installed plugin registered."""


def names_code(value: object) -> bool:
    """True for a `module:attr` string: a name that would import a module and call into it."""
    return isinstance(value, str) and ":" in value


def _refuse(where: str, key: str, value: str, what: str, fix: str) -> UntrustedCodeError:
    return UntrustedCodeError(
        f"{where}: refused: its {key} is {value!r}, {what}; a file may only name what the installed plugins "
        f"registered. {fix} If you trust whoever wrote this file, pass {TRUST_FLAG} (Python: trust_code=True).")


def check_env_id(env_id: object, where: str, *, trust_code: bool | None = None, vouched: Collection[str] = ()) -> str:
    """`env_id` read from the file `where`, once it is safe to resolve: a string, not of the
    `module:attr` form unless the user vouched for it; UntrustedCodeError otherwise."""
    if not isinstance(env_id, str) or not env_id:
        raise CheckpointError(f"{where}: its env id is {env_id!r}, not an env id such as 'ocean-breakout'.")
    if names_code(env_id) and not _trusted(trust_code) and env_id not in vouched:
        raise _refuse(where, "env id", env_id, "a 'module:attr' creator that would be imported and called",
                      "Pass the env id on your own command line (or as env= in Python).")
    return env_id


def declared_policies(env_id: str | None) -> set[str]:
    """The `module:attr` policy classes that installed plugins declare (their `pufferlib_policies`
    hook, every listed spec's policy, and `env_id`'s own spec's, family ids included), plus
    `pufferlib.models:NAME` for `POLICIES`."""
    from pufferlib import registry

    specs = [spec for listed in registry.listed_specs().values() for spec in listed]
    if env_id is not None and not names_code(env_id):
        try:
            specs.append(registry.spec(env_id))
        except PufferError:
            pass
    from pufferlib.registry.plugins import call_hook

    declared = {f"pufferlib.models:{name}" for name in POLICIES}
    declared.update(name for _, names in call_hook("pufferlib_policies") for name in names if isinstance(name, str))
    for spec in specs:
        for value in (spec.policy, (spec.config or {}).get("policy", {}).get("class")):
            if isinstance(value, str) and value:
                declared.add(value)
    return declared


def check_policy_class(value: object, env_id: str | None, where: str, *, trust_code: bool | None = None,
                       vouched: Collection[str] = ()) -> None:
    """UntrustedCodeError unless the `[policy] class` `value` read from the file `where` is "",
    a name of `POLICIES`, a class an installed env spec declares, or vouched for (module docstring)."""
    if value in ("", None) or value in POLICIES or _trusted(trust_code) or value in vouched:
        return
    if not isinstance(value, str):
        raise CheckpointError(f"{where}: its policy.class is {value!r}, not a class name.")
    if names_code(value) and value in declared_policies(env_id):
        return
    raise _refuse(where, "policy.class", value, "a class no installed plugin declares",
                  "Name the class on your own command line (--policy.class MODULE:CLASS).")


def drop_user_keys(config: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(`config` without the `USER_KEYS` and the sections plugins add, the dotted keys dropped
    whose values differ from the defaults)."""
    core, default = core_defaults(), load_default()
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for section, values in config.items():
        if section in USER_KEYS or section not in core:
            if values != default.get(section) and values not in ({}, None):
                dropped.append(section)
            continue
        if not isinstance(values, Mapping):
            kept[section] = values  # validated (and refused) by from_file
            continue
        kept[section] = {}
        for key, value in values.items():
            if f"{section}.{key}" in USER_KEYS:
                if value != default[section].get(key):
                    dropped.append(f"{section}.{key}")
                continue
            kept[section][key] = value
    return kept, dropped


def _holds_text(value: object) -> bool:
    """True when `value` is, or holds at any depth, a string (or anything but numbers, bools and None)."""
    if value is None or isinstance(value, (bool, int, float)):
        return False
    if isinstance(value, (list, tuple)):
        return any(_holds_text(v) for v in value)
    if isinstance(value, Mapping):
        return any(_holds_text(k) or _holds_text(v) for k, v in value.items())
    return True


def declared_env_keys(env_id: str | None) -> set[str]:
    """The env arguments the installed code declares for `env_id`: its spec's kwargs and the named
    parameters of its creator (not what a `**kwargs` passes on); empty for an unknown id."""
    if env_id is None or names_code(env_id):
        return set()
    from pufferlib import registry

    try:
        spec = registry.spec(env_id)
        creator = spec.load_creator()
    except (PufferError, ImportError):
        return set()
    keys = set(spec.kwargs)
    try:
        params = inspect.signature(creator).parameters.values()
    except (TypeError, ValueError):  # a builtin or a callable without a signature
        return keys
    return keys | {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def drop_undeclared_env_text(config: dict[str, Any], env_id: str | None) -> list[str]:
    """Take out of `config` (its `[env]` and `[eval.env]` tables are replaced, not edited) the env
    arguments whose value holds text and whose key `env_id`'s installed code does not declare
    (module docstring); returns their dotted keys."""
    declared: set[str] | None = None
    dropped = []
    for name, parent in (("env", config), ("eval.env", config.get("eval"))):
        table = parent.get("env") if isinstance(parent, dict) else None
        if not isinstance(parent, dict) or not isinstance(table, Mapping) or not any(map(_holds_text, table.values())):
            continue
        declared = declared_env_keys(env_id) if declared is None else declared
        dropped += [f"{name}.{k}" for k, v in table.items() if _holds_text(v) and k not in declared]
        parent["env"] = {k: v for k, v in table.items() if not _holds_text(v) or k in declared}
    return dropped


def from_file(config: object, where: str, *, env_id: str | None = None, trust_code: bool | None = None,
              vouched: Collection[str] = ()) -> tuple[dict[str, Any], list[str]]:
    """What a loader may use of the config read from the file `where` (module docstring): (the
    config without the user's keys, validated; the dotted keys dropped that the file had set).

    `env_id`: the file's env (whose spec may declare its policy class). CheckpointError (or its
    UntrustedCodeError) names the file and the value."""
    if not isinstance(config, Mapping):
        raise CheckpointError(f"{where}: its config is a {type(config).__name__}, not a table of sections.")
    section = config.get("policy")
    if isinstance(section, Mapping):
        check_policy_class(section.get("class", ""), env_id, where, trust_code=trust_code, vouched=vouched)
    kept, dropped = drop_user_keys(config)
    if not _trusted(trust_code):
        dropped += drop_undeclared_env_text(kept, env_id)
    default = load_default()
    try:
        validate(merge(default, kept), default)
    except APIUsageError as exc:
        raise CheckpointError(f"{where}: its config is not valid here: {exc}") from None
    return kept, dropped


def own_code(config: Mapping[str, Any] | None, env_id: str | None = None) -> tuple[str, ...]:
    """The `module:attr` names of `config` and `env_id`, which the user gave (their call, their
    command line, or a file already checked): what loads made on their behalf (a run's own
    checkpoints and snapshots) vouch for."""
    section = (config or {}).get("policy")
    names = (section.get("class") if isinstance(section, Mapping) else None, env_id)
    return tuple(name for name in names if isinstance(name, str) and names_code(name))


def checked_payload(payload: dict[str, Any], *, trust_code: bool | None = None, vouched: Collection[str] = ()
                    ) -> dict[str, Any]:
    """A loaded checkpoint (or published agent) as loaders may use it: its env id checked, its
    config through `from_file`; `payload["dropped"]` lists the user's keys the file had set."""
    where = str(payload.get("path", "the checkpoint"))
    env_id = payload.get("env_id")
    if env_id is not None:
        env_id = check_env_id(env_id, where, trust_code=trust_code, vouched=vouched)
    config, dropped = from_file(payload.get("config"), where, env_id=env_id, trust_code=trust_code, vouched=vouched)
    return {**payload, "config": config, "dropped": dropped}


__all__ = ["POLICIES", "TRUST_FLAG", "USER_KEYS", "UntrustedCodeError", "check_env_id", "check_policy_class",
           "checked_payload", "declared_env_keys", "declared_policies", "drop_undeclared_env_text", "drop_user_keys",
           "from_file", "names_code", "own_code", "trusting"]
