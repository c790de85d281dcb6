"""The `pufferlib.plugins` entry point of puffer-bsuite. Does not import bsuite."""

from __future__ import annotations

from puffer_bsuite import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`bsuite-<experiment>`: one id per bsuite experiment (its setting is the kwarg `setting`)."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-bsuite owns the `bsuite-` ids."""
    return [specs.PREFIX]
