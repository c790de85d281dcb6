"""puffer-bsuite's Recorder writes bsuite's own CSV log, and bsuite's own analysis scores it."""

import numpy as np
import pandas as pd
import pytest
from bsuite import bsuite, sweep
from bsuite.logging import csv_logging

from puffer_bsuite import scoring
from puffer_bsuite.env import BsuiteEnv
from pufferlib import APIUsageError


def _csv(folder, bsuite_id: str) -> pd.DataFrame:
    return pd.read_csv(folder / f"bsuite_id_-_{bsuite_id.replace('/', '-')}.csv")


def test_one_copy_logs_what_bsuites_own_logging_wrapper_logs(tmp_path):
    ref = csv_logging.wrap_environment(bsuite.load("memory_len", {**sweep.SETTINGS["memory_len/2"], "seed": 3}),
                                       "memory_len/2", str(tmp_path / "bsuite"))
    env = BsuiteEnv("memory_len", 2)
    recorder = scoring.Recorder("memory_len/2", tmp_path / "ours", num_episodes=130)
    env.reset(seed=3)
    recorder.watch(env)
    rng = np.random.default_rng(0)
    ref.reset()
    while not recorder.done:
        action = int(rng.integers(2))
        ended = env.step(action)[2]
        assert ref.step(action).last() == ended
        if ended:
            env.reset()
            ref.reset()
    recorder.close()
    ours, theirs = _csv(tmp_path / "ours", "memory_len/2"), _csv(tmp_path / "bsuite", "memory_len/2")
    assert list(ours.columns) == list(theirs.columns)
    assert ours.episode.tolist()[-3:] == [100, 120, 130]  # bsuite's schedule, then the last episode
    pd.testing.assert_frame_equal(ours.iloc[:-1], theirs, check_dtype=False)


def test_copies_pool_into_one_run_and_stop_at_the_episode_count(tmp_path):
    envs = [BsuiteEnv("umbrella_length", 0) for _ in range(3)]  # 1-step episodes
    recorder = scoring.Recorder("umbrella_length/0", tmp_path, num_episodes=10)
    for i, env in enumerate(envs):
        env.reset(seed=i)
        recorder.watch(env)
    for _ in range(5):
        for env in envs:
            env.step(0)
            env.reset()
    recorder.close()
    log = _csv(tmp_path, "umbrella_length/0")
    assert log.episode.tolist() == list(range(1, 11)) and log.steps.iloc[-1] == 10
    assert recorder.episodes == 10 and log.total_regret.iloc[-1] == recorder.totals["total_regret"]
    assert set(np.diff(log.total_regret)) <= {0.0, 2.0}  # each episode adds its own regret once
    with pytest.raises(APIUsageError, match="already exists"):
        scoring.Recorder("umbrella_length/0", tmp_path)
    with pytest.raises(APIUsageError, match="logs umbrella_length/0; got 'catch/0'"):
        recorder.watch(BsuiteEnv("catch", 0))


def _play_memory(folder, answer_right: bool) -> None:
    """memory_len/0 (2 steps) by an agent that reads the context bit and answers it (or its opposite)."""
    env = BsuiteEnv("memory_len", 0)
    recorder = scoring.Recorder("memory_len/0", folder, num_episodes=200)
    obs, _ = env.reset(seed=0)
    recorder.watch(env)
    while not recorder.done:
        bit = int(obs[2] > 0)
        env.step(0)
        env.step(bit if answer_right else 1 - bit)
        obs, _ = env.reset()
    recorder.close()


def test_bsuites_own_score_of_a_tiny_run(tmp_path):
    _play_memory(tmp_path / "right", True)
    _play_memory(tmp_path / "wrong", False)
    assert scoring.score("memory_len", scoring.load(tmp_path / "right")) == 1.0
    assert scoring.score("memory_len", scoring.load(tmp_path / "wrong")) == 0.0
    # deep_sea's analysis needs pandas 1's Series.append, lent for the call only
    scoring.play_random("deep_sea/0", tmp_path / "random", num_episodes=50, seed=0)
    assert scoring.score("deep_sea", scoring.load(tmp_path / "random")) == 0.0
    assert not hasattr(pd.Series, "append") or pd.__version__ < "2"
    with pytest.raises(APIUsageError, match=r"No umbrella_length run in these logs \(experiments found: "
                                            r"\['deep_sea'\]\)"):
        scoring.score("umbrella_length", scoring.load(tmp_path / "random"))
    with pytest.raises(APIUsageError, match="holds no bsuite CSV log"):
        scoring.load(tmp_path)
    with pytest.raises(APIUsageError, match="not a bsuite id such as 'memory_len/3'"):
        scoring.parse_bsuite_id("memory_len-3")
