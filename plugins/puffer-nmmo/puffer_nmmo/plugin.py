"""The `pufferlib.plugins` entry point of puffer-nmmo. Does not import nmmo."""

from __future__ import annotations

from puffer_nmmo import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`nmmo-default` (nmmo's own default world) and `nmmo-small` (a small world for quick runs)."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-nmmo owns the `nmmo-` ids."""
    return [specs.PREFIX]
