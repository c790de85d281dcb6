"""The `pufferlib.plugins` entry point of puffer-ocean: lists the Ocean env specs and the policies it offers."""

from __future__ import annotations

from puffer_ocean import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """Every Ocean environment (`ocean-<name>`, alias `puffer_<name>`)."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """Ocean owns the `ocean-` and `puffer_` ids."""
    return [specs.PREFIX, "puffer_"]


@hookimpl
def pufferlib_policies() -> list:
    """The policies of `puffer_ocean.policies`, which a config or checkpoint may name by class."""
    return ["puffer_ocean.policies:BoardConv", "puffer_ocean.policies:TripletriadPairs"]
