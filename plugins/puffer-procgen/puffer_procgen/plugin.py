"""The `pufferlib.plugins` entry point of puffer-procgen. Imports neither procgen nor gym."""

from __future__ import annotations

from puffer_procgen import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`procgen-<game>` for the 16 Procgen games."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-procgen owns the `procgen-` ids."""
    return [specs.PREFIX]
