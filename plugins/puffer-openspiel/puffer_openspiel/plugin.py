"""The `pufferlib.plugins` entry point of puffer-openspiel. Does not import OpenSpiel."""

from __future__ import annotations

from puffer_openspiel import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`openspiel-kuhn_poker`, `openspiel-tic_tac_toe`, ...: OpenSpiel's two-player zero-sum turn-based games."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-openspiel owns the `openspiel-` ids."""
    return [specs.PREFIX]
