"""Evaluation (pufferlib.train.evaluation): the first N episodes to start, each to its end;
seeded runs repeat; greedy and sampled play; mean, std, 95% interval and N."""

import math

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces

import pufferlib.vector
from pufferlib.config import check_keys, load_default, merge
from pufferlib.errors import APIUsageError
from pufferlib.train.evaluation import EpisodeBook, EvalResult, eval_env_config, evaluate, t_quantile_975


class SkillEnv(gym.Env):
    """Action 1 ("good") keeps the episode going for 10 steps and pays 1 per step; action 0
    ("bad") ends it at once with nothing. Only the first choice matters (then every action is
    paid): the episode's length depends on skill, as in most games."""

    observation_space = spaces.Box(0, 1, (1,), np.float32)
    action_space = spaces.Discrete(2)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(1, np.float32), {}

    def step(self, action):
        self.t += 1
        if self.t == 1 and int(action) == 0:
            return np.zeros(1, np.float32), 0.0, True, False, {}
        return np.zeros(1, np.float32), 1.0, self.t >= 10, False, {}


class Uniform(torch.nn.Module):
    """Equal logits for both actions, a slightly higher one for action 1 (the greedy choice)."""

    def forward(self, obs):
        logits = torch.zeros(obs.shape[0], 2)
        logits[:, 1] = 1e-3
        return logits, torch.zeros(obs.shape[0])


def skill_env(num_envs=32):
    return pufferlib.vector.make(SkillEnv, num_envs=num_envs, backend="serial")


def test_short_episodes_are_not_favoured():
    """The first episode of each copy decides with probability 1/2 between 0 (one step) and 10 (ten
    steps): the mean is 5. Keeping the first episodes to *end* (the old rule) would give ~0."""
    with skill_env(64) as env:
        result = evaluate(env, Uniform(), episodes=64, seed=0)
    assert result.episodes == 64
    assert abs(result.mean - 5.0) <= max(result.ci95, 1.5), result.summary()
    assert sorted(set(result.returns)) == [0.0, 10.0]
    assert result.lengths.count(10) == result.returns.count(10.0)


def test_more_episodes_than_copies_plays_each_copy_on():
    with skill_env(4) as env:
        result = evaluate(env, Uniform(), episodes=40, seed=1)
    assert result.episodes == 40
    assert 2.0 < result.mean < 8.0, result.summary()


def test_same_seed_same_numbers_and_caller_random_state_untouched():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    with skill_env() as env:
        first = evaluate(env, Uniform(), episodes=20, seed=7)
    after = torch.rand(1)
    with skill_env() as env:
        second = evaluate(env, Uniform(), episodes=20, seed=7)
    assert first.returns == second.returns
    assert torch.equal(before, after)


def test_deterministic_takes_the_greedy_action():
    with skill_env(8) as env:
        result = evaluate(env, Uniform(), episodes=8, deterministic=True, seed=0)
    assert result.returns == [10.0] * 8
    assert result.std == 0.0 and "greedy" in result.summary()


def test_report_gives_mean_std_interval_and_count():
    result = EvalResult([1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1], deterministic=False, seed=0)
    assert result.mean == 2.5
    assert result.std == pytest.approx(np.std([1, 2, 3, 4], ddof=1))
    assert result.ci95 == pytest.approx(3.182 * result.std / 2)
    assert "± 2.05" in result.summary() and "over 4 episodes" in result.summary()
    assert result.as_dict()["episodes"] == 4.0


def test_t_quantile_is_students():
    assert t_quantile_975(1) == 12.706
    assert t_quantile_975(30) == 2.042
    assert t_quantile_975(60) == pytest.approx(2.000, abs=1e-3)
    assert t_quantile_975(10_000) == pytest.approx(1.960, abs=1e-3)


def test_rewards_while_masked_count_and_inactive_rows_never_start():
    """A seat paid on the other seat's move (masked meanwhile) gets that reward; a row never
    active (an absent agent's padding) starts no episode and is never waited for."""
    book = EpisodeBook(rows=3, episodes=2)
    active = np.array([True, True, False])
    book.record(0, np.zeros(3), np.zeros(3, bool), active)
    book.record(1, np.array([1.0, 0.0, 0.0]), np.zeros(3, bool), np.array([False, True, False]))
    book.record(2, np.array([0.0, -1.0, 5.0]), np.array([True, True, False]), active)
    assert book.complete()
    returns, lengths, outcomes = book.counted()
    assert (returns, lengths) == ([1.0, -1.0], [2, 2]) and all(math.isnan(o) for o in outcomes)  # not a game


