"""`pufferlib.check_env` / `puffer check`: a readable report, a hint per failure, nonzero exit on failure,
numbers out of range refused up front; and the render-mode errors of `puffer eval` name the modes an env has."""

import functools

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import pufferlib
from pufferlib import cli
from pufferlib.checker import FAIL, PASS, SKIP

OCEAN_IDS = ["ocean-squared", "ocean-bandit", "ocean-memory", "ocean-password", "ocean-stochastic",
             "ocean-multiagent", "ocean-spaces", "ocean-continuous", "ocean-cartpole", "ocean-pong",
             "ocean-breakout", "ocean-snake", "ocean-connect4", "ocean-grid"]
#: one id per other first-party family; pettingzoo-pistonball is left out (about 90 s to check on 2 cores)
OTHER_IDS = ["gym-CartPole-v1", "minigrid-empty-5x5", "pettingzoo-knights-archers-zombies",
             pytest.param("atari-pong", marks=pytest.mark.slow),
             pytest.param("procgen-coinrun", marks=pytest.mark.slow),
             pytest.param("nethack-score", marks=pytest.mark.slow)]


class Good(pufferlib.PufferEnv):
    """One agent; random observations from a seeded generator; episodes of 5 steps with stats."""

    metadata = {"render_modes": ["ansi"]}
    writes_final_observations = True

    def __init__(self, render_mode=None, buf=None, seeded=True, in_bounds=True, stats=True):
        self.single_observation_space = spaces.Box(0, 1, (3,), np.float32)
        self.single_action_space = spaces.Discrete(3)
        self.num_agents = 1
        self.render_mode, self.seeded, self.in_bounds, self.stats = render_mode, seeded, in_bounds, stats
        super().__init__(buf)
        self.rng, self.tick = np.random.default_rng(), 0

    def _observe(self):
        self.observations[0] = self.rng.random(3) * (1 if self.in_bounds else 5)

    def reset(self, seed=None):
        if seed is not None and self.seeded:
            self.rng = np.random.default_rng(seed)
        self.tick = 0
        self._observe()
        return self.observations, []

    def step(self, actions):
        self.tick += 1
        self.rewards[0] = float(actions[0, 0] == 1)
        self.terminals[0] = self.tick >= 5
        self._observe()
        infos = []
        if self.terminals[0]:
            self.final_observations[0] = self.observations[0]
            infos = [{"episode_return": 1.0, "episode_length": 5}] if self.stats else []
            self.tick = 0
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def render(self):
        return f"tick {self.tick}" if self.render_mode == "ansi" else None


def test_a_good_env_passes_every_check():
    report = pufferlib.check_env(Good, steps=64)
    assert report.ok, str(report)
    assert {c.name: c.status for c in report.checks} == {
        "isolation": PASS, "spaces": PASS, "return values": PASS, "observations": PASS, "buffers": PASS,
        "action bounds": PASS, "auto-reset": PASS, "masks": PASS, "final observations": PASS,
        "episode stats": PASS, "games": SKIP, "determinism": PASS, "render modes": PASS, "speed": PASS,
        "close": PASS}
    assert report.steps_per_second > 0 and "OK: 15/15" in str(report)


class Game(pufferlib.PufferEnv):
    """Two seats of one game of 3 steps: seat 0 wins. `flaw`: "apart" ends seat 0 a step before seat 1,
    "both_win" gives both seats a win, "score" writes a score (3.0) instead of an outcome."""

    game_seats = 2

    def __init__(self, buf=None, flaw=None):
        self.single_observation_space = spaces.Box(0, 1, (1,), np.float32)
        self.single_action_space = spaces.Discrete(2)
        self.num_agents, self.flaw, self.tick = 2, flaw, 0
        super().__init__(buf)

    def reset(self, seed=None):
        self.tick = 0
        return self.observations, []

    def step(self, actions):
        self.tick += 1
        self.terminals[:] = [self.tick >= (2 if self.flaw == "apart" else 3), self.tick >= 3]
        if self.terminals[1]:
            self.outcomes[:] = {"both_win": [1, 1], "score": [3, 0]}.get(self.flaw, [1, 0])
            self.tick = 0
        infos = [{"episode_return": 0.0, "episode_length": 3}] if self.terminals[1] else []
        return self.observations, self.rewards, self.terminals, self.truncations, infos


@pytest.mark.parametrize("flaw, problem", [(None, None), ("apart", "ended without the others"),
                                           ("both_win", "do not add up to 1"),
                                           ("score", "are not 1, 0.5, 0 or NaN")])
def test_an_env_of_games_is_checked_against_the_game_contract(flaw, problem):
    report = pufferlib.check_env(functools.partial(Game, flaw=flaw), steps=16)
    if problem is None:
        assert report["games"].status == PASS and "games of 2 seat(s)" in report["games"].detail
    else:
        assert report["games"].status == FAIL and problem in report["games"].detail, str(report)
        assert "pufferlib.environment" in report["games"].hint


