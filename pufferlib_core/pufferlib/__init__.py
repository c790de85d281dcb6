"""PufferLib: fast reinforcement learning.

`import pufferlib` is cheap: submodules and heavy dependencies load on first use.

    import pufferlib
    env = pufferlib.make('gym-CartPole-v1', num_envs=8)
    obs, infos = env.reset(seed=0)
    obs, rewards, terminals, truncations, infos = env.step(env.action_space.sample())
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any

from pufferlib.errors import APIUsageError, CheckpointError, EnvNotFoundError, NonFiniteError, PufferError, WorkerError

if TYPE_CHECKING:  # the lazy names below, as type checkers and IDEs should see them (tests/core/test_imports.py);
    # exported through __all__, which ruff cannot read (it lists _LAZY)
    from pufferlib.agent import Agent, load  # noqa: F401
    from pufferlib.checker import check_env  # noqa: F401
    from pufferlib.environment import Buffers, EpisodeStats, PufferEnv  # noqa: F401
    from pufferlib.protocols import EnvCreator, Policy, RecurrentPolicy, VecEnv  # noqa: F401
    from pufferlib.pufferl import PuffeRL  # noqa: F401
    from pufferlib.registry import register  # noqa: F401
    from pufferlib.registry.hookspecs import hookimpl  # noqa: F401
    from pufferlib.registry.make import emulate, make, make_from_config  # noqa: F401
    from pufferlib.registry.spec import NATIVE, EnvSpec, load_object  # noqa: F401
    from pufferlib.spaces import ObsLayout  # noqa: F401

_LAZY = {
    "hookimpl": "pufferlib.registry.hookspecs",
    "PufferEnv": "pufferlib.environment",
    "Buffers": "pufferlib.environment",
    "make": "pufferlib.registry.make",
    "emulate": "pufferlib.registry.make",
    "register": "pufferlib.registry",
    "EnvSpec": "pufferlib.registry.spec",
    "NATIVE": "pufferlib.registry.spec",
    "load_object": "pufferlib.registry.spec",
    "EpisodeStats": "pufferlib.environment",
    "ObsLayout": "pufferlib.spaces",
    "make_from_config": "pufferlib.registry.make",
    "PuffeRL": "pufferlib.pufferl",
    "load": "pufferlib.agent",
    "Agent": "pufferlib.agent",
    "check_env": "pufferlib.checker",
    # The typed contracts at the plugin seam (see pufferlib.protocols).
    "VecEnv": "pufferlib.protocols",
    "Policy": "pufferlib.protocols",
    "RecurrentPolicy": "pufferlib.protocols",
    "EnvCreator": "pufferlib.protocols",
}


# The one version source of the `puffer-core` distribution (pyproject.toml reads it).
__version__ = "0.1.0"

# Distributions that install their own top-level `pufferlib` package: the upstream project, and
# the unrelated "pufferlib-core" on the package index (as their metadata folders spell them).
# Either one beside puffer-core overwrites files of the other (or shadows it), so
# `import pufferlib` may run a mix of both.
_CONFLICTING_DISTRIBUTIONS = ("pufferlib", "pufferlib_core")


def version() -> str:
    """The version of this puffer-core (its `__version__`)."""
    return __version__


def _conflicting_distributions() -> list[str]:
    """Metadata folders (`NAME-VERSION.dist-info`, `NAME.egg-info`) on sys.path of the
    distributions in `_CONFLICTING_DISTRIBUTIONS`.

    One directory listing per sys.path entry and no import: `import pufferlib` stays cheap.
    """
    found: list[str] = []
    for folder in dict.fromkeys(os.path.abspath(entry or ".") for entry in sys.path):
        try:
            names = os.listdir(folder)
        except OSError:  # a zip file, a missing folder
            continue
        for name in names:
            stem, _, suffix = name.rpartition(".")
            if suffix in ("dist-info", "egg-info") and stem.split("-")[0].lower() in _CONFLICTING_DISTRIBUTIONS:
                found.append(os.path.join(folder, name))
    return found


def _warn_about_conflicting_distributions() -> None:
    """Warn if a distribution that also provides the `pufferlib` package is installed."""
    for path in _conflicting_distributions():
        warnings.warn(
            f"pufferlib: {path} is installed in this environment beside puffer-core {__version__}: "
            f"that distribution (the upstream 'pufferlib' or the unrelated 'pufferlib-core') also "
            f"provides the `pufferlib` package, so `import pufferlib` may run a mix of the two. Use a "
            f"separate virtualenv, or uninstall it (pip uninstall pufferlib pufferlib-core; delete "
            f"the folder if it is a stale build) and reinstall puffer-core.",
            RuntimeWarning, stacklevel=2)


_warn_about_conflicting_distributions()


def __getattr__(name: str) -> Any:  # Any: a lazily imported name is any of the module's objects
    module = _LAZY.get(name)
    if module is None:
        try:
            return importlib.import_module(f"pufferlib.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"pufferlib.{name}":
                raise
            raise AttributeError(f"module 'pufferlib' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = ["APIUsageError", "CheckpointError", "EnvNotFoundError", "NonFiniteError", "PufferError", "WorkerError",
           "version", *_LAZY]
