"""`pufferlib.train.loop`: the one play loop of evaluation, matches and replays drives any `predict`-like
player: each row takes its holder's action, the caller's step says when to stop, and a loaded Agent
evaluates through it as through its own policy."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import pufferlib
from pufferlib.agent import build
from pufferlib.config import load_default
from pufferlib.train.evaluation import evaluate_players
from pufferlib.train.loop import play_steps


class PaysTheAction(gym.Env):
    """reward = the action; episodes of 3 steps."""

    observation_space = spaces.Box(-1, 1, (2,), np.float32)
    action_space = spaces.Discrete(4)

    def reset(self, seed=None, options=None):
        self.t = 0
        return np.zeros(2, np.float32), {}

    def step(self, action):
        self.t += 1
        return np.zeros(2, np.float32), float(action), self.t >= 3, False, {}


class Constant:
    """A player that always plays `action` and counts its calls in its state."""

    def __init__(self, action):
        self.action = action

    def predict(self, observation, state=None, episode_start=None, deterministic=False):
        return np.full(len(observation), self.action), (state or 0) + 1


def test_each_row_takes_its_holders_action_until_the_step_says_stop():
    env = pufferlib.emulate(PaysTheAction, num_envs=4)
    rewards = []

    def step(t, batch):
        rewards.append(np.array(batch[1]))
        return t == 5

    try:
        steps = play_steps(env, [Constant(1), Constant(3)], step, seed=0, deterministic=True,
                           holders=lambda: np.array([0, 1, 0, 1]))
        assert steps == 5 and all(list(r) == [1, 3, 1, 3] for r in rewards[1:])
        assert play_steps(env, [Constant(2)], lambda t, batch: False, seed=0, deterministic=True, max_steps=4) is None
    finally:
        env.close()


@pytest.mark.parametrize("deterministic", [True, False], ids=["greedy", "sampled"])
def test_an_agent_evaluates_through_predict_as_through_its_own_policy(deterministic):
    import torch

    env = pufferlib.make("gym-CartPole-v1", num_envs=3)
    agent = build(None, load_default(), env=env)
    try:
        own = agent.evaluate(env, episodes=6, deterministic=deterministic, seed=1)
        with torch.random.fork_rng():
            torch.manual_seed(1)
            through = evaluate_players(env, [agent], 6, deterministic=deterministic, seed=1)
    finally:
        env.close()
    assert through.returns == own.returns and through.lengths == own.lengths
