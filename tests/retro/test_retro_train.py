"""`puffer train retro-airstriker-genesis` runs end to end with the plugin's default policy and config."""

import pytest

from tests.train_smoke import assert_puffer_train_runs


@pytest.mark.slow
def test_puffer_train_runs_end_to_end(tmp_path):
    assert_puffer_train_runs("retro-airstriker-genesis", tmp_path, "--vec.num-workers", "4")
