"""A shared check for plugins: `puffer train ENV` runs end to end and writes a checkpoint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TINY = ["--train.total-timesteps", "256", "--train.batch-size", "256", "--train.minibatch-size", "128",
        "--train.update-epochs", "1", "--vec.num-envs", "4", "--train.device", "cpu"]


def assert_puffer_train_runs(env_id: str, data_dir: Path, *extra: str) -> None:
    """Train `env_id` for one tiny batch with its plugin's default policy and config."""
    result = subprocess.run([sys.executable, "-m", "pufferlib", "train", env_id, *TINY,
                             "--train.data-dir", str(data_dir), *extra],
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert f"Trained {env_id} for 256 steps" in result.stdout
    checkpoints = list(data_dir.glob("*/*.pt"))
    assert checkpoints and all(c.stat().st_size > 0 for c in checkpoints)
