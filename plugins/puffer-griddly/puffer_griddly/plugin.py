"""The `pufferlib.plugins` entry point of puffer-griddly. Does not import griddly."""

from __future__ import annotations

from puffer_griddly import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`griddly-<game>`: one id per single-player game of `puffer_griddly.games.GAMES`."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-griddly owns the `griddly-` ids."""
    return [specs.PREFIX]
