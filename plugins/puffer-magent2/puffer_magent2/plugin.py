"""The `pufferlib.plugins` entry point of puffer-magent2. Does not import magent2."""

from __future__ import annotations

from puffer_magent2 import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`magent2-<scenario>`: MAgent2's scenarios whose agents share one observation and action space."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-magent2 owns the `magent2-` ids."""
    return [specs.PREFIX]
