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
  "(0, inf)", or a tuple of allowed strings; every count that becomes a C, numpy or torch
  integer has an upper bound (`MAX_COPIES`, ...), so that a typo such as 1e30 is refused here;
- train.device names a torch device this process can use; train.data_dir can be created;
- `[env]` and `[eval.env]` keys are env keyword arguments, never the vectorizer's own
  (`VEC_ARGUMENTS`: `num_envs` and `seed` are `vec.num_envs` and `vec.seed`).

It also normalises in place: integral floats under integer defaults become ints, and a
leading `~` of a path (`PATHS`) becomes the home folder, once, so that every writer and
every printed path agree.

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

#: Upper bounds of counts: far above any real run, low enough that no count overflows the C,
#: numpy and torch integers it turns into (`--vec.num-envs 1e30` is a typo, not a run).
MAX_COPIES = 2**20  # env copies, episodes, steps of an LSTM segment
MAX_UNITS = 2**16  # processes, threads, layer widths, passes over a batch
MAX_BATCH = 2**30  # agent steps in one batch
MAX_STEPS = 10**15  # agent steps of a run (three years at ten million steps a second)
MAX_SEED = 2**32 - 1  # numpy's seeds are 32-bit

#: Allowed values, beyond the default's type. Intervals: "[lo, hi]" closed, "(lo, hi)" open.
CONSTRAINTS: dict[str, str | tuple[str, ...]] = {
    "vec.num_envs": f"[1, {MAX_COPIES}]",
    "sweep.method": ("protein", "random"),
    "sweep.goal": ("maximize", "minimize"),
    "sweep.max_runs": "[1, inf)",
    "sweep.workers": f"[1, {MAX_UNITS}]",
    "sweep.backend": ("local", "ray"),
    "sweep.cost": ("time", "steps"),
    "sweep.max_suggestion_cost": "[0, inf)",
    "sweep.num_random": "[0, inf)",
    "sweep.early_stop_quantile": "[0, 1)",
    "sweep.early_stop_min_reports": "[0, inf)",
    "sweep.trial_timeout": "[0, inf)",
    "sweep.seed": f"[0, {MAX_SEED}]",
    "vec.num_workers": f"[0, {MAX_UNITS}]",
    "vec.env_batch_size": f"[0, {MAX_COPIES}]",
    "vec.seed": f"[0, {MAX_SEED}]",
    "vec.timeout": "[0, inf)",
    "policy.hidden_size": f"[1, {MAX_UNITS}]",
    "rnn.hidden_size": f"[1, {MAX_UNITS}]",
    "train.seed": f"[0, {MAX_SEED}]",
    "train.cpu_threads": f"[0, {MAX_UNITS}]",
    "train.total_timesteps": f"[1, {MAX_STEPS:.0e}]",
    "train.batch_size": f"[1, {MAX_BATCH}]",
    "train.minibatch_size": f"[1, {MAX_BATCH}]",
    "train.microbatch_size": f"[0, {MAX_BATCH}]",
    "train.bptt_horizon": f"[1, {MAX_COPIES}]",
    "train.update_epochs": f"[1, {MAX_UNITS}]",
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
    "train.log_interval_steps": f"[0, {MAX_STEPS:.0e}]",
    "selfplay.opponent_share": "[0, 1]",
    "selfplay.snapshot_interval": f"[0, {MAX_STEPS:.0e}]",
    "selfplay.win_threshold": "[0, 1]",
    "selfplay.min_games": "[1, inf)",
    "selfplay.pool_size": "[2, inf)",
    "selfplay.opponents_per_batch": "[1, inf)",
    "selfplay.sampler": ("recency", "pfsp"),
    "selfplay.elo_k": "(0, inf)",
    "selfplay.anchor_share": "[0, 1]",
    "eval.interval": "[0, inf)",
    "eval.interval_steps": f"[0, {MAX_STEPS:.0e}]",
    "eval.episodes": f"[1, {MAX_COPIES}]",
    "eval.num_envs": f"[0, {MAX_COPIES}]",
    "normalize.clip": "(0, inf)",
    "normalize.epsilon": "(0, inf)",
}

_INTERVAL = re.compile(r"^([\[(])\s*(\S+)\s*,\s*(\S+)\s*([\])])$")


def _in_interval(value: float, interval: str) -> bool:
    """Whether `value` lies in `interval`; an int is compared as it is (a huge one has no float)."""
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


