"""The `pufferlib.plugins` entry point of puffer-microrts. Does not import gym-microrts or JPype."""

from __future__ import annotations

from puffer_microrts import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`microrts-vs-<bot>`: 16x16 basesWorkers games against one of microRTS' built-in bots."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-microrts owns the `microrts-` ids."""
    return [specs.PREFIX]