def test_an_env_whose_episodes_never_end_is_an_error_not_a_hang():
    class Endless(SkillEnv):
        def step(self, action):
            return np.zeros(1, np.float32), 0.0, False, False, {}

    with pufferlib.vector.make(Endless, num_envs=2, backend="serial") as env:
        with pytest.raises(APIUsageError, match="Only 0 episodes ended in 50 steps"):
            evaluate(env, Uniform(), episodes=1, max_steps=50)


def test_async_batches_are_refused():
    with pufferlib.vector.make(SkillEnv, num_envs=4, batch_size=2, backend="serial") as env:
        with pytest.raises(APIUsageError, match="env_batch_size 0"):
            evaluate(env, Uniform(), episodes=2)


def test_a_long_evaluation_and_a_video_say_how_far_they_are(monkeypatch, capsys, tmp_path):
    from pufferlib.train import loop, playback

    monkeypatch.setattr(loop, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr(playback, "PROGRESS_FRAMES", 2)
    with skill_env(4) as env:
        evaluate(env, Uniform(), episodes=4, seed=0, progress="puffer eval")
    assert "puffer eval: 0 episodes ended (4 to count), 1 steps" in capsys.readouterr().err
    playback.write_video([np.zeros((8, 8, 3), np.uint8)] * 5, str(tmp_path / "v.gif"), fps=10)
    err = capsys.readouterr().err
    assert f"writing 5 frames to {tmp_path / 'v.gif'}" in err and "  2/5 frames" in err and "  4/5 frames" in err


def test_eval_env_settings_override_the_runs_env_in_every_evaluation():
    config = merge(load_default(), {"env": {"length": 9, "width": 2}, "eval": {"env": {"length": 3}}})
    made = eval_env_config(config, 4)
    assert made["env"] == {"length": 3, "width": 2} and made["vec"]["num_envs"] == 4
    assert config["env"]["length"] == 9  # the run's own config is left as it was
    check_keys({"eval": {"env": {"any_env_argument": 1}}}, load_default())  # an open section, as [env]
    with pytest.raises(APIUsageError, match="eval.envs"):
        check_keys({"eval": {"envs": {}}}, load_default())


class FixedLength(gym.Env):
    """Every episode lasts exactly `length` steps, whatever the actions: its mean length says which
    `length` the env was made with."""

    observation_space = spaces.Box(0, 1, (1,), np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self, length=3):
        self.length = length

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(1, np.float32), {}

    def step(self, action):
        self.t += 1
        return np.zeros(1, np.float32), 1.0, self.t >= self.length, False, {}


TINY = ["--train.total-timesteps", "256", "--train.batch-size", "128", "--train.minibatch-size", "128",
        "--vec.num-envs", "2", "--train.update-epochs", "1"]


@pytest.fixture
def fixed_run(tmp_path):
    """A run of "test-fixed" (length 3 by default) whose evaluations play length 6 (`[eval] env`)."""
    from pufferlib import cli

    pufferlib.register("test-fixed", FixedLength, kwargs={"length": 3}, overwrite=True)
    (tmp_path / "run.toml").write_text("[eval.env]\nlength = 6\n")
    try:
        assert cli.main(["train", "test-fixed", *TINY, "--config", str(tmp_path / "run.toml"),
                         "--train.data-dir", str(tmp_path / "runs")]) == 0
        yield next((tmp_path / "runs").iterdir())
    finally:
        pufferlib.registry.unregister("test-fixed")


def test_puffer_eval_and_push_play_the_env_of_the_runs_evaluations_and_the_users_flags_win(
        fixed_run, tmp_path, capsys):
    from pufferlib import cli, hub

    assert pufferlib.load(fixed_run).evaluate(episodes=4).mean_length == 6  # what eval/* during training saw
    (tmp_path / "user.toml").write_text("[eval.env]\nlength = 8\n")
    for flags, length in (([], 6), (["--env.length", "9"], 9), (["--config", str(tmp_path / "user.toml")], 8)):
        capsys.readouterr()
        assert cli.main(["eval", "test-fixed", "--load-model-path", str(fixed_run), "--episodes", "4", *flags]) == 0
        assert f"mean length {length}.0" in capsys.readouterr().out, flags
    exported = hub.export(fixed_run, tmp_path / "agent", "me/fixed", episodes=4, replay=False)
    assert exported.result.mean_length == 6 and "--env.length 6" in exported.eval_command  # the card's figures
    assert "mean length 6.0" in (tmp_path / "agent" / "README.md").read_text()


def test_eval_settings_fold_eval_env_into_env_and_a_whole_number_keeps_a_floats_type():
    from pufferlib.cli.eval import _parser
    from pufferlib.cli.options import parse_config
    from pufferlib.train.evaluation import eval_base

    pufferlib.register("test-widen", FixedLength, kwargs={"length": 3, "share": 0.8},
                       config={"eval": {"env": {"share": 0, "length": 5}}}, overwrite=True)
    try:
        base = eval_base("test-widen", {"env": {"length": 4, "share": 0.5}, "eval": {"env": {"length": 7}}})
        assert base["env"] == {"length": 7, "share": 0.0} and isinstance(base["env"]["share"], float)
        assert base["eval"]["env"] == {}
        config, _ = parse_config(_parser(), ["test-widen", "--env.share", "0.25"], base=base)  # a float flag
        assert config["env"]["share"] == 0.25 and eval_env_config(config)["env"]["share"] == 0.25  # the flag wins
    finally:
        pufferlib.registry.unregister("test-widen")


@pytest.fixture(scope="module")
def selfplay_run(tmp_path_factory):
    """A self-play run of ocean-connect4: its agent holds every seat of the games."""
    from pufferlib import cli

    data = tmp_path_factory.mktemp("runs")
    assert cli.main(["train", "ocean-connect4", "--selfplay.enabled", "true", "--env.opponent", "none",
                     "--train.total-timesteps", "2048", "--vec.num-envs", "16", "--train.batch-size", "1024",
                     "--train.minibatch-size", "512", "--train.data-dir", str(data)]) == 0
    return next(data.iterdir())


def test_a_self_play_agent_is_scored_against_a_built_in_player_never_against_itself(selfplay_run, tmp_path, capsys):
    from pufferlib import cli, hub

    base = ["eval", "ocean-connect4", "--load-model-path", str(selfplay_run), "--episodes", "4"]
    capsys.readouterr()
    assert cli.main(base) == 2
    err = capsys.readouterr().err
    assert "would play itself" in err and "pass --opponent NAME" in err and "['random', 'scripted']" in err
    assert cli.main([*base, "--opponent", "tactical"]) == 2
    assert "--opponent 'tactical': ocean-connect4's built-in players are ['random', 'scripted']" in \
        capsys.readouterr().err
    assert cli.main([*base, "--opponent", "scripted"]) == 0
    line = capsys.readouterr().out
    assert "; score " in line and line.rstrip().endswith("against the env's built-in player 'scripted'")
    with pytest.raises(APIUsageError, match="would play itself"):
        hub.export(selfplay_run, tmp_path / "refused", "me/c4", episodes=4, replay=False)
    exported = hub.export(selfplay_run, tmp_path / "agent", "me/c4", episodes=4, replay=False, opponent="scripted")
    card = (tmp_path / "agent" / "README.md").read_text()
    assert exported.eval_command.endswith("--opponent scripted") and "name: mean_reward against scripted" in card
    assert "against the env's built-in player 'scripted'" in card


def test_the_runs_eval_opponent_is_the_default_anchor():
    from pufferlib.config import env_config
    from pufferlib.train.evaluation import with_opponent

    config = merge(load_default(), env_config("ocean-connect4")[0], {"env": {"opponent": "none"}})
    made, name = with_opponent("ocean-connect4", merge(config, {"eval": {"opponent": "random"}}))
    assert name == "random" and made["env"]["opponent"] == "random"
    assert with_opponent("ocean-connect4", config, "scripted")[1] == "scripted"  # --opponent wins
    plain = merge(load_default(), env_config("ocean-connect4")[0])  # the env's own opponent plays: kept
    assert with_opponent("ocean-connect4", plain) == (plain, None)
    with pytest.raises(APIUsageError, match="eval.opponent 'tactical': ocean-connect4's built-in players"):
        with_opponent("ocean-connect4", merge(config, {"eval": {"opponent": "tactical"}}))
