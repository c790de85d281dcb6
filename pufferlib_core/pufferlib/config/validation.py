"""Validation of a training config's values, up front, against the documented defaults.

Contract: `validate(config, default)` raises one `APIUsageError` listing every value of
`config` that breaks a rule, before an env or a policy is built. The rules:

- type: a value has its default's type (default.toml, plus plugin sections): a bool only
  where the default is a bool, an int or float where it is a float, an integer where it
  is an int (an integral float such as 1e6 is accepted and stored as an int), a list where
  it is a list; a key whose default is None or absent (env/policy keyword arguments that
  the core does not know) takes anything;
- floats are finite (no nan, no inf);
- ranges and choices: `CONSTRAINTS` below, declared once per key, e.g. "[0, 1]",
  "(0, inf)", or a tuple of allowed strings;
- train.device names a torch device available here; train.data_dir can be created.

`puffer train` and `puffer eval` report the error as `puffer train: error: ...` (exit
status 2); `PuffeRL(...)` raises it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pufferlib.config.messages import short
from pufferlib.errors import APIUsageError

#: Allowed values, beyond the default's type. Intervals: "[lo, hi]" closed, "(lo, hi)" open.
CONSTRAINTS: dict[str, str | tuple[str, ...]] = {
    "vec.num_envs": "[1, inf)",
    "sweep.method": ("protein", "random"),
    "sweep.goal": ("maximize", "minimize"),
    "sweep.max_runs": "[1, inf)",
    "sweep.workers": "[1, inf)",
    "sweep.backend": ("local", "ray"),
    "sweep.cost": ("time", "steps"),
    "sweep.max_suggestion_cost": "[0, inf)",
    "sweep.num_random": "[0, inf)",
    "sweep.early_stop_quantile": "[0, 1)",
    "sweep.early_stop_min_reports": "[0, inf)",
    "sweep.trial_timeout": "[0, inf)",
    "sweep.seed": "[0, inf)",
    "vec.num_workers": "[0, inf)",
    "vec.env_batch_size": "[0, inf)",
    "vec.seed": "[0, inf)",
    "vec.timeout": "[0, inf)",
    "policy.hidden_size": "[1, inf)",
    "rnn.hidden_size": "[1, inf)",
    "train.seed": "[0, inf)",
    "train.cpu_threads": "[0, inf)",
    "train.total_timesteps": "[1, inf)",
    "train.batch_size": "[1, inf)",
    "train.minibatch_size": "[1, inf)",
    "train.microbatch_size": "[0, inf)",
    "train.bptt_horizon": "[1, inf)",
    "train.update_epochs": "[1, inf)",
    "train.learning_rate": "[0, inf)",
    "train.min_lr_ratio": "[0, 1]",
    "train.optimizer": ("adam", "muon"),
    "train.adam_beta1": "[0, 1)",
    "train.adam_beta2": "[0, 1)",
    "train.adam_eps": "(0, inf)",
    "train.gamma": "[0, 1]",
    "train.gae_lambda": "[0, 1]",
    "train.clip_coef": "[0, inf)",
    "train.vf_coef": "[0, inf)",
    "train.vf_clip_coef": "[0, inf)",
    "train.max_grad_norm": "(0, inf)",
    "train.vtrace_rho_clip": "[0, inf)",
    "train.vtrace_c_clip": "[0, inf)",
    "train.prio_alpha": "[0, inf)",
    "train.prio_beta0": "[0, 1]",
    "train.precision": ("float32", "bfloat16"),
    "train.checkpoint_interval": "[0, inf)",
    "train.log_interval": "[0, inf)",
    "train.log_interval_steps": "[0, inf)",
    "selfplay.opponent_share": "[0, 1]",
    "selfplay.snapshot_interval": "[0, inf)",
    "selfplay.win_threshold": "[0, 1]",
    "selfplay.min_games": "[1, inf)",
    "selfplay.pool_size": "[2, inf)",
    "selfplay.opponents_per_batch": "[1, inf)",
    "selfplay.sampler": ("recency", "pfsp"),
    "selfplay.elo_k": "(0, inf)",
    "selfplay.anchor_share": "[0, 1]",
    "eval.interval": "[0, inf)",
    "eval.interval_steps": "[0, inf)",
    "eval.episodes": "[1, inf)",
    "eval.num_envs": "[0, inf)",
    "eval.opponent": ("", "scripted", "random", "tactical"),
    "normalize.clip": "(0, inf)",
    "normalize.epsilon": "(0, inf)",
}

_INTERVAL = re.compile(r"^([\[(])\s*(\S+)\s*,\s*(\S+)\s*([\])])$")


def _in_interval(value: float, interval: str) -> bool:
    match = _INTERVAL.match(interval)
    if match is None:
        raise ValueError(f"bad interval {interval!r} in CONSTRAINTS")
    left, lo, hi, right = match.groups()
    lo_v, hi_v = float(lo), float(hi)
    above = value >= lo_v if left == "[" else value > lo_v
    below = value <= hi_v if right == "]" else value < hi_v
    return above and below


def _type_problem(value: Any, default: Any) -> str | None:
    """Why `value` does not have the type of `default`, or None."""
    if default is None:
        return None
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "must be true or false"
    if isinstance(value, bool):
        return f"must be a{'n integer' if isinstance(default, int) else ' number'}, not a bool"
    if isinstance(default, int):
        if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
            return None
        return "must be an integer"
    if isinstance(default, float):
        if not isinstance(value, (int, float)):
            return "must be a number"
        return None if math.isfinite(value) else "must be finite"
    if isinstance(default, str):
        return None if isinstance(value, str) else "must be a string"
    if isinstance(default, list):
        return None if isinstance(value, list) else "must be a list"
    if isinstance(default, Mapping):
        return None if isinstance(value, Mapping) else "must be a table of keys"
    return None


def _check_device(value: str) -> str | None:
    if value == "auto":
        return None
    import torch

    try:
        device = torch.device(value)
    except (RuntimeError, ValueError):
        return "is not a torch device; use 'auto', 'cpu', 'cuda' or 'cuda:N'"
    if device.type == "cuda" and not torch.cuda.is_available():
        return "but CUDA is not available here; use 'cpu' or 'auto'"
    if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
        return f"but only {torch.cuda.device_count()} CUDA device(s) exist here"
    return None


def _check_data_dir(value: str) -> str | None:
    """Whether the folder exists or can be created (without creating it)."""
    if not value:
        return "must name a folder"
    path = Path(value).expanduser().absolute()
    for ancestor in (path, *path.parents):
        if ancestor.exists():
            if not ancestor.is_dir():
                return f"cannot be created: {str(ancestor)!r} is a file"
            if not os.access(ancestor, os.W_OK | os.X_OK):
                return f"cannot be created: {str(ancestor)!r} is not writable"
            return None
    return None


#: Checks that need more than a range: dotted key -> function(value) -> problem or None.
CHECKS: dict[str, Callable[[Any], str | None]] = {"train.device": _check_device, "train.data_dir": _check_data_dir}


def _problem(dotted: str, value: Any, default: Any) -> str | None:
    problem = _type_problem(value, default)
    if problem:
        return problem
    if isinstance(value, float) and not math.isfinite(value):
        return "must be finite"
    rule = CONSTRAINTS.get(dotted)
    if isinstance(rule, tuple) and value not in rule:
        return f"must be one of {', '.join(repr(r) for r in rule)}"
    if isinstance(rule, str) and not _in_interval(float(value), rule):
        return f"must be in {rule}"
    check = CHECKS.get(dotted)
    return check(value) if check else None


def validate(config: dict, default: Mapping, docs: Mapping[str, str] | None = None) -> None:
    """Raise APIUsageError listing every value of `config` that breaks the module's rules.

    Integral floats under integer defaults are converted to int in place. `docs`
    ("section.key" -> description) adds each key's meaning to the message.
    """
    if docs is None:
        from pufferlib.config import default_docs

        docs = default_docs()
    problems = []
    for section, values in config.items():
        if not isinstance(default.get(section), Mapping):
            continue
        if not isinstance(values, dict):
            problems.append(f"{section} = {short(repr(values))} must be a table of keys ([{section}] in TOML)")
            continue
        for key, value in values.items():
            if key not in default[section]:
                continue
            dotted, ref = f"{section}.{key}", default[section][key]
            problem = _problem(dotted, value, ref)
            if problem:
                doc = f" ({docs[dotted]})" if dotted in docs else ""
                problems.append(f"{dotted} = {short(repr(value))} {problem}{doc}")
            elif isinstance(ref, int) and not isinstance(ref, bool) and isinstance(value, float):
                values[key] = int(value)
    if len(problems) == 1:
        raise APIUsageError(f"invalid config: {problems[0]}.")
    if problems:
        raise APIUsageError("invalid config:\n  " + "\n  ".join(problems))
