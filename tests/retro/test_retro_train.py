"""`puffer train retro-airstriker-genesis` runs end to end with the plugin's default policy and config."""

import pytest

from tests.train_smoke import assert_puffer_train_runs


@pytest.mark.slow
def test_puffer_train_runs_end_to_end(tmp_path):
    # 4 envs over the workers the vectorizer picks (2 on a 2-core machine: the second env of each
    # runs in a child process of its own), as the wheels check runs it
    assert_puffer_train_runs("retro-airstriker-genesis", tmp_path)
