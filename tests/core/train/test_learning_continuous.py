"""Continuous control learns with the shipped config: a broken Gaussian head or normalizer fails here."""

from __future__ import annotations

import json

import pytest

from pufferlib.cli import main

#: Random play scores about -1,200 to -1,500; runs of the shipped config (its learning rate annealed over
#: this budget) ended at -332, -234 and -297 on seeds 42 (the default), 1 and 2, their last six logged
#: means all above -510 (at 200k: -200 to -250, the learning table in the README). The threshold
#: leaves room for seeds and machines.
BUDGET, THRESHOLD = 120_000, -700.0


@pytest.mark.slow
def test_pendulum_swings_up_with_its_shipped_config(tmp_path):
    assert main(["train", "gym-Pendulum-v1", "--train.total-timesteps", str(BUDGET), "--train.data-dir",
                 str(tmp_path), "--train.device", "cpu"]) == 0
    (metrics,) = tmp_path.glob("*/metrics.jsonl")
    rows = [json.loads(line) for line in metrics.read_text().splitlines()[1:]]
    returns = [row["environment/episode_return"] for row in rows if "environment/episode_return" in row]
    assert returns[-1] > THRESHOLD, returns


@pytest.mark.slow
def test_mountain_car_finds_the_flag_with_gsde(tmp_path):
    """The shipped config (gSDE) reached the flag (returns above 90) on seeds 1 to 3 within 7k of its
    20k steps, where independent Gaussian noise never did (about -5 throughout); its returns swing
    afterwards, so the check is the best logged mean, with room below 90. Seed 2 logged 96.8 at
    896 steps and stayed above 90 to 2,784 (2026-12-07; at 10k steps its best means were 91.7,
    96.9, 98.2 on seeds 1, 2, 3): 4k steps, 4.5x the first, at 10 updates per 8 steps (78 s of CPU
    for 10k under load)."""
    assert main(["train", "gym-MountainCarContinuous-v0", "--train.data-dir", str(tmp_path), "--train.device", "cpu",
                 "--train.seed", "2", "--train.total-timesteps", "4000"]) == 0
    (metrics,) = tmp_path.glob("*/metrics.jsonl")
    rows = [json.loads(line) for line in metrics.read_text().splitlines()[1:]]
    returns = [row["environment/episode_return"] for row in rows if "environment/episode_return" in row]
    assert max(returns) > 50, returns


def test_gym_ids_carry_their_shipped_config():
    from pufferlib import config

    spec_config, _ = config.env_config("gym-Pendulum-v1")
    assert spec_config["normalize"]["observations"] is True
    assert config.env_config("gym-Pendulum")[0] == spec_config      # the unversioned id resolves to v1
    assert config.env_config("gym-CartPole-v1")[0] == {}            # no shipped config: the defaults
