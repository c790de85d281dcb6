"""The `pufferlib.plugins` entry point of puffer-crafter. Does not import crafter."""

from __future__ import annotations

from puffer_crafter import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`crafter-reward` and `crafter-noreward`: the two settings of the Crafter paper."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-crafter owns the `crafter-` ids."""
    return [specs.PREFIX]
