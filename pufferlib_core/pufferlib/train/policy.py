"""Building a policy from an env and a config: the one way `puffer train`, `puffer eval`
and `PuffeRL(...)` make one.

The contract a policy class meets:

- It is called as `cls(env, **kwargs)` (the vectorized env, for its spaces), or as
  `cls(observation_space, action_space, **kwargs)` when its first two parameters are
  named so (the user guide's style); `forward(obs)` returns `(logits, value)`.
- The class is the `[policy] class` key ("module:Class", or a class of `pufferlib.models`
  by name, e.g. `--policy.class Convolutional`), else the env's default policy, else
  `models.Default`.
- `kwargs` are the other `[policy]` config keys its `__init__` accepts (all of them when it
  takes `**kwargs`). A key it does not accept is dropped when it is a core default
  (`data/default.toml`, same value) or a key the env's plugin sets for its own default
  policy (same value) while another class is chosen (`--policy.class Convolutional` on an
  id whose default policy takes `cnn_width`), and is an `APIUsageError` when it was set by
  the user or the plugin for this class, naming the key and the accepted ones.
- With `rnn.enabled`, it is wrapped in `models.LSTMWrapper`, which needs
  `encode_observations(obs) -> (batch, H)` and `decode_actions(hidden) -> (logits, value)`;
  H is read from `policy.hidden_size` (or measured on one observation) and must equal
  `rnn.hidden_size` unless the policy's heads are a `models.ActionHead` named `head`
  (then they are rebuilt for the LSTM's width).

Import and construction failures of the policy class become `APIUsageError`s that name
the class and the fix, so `puffer train` prints a message instead of a traceback.
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from pufferlib.config import core_defaults
from pufferlib.errors import APIUsageError, PufferError

if TYPE_CHECKING:
    import torch

    from pufferlib.protocols import EnvSpaces, PolicyFactory, SplitPolicy

RECURRENT_METHODS = ("encode_observations", "decode_actions")
#: The `[policy]` key naming the policy class ("module:Class", or a class of `pufferlib.models`);
#: the section's other keys are its keyword arguments.
CLASS_KEY = "class"
#: The policies of `pufferlib.models` that `[policy] class` may name without their module.
BUILT_IN = ("Default", "ActorCritic", "Convolutional", "ImpalaResNet")


def core_policy_defaults() -> dict[str, object]:
    """The `[policy]` section of the core's default.toml."""
    return dict(core_defaults().get("policy", {}))


def explicit_keys(policy_config: Mapping[str, object]) -> set[str]:
    """Keys of a merged `[policy]` section that were not left at the core's defaults."""
    defaults = core_policy_defaults()
    return {k for k, v in policy_config.items() if k != CLASS_KEY and (k not in defaults or defaults[k] != v)}


def _name(cls: object) -> str:
    return f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', repr(cls))}"


def _parameters(cls: Callable[..., object]) -> tuple[list[str], bool]:
    """(names of the keyword-capable parameters after the env ones, takes **kwargs)."""
    try:
        params = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return [], True  # no signature (a C type): pass everything and let it complain
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return names, var_kw


def _takes_spaces(names: list[str]) -> bool:
    return names[:2] == ["observation_space", "action_space"]


def plugin_keys_of_another_class(cls: PolicyFactory, policy_config: Mapping[str, object],
                                  env_id: str | None) -> set[str]:
    """The `[policy]` keys that env `env_id`'s plugin sets for its default policy, at the
    plugin's values, when `cls` is not that default policy (else none): settings of a class
    the user did not choose, which `cls` may not take."""
    if env_id is None:
        return set()
    from pufferlib import registry

    try:
        spec = registry.spec(env_id)
        own = resolve_policy_class(None, env_id)
    except PufferError:
        return set()
    if own is cls:
        return set()
    plugin = dict((spec.config or {}).get("policy", {}))
    return {k for k, v in policy_config.items() if k != CLASS_KEY and k in plugin and plugin[k] == v}


def policy_kwargs(cls: PolicyFactory, policy_config: Mapping[str, object],
                  explicit: Iterable[str] | None = None) -> dict[str, object]:
    """The `[policy]` keys `cls` accepts; APIUsageError for an explicit key it does not.

    `explicit`: keys set by the user or a plugin (default: those differing from the core's
    defaults). Keys that are only core defaults are dropped silently when not accepted.
    """
    policy_config = {k: v for k, v in policy_config.items() if k != CLASS_KEY}
    names, var_kw = _parameters(cls)
    env_params = 2 if _takes_spaces(names) else 1
    accepted = names[env_params:]
    if var_kw:
        return dict(policy_config)
    explicit = explicit_keys(policy_config) if explicit is None else set(explicit)
    unknown = sorted(k for k in policy_config if k not in accepted and k in explicit)
    if unknown:
        import difflib

        hints = [f"{k} (did you mean {', '.join(difflib.get_close_matches(k, accepted, n=2))}?)"
                 if difflib.get_close_matches(k, accepted, n=2) else k for k in unknown]
        raise APIUsageError(
            f"Policy {_name(cls)} does not accept the [policy] key(s) {', '.join(hints)}. It accepts: "
            f"{', '.join(accepted) or 'no keyword arguments'}. Remove the key from your config / "
            f"--policy.* flags, or add the parameter to {getattr(cls, '__qualname__', cls)}.__init__.")
    return {k: v for k, v in policy_config.items() if k in accepted}


