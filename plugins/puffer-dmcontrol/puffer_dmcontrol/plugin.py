"""The `pufferlib.plugins` entry point of puffer-dmcontrol. Does not import dm_control."""

from __future__ import annotations

from puffer_dmcontrol import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`dmc-<domain>-<task>`: the 28 tasks of dm_control's benchmarking suite."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-dmcontrol owns the `dmc-` ids."""
    return [specs.PREFIX]
