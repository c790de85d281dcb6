"""Checkpoints: one file per save holding model, optimiser, progress, config and env id.

Contract:
- A checkpoint holds only tensors, plain containers (dict, list, tuple) and primitives
  (the config is stored as plain data), and is read with `torch.load(weights_only=True)`:
  a file that needs anything else to unpickle (an old or foreign file, or a crafted one) is
  refused with `CheckpointError`, and none of its code runs.
- Files are written atomically: to a temporary `.tmp_*.pt` file in the same folder, flushed
  to disk (fsync), renamed over the target, and the folder fsynced; a run killed mid-save
  never leaves a truncated checkpoint behind. Temporary files left by a killed save are
  removed by the next save into that folder.
- Unreadable, truncated, foreign or incompatible files raise `CheckpointError` naming the
  file and the cause. Loading from a run folder or "latest" falls back to the newest intact
  checkpoint, with a warning naming each skipped file.
- Weights holding NaN or infinite values are never loaded into a policy (`load_policy`, which
  every load for acting, evaluating, self-play or training passes, refuses them naming the
  file and the count of such tensors).
"""

from __future__ import annotations

import errno
import glob
import json
import math
import os
import pickle
import tempfile
import time
import warnings
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import torch

from pufferlib.errors import APIUsageError, CheckpointError, OutputError

PATTERN = "model_*.pt"
TMP_PREFIX = ".tmp_"
#: A temporary file untouched this long is a leftover of a killed save (a live save keeps writing).
STALE_TMP_SECONDS = 60.0
#: Entries every checkpoint written by `PuffeRL.save_checkpoint` has.
REQUIRED = {"policy": dict, "optimizers": list, "global_step": int, "epoch": int, "config": dict}


def plain_data(value: Any) -> Any:
    """`value` as tensors, dicts, lists, tuples and primitives only (what weights_only loads).

    Paths and other objects become their text; numpy scalars and arrays become numbers and lists.
    """
    if isinstance(value, torch.Tensor) or value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {(k if isinstance(k, (str, int)) else str(k)): plain_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain_data(v) for v in value)
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return plain_data(value.tolist())
    return str(value)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # platforms without directory handles
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temp_files(folder: str | Path, max_age: float = STALE_TMP_SECONDS) -> list[Path]:
    """Delete `.tmp_*.pt` files of `folder` not modified for `max_age` seconds; returns them."""
    removed, now = [], time.time()
    for name in glob.glob(os.path.join(folder, TMP_PREFIX + "*.pt")):
        try:
            if now - os.path.getmtime(name) >= max_age:
                os.unlink(name)
                removed.append(Path(name))
        except OSError:  # removed meanwhile
            pass
    return removed


