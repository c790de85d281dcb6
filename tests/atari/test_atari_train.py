"""`puffer train atari-pong` runs end to end with the plugin's default policy and config."""

from tests.train_smoke import assert_puffer_train_runs


def test_puffer_train_runs_end_to_end(tmp_path):
    assert_puffer_train_runs("atari-pong", tmp_path)
