"""[eval]: evaluations during training, on an env copy of their own, logged as eval/* and the best
kept as RUN_DIR/best.pt (which "latest" and run folders never pick for resuming)."""

import json

import pytest

import pufferlib
from pufferlib.pufferl import PuffeRL
from pufferlib.train import checkpoint
from pufferlib.train.eval_during_training import BEST_NAME

CONFIG = {"train": {"total_timesteps": 1024, "batch_size": 256, "minibatch_size": 256, "update_epochs": 1,
                    "cpu_threads": 1, "checkpoint_interval": 2},
          "eval": {"interval": 2, "episodes": 4, "num_envs": 2}}


def train(run_dir, config=CONFIG, resume=False):
    env = pufferlib.make("gym-CartPole-v1", num_envs=4)
    trainer = PuffeRL(config, env, env_id="gym-CartPole-v1", run_dir=run_dir)
    if resume:
        trainer.load_checkpoint(run_dir, resume=True)
    while not trainer.done_training():
        trainer.evaluate()
        trainer.train()
        trainer.mean_and_log()
    trainer.close()
    return trainer


def test_evaluations_are_logged_and_the_best_is_kept(tmp_path):
    train(tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()[1:]]
    evals = {row["epoch"]: row["eval/episode_return"] for row in rows if "eval/episode_return" in row}
    assert sorted(evals) == [2, 4], rows
    assert all(row["eval/episodes"] == 4 for row in rows if "eval/episodes" in row)
    best = checkpoint.load(tmp_path / BEST_NAME)
    assert best["eval"]["episode_return"] == max(evals.values())
    assert best["epoch"] == max(evals, key=lambda epoch: (evals[epoch], -epoch))
    assert checkpoint.load(tmp_path)["path"].endswith("model_000004.pt")  # the newest, not the best


def test_resume_keeps_the_best_evaluation_so_far(tmp_path):
    train(tmp_path)
    best = checkpoint.load(tmp_path / BEST_NAME)["eval"]["episode_return"]
    longer = {**CONFIG, "train": {**CONFIG["train"], "total_timesteps": 1024 + 256}, "eval": {**CONFIG["eval"],
                                                                                              "interval": 100}}
    resumed = train(tmp_path, longer, resume=True)
    assert resumed.evaluator.best == best


def test_eval_needs_an_env_id_to_make_its_env():
    env = pufferlib.make("gym-CartPole-v1", num_envs=2)
    env.spec = None
    try:
        with pytest.raises(pufferlib.APIUsageError, match=r"\[eval\] evaluates on an env copy of its own"):
            PuffeRL(CONFIG, env)
    finally:
        env.close()


@pytest.mark.parametrize("settings, message", [
    ({"opponent": "scripted"}, r"^eval.opponent 'scripted': gym-CartPole-v1's built-in players are none"),
    ({"env": {"bogus": 1}}, r"^\[eval.env\] bogus = 1: the evaluation env cannot be made: gym-CartPole-v1 does not "
                            r"take one of the keyword arguments given \(bogus\)"),
], ids=["opponent", "env"])
def test_eval_settings_the_env_cannot_take_stop_the_trainer_before_it_trains(tmp_path, settings, message):
    env = pufferlib.make("gym-CartPole-v1", num_envs=4)
    try:
        with pytest.raises(pufferlib.APIUsageError, match=message):
            PuffeRL({**CONFIG, "eval": {**CONFIG["eval"], **settings}}, env, env_id="gym-CartPole-v1",
                    run_dir=tmp_path / "run")
    finally:
        env.close()
    assert not (tmp_path / "run").exists()


def test_an_eval_env_of_its_own_copies_has_no_worker_timeout():
    """Its copies step in this process when the env is native, which takes no worker timeout: the
    run's `vec.timeout` for its workers made the first evaluation fail."""
    from pufferlib.config import load_default, merge
    from pufferlib.train.evaluation import eval_env_config

    config = merge(load_default(), {"vec": {"num_workers": 2, "timeout": 5.0}})
    assert eval_env_config(config, 2)["vec"] == {**config["vec"], "num_envs": 2, "num_workers": 0, "timeout": 0.0}
    assert eval_env_config(config)["vec"]["timeout"] == 5.0  # the run's own workers keep theirs


def test_an_eval_opponent_of_a_plugins_game_is_checked_before_training(tmp_path):
    """A plugin's AEC game takes no `opponent` argument: its built-in players ('random', 'tactical')
    take a seat through the turn-based adapter, and a name it lacks stops the run at once."""
    from pufferlib.config import env_config, load_default, merge
    from pufferlib.errors import APIUsageError
    from pufferlib.train.eval_during_training import TrainingEval
    from tests.core import aec_plugin

    with aec_plugin.installed():
        config = merge(load_default(), env_config(aec_plugin.ENV_ID)[0], {"eval": {"interval": 1}})
        TrainingEval(aec_plugin.ENV_ID, merge(config, {"eval": {"opponent": "random"}}))  # made and checked
        with pytest.raises(APIUsageError, match=r"eval.opponent 'scripted': .*built-in players are \['random', "
                                                r"'tactical'\]"):
            TrainingEval(aec_plugin.ENV_ID, merge(config, {"eval": {"opponent": "scripted"}}))
