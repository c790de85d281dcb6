"""benchmarks/anchors.py: a checkpoint as a player gives actions its env takes, for every action kind."""

from __future__ import annotations

import numpy as np
import pytest

import pufferlib
from pufferlib import cli
from tests.benchmarks import BENCHMARKS, load_benchmark

TINY = ["--train.total-timesteps", "512", "--train.batch-size", "512", "--train.minibatch-size", "512",
        "--train.update-epochs", "1", "--vec.num-envs", "1", "--train.device", "cpu"]  # school: 512 agent rows


@pytest.mark.parametrize("env_id, dtype", [("ocean-school", np.float32), ("ocean-squared", np.int32)])
def test_checkpoint_player_acts_in_its_envs_space(env_id, dtype, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    anchors = load_benchmark("anchors")
    assert cli.main(["train", env_id, *TINY, "--train.data-dir", str(tmp_path)]) == 0
    env = pufferlib.make(env_id, num_envs=1, seed=0)
    try:
        obs, _ = env.reset(seed=0)
        rng = np.random.default_rng(0)
        for sampled in (False, True):
            actions = anchors.checkpoint_player(str(next(tmp_path.iterdir())), env_id, sampled)(obs, rng)
            assert actions.dtype == dtype and actions.shape == (len(obs), *env.single_action_space.shape)
            assert all(env.single_action_space.contains(a) for a in actions)  # sampled Box ones too
            env.step(actions)
    finally:
        env.close()