def device_problem(value: str) -> str | None:
    """Why torch cannot use the device `value` ("cpu", "cuda:1", "mps", ...) in this process, or None;
    the caller adds the fix (`puffer match --device` has no "auto")."""
    import torch

    try:
        device = torch.device(value)
    except (RuntimeError, ValueError):
        return "is not a torch device"
    if device.type == "cuda":
        if not torch.cuda.is_available():
            cpu_only = torch.version.cuda is None and torch.version.hip is None
            return "but no CUDA device is available here" + (" (this torch is a CPU-only build)" if cpu_only else "")
        if device.index is not None and device.index >= torch.cuda.device_count():
            return f"but only {torch.cuda.device_count()} CUDA device(s) exist here"
    elif device.type != "cpu":
        try:  # mps, xpu, ...: a build without the backend raises here, and "meta" holds no values
            torch.zeros(1, device=device).cpu()
        except Exception as exc:
            why = str(exc).split(". ")[0].splitlines()[0] if str(exc).strip() else type(exc).__name__
            return f"but this torch cannot use it ({short(why, 160)})"
    return None


def _check_device(value: str) -> str | None:
    problem = None if value == "auto" else device_problem(value)
    return f"{problem}; use 'cpu' or 'auto'" if problem else None


def _check_data_dir(value: str) -> str | None:
    """Whether the folder exists or can be created (without creating it)."""
    if not value:
        return "must name a folder"
    path = Path(value).absolute()
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

#: Keys that hold a path of the user's: a leading `~` is expanded (`validate`, in place).
PATHS = ("train.data_dir", "train.init_from", "hub.dir")

#: The keyword arguments of `pufferlib.make` itself -> the `[vec]` key that sets each (None: an
#: option of the Python call only). An `[env]` key of one of these names would reach `make`, not
#: the env: `--env.num-envs 8` means `--vec.num-envs 8`.
VEC_ARGUMENTS: dict[str, str | None] = {
    "num_envs": "vec.num_envs", "num_workers": "vec.num_workers", "envs_per_worker": None,
    "batch_size": "vec.env_batch_size", "backend": "vec.backend", "seed": "vec.seed", "zero_copy": None,
    "start_method": None, "timeout": "vec.timeout", "init_timeout": None,
}


def _env_key_problems(config: Mapping[str, Any]) -> list[str]:
    """The `[env]` and `[eval.env]` keys that name a keyword argument of `pufferlib.make` (`VEC_ARGUMENTS`)."""
    tables = [("env", config.get("env")), ("eval.env", (config.get("eval") or {}).get("env"))]
    problems = []
    for section, table in tables:
        for key in table if isinstance(table, Mapping) else ():
            if key in VEC_ARGUMENTS:
                vec = VEC_ARGUMENTS[key]
                fix = (f"set --{vec.replace('_', '-')} ({vec} in a config file)" if vec
                       else "it is an option of pufferlib.make() only; remove it")
                problems.append(f"{section}.{key} is a setting of the vectorizer, not an env argument: {fix}")
    return problems


def _problem(dotted: str, value: Any, default: Any) -> str | None:
    problem = _type_problem(value, default)
    if problem:
        return problem
    if isinstance(value, float) and not math.isfinite(value):
        return "must be finite"
    rule = CONSTRAINTS.get(dotted)
    if isinstance(rule, tuple) and value not in rule:
        return f"must be one of {', '.join(repr(r) for r in rule)}"
    if isinstance(rule, str) and not _in_interval(value, rule):
        return f"must be in {rule}"
    check = CHECKS.get(dotted)
    return check(value) if check else None


def validate(config: dict, default: Mapping, docs: Mapping[str, str] | None = None) -> None:
    """Raise APIUsageError listing every value of `config` that breaks the module's rules.

    Integral floats under integer defaults are converted to int, and a leading `~` of the
    `PATHS` expanded, in place. `docs` ("section.key" -> description) adds each key's meaning
    to the message.
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
            if dotted in PATHS and isinstance(value, str):
                value = values[key] = os.path.expanduser(value)
            problem = _problem(dotted, value, ref)
            if problem:
                doc = f" ({docs[dotted]})" if dotted in docs else ""
                problems.append(f"{dotted} = {short(repr(value))} {problem}{doc}")
            elif isinstance(ref, int) and not isinstance(ref, bool) and isinstance(value, float):
                values[key] = int(value)
    problems += _env_key_problems(config)
    if len(problems) == 1:
        raise APIUsageError(f"invalid config: {problems[0]}.")
    if problems:
        raise APIUsageError("invalid config:\n  " + "\n  ".join(problems))
