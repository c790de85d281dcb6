"""`check_env` runs the env in a child process with a deadline per check: a crash, an exit or a
hang of the env is a failed check, the report goes on, and close() is a check of its own.

The envs are module-level classes of this module, so that the child process can import them.
"""

import ctypes
import functools
import os
import sys
import time

import numpy as np
import pytest
from gymnasium import spaces

import pufferlib
from pufferlib import cli
from pufferlib.checker import FAIL, PASS, SKIP, WARN


class Tiny(pufferlib.PufferEnv):
    """One agent, episodes of 4 steps with stats; `flaw` breaks its making, render() or close()."""

    metadata = {"render_modes": ["ansi"]}
    writes_final_observations = True

    def __init__(self, render_mode=None, buf=None, flaw=None):
        self.single_observation_space = spaces.Box(0, 1, (2,), np.float32)
        self.single_action_space = spaces.Discrete(2)
        self.num_agents = 1
        self.render_mode, self.flaw, self.tick, self.stepped = render_mode, flaw, 0, False
        if flaw == "segfault_when_made":
            ctypes.string_at(0)
        super().__init__(buf)

    def reset(self, seed=None):
        self.tick = 0
        self.observations[:] = 0.5
        return self.observations, []

    def step(self, actions):
        self.tick, self.stepped = self.tick + 1, True
        self.terminals[0] = self.tick >= 4
        infos = []
        if self.terminals[0]:
            self.final_observations[0] = self.observations[0]
            infos, self.tick = [{"episode_return": 0.0, "episode_length": 4}], 0
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def render(self):
        if self.flaw == "segfault":
            ctypes.string_at(0)  # reads address 0: SIGSEGV
        elif self.flaw == "exit":
            os._exit(3)
        elif self.flaw == "system_exit":
            sys.exit(3)
        elif self.flaw == "hang":
            time.sleep(3600)
        return f"tick {self.tick}"

    def close(self):
        if self.flaw == "close" and self.stepped:  # the vectorizer closes a probe copy that never stepped
            raise RuntimeError("close failed")


def _statuses(report):
    return {c.name: c.status for c in report.checks}


@pytest.mark.parametrize("flaw, detail", [
    ("segfault", "killed by SIGSEGV during this check"),
    ("exit", "exited with status 3"),
    ("system_exit", "raised SystemExit: 3"),
])
def test_a_crash_or_an_exit_in_the_env_fails_its_check_and_every_check_reports(flaw, detail):
    report = pufferlib.check_env(Tiny, steps=16, flaw=flaw)
    assert report["render modes"].status == FAIL and detail in report["render modes"].detail
    assert report["render modes"].hint
    others = {name: status for name, status in _statuses(report).items() if name not in ("render modes", "games")}
    assert set(others.values()) == {PASS} and "close" in others and "speed" in others, str(report)
    assert report["games"].status == SKIP  # Tiny is not an env of games


def test_an_env_that_crashes_when_made_is_a_failed_make_check():
    report = pufferlib.check_env(Tiny, steps=16, flaw="segfault_when_made")
    assert [(c.name, c.status) for c in report.checks] == [("isolation", PASS), ("make", FAIL)]
    assert "killed by SIGSEGV" in report["make"].detail


def test_a_check_that_passes_the_deadline_fails_and_the_next_checks_run_in_a_fresh_process(capsys):
    rc = cli.main(["check", f"{__name__}:hanging", "--steps", "16", "--timeout", "1"])
    out = capsys.readouterr().out
    assert rc == 1 and "[FAIL] render modes" in out and "did not finish within 1 s" in out
    assert "[pass] close" in out and "raise the deadline" in out and "OK" not in out.splitlines()[-1]


#: `Tiny` whose render() never returns, as a 'module:attr' id for `puffer check`.
hanging = functools.partial(Tiny, flaw="hang")


def test_a_raising_close_is_a_failed_close_check_and_the_report_is_kept():
    report = pufferlib.check_env(Tiny, steps=16, flaw="close")
    assert report["close"].status == FAIL and "close failed" in report["close"].detail
    assert report["determinism"].status == PASS and report["render modes"].status == PASS


def test_an_env_a_child_cannot_load_is_checked_here_and_the_isolation_row_says_why(monkeypatch):
    class Local(Tiny):  # pickled by reference to __main__, where a child process does not find it
        pass

    Local.__module__, Local.__qualname__ = "__main__", "Local_checked_here"
    monkeypatch.setattr(sys.modules["__main__"], "Local_checked_here", Local, raising=False)
    report = pufferlib.check_env(Local, steps=16)
    assert report.ok and report["isolation"].status == WARN
    assert "could not be loaded in a child process" in report["isolation"].detail
    assert "module level" in report["isolation"].hint and report["determinism"].status == PASS


def test_a_lambda_or_a_vector_is_checked_here_with_a_warning():
    report = pufferlib.check_env(lambda **kw: Tiny(**kw), steps=16)
    assert report.ok and report["isolation"].status == WARN and "cannot be sent" in report["isolation"].detail
    vec = pufferlib.emulate(Tiny, num_envs=2, backend="serial")
    try:
        report = pufferlib.check_env(vec, steps=16)
        assert report.ok and "vectorized env" in report["isolation"].detail
        assert report["close"].status == SKIP and not vec.closed  # the caller's vector stays open
    finally:
        vec.close()
