"""The `pufferlib.plugins` entry point of puffer-retro. Does not import stable_retro."""

from __future__ import annotations

from puffer_retro import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`retro-<game>`: the stable-retro games whose ROM ships inside the package."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-retro owns the `retro-` ids."""
    return [specs.PREFIX]