def save(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write `payload` (as plain data) to `path` atomically and durably; returns the path.

    OutputError naming the file when it cannot be written (permissions, a full disk); the old
    file of that name, if any, is left as it was."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temp_files(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=".pt", dir=path.parent)
    except OSError as exc:
        raise OutputError(f"Cannot write checkpoint {path}: {exc.strerror or exc}.") from None
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(plain_data(payload), f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(f"Cannot write checkpoint {path}: {exc.strerror or exc}"
                              f"{' (the disk is full)' if exc.errno == errno.ENOSPC else ''}.") from None
        raise
    _fsync_dir(path.parent)
    return path


def run_env_id(run_dir: str | Path) -> str | None:
    """The env id a run folder trained, from the header line of its metrics.jsonl; None when unknown."""
    from pufferlib.train.metrics import FILE_NAME

    try:
        with open(Path(run_dir) / FILE_NAME, encoding="utf-8") as f:
            header = json.loads(f.readline())
    except (OSError, ValueError):
        return None
    env_id = header.get("env_id") if isinstance(header, dict) else None
    return env_id if isinstance(env_id, str) else None


def _candidates(path: str | Path, data_dir: str | Path, env_id: str | None) -> tuple[list[Path], bool]:
    """(checkpoint files to try, newest first; whether falling back to older ones is allowed).

    "latest" with `env_id`: the checkpoints of runs of that env (a run whose env is not
    recorded in its metrics.jsonl stays a candidate; `load` checks the file's own env id)."""
    if str(path) == "latest":
        files = [Path(f) for f in glob.glob(os.path.join(data_dir, "*", PATTERN))]
        if env_id is not None:
            envs = {folder: run_env_id(folder) for folder in {f.parent for f in files}}
            files = [f for f in files if envs[f.parent] in (env_id, None)]
        if not files:
            of = f" of {env_id!r}" if env_id else ""
            raise APIUsageError(f"No checkpoint{of} under {str(data_dir)!r} for --load-model-path latest; "
                                f"train first (puffer train {env_id or 'ENV'}) or pass a checkpoint file.")
        return sorted(files, key=_mtime, reverse=True), True
    path = Path(path)
    if path.is_dir():
        in_run = sorted(glob.glob(os.path.join(path, PATTERN)), reverse=True)
        if not in_run:
            raise APIUsageError(f"Run folder {str(path)!r} holds no {PATTERN} checkpoint.")
        return [Path(f) for f in in_run], True
    if not path.is_file():
        raise APIUsageError(f"Checkpoint {str(path)!r} does not exist; pass a model_*.pt file, a run folder, "
                            "'latest' or an hf://ORG/NAME address.")
    return [path], False


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # removed meanwhile: tried last, and reported as unreadable
        return -math.inf


def resolve(path: str | Path, data_dir: str | Path = "experiments", env_id: str | None = None) -> Path:
    """A checkpoint file from a file, a run folder, or "latest" (newest under `data_dir`, of
    `env_id`'s runs when given).

    Names the newest file without reading it; `load` checks it and falls back when it is not intact.
    """
    return _candidates(path, data_dir, env_id)[0][0]


def _read(path: Path, map_location: Any) -> dict[str, Any]:
    """One checkpoint file, checked; CheckpointError naming the file and the cause otherwise."""
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as exc:
        unsafe = [line.strip() for line in str(exc).splitlines() if "GLOBAL" in line]
        if unsafe:  # the weights-only unpickler met a global (a class or function): never import it
            raise CheckpointError(
                f"{path}: refused to load: it holds objects other than tensors and plain data "
                f"({unsafe[0]}), so unpickling it could run code. It is not a "
                "checkpoint written by this PufferLib (an older version's, or a foreign or crafted file); "
                "use a checkpoint written by `puffer train`, or re-save the weights of a trusted file as "
                "plain tensors.") from None
        detail = next((line.strip() for line in str(exc).splitlines() if "Unsupported" in line), str(exc)[:200])
        raise CheckpointError(f"{path}: cannot read the checkpoint ({type(exc).__name__}: {detail}); the file is "
                              "truncated or corrupt.") from None
    except (EOFError, RuntimeError, ValueError, OSError, IndexError, KeyError, AttributeError, TypeError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else "no detail"
        raise CheckpointError(f"{path}: cannot read the checkpoint ({type(exc).__name__}: {reason}); the file "
                              "is unreadable, truncated, corrupt or not a torch checkpoint.") from None
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path} is not a PufferLib checkpoint: it holds a {type(payload).__name__}, "
                              "not the dict that `puffer train` writes.")
    missing = [key for key, kind in REQUIRED.items() if not isinstance(payload.get(key), kind)]
    if missing:
        raise CheckpointError(f"{path} is not a PufferLib checkpoint: it lacks {', '.join(missing)} (a "
                              "checkpoint of `puffer train` holds policy, optimizers, global_step, epoch, "
                              "config and env_id).")
    return payload


def load(path: str | Path, data_dir: str | Path = "experiments", map_location: Any = "cpu",
         env_id: str | None = None, allow_env_mismatch: bool = False,
         hub_dir: str | Path | None = None, *, trust_code: bool | None = None,
         vouched: Collection[str] = ()) -> dict[str, Any]:
    """Read a checkpoint written by `PuffeRL.save_checkpoint`: a file, a run folder or "latest";
    or a published agent: an `hf://ORG/NAME[@REVISION]` address (`hub_dir`: a local hub) or
    its folder (`pufferlib.train.published`, weights without optimiser state).

    For a run folder or "latest", an unreadable newest file is skipped with a warning and the
    newest intact one is returned. `payload["path"]` says which file was read. With `env_id`,
    "latest" means the newest checkpoint of that env, and a checkpoint of another env is an
    `APIUsageError` naming both, unless `allow_env_mismatch` (fine-tuning on another env).

    The file is data: the payload is `pufferlib.train.trust.checked_payload`'s. Its env id and
    policy class may name only what is installed, unless `trust_code` (None: as
    `trust.trusting()` says) or the user vouched for them (`vouched`, and `env_id`); the
    user's keys are dropped from its config and listed in `payload["dropped"]`.
    """
    from pufferlib.train import published, trust

    vouched = (*vouched, *([env_id] if env_id else []))
    if published.is_address(path) or (Path(path).is_dir() and published.is_published(path)):
        payload = trust.checked_payload(published.load(path, hub_dir, map_location), trust_code=trust_code,
                                        vouched=vouched)
        _check_env_id(payload, env_id, allow_env_mismatch)
        return payload
    candidates, fallback = _candidates(path, data_dir, env_id)
    errors: list[str] = []
    for file in candidates:
        try:
            payload = _read(file, map_location)
        except CheckpointError as exc:
            if not fallback:
                raise
            errors.append(str(exc))
            continue
        payload["path"] = str(file)
        if str(path) == "latest" and env_id is not None and payload.get("env_id") not in (env_id, None):
            continue  # a run of another env whose metrics.jsonl did not say so
        payload = trust.checked_payload(payload, trust_code=trust_code, vouched=vouched)
        _check_env_id(payload, env_id, allow_env_mismatch)
        if errors:
            warnings.warn(f"Skipped {len(errors)} unreadable checkpoint(s) and loaded {file} instead:\n  "
                          + "\n  ".join(errors), stacklevel=2)
        return payload
    if not errors:
        raise APIUsageError(f"No checkpoint of {env_id!r} under {str(data_dir)!r} for --load-model-path latest; "
                            f"train first (puffer train {env_id}) or pass a checkpoint file.")
    raise CheckpointError(f"No intact checkpoint in {str(path)!r}:\n  " + "\n  ".join(errors))


def _check_env_id(payload: Mapping[str, Any], env_id: str | None, allow_env_mismatch: bool) -> None:
    """APIUsageError when `payload` is a checkpoint of another env than `env_id` (unless allowed)."""
    if env_id is not None and payload.get("env_id") not in (env_id, None) and not allow_env_mismatch:
        raise APIUsageError(
            f"{payload['path']} is a checkpoint of {payload['env_id']!r}, not {env_id!r}: pass a checkpoint of "
            f"{env_id!r} (or 'latest', the newest of that env), or --allow-env-mismatch to load its "
            "weights anyway (fine-tuning on another env with the same spaces).")


def describe(payload: Mapping[str, Any]) -> str:
    """"PATH (ENV, step N)": which checkpoint was loaded, for the line commands print (its env id
    comes from the file: control characters escaped, `pufferlib._text.printable`)."""
    from pufferlib._text import printable

    return printable(f"{payload.get('path')} ({payload.get('env_id') or 'env unknown'}, "
                     f"step {payload.get('global_step', 0):,})")


def policy_state(state: dict[str, Any]) -> dict[str, Any]:
    """A policy state dict without the prefixes that torch.compile adds."""
    return {key.replace("_orig_mod.", ""): value for key, value in state.items()}


def load_policy(policy: torch.nn.Module, payload: Mapping[str, Any]) -> None:
    """Load a checkpoint's weights into `policy`; CheckpointError when they are not all finite
    (`check_finite`) or do not fit it."""
    check_finite(payload)
    try:
        policy.load_state_dict(policy_state(payload["policy"]))
    except (RuntimeError, KeyError, TypeError) as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        detail = "; ".join(lines[1:4] or lines[:1])
        config = payload.get("config") or {}
        raise CheckpointError(
            f"{payload.get('path', 'the checkpoint')} does not fit this policy ({detail}). It was trained on "
            f"{payload.get('env_id')!r} with policy {config.get('policy')} and rnn {config.get('rnn')}; load it "
            "with that env and those settings.") from None


def check_finite(payload: Mapping[str, Any]) -> None:
    """CheckpointError naming the file and how many of its weight tensors hold NaN or infinite
    values: such weights cannot act (`load_policy`, every load of a policy, calls it)."""
    tensors = [t for t in payload["policy"].values() if isinstance(t, torch.Tensor)]
    bad = non_finite_count(tensors)
    if bad:
        raise CheckpointError(f"{payload.get('path', 'the checkpoint')}: refused: it holds NaN or infinite weights "
                              f"({bad} of its {len(tensors)} tensors); use a checkpoint from before the run diverged.")


def non_finite_count(tensors: Any) -> int:
    """How many floating-point tensors among `tensors` (an iterable) hold a NaN or an inf."""
    checks = [~torch.isfinite(t).all() for t in tensors if t.is_floating_point()]
    return int(torch.stack([c.cpu() for c in checks]).sum()) if checks else 0  # one sync per device


def all_finite(tensors: Any) -> bool:
    """True when every floating-point tensor among `tensors` (an iterable) is free of NaN and inf."""
    return non_finite_count(tensors) == 0


__all__ = ["CheckpointError", "PATTERN", "all_finite", "check_finite", "describe", "load",
           "load_policy", "non_finite_count", "plain_data", "policy_state", "remove_stale_temp_files", "resolve",
           "run_env_id", "save"]
