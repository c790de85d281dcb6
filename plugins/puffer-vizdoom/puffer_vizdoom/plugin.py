"""The `pufferlib.plugins` entry point of puffer-vizdoom. Does not import vizdoom."""

from __future__ import annotations

from puffer_vizdoom import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`vizdoom-<scenario>`: the scenarios that ship inside the vizdoom package."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-vizdoom owns the `vizdoom-` ids."""
    return [specs.PREFIX]
