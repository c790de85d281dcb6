"""One class per logger service. Each imports its package on construction.

Every backend takes (config, run_dir, run_id to resume or None, pip extra) and offers
`name`, `run_id`, `log(step, metrics)`, `checkpoint(path, step)` and `close()`.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from pufferlib.errors import APIUsageError


def _require(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise APIUsageError(
            f"The {extra} logger needs the {module} package ({exc}): pip install puffer-loggers[{extra}]") from None


def _flat_config(config: dict, prefix: str = "") -> dict[str, Any]:
    """Nested config as flat 'section/key' entries (what the services display best)."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        if isinstance(value, dict):
            out.update(_flat_config(value, f"{prefix}{key}/"))
        else:
            out[f"{prefix}{key}"] = value if isinstance(value, (int, float, str, bool)) else str(value)
    return out


class WandbLogger:
    """Weights & Biases: config at start, metrics against the global step, checkpoints as artifacts."""

    name = "wandb"

    def __init__(self, config: dict, run_dir: Path, run_id: str | None, extra: str):
        wandb = self.wandb = _require("wandb", extra)
        options = config.get("wandb", {})
        self.run = wandb.init(
            project=options.get("project") or "pufferlib", entity=options.get("entity") or None,
            group=options.get("group") or None, tags=list(options.get("tags") or []) or None,
            mode=options.get("mode") or "online", dir=str(run_dir), config=config,
            id=run_id, resume="allow" if run_id else None)
        self.run_id = self.run.id
        self.run.define_metric("*", step_metric="global_step")
        print(f"wandb: run {self.run.id} {self.run.url or '(offline: ' + str(run_dir) + ')'}")

    def log(self, step: int, metrics: dict[str, float]) -> None:
        self.run.log({**metrics, "global_step": step})

    def checkpoint(self, path: str, step: int) -> None:
        artifact = self.wandb.Artifact(f"model-{self.run.id}", type="model", metadata={"global_step": step})
        artifact.add_file(path)
        self.run.log_artifact(artifact, aliases=["latest", f"step-{step}"])

    def close(self) -> None:
        self.run.finish()


class NeptuneLogger:
    """Neptune: config under 'config', metric series against the global step, checkpoints as files."""

    name = "neptune"

    def __init__(self, config: dict, run_dir: Path, run_id: str | None, extra: str):
        neptune = _require("neptune", extra)
        options = config.get("neptune", {})
        self.run = neptune.init_run(
            project=options.get("project") or None, mode=options.get("mode") or "async",
            with_id=run_id, tags=list(options.get("tags") or []), capture_stdout=False,
            capture_stderr=False, capture_hardware_metrics=False, git_ref=False, source_files=[])
        self.run_id = run_id or self._run_id()
        if run_id is None:
            self.run["config"] = _flat_config(config)
        print(f"neptune: run {self.run_id} {self._url()}")

    def _run_id(self) -> str:
        try:
            return str(self.run["sys/id"].fetch())
        except Exception:  # offline and debug runs have no server-side id yet
            return str(self.run._id)

    def _url(self) -> str:
        try:
            return self.run.get_url()
        except Exception:
            return "(offline)"

    def log(self, step: int, metrics: dict[str, float]) -> None:
        for key, value in metrics.items():
            self.run[f"metrics/{key}"].append(value, step=step)

    def checkpoint(self, path: str, step: int) -> None:
        self.run["checkpoints/latest"].upload(path)
        self.run["checkpoints/global_step"] = step

    def close(self) -> None:
        self.run.stop()


class TensorboardLogger:
    """TensorBoard event files in `tensorboard.log_dir` (default: RUN_DIR/tensorboard)."""

    name = "tensorboard"

    def __init__(self, config: dict, run_dir: Path, run_id: str | None, extra: str):
        _require("tensorboard", extra)
        from tensorboard.compat.proto.summary_pb2 import Summary
        from torch.utils.tensorboard import SummaryWriter

        self._summary = Summary
        log_dir = config.get("tensorboard", {}).get("log_dir") or str(run_dir / "tensorboard")
        self.writer = SummaryWriter(log_dir=log_dir)
        self.run_id = log_dir
        if run_id is None:
            text = "\n".join(f"    {k} = {v}" for k, v in _flat_config(config).items())
            self.writer.add_text("config", text)
        print(f"tensorboard: logging to {log_dir}")

    def log(self, step: int, metrics: dict[str, float]) -> None:
        # One event holding every scalar of the step (add_scalar would write one event each).
        values = [self._summary.Value(tag=key, simple_value=value) for key, value in metrics.items()]
        self.writer.file_writer.add_summary(self._summary(value=values), step)

    def checkpoint(self, path: str, step: int) -> None:
        self.writer.add_text("checkpoint", path, step)

    def close(self) -> None:
        self.writer.close()
