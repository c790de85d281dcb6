"""The `pufferlib.plugins` entry point of puffer-minihack. Does not import minihack or nle."""

from __future__ import annotations

from puffer_minihack import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`minihack-<task>` for the MiniHack navigation and skill tasks that run here."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-minihack owns the `minihack-` ids."""
    return [specs.PREFIX]
