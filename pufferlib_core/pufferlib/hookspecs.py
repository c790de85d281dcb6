"""pluggy hook specifications that PufferLib plugins implement.

A plugin is a module (or object) registered through the entry-point group
`pufferlib.plugins`; it marks its functions with `pufferlib.hookimpl`. Its entry module
must stay light: it lists env specs with lazy `"module:attr"` creators and imports
nothing heavy itself.
"""

from __future__ import annotations

import pluggy

PROJECT = "pufferlib"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def pufferlib_env_specs() -> list:
    """Return the `pufferlib.EnvSpec`s this plugin lists (shown by `puffer list`)."""


@hookspec
def pufferlib_env_prefixes() -> list:
    """Return the id prefixes this plugin owns (e.g. ["atari-"]), listed or resolved on demand."""


@hookspec(firstresult=True)
def pufferlib_resolve_env(env_id: str):
    """Return an EnvSpec for an id that no plugin lists (open-ended families), or None.

    A plugin that owns the id's prefix but cannot resolve it may raise
    `pufferlib.EnvNotFoundError` with suggestions.
    """


@hookspec
def pufferlib_config_defaults() -> dict:
    """Return config sections this plugin adds to the trainer config, with their defaults.

    For example {"wandb": {"project": "pufferlib"}}: the keys then exist in TOML files and
    as dotted flags (`--wandb.project NAME`).
    """


@hookspec
def pufferlib_loggers() -> dict:
    """Return the logger names this plugin provides (`puffer train --logger NAME`) -> description."""


# -- trainer hooks: logger plugins implement these; PuffeRL calls them on rank 0 ----------

@hookspec
def pufferlib_train_start(trainer) -> None:
    """A `pufferlib.PuffeRL` trainer was created; `trainer.config` holds its full config."""


@hookspec
def pufferlib_train_log(trainer, step: int, metrics: dict) -> None:
    """A log step at agent step `step`, every `train.log_interval` seconds and at close:
    `metrics` (SPS, environment/..., losses/..., performance/...) are the means of the
    `trainer.mean_and_log()` results since the previous log step."""


@hookspec
def pufferlib_checkpoint(trainer, path: str) -> None:
    """The trainer wrote a checkpoint to `path`."""


@hookspec
def pufferlib_train_end(trainer, metrics: dict) -> None:
    """`trainer.close()` was called; `metrics` are the last logged ones."""
