"""PufferLib: fast reinforcement learning.

`import pufferlib` is cheap: submodules and heavy dependencies load on first use.

    import pufferlib
    env = pufferlib.make('gym-CartPole-v1', num_envs=8)
    obs, infos = env.reset(seed=0)
    obs, rewards, terminals, truncations, infos = env.step(env.action_space.sample())
"""

from __future__ import annotations

import importlib
from typing import Any

from pufferlib.errors import (APIUsageError, CheckpointError, EnvNotFoundError, NonFiniteError, PufferError,
                              WorkerError)
from pufferlib.hookspecs import hookimpl

_LAZY = {
    "PufferEnv": "pufferlib.environment",
    "Buffers": "pufferlib.environment",
    "make": "pufferlib.factory",
    "emulate": "pufferlib.factory",
    "register": "pufferlib.registry",
    "EnvSpec": "pufferlib.spec",
    "NATIVE": "pufferlib.spec",
    "load_object": "pufferlib.spec",
    "EpisodeStats": "pufferlib.environment",
    "ObsLayout": "pufferlib.spaces",
    "make_from_config": "pufferlib.factory",
    "PuffeRL": "pufferlib.pufferl",
    "check_env": "pufferlib.checker",
}


def version() -> str:
    """The installed version of pufferlib-core."""
    from importlib_metadata import PackageNotFoundError, version as dist_version

    try:
        return dist_version("pufferlib-core")
    except PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        try:
            return importlib.import_module(f"pufferlib.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"pufferlib.{name}":
                raise
            raise AttributeError(f"module 'pufferlib' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = ["APIUsageError", "CheckpointError", "EnvNotFoundError", "NonFiniteError", "PufferError", "WorkerError",
           "hookimpl", "version", *_LAZY]
