"""The `pufferlib.plugins` entry point of puffer-nethack. Does not import nle."""

from __future__ import annotations

from puffer_nethack import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`nethack-<task>` for the eight NLE tasks."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-nethack owns the `nethack-` ids."""
    return [specs.PREFIX]
