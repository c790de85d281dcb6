"""The trainer hooks: start the chosen loggers, forward metrics and checkpoints, finish.

This module is the plugin's entry point and stays light: a logger's package (wandb,
neptune, tensorboard) is imported only when a run asks for that logger.
"""

from __future__ import annotations

import importlib.util
import json
import numbers
import sys
import weakref
from pathlib import Path
from typing import Any

import pufferlib

#: name -> (module:class of the backend, its package: the module it imports and the extra of
#: puffer-loggers that installs it, one-line description)
LOGGERS = {
    "wandb": ("puffer_loggers.backends:WandbLogger", "wandb", "Weights & Biases"),
    "neptune": ("puffer_loggers.backends:NeptuneLogger", "neptune", "Neptune"),
    "tensorboard": ("puffer_loggers.backends:TensorboardLogger", "tensorboard", "TensorBoard event files"),
}

#: Defaults of each logger's config section (`--wandb.project NAME`, ...).
CONFIG = {
    "wandb": {"project": "pufferlib", "entity": "", "group": "", "tags": [], "mode": "online"},
    "neptune": {"project": "", "tags": [], "mode": "async"},
    "tensorboard": {"log_dir": ""},
}

#: Where a run dir remembers its loggers' run ids, so that `--resume` continues the same runs.
IDS_FILE = "loggers.json"

_active: weakref.WeakKeyDictionary[Any, list] = weakref.WeakKeyDictionary()


@pufferlib.hookimpl
def pufferlib_loggers() -> dict[str, str]:
    return {name: description for name, (_, _, description) in LOGGERS.items()}


@pufferlib.hookimpl(optionalhook=True)  # a core without this hook still loads the plugin
def pufferlib_check_logger(name: str) -> str | None:
    if name not in LOGGERS:
        return None
    package = LOGGERS[name][1]
    if _installed(package):
        return None
    return f"the {package} package is not installed: pip install 'puffer-loggers[{package}]'"


def _installed(module: str) -> bool:
    """Whether `module` can be imported, found without importing it."""
    try:
        return importlib.util.find_spec(module) is not None  # None too when sys.modules holds None for it
    except ValueError:  # imported already, without a spec
        return sys.modules.get(module) is not None


@pufferlib.hookimpl
def pufferlib_config_defaults() -> dict:
    return CONFIG


@pufferlib.hookimpl
def pufferlib_train_start(trainer: Any) -> None:
    names = [n for n in trainer.config.get("logger", {}).get("names", []) if n in LOGGERS]
    if not names:
        return
    from pufferlib import load_object

    run_dir = Path(trainer.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    ids_path = run_dir / IDS_FILE
    previous = json.loads(ids_path.read_text()) if ids_path.exists() else {}
    backends = []
    for name in names:
        module_attr, extra, _ = LOGGERS[name]
        backends.append(load_object(module_attr)(trainer.config, run_dir, previous.get(name), extra))
    _active[trainer] = backends
    ids_path.write_text(json.dumps({**previous, **{b.name: b.run_id for b in backends}}))


@pufferlib.hookimpl
def pufferlib_train_log(trainer: Any, step: int, metrics: dict) -> None:
    values = {k: float(v) for k, v in metrics.items() if isinstance(v, numbers.Real) and not isinstance(v, bool)}
    for backend in _active.get(trainer, []):
        backend.log(step, values)


@pufferlib.hookimpl
def pufferlib_checkpoint(trainer: Any, path: str) -> None:
    for backend in _active.get(trainer, []):
        backend.checkpoint(path, trainer.global_step)


@pufferlib.hookimpl
def pufferlib_train_end(trainer: Any, metrics: dict) -> None:
    for backend in _active.pop(trainer, []):
        backend.close()
