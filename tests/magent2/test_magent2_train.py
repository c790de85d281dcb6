"""`puffer train magent2-battle` runs end to end with the plugin's default policy and config."""

import pytest

from tests.train_smoke import assert_puffer_train_runs


@pytest.mark.slow
def test_puffer_train_runs_end_to_end(tmp_path):
    assert_puffer_train_runs("magent2-battle", tmp_path, "--vec.num-workers", "2", "--env.map-size", "24",
                             "--train.bptt-horizon", "2")
