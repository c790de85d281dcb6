"""pluggy hook specifications that PufferLib plugins implement.

A plugin is a module (or object) registered through the entry-point group
`pufferlib.plugins`; it marks its functions with `pufferlib.hookimpl`. Its entry module
must stay light: it lists env specs with lazy `"module:attr"` creators and imports
nothing heavy itself. So must the declaration hooks (env specs, prefixes, config defaults,
loggers and their checks, policies): one that runs longer than `plugins.SLOW_HOOK_S` is named
in a warning, and one still running after `plugins.HOOK_DEADLINE_S` is skipped (see
`pufferlib.registry.plugins`).

The return annotations are part of the contract: the core checks each result against
them, and skips (and reports) an implementation that returns something else or raises.
Returning None means "nothing from this plugin".
"""

from __future__ import annotations

import pluggy

from pufferlib.registry.spec import EnvSpec

PROJECT = "pufferlib"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def pufferlib_env_specs() -> list[EnvSpec]:
    """Return the `pufferlib.EnvSpec`s this plugin lists (shown by `puffer list`).

    Ids (and aliases) inside a prefix that another plugin owns, first-party prefixes
    included, and ids that a plugin earlier in the order already lists, are ignored.
    """


@hookspec
def pufferlib_env_prefixes() -> list[str]:
    """Return the id prefixes this plugin owns (e.g. ["atari-"]), listed or resolved on demand.

    First-party prefixes (gym-, pettingzoo-, ocean-, atari-, ...) cannot be claimed by others.
    """


@hookspec(firstresult=True)
def pufferlib_resolve_env(env_id: str) -> EnvSpec | None:
    """Return an EnvSpec for an id that no plugin lists (open-ended families), or None.

    Only the owner of the id's prefix is asked, when a plugin owns it; otherwise every
    plugin in turn. The owner that cannot resolve the id may raise
    `pufferlib.EnvNotFoundError` with suggestions.
    """


@hookspec
def pufferlib_config_defaults() -> dict[str, dict]:
    """Return config sections this plugin adds to the trainer config, with their defaults.

    For example {"wandb": {"project": "pufferlib"}}: the keys then exist in TOML files and
    as dotted flags (`--wandb.project NAME`). Defaults may only add sections and keys: a
    value for a key that already exists (the core's learning rate, say) is ignored with a
    warning. Per-env training settings belong in `EnvSpec.config`.
    """


@hookspec
def pufferlib_policies() -> list[str]:
    """Return the "module:Class" policy classes this plugin offers beyond its envs' default
    policies (e.g. ["my_plugin.policies:BoardConv"]).

    A file (a checkpoint, a published agent, a config file) may name a policy class only when an
    installed plugin declares it, here or as an `EnvSpec.policy` (see `pufferlib.train.trust`).
    """


@hookspec
def pufferlib_loggers() -> dict[str, str]:
    """Return the logger names this plugin provides (`puffer train --logger NAME`) -> description."""


@hookspec
def pufferlib_check_logger(name: str) -> str | None:
    """Return why the logger `name`, if this plugin provides it, cannot start here (one line that
    says what to install, e.g. its package is missing), else None.

    `puffer train` asks before it makes the env, for each logger the run names, and stops on an
    answer, where a start hook that raises is only reported. Look for the package
    (`importlib.util.find_spec`); do not import it.
    """


# -- trainer hooks: logger plugins implement these; PuffeRL calls them on rank 0 ----------
# An implementation that raises is reported and skipped; the run goes on.

@hookspec
def pufferlib_train_start(trainer) -> None:
    """A `pufferlib.PuffeRL` trainer was created; `trainer.config` holds its full config."""


@hookspec
def pufferlib_train_log(trainer, step: int, metrics: dict) -> None:
    """A log step at agent step `step`, every `train.log_interval` seconds, every
    `train.log_interval_steps` agent steps, and at close (with the episodes still pending):
    `metrics` (SPS, environment/..., losses/..., performance/...) are the means of the
    `trainer.mean_and_log()` results since the previous log step."""


@hookspec
def pufferlib_checkpoint(trainer, path: str) -> None:
    """The trainer wrote a checkpoint to `path`."""


@hookspec
def pufferlib_train_end(trainer, metrics: dict) -> None:
    """`trainer.close()` was called; `metrics` are the last logged ones."""
