"""`puffer train microrts-vs-randombiased` runs end to end with the plugin's default policy and config."""

import pytest

from tests.train_smoke import assert_puffer_train_runs


@pytest.mark.slow
def test_puffer_train_runs_end_to_end(tmp_path):
    assert_puffer_train_runs("microrts-vs-randombiased", tmp_path, "--env.num-games", "2",
                             "--policy.width", "8", "--policy.critic-size", "16")
