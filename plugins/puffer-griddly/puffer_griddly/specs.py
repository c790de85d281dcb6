"""The `griddly-<game>` specs (no heavy imports): one per game of `puffer_griddly.games.GAMES`."""

from __future__ import annotations

from puffer_griddly.games import GAMES, MULTI_AGENT_GAMES
from pufferlib import EnvSpec

PACKAGE = "puffer-griddly"
PREFIX = "griddly-"
CREATOR = "puffer_griddly.env:make"
MULTI_AGENT_CREATOR = "puffer_griddly.multiagent:make"
POLICY = "puffer_griddly.policy:GriddlyVectorCNN"
#: Env defaults of every id (see puffer_griddly.env.GriddlyEnv), listed so that each is a config key.
KWARGS = {"level": 0, "max_steps": 500}
#: Griddly steps in C++ (35-120k steps/s on one core of the 2-core test machine), so the 64
#: copies step in-process (the serial backend, the default with no workers): the policy's
#: forward pass and update bound the speed. Batches of 8192
#: steps (128 per env) in minibatches of 2048, 4 epochs. See the README for what it learned.
CONFIG: dict = {
    "vec": {"num_envs": 64},
    "policy": {"cnn_width": 32, "hidden_size": 128},
    "train": {"total_timesteps": 1_000_000, "batch_size": 8192, "minibatch_size": 2048, "cpu_threads": 0,
              "update_epochs": 4, "learning_rate": 1e-3, "gamma": 0.99, "gae_lambda": 0.95,
              "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.01, "max_grad_norm": 0.5},
}


#: Multi-agent games: 16 copies (64-192 agent rows), the same batch of agent steps.
MULTI_AGENT_CONFIG: dict = {**CONFIG, "vec": {"num_envs": 16}}


def env_specs() -> list[EnvSpec]:
    """One spec per game: single-player ones first, then the multi-agent ones."""
    tables = ((GAMES, CREATOR, CONFIG, "vector observer"),
              (MULTI_AGENT_GAMES, MULTI_AGENT_CREATOR, MULTI_AGENT_CONFIG, "vector observer, PettingZoo"))
    return [EnvSpec(id=PREFIX + name, creator=creator, kwargs={"game": name, **KWARGS}, policy=POLICY,
                    config={k: dict(v) for k, v in config.items()}, package=PACKAGE,
                    description=f"{text} (griddly {path.rsplit('/', 1)[-1]}, {kind})")
            for games, creator, config, kind in tables for name, (path, text) in games.items()]
