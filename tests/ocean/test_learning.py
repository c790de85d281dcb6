"""The sanity envs are solved by `PuffeRL` with their shipped training configs.

Each test trains with the env's default config from its spec (the one `puffer train`
uses) and checks the mean score of the last reports. Together they take about two
minutes on two CPU cores.
"""

import io
import tempfile

import pytest

torch = pytest.importorskip("torch")

import pufferlib  # noqa: E402
from pufferlib.config import load_default, merge  # noqa: E402
from pufferlib.train.dashboard import Dashboard  # noqa: E402


def train(name: str, config_overrides: dict | None = None, **env_overrides) -> tuple[list[float], dict]:
    """Train ocean-<name> with its spec's config (then `config_overrides`, e.g. a shorter
    run); returns (score reports, last metrics)."""
    spec = pufferlib.registry.spec(f"ocean-{name}")
    config = merge(load_default(), spec.config, config_overrides or {},
                   {"train": {"device": "cpu", "checkpoint_interval": 10**9}})
    vec = pufferlib.make(spec.id, num_envs=config["vec"]["num_envs"], seed=config["vec"]["seed"], **env_overrides)
    scores, metrics = [], {}
    with tempfile.TemporaryDirectory() as run_dir:  # checkpoints, if any, go away with it
        trainer = pufferlib.PuffeRL(config, env=vec, env_id=spec.id, run_dir=run_dir,
                                    dashboard=Dashboard(spec.id, interval=1e9, stream=io.StringIO(), rich=False))
        try:
            while not trainer.done_training():
                trainer.evaluate()
                trainer.train()
                metrics = trainer.mean_and_log()
                if "environment/score" in metrics:
                    scores.append(metrics["environment/score"])
        finally:
            trainer.close()  # closes the env too
    return scores, metrics


SOLVED = {  # env -> score that counts as solved (random play scores in the comment)
    "bandit": 0.9,       # 0.25
    "multiagent": 0.85,  # 0.5
    "spaces": 0.9,       # 0.5
    "continuous": 0.85,  # 0.33
    "password": 0.9,     # 0.03
    # 0.67; any deterministic policy: 0.33. Its score plateaus near 0.85 (the entropy bonus holds
    # the policy nearer 0.5 than the best 0.75); at 200k steps seeds 1-4 ended at 0.931, 0.838,
    # 0.848, 0.850 (at the 100k budget before: 0.745-0.879, and 0.85 failed one make test).
    "stochastic": 0.78,
    "memory": 0.9,       # 0.5; a feed-forward policy cannot beat 0.5
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SOLVED))
def test_sanity_env_is_solved_within_its_budget(name):
    scores, _ = train(name)
    assert scores and scores[-1] >= SOLVED[name], f"ocean-{name} scores: {scores}"


@pytest.mark.slow
def test_squared_is_solved_on_a_small_grid_and_the_env_is_a_small_share():
    short = {"train": {"total_timesteps": 60_000, "batch_size": 2048, "minibatch_size": 512},
             "vec": {"num_envs": 64}}
    scores, metrics = train("squared", short, size=5)
    assert scores[-1] >= 0.9, scores
    assert metrics["performance/env"] < 0.05  # the env is a small share of the training profile


@pytest.mark.slow
def test_breakout_learns_to_follow_the_ball():
    # Random play breaks about 6 bricks; before lost balls cost reward (and before the
    # observation was centred, with bricks 0 until broken) the shipped config stayed at 7
    # after 20M steps. With 4 frames per step (the shipped config) a 2M-step budget ended at
    # 83.1 [61.3, 97.3] bricks over seeds 1-3; 3M steps take about 16 s on two CPU cores.
    scores, _ = train("breakout", {"train": {"total_timesteps": 3_000_000}})
    assert scores and scores[-1] >= 40, f"ocean-breakout scores: {scores}"


@pytest.mark.slow
def test_freeway_learns_to_cross_the_road():
    # 20-second games (300 steps) so that reports come often; random play crosses 0 times
    # and the shipped config's defaults once kept the chicken on the sidewalk. 400k steps
    # reach about 1 crossing per game (a few seconds on two quiet CPU cores).
    scores, _ = train("freeway", {"train": {"total_timesteps": 400_000}}, game_seconds=20)
    assert scores and scores[-1] >= 0.5, f"ocean-freeway scores: {scores}"
