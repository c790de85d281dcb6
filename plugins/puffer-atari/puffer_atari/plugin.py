"""The `pufferlib.plugins` entry point of puffer-atari. Imports neither ale-py nor OpenCV."""

from __future__ import annotations

from puffer_atari import specs
from pufferlib import hookimpl
from pufferlib.errors import EnvNotFoundError


@hookimpl
def pufferlib_env_specs() -> list:
    """`atari-<game>` for every ROM that the installed ale-py ships."""
    return specs.env_specs()


@hookimpl
def pufferlib_env_prefixes() -> list:
    """puffer-atari owns the `atari-` ids."""
    return [specs.PREFIX]


@hookimpl
def pufferlib_resolve_env(env_id: str):
    """Explain an `atari-` id that is not listed because ale-py is missing."""
    if env_id.lower().startswith(specs.PREFIX) and not specs.rom_names():
        raise EnvNotFoundError(f"No environment {env_id!r}: puffer-atari lists the games of ale-py, "
                               "which is not installed. pip install 'ale-py>=0.12,<0.13'")
    return None
