"""`check_env` judges what an env's own reset() and step() return, before emulation casts it:
type, dtype, shape, bounds and info types against the spaces, failing where Gymnasium's env
checker fails and warning where it warns, for Gymnasium envs, PettingZoo envs and PufferEnvs.

The envs are module-level classes of this module, so that the child process can import them.
"""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import ParallelEnv

import pufferlib
from pufferlib.checker import FAIL, PASS, WARN

BOX = spaces.Box(0, 1, (3,), np.float32)


def _observation(flaw, tick):
    """A valid observation, or one with `flaw`; 'outside' is outside the space from the second step on."""
    obs = np.full(3, 0.5, np.float32)
    if flaw == "list":
        return obs.tolist()
    if flaw == "float64":
        return obs.astype(np.float64)
    if flaw == "outside" and tick == 2:
        return obs * 6
    return obs


class GymFlawed(gym.Env):
    """Episodes of 4 steps; `flaw` breaks one kind of value it returns."""

    observation_space, action_space = BOX, spaces.Discrete(2)

    def __init__(self, flaw=None):
        self.flaw, self.tick = flaw, 0

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.tick = 0
        return _observation(self.flaw, 0), (None if self.flaw == "none_info" else {})

    def step(self, action):
        self.tick += 1
        info = None if self.flaw == "none_info" else {}
        return _observation(self.flaw, self.tick), 0.0, self.tick >= 4, False, info


class PufferFlawed(pufferlib.PufferEnv):
    """One agent, episodes of 4 steps; `flaw` breaks what reset/step return."""

    writes_final_observations = True

    def __init__(self, buf=None, flaw=None):
        self.single_observation_space, self.single_action_space, self.num_agents = BOX, spaces.Discrete(2), 1
        self.flaw, self.tick = flaw, 0
        super().__init__(buf)

    def _returned(self):
        """Write this step's observation, then return it as `flaw` says."""
        self.observations[0] = _observation("outside" if self.flaw == "outside" else None, self.tick)
        if self.flaw == "fresh":  # a new array each call, not the one vectorizers read
            return np.full((1, 3), 0.25, np.float32)
        if self.flaw == "list":
            return self.observations.tolist()
        return self.observations.astype(np.float64) if self.flaw == "float64" else self.observations

    def reset(self, seed=None):
        self.tick = 0
        return self._returned(), []

    def step(self, actions):
        self.tick += 1
        self.terminals[0] = self.tick >= 4
        obs = self._returned()
        if self.terminals[0]:
            self.final_observations[0], self.tick = self.observations[0], 0
        return obs, self.rewards, self.terminals, self.truncations, []


class ZooFlawed(ParallelEnv):
    """Two agents for 4 steps; `flaw` breaks their observations or infos."""

    metadata = {"name": "zoo_flawed"}
    possible_agents = ["a", "b"]

    def __init__(self, flaw=None):
        self.flaw, self.tick, self.agents = flaw, 0, []

    def observation_space(self, agent):
        return BOX

    def action_space(self, agent):
        return spaces.Discrete(2)

    def reset(self, seed=None, options=None):
        self.tick, self.agents = 0, list(self.possible_agents)
        return {a: _observation(self.flaw, 0) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions):
        self.tick += 1
        obs = {a: _observation(self.flaw, self.tick) for a in self.agents}
        done = {a: self.tick >= 4 for a in self.agents}
        infos = {a: (None if self.flaw == "none_info" else {}) for a in self.agents}
        result = obs, {a: 0.0 for a in self.agents}, done, {a: False for a in self.agents}, infos
        if self.tick >= 4:
            self.agents = []
        return result


@pytest.mark.parametrize("env, flaw, check, status, words", [
    (GymFlawed, "list", "observations", WARN, "reset() returned an observation that is a list"),
    (GymFlawed, "float64", "observations", FAIL, "has dtype float64, where the space expects float32"),
    (GymFlawed, "none_info", "return values", FAIL, "reset() returned None as info, where a dict is expected"),
    (GymFlawed, "outside", "observations", WARN, "step() 2 returned an observation outside Box"),
    (PufferFlawed, "list", "observations", WARN, "returned a list as observations"),
    (PufferFlawed, "float64", "observations", FAIL, "an observation in row 0 that has dtype float64"),
    (PufferFlawed, "fresh", "observations", FAIL, "differ from self.observations"),
    (PufferFlawed, "outside", "observations", WARN, "step() 2 returned an observation in row 0 outside Box"),
    (ZooFlawed, "float64", "observations", FAIL, "an observation for agent 'a' that has dtype float64"),
    (ZooFlawed, "none_info", "return values", FAIL, "returned None as the info of agent 'a'"),
])
def test_what_reset_and_step_return_is_judged_against_the_spaces(env, flaw, check, status, words):
    report = pufferlib.check_env(env, steps=8, flaw=flaw)
    assert report[check].status == status and words in report[check].detail, str(report)
    assert report[check].hint and report["isolation"].status == PASS


@pytest.mark.parametrize("env", [GymFlawed, PufferFlawed, ZooFlawed])
def test_envs_that_return_what_their_spaces_say_pass_the_return_checks(env):
    report = pufferlib.check_env(env, steps=8)
    assert report["return values"].status == PASS and report["observations"].status == PASS, str(report)
