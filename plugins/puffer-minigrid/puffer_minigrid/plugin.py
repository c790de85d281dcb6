"""The `pufferlib.plugins` entry point of puffer-minigrid. Imports neither minigrid nor pygame."""

from __future__ import annotations

from puffer_minigrid import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`minigrid-<name>` and `babyai-<name>` for the envs minigrid registers by name."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-minigrid owns the `minigrid-` and `babyai-` ids."""
    return list(specs.PREFIXES.values())


@hookimpl
def pufferlib_resolve_env(env_id: str):
    """Every other MiniGrid/BabyAI id (explicit versions, ids registered in loops)."""
    return specs.resolve(env_id)
