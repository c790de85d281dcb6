"""The `nethack-<task>` specs (no heavy imports)."""

from __future__ import annotations

from pufferlib import EnvSpec

PACKAGE = "puffer-nethack"
PREFIX = "nethack-"
#: Our task names -> what the task rewards (the NLE ids are in puffer_nethack.env.TASKS).
TASKS = {
    "score": "in-game score",
    "staircase": "reaching the down staircase",
    "pet": "reaching the down staircase with the pet",
    "oracle": "finding the Oracle",
    "gold": "collecting gold",
    "eat": "eating (hunger status)",
    "scout": "exploring new tiles",
    "challenge": "the NeurIPS 2021 challenge setting (random character, full action set)",
}
#: Env defaults (see puffer_nethack.env.make), listed so that each is a config key; the
#: default observation_keys are puffer_nethack.env.OBSERVATION_KEYS (set them in a TOML config).
KWARGS = {"max_episode_steps": 5000, "character": "mon-hum-neu-mal", "fix_moon_phase": True}
#: Tasks whose defaults differ (NLE's own): the challenge draws a random character.
TASK_KWARGS = {"challenge": {"max_episode_steps": 1_000_000, "character": "@"}}


def task_kwargs(task: str) -> dict:
    """The default env kwargs of `task`."""
    return {**KWARGS, **TASK_KWARGS.get(task, {})}


#: Torch threads chosen by measured speed (cpu_threads 0): the glyph CNN's update gains from a second core.
CONFIG: dict = {
    "vec": {"num_envs": 32},
    "policy": {"hidden_size": 256, "map_channels": 16},
    "train": {"total_timesteps": 50_000_000, "batch_size": 4096, "minibatch_size": 1024, "cpu_threads": 0,
              "learning_rate": 3e-4, "gamma": 0.999, "gae_lambda": 0.95, "ent_coef": 0.001,
              "update_epochs": 1, "clip_coef": 0.1, "max_grad_norm": 4.0},
}


def env_specs() -> list[EnvSpec]:
    """One spec per NLE task."""
    return [EnvSpec(id=PREFIX + task, creator="puffer_nethack.env:make", kwargs={"task": task, **task_kwargs(task)},
                    policy="puffer_nethack.policy:NetHackPolicy",
                    config={k: dict(v) for k, v in CONFIG.items()}, package=PACKAGE,
                    description=f"NetHack (NLE), rewarded for {what}")
            for task, what in TASKS.items()]