def resolve_policy_class(policy: str | PolicyFactory | None, env_id: str | None = None) -> PolicyFactory:
    """A policy class from a 'module:attr' string, the name of a class of `pufferlib.models`, a
    class, or None (the env's default, else models.Default)."""
    from pufferlib import models, registry

    where = f" (the default policy of {env_id!r})" if env_id and policy is None else ""
    if policy is None and env_id is not None:
        try:
            policy = registry.spec(env_id).policy
        except PufferError:
            policy = None
    if policy is None:
        return models.Default
    if isinstance(policy, str) and ":" not in policy:
        if policy not in BUILT_IN:
            import difflib

            close = difflib.get_close_matches(policy, BUILT_IN, n=2)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise APIUsageError(f"Unknown policy {policy!r}{hint}: give 'module:Class', or one of the policies of "
                                f"pufferlib.models: {', '.join(BUILT_IN)}.")
        return getattr(models, policy)
    if isinstance(policy, str):
        try:
            return registry.load_object(policy)
        except ImportError as exc:
            raise APIUsageError(f"Cannot import policy {policy!r}{where}: {exc}. Check the 'module:Class' "
                                "path and that its package is installed.") from None
    if not callable(policy):
        raise APIUsageError(f"policy must be a class, a callable or a 'module:Class' string, got {policy!r}.")
    return policy


def _construct(cls: PolicyFactory, env: EnvSpaces, kwargs: dict[str, object]) -> torch.nn.Module:
    names, _ = _parameters(cls)
    args = (env.single_observation_space, env.single_action_space) if _takes_spaces(names) else (env,)
    try:
        return cls(*args, **kwargs)
    except PufferError:
        raise
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        raise APIUsageError(f"Building policy {_name(cls)}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())}) "
                            f"failed: {type(exc).__name__}: {exc} (at {frame.filename}:{frame.lineno}). A policy "
                            "class takes the vectorized env (or observation_space, action_space) first.") from exc


def encoded_size(env: EnvSpaces, policy: SplitPolicy) -> int:
    """H of `policy.encode_observations`: `policy.hidden_size`, else measured on one zero observation."""
    size = getattr(policy, "hidden_size", None)
    if isinstance(size, int):
        return size
    import numpy as np
    import torch

    space = env.single_observation_space
    assert space.shape is not None, "observation spaces are Boxes"
    obs = torch.from_numpy(np.zeros((1, *space.shape), dtype=space.dtype))
    with torch.no_grad():
        hidden = policy.encode_observations(obs)
    if not isinstance(hidden, torch.Tensor) or hidden.dim() != 2:
        raise APIUsageError(f"{_name(type(policy))}.encode_observations must return a (batch, hidden) tensor "
                            f"for the LSTM, got {getattr(hidden, 'shape', type(hidden).__name__)}.")
    return int(hidden.shape[1])


def wrap_recurrent(env: EnvSpaces, policy: torch.nn.Module, hidden_size: int) -> torch.nn.Module:
    """`models.LSTMWrapper(env, policy, ...)` after checking the policy meets its needs."""
    from pufferlib import models

    missing = [m for m in RECURRENT_METHODS if not callable(getattr(policy, m, None))]
    name = _name(type(policy))
    if missing:
        raise APIUsageError(
            f"rnn.enabled wraps the policy in an LSTM, but {name} lacks {', '.join(missing)}. A recurrent "
            "policy splits forward() into encode_observations(obs) -> (batch, H) and decode_actions(hidden) "
            "-> (logits, value) (see pufferlib.models.Default), or set --rnn.enabled false.")
    size = encoded_size(env, cast("SplitPolicy", policy))  # it has both methods (checked above)
    rebuilt_head = (isinstance(getattr(policy, "head", None), models.ActionHead)
                    and getattr(policy, "hidden_size", None) == size)
    if size != hidden_size and not rebuilt_head:
        raise APIUsageError(
            f"{name}.encode_observations gives {size} features but rnn.hidden_size={hidden_size}: its "
            f"decode_actions reads the LSTM's output. Set --rnn.hidden-size {size}, or give the policy a "
            "models.ActionHead named `head` (rebuilt for the LSTM's width).")
    return models.LSTMWrapper(env, policy, input_size=size, hidden_size=hidden_size)


def ensure_trainable(policy: object) -> None:
    """APIUsageError unless `policy` is a torch Module the trainer can run (recurrent ones included)."""
    import torch

    if not isinstance(policy, torch.nn.Module):
        raise APIUsageError(f"policy must be a torch.nn.Module whose forward(obs) returns (logits, value), "
                            f"got {type(policy).__name__}.")
    if getattr(policy, "is_recurrent", False):
        missing = [m for m in ("initial_state", "forward_sequence") if not callable(getattr(policy, m, None))]
        if missing:
            raise APIUsageError(f"{_name(type(policy))} sets is_recurrent but lacks {', '.join(missing)}: wrap a "
                                "feed-forward policy in pufferlib.models.LSTMWrapper instead.")


def make_policy(env: EnvSpaces, config: Mapping[str, Any], policy: str | PolicyFactory | None = None,
                env_id: str | None = None, explicit: Iterable[str] | None = None) -> torch.nn.Module:
    """The policy of a config: `policy`, else the config's `[policy] class`, else the env's
    default, else models.Default, built with the `[policy]` keys it accepts, LSTM-wrapped when
    `rnn.enabled`. See the module docstring.

    `config` is a trainer config as read from TOML (its `policy` and `rnn` sections are used).
    """
    section = config.get("policy", {})
    cls = resolve_policy_class(policy if policy is not None else (section.get(CLASS_KEY) or None), env_id)
    explicit = explicit_keys(section) if explicit is None else set(explicit)
    kwargs = policy_kwargs(cls, section, explicit - plugin_keys_of_another_class(cls, section, env_id))
    built = _construct(cls, env, kwargs)
    rnn = config.get("rnn", {})
    if rnn.get("enabled"):
        built = wrap_recurrent(env, built, int(rnn.get("hidden_size", 64)))
    ensure_trainable(built)
    return built
