"""The `pufferlib.plugins` entry point of puffer-craftax. Imports neither jax nor craftax."""

from __future__ import annotations

from puffer_craftax import specs
from pufferlib import hookimpl


@hookimpl
def pufferlib_env_specs() -> list:
    """`craftax-classic` and `craftax` (full): Craftax's two games, symbolic observations, batched."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-craftax owns the `craftax` id and the `craftax-` ids."""
    return [specs.PREFIX]
