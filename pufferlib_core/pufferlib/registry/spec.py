"""`EnvSpec`, how to make one environment id, and `load_object` for lazy `"module:attr"` names.

A leaf module (it imports nothing of pufferlib but its errors), so that plugins, the
core's own env families and the registry can all use it without import cycles.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pufferlib.errors import APIUsageError

if TYPE_CHECKING:
    from pufferlib.protocols import EnvCreator, PolicyFactory


def load_object(path: str) -> Any:
    """Import `"package.module:attr"` (attr may be dotted) and return the attribute.

    Any attribute of any module: its type is what the caller named (`Any`, so that the caller
    can call it without a cast; `EnvSpec` types its creator and policy).
    """
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


#: `EnvSpec.backend` of a native env: its creator takes `num_envs` and steps every copy itself in
#: one call (Ocean's C envs, ALE's and Procgen's vector envs); `pufferlib.make` then builds one such
#: env per process instead of vectorizing single envs.
NATIVE = "native"


@dataclass
class EnvSpec:
    """How to make one environment id, and the defaults that come with it.

    `creator` is a callable or a lazy `"module:attr"` string, called as
    `creator(**{**kwargs, **user_kwargs})`. `policy` names the default policy class
    (`"module:attr"`); `config` holds default training settings (nested dict, same keys as
    the trainer config); `backend` is the default vectorization backend, or `NATIVE`.
    """

    id: str
    creator: str | EnvCreator
    kwargs: dict = field(default_factory=dict)
    policy: str | PolicyFactory | None = None
    config: dict = field(default_factory=dict)
    backend: str | None = None
    package: str | None = None
    description: str = ""
    aliases: tuple[str, ...] = ()

    def load_creator(self) -> EnvCreator:
        """The creator callable (imports its module on first use)."""
        return load_object(self.creator) if isinstance(self.creator, str) else self.creator

    def load_policy(self) -> PolicyFactory | None:
        """The default policy class, or None."""
        return load_object(self.policy) if isinstance(self.policy, str) else self.policy
