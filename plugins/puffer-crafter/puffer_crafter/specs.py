"""The `crafter-reward` and `crafter-noreward` specs (no heavy imports).

The two settings of the Crafter paper (Hafner 2021): with its reward (+1 per achievement
unlocked for the first time in an episode, +-0.1 per health point gained or lost) and
without it (reward 0; agents are judged by their achievements only). Both log the Crafter
score at episode ends (see `puffer_crafter.env`).
"""

from __future__ import annotations

from pufferlib import EnvSpec

PACKAGE = "puffer-crafter"
PREFIX = "crafter-"
CREATOR = "puffer_crafter.env:make"
POLICY = "puffer_crafter.policy:CrafterCNN"
#: id -> (crafter's `reward` argument, description).
SETTINGS = {
    "crafter-reward": (True, "Crafter with its reward (achievements unlocked, health changes)"),
    "crafter-noreward": (False, "Crafter without reward (reward 0; scored by achievements)"),
}
#: Env defaults of both ids (see puffer_crafter.env.CrafterEnv), listed so that each is a config key.
KWARGS = {"length": 10_000, "score_window": 100}
#: Crafter steps in Python (140-150 steps/s per core on the 2-core test machine, plus ~1 s of
#: world generation per reset), so the copies run in worker processes, one per core of a 2-core
#: machine; the budget is the paper's, 1M steps. Batches of 4096 steps (256 per env) in
#: minibatches of 1024, 3 epochs; see the README for what one short run of it reached.
CONFIG: dict = {
    "vec": {"num_envs": 16, "num_workers": 2},
    "policy": {"cnn_width": 32, "hidden_size": 256},
    "train": {"total_timesteps": 1_000_000, "batch_size": 4096, "minibatch_size": 1024, "cpu_threads": 0,
              "update_epochs": 3, "learning_rate": 3e-4, "gamma": 0.99, "gae_lambda": 0.95,
              "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.01, "max_grad_norm": 0.5},
}


def env_specs() -> list[EnvSpec]:
    """One spec per setting of the paper."""
    return [EnvSpec(id=env_id, creator=CREATOR, kwargs={"reward": reward, **KWARGS}, policy=POLICY,
                    config={k: dict(v) for k, v in CONFIG.items()}, package=PACKAGE, description=text)
            for env_id, (reward, text) in SETTINGS.items()]
