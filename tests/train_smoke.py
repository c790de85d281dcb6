"""A shared check for plugins: `puffer train ENV` runs end to end and writes a checkpoint.

It runs the CLI's own entry (`pufferlib.cli.main`, what the `puffer` script calls) in the test's
process: a new interpreter would spend about 3.5 s of CPU importing torch before the first step
(three quarters of a tiny run's cost here), and the env workers are processes of their own either
way. The `puffer` script itself, from a fresh process, is run by the docs guides
(tests/core/test_docs.py), the scaffold's walkthrough and the CLI tests of signals and resuming.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from pufferlib import cli

TINY = ["--train.total-timesteps", "256", "--train.batch-size", "256", "--train.minibatch-size", "128",
        "--train.update-epochs", "1", "--vec.num-envs", "4", "--train.device", "cpu"]


def assert_puffer_train_runs(env_id: str, data_dir: Path, *extra: str) -> None:
    """Train `env_id` for one tiny batch with its plugin's default policy and config."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["train", env_id, *TINY, "--train.data-dir", str(data_dir), *extra])
    assert code == 0, out.getvalue()[-2000:] + err.getvalue()[-2000:]
    assert f"Trained {env_id} for 256 steps" in out.getvalue()
    checkpoints = list(data_dir.glob("*/*.pt"))
    assert checkpoints and all(c.stat().st_size > 0 for c in checkpoints)
