"""`puffer train babyai-gotolocal` runs end to end with the plugin's default policy and config."""

from tests.train_smoke import assert_puffer_train_runs


def test_puffer_train_runs_end_to_end(tmp_path):
    assert_puffer_train_runs("babyai-gotolocal", tmp_path, "--env.mission-length", "64")
