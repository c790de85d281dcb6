"""`puffer train nethack-score` runs end to end with the plugin's default policy and config."""

import glob
import os
import subprocess
import sys
import tempfile


def test_puffer_train_runs_end_to_end():
    with tempfile.TemporaryDirectory() as data_dir:
        result = subprocess.run(
            [sys.executable, "-m", "pufferlib", "train", "nethack-score", "--train.total-timesteps", "256",
             "--train.batch-size", "256", "--train.minibatch-size", "128", "--train.update-epochs", "1",
             "--vec.num-envs", "4", "--train.device", "cpu", "--train.data-dir", data_dir],
            capture_output=True, text=True, timeout=240)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        assert "Trained nethack-score for 256 steps" in result.stdout
        checkpoints = glob.glob(os.path.join(data_dir, "*", "*.pt"))
        assert checkpoints and all(os.path.getsize(c) > 0 for c in checkpoints)
