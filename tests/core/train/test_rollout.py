"""`pufferlib.train.rollout.Rollout` with `Opponents` given to its constructor: they act on the rows they
hold, see every step's done flags, and those rows are masked out of the stored batch (self-play's seam);
without them the learner holds every row."""

import collections

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces

import pufferlib
import pufferlib.models
from pufferlib.train.rollout import NoOpponents, Rollout


class PaysTheAction(gym.Env):
    """reward = the action; episodes of 4 steps."""

    observation_space = spaces.Box(-1, 1, (2,), np.float32)
    action_space = spaces.Discrete(3)

    def reset(self, seed=None, options=None):
        self.t = 0
        return np.zeros(2, np.float32), {}

    def step(self, action):
        self.t += 1
        return np.zeros(2, np.float32), float(action), self.t >= 4, False, {}


class HoldsRowZero:
    """Opponents that play action 2 on row 0 and keep it out of training; they count the dones they see."""

    def __init__(self):
        self.batches, self.dones = 0, 0

    def begin_batch(self):
        self.batches += 1

    def act_opponents(self, obs, ids, send):
        rows = np.arange(len(obs)) if ids is None else np.asarray(ids)
        send[rows == 0] = 2

    def observe(self, ids, terminals, truncations):
        rows = np.arange(len(terminals)) if ids is None else np.asarray(ids)
        self.dones += int(np.count_nonzero((terminals | truncations)[rows == 0]))

    def train_masks(self, masks, ids):
        rows = np.arange(len(masks)) if ids is None else np.asarray(ids)
        return np.where(rows == 0, False, masks)


@pytest.mark.parametrize("vec_kwargs", [dict(num_envs=4), dict(num_envs=4, batch_size=2)], ids=["sync", "async"])
def test_opponents_given_to_the_rollout_act_on_their_rows_and_are_masked_out_of_training(vec_kwargs):
    env = pufferlib.emulate(PaysTheAction, **vec_kwargs)
    opponents = HoldsRowZero()
    rollout = Rollout(env, pufferlib.models.Default(env), torch.device("cpu"), 32, 8, False, opponents)
    try:
        for _ in range(2):
            rollout.collect(collections.defaultdict(float))
            data = rollout.storage
            assert torch.equal(data.rewards[0], torch.full((8,), 2.0))  # row 0 played the opponents' action
            assert not data.weights[0].any() and data.weights[1:].all()
    finally:
        env.close()
    assert opponents.batches == 2 and opponents.dones >= 3


def test_without_opponents_the_learner_holds_every_row():
    env = pufferlib.emulate(PaysTheAction, num_envs=2)
    rollout = Rollout(env, pufferlib.models.Default(env), torch.device("cpu"), 16, 8, False)
    try:
        assert isinstance(rollout.opponents, NoOpponents)
        rollout.collect(collections.defaultdict(float))
        assert rollout.storage.weights.all()
    finally:
        env.close()