@pytest.mark.parametrize("flaw, check, hint", [
    ({"seeded": False}, "determinism", "seeded in reset"),
    ({"in_bounds": False}, "observations", "widen the observation space"),
    ({"stats": False}, "episode stats", "episode_return and episode_length"),
])
def test_each_flaw_fails_its_check_with_a_hint(flaw, check, hint):
    report = pufferlib.check_env(functools.partial(Good, **flaw), steps=64)
    assert not report.ok and report[check].status == FAIL
    assert hint in report[check].hint and f"hint: {report[check].hint}" in str(report)


def test_an_env_that_raises_fails_that_check_and_the_report_goes_on():
    class Crashing(Good):
        def step(self, actions):
            if actions[0, 0] == 2:
                raise RuntimeError("bad action handling")
            return super().step(actions)

    report = pufferlib.check_env(Crashing, steps=32)
    assert report["action bounds"].status == FAIL and "bad action handling" in report["action bounds"].detail
    assert report["spaces"].status == PASS


def test_gymnasium_envs_and_instances_are_checked_too():
    assert pufferlib.check_env(gym.make("CartPole-v1"), steps=64).ok
    report = pufferlib.check_env(lambda: gym.make("CartPole-v1"), steps=64)
    assert report.ok and report["determinism"].status == PASS
    assert pufferlib.check_env(gym.make("CartPole-v1"), steps=64)["determinism"].status == SKIP


def test_an_unknown_id_is_a_failed_make_check():
    report = pufferlib.check_env("no-such-env-xyz")
    assert not report.ok and report["make"].status == FAIL and "no-such-env-xyz" in report["make"].detail


def test_puffer_check_prints_the_report_and_exits_nonzero_on_failure(capsys):
    pufferlib.register("test-check-bad", lambda **kw: Good(in_bounds=False, **kw), overwrite=True)
    try:
        assert cli.main(["check", "test-check-bad", "--steps", "32"]) == 1
        out = capsys.readouterr().out
        assert "[FAIL] observations" in out and "hint:" in out and "FAILED" in out
        assert cli.main(["check", "gym-CartPole-v1", "--steps", "32"]) == 0
    finally:
        pufferlib.registry.unregister("test-check-bad")


@pytest.mark.parametrize("flag, value, words", [
    ("--steps", "-1", "steps must be an int >= 1"), ("--steps", "0", "steps must be an int >= 1"),
    ("--num-envs", "0", "num_envs must be an int >= 1"), ("--seed", "-1", "seed must be"),
    ("--timeout", "0", "timeout must be a number of seconds > 0"), ("--timeout", "nan", "timeout must be"),
])
def test_numbers_out_of_range_are_refused_in_one_line_before_anything_runs(flag, value, words, capsys):
    assert cli.main(["check", "ocean-squared", flag, value]) == 2
    out, err = capsys.readouterr()
    assert not out and len(err.splitlines()) == 1 and err.startswith(f"puffer check: error: {words}")
    keyword = flag.removeprefix("--").replace("-", "_")
    with pytest.raises(pufferlib.APIUsageError, match=words):
        pufferlib.check_env(Good, **{keyword: float(value) if keyword == "timeout" else int(value)})


@pytest.mark.parametrize("env_id", OCEAN_IDS + OTHER_IDS)
def test_shipped_envs_pass_the_checker(env_id):
    report = pufferlib.check_env(env_id, steps=160)  # Ocean reports stats every 128 steps
    assert report.ok, str(report)
    assert report["determinism"].status == PASS and report["buffers"].status == PASS


def test_eval_render_mode_the_env_lacks_names_the_modes_it_has(tmp_path, capsys):
    rc = cli.main(["eval", "gym-CartPole-v1", "--episodes", "1", "--render-mode", "ansi",
                   "--train.data-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc != 0 and "no render mode 'ansi'; it has: human, rgb_array" in err and "Traceback" not in err


def test_eval_render_that_raises_not_implemented_is_a_message():
    class NoRender(Good):
        metadata = {}

        def render(self):
            raise NotImplementedError

    pufferlib.register("test-norender", NoRender, overwrite=True)
    try:
        from pufferlib.config import load_default
        from pufferlib.train.playback import Recorder, make_render_env

        with make_render_env("test-norender", load_default(), "ansi") as env:
            env.reset()
            with pytest.raises(pufferlib.APIUsageError, match="cannot render in 'ansi' mode"):
                Recorder(env, "ansi")()
    finally:
        pufferlib.registry.unregister("test-norender")


def test_random_actions_are_legal_where_the_observation_holds_an_action_mask():
    """A PettingZoo game whose illegal moves raise (as PettingZoo's docs teach) passes every check:
    the checks draw among the moves its action mask allows, as the trainer does."""
    from tests.core.aec_plugin import Nim

    report = pufferlib.check_env(Nim, steps=64)
    assert report["return values"].status == PASS and report["auto-reset"].status == PASS, str(report)
    assert report["determinism"].status == PASS and report["games"].status == PASS
    assert report.ok, str(report)
