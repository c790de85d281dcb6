"""Checkpoints: one file per save holding model, optimiser, progress, config and env id.

Files are written atomically (to a temporary file in the same folder, then renamed), so
a run killed mid-save never leaves a truncated checkpoint behind.
"""

from __future__ import annotations

import glob
import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from pufferlib.errors import APIUsageError

PATTERN = "model_*.pt"


def save(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write `payload` to `path` atomically; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp_", suffix=".pt", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def latest_in(run_dir: str | Path) -> Path | None:
    """The newest checkpoint of a run folder, or None."""
    files = sorted(glob.glob(os.path.join(run_dir, PATTERN)))
    return Path(files[-1]) if files else None


def resolve(path: str | Path, data_dir: str | Path = "experiments") -> Path:
    """A checkpoint file from a file, a run folder, or "latest" (newest under `data_dir`)."""
    if str(path) == "latest":
        files = glob.glob(os.path.join(data_dir, "*", PATTERN))
        if not files:
            raise APIUsageError(f"No checkpoint under {str(data_dir)!r} for --load-model-path latest; "
                                "train first (puffer train ENV) or pass a checkpoint file.")
        return Path(max(files, key=os.path.getmtime))
    path = Path(path)
    if path.is_dir():
        found = latest_in(path)
        if found is None:
            raise APIUsageError(f"Run folder {str(path)!r} holds no {PATTERN} checkpoint.")
        return found
    if not path.is_file():
        raise APIUsageError(f"Checkpoint {str(path)!r} does not exist; pass a model_*.pt file, a run folder "
                            "or 'latest'.")
    return path


def load(path: str | Path, data_dir: str | Path = "experiments", map_location: Any = "cpu") -> dict[str, Any]:
    """Read a checkpoint written by `PuffeRL.save_checkpoint` (see `resolve` for `path`)."""
    resolved = resolve(path, data_dir)
    payload = torch.load(resolved, map_location=map_location, weights_only=False)
    if not isinstance(payload, dict) or "policy" not in payload:
        raise APIUsageError(f"{str(resolved)!r} is not a PufferLib checkpoint (no 'policy' entry).")
    payload["path"] = str(resolved)
    return payload


def policy_state(state: dict[str, Any]) -> dict[str, Any]:
    """A policy state dict without the prefixes that torch.compile adds."""
    return {key.replace("_orig_mod.", ""): value for key, value in state.items()}
