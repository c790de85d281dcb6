"""sweep.runner: how a trial ends, decided from its exit status, its metrics file and its log."""

import json

import pytest

from pufferlib.sweep import runner
from pufferlib.sweep.runner import LocalTrial, Outcome, TrialSpec, failure_line, never_stop

NON_FINITE = ("puffer train: error: Non-finite loss at epoch 3 (global step 3,072) with finite observations and "
              "rewards: the update diverged (policy_loss=nan). Lower train.learning_rate or train.max_grad_norm, "
              "or check the policy. Training stopped; nothing was saved from this state.")
PROGRESS = "epoch 1 | steps 1,024 | SPS 45,356 | policy_loss -0.1419 | value_loss 0.09511\n"
TRACEBACK = """Traceback (most recent call last):
  File "/x/env.py", line 10, in step
    return self._step(action)
ValueError: reward table is empty

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/x/pufferl.py", line 99, in evaluate
    obs = self.env.step(actions)
          ^^^^^^^^^^^^^^^^^^^^^^
ZeroDivisionError: division by zero
Exception ignored in atexit callback: <function _exit at 0x7f>
"""


class _Exited:
    """Stands in for the Popen of a trial's process that has exited with `code`."""

    def __init__(self, code):
        self.returncode = code

    def poll(self):
        return self.returncode

    def wait(self):
        return self.returncode


def _trial(folder, rows=(), log="", total_timesteps=16384, metric=""):
    """A LocalTrial that is not started: its run folder holds `rows` in metrics.jsonl, its log `log`."""
    run = folder / "run_x"
    run.mkdir(parents=True)
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [{"config": {}}, *rows]))
    (folder / "train.log").write_text(log)
    return LocalTrial(TrialSpec("ocean-bandit", {"train": {"total_timesteps": total_timesteps}}, str(folder), metric))


#: A batch of a solved bandit: every return equal, so the explained variance is NaN (null in the file).
SOLVED = {"step": 16384, "time": 1.0, "losses/policy_loss": 0.0, "losses/explained_variance": None,
          "environment/score": 1.0, "environment/episode_return": 1.0}


def test_a_nan_diagnostic_never_fails_a_trial_the_trainer_finished(tmp_path):
    trial = _trial(tmp_path, [SOLVED])
    trial.proc = _Exited(None)  # still running after it logged the NaN
    new, outcome = trial.poll()
    assert [r.score for r in new] == [1.0] and outcome is None
    trial.proc = _Exited(0)
    assert trial.poll() == ([], Outcome("done"))


def test_a_trial_diverged_when_its_trainer_stopped_it_with_the_non_finite_error(tmp_path):
    trial = _trial(tmp_path, [SOLVED], log=PROGRESS * 3 + NON_FINITE + "\n")
    trial.proc = _Exited(1)
    assert trial.poll()[1] == Outcome("failed", "exit status 1: " + NON_FINITE)


def test_a_ray_task_decides_its_trial_outcome_as_a_local_trial_does(tmp_path, monkeypatch):
    def start(spec):
        trial = _trial(tmp_path, [SOLVED])
        trial.proc = _Exited(0)
        return trial

    monkeypatch.setattr(LocalTrial, "start", staticmethod(start))
    result = runner.run_to_end(TrialSpec("ocean-bandit", {}, str(tmp_path)), poll_seconds=0)
    assert (result["status"], result["error"]) == ("done", None)
    assert [r["score"] for r in result["reports"]] == [1.0]


def test_a_failed_trial_says_which_exception_it_ended_with(tmp_path):
    assert failure_line(PROGRESS + TRACEBACK) == "ZeroDivisionError: division by zero"  # the last one raised
    assert failure_line(TRACEBACK + NON_FINITE) == NON_FINITE  # `puffer train`'s own error line came last
    assert failure_line(PROGRESS) == PROGRESS.strip() and failure_line("") == "no output"
    trial = _trial(tmp_path, log=PROGRESS + TRACEBACK)
    assert trial.outcome(1, [], never_stop) == Outcome("failed", "exit status 1: ZeroDivisionError: division by zero")
    assert trial.outcome(-9, [], never_stop).error.startswith("killed by SIGKILL")


def test_a_trial_in_which_no_episode_ended_says_to_raise_its_budget(tmp_path):
    losses_only = {"step": 1024, "time": 1.0, "losses/policy_loss": 0.1, "losses/explained_variance": None}
    trial = _trial(tmp_path, [losses_only], total_timesteps=1024)
    trial.proc = _Exited(0)
    error = trial.poll()[1].error
    assert error.startswith("no episode ended within its budget of 1,024 steps") and "--train.total-timesteps" in error
    assert "sweep.metric" not in error


def test_a_trial_that_logged_other_episode_keys_says_to_set_the_metric(tmp_path):
    trial = _trial(tmp_path, [SOLVED], metric="environment/win_rate")
    trial.proc = _Exited(0)
    assert trial.poll()[1] == Outcome("failed", "the run never logged environment/win_rate; set sweep.metric to one "
                                                "of the episode keys it logged: environment/episode_return, "
                                                "environment/score")


@pytest.mark.parametrize("where", ["log", "metric"])
def test_a_huge_value_is_cut_in_a_trials_error(tmp_path, where):
    huge = "x" * 10_000_000
    trial = _trial(tmp_path, [SOLVED] if where == "metric" else [], metric=huge if where == "metric" else "",
                   log=f"puffer train: error: {huge}\n" if where == "log" else "")
    trial.proc = _Exited(1 if where == "log" else 0)
    error = trial.poll()[1].error
    assert len(error) < 1000 and "characters)" in error  # cut, saying how long it was
