"""When the trainer logs: every log_interval seconds and every log_interval_steps agent steps;
at the end, the episode statistics the envs still hold are flushed, and `puffer train`'s summary
line says what metrics.jsonl's last line says."""

import json

import numpy as np
from gymnasium import spaces

import pufferlib
import pufferlib.vector
from pufferlib import cli
from pufferlib.pufferl import PuffeRL


class Bandit(pufferlib.PufferEnv):
    """One-step episodes paying the action, reported only through `log()` (as Ocean's C envs do
    every log_interval steps): a short run ends before any report."""

    def __init__(self, num_agents: int = 4, buf=None):
        self.single_observation_space = spaces.Box(0, 1, (1,), np.float32)
        self.single_action_space = spaces.Discrete(2)
        self.num_agents = num_agents
        super().__init__(buf)
        self.paid, self.count = 0.0, 0

    def reset(self, seed=None):
        self.observations[:] = 0
        return self.observations, []

    def step(self, actions):
        self.rewards[:] = actions.reshape(-1)
        self.terminals[:] = True
        self.paid += float(self.rewards.sum())
        self.count += self.num_agents
        return self.observations, self.rewards, self.terminals, self.truncations, []

    def log(self):
        if not self.count:
            return None
        info = {"episode_return": self.paid / self.count, "n": float(self.count)}
        self.paid, self.count = 0.0, 0
        return info


def lines(run_dir):
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()[1:]]


def test_short_run_logs_by_steps_and_flushes_pending_episode_stats(tmp_path):
    env = pufferlib.vector.make(Bandit, num_envs=2, backend="serial")
    trainer = PuffeRL(env=env, run_dir=tmp_path, total_timesteps=512, batch_size=64, minibatch_size=64,
                      log_interval=1e9, cpu_threads=1)  # time alone would log the first epoch only
    while not trainer.done_training():
        trainer.evaluate()
        trainer.train()
        trainer.mean_and_log()
    trainer.close()
    logged = lines(tmp_path)
    assert len(logged) >= 8, [row["step"] for row in logged]
    assert logged[-1]["environment/n"] == 256.0  # each of the 2 envs reports its 256 one-step episodes
    assert 0.0 <= logged[-1]["environment/episode_return"] <= 1.0
    assert trainer.logged_metrics["environment/episode_return"] == logged[-1]["environment/episode_return"]


def test_puffer_train_summary_is_the_last_logged_line(tmp_path, capsys):
    pufferlib.register("test-pending-bandit", Bandit, overwrite=True)
    try:
        assert cli.main(["train", "test-pending-bandit", "--train.total-timesteps", "256", "--train.batch-size",
                         "64", "--train.minibatch-size", "64", "--vec.num-envs", "2",
                         "--train.data-dir", str(tmp_path)]) == 0
    finally:
        pufferlib.registry.unregister("test-pending-bandit")
    last = lines(next(tmp_path.iterdir()))[-1]
    assert f"mean episode return {last['environment/episode_return']:.2f} (last log step)" in capsys.readouterr().out
