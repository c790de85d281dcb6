"""The `procgen-<game>` specs (no heavy imports)."""

from __future__ import annotations

from pufferlib import NATIVE, EnvSpec

PACKAGE = "puffer-procgen"
PREFIX = "procgen-"
#: The 16 games of the Procgen benchmark.
GAMES = ("bigfish", "bossfight", "caveflyer", "chaser", "climber", "coinrun", "dodgeball", "fruitbot",
         "heist", "jumper", "leaper", "maze", "miner", "ninja", "plunder", "starpilot")
#: Env defaults: the easy distribution over every level (each one is also a config key).
KWARGS = {"distribution_mode": "easy", "num_levels": 0, "start_level": 0, "num_threads": 4}
#: PPO settings of the Procgen paper (Cobbe et al. 2020) for easy mode: 64 envs, 256-step
#: rollouts, 8 minibatches, 3 epochs, 25M steps. The policy is smaller than the paper's IMPALA
#: CNN (see puffer_procgen.policy): a twentieth of its arithmetic per frame, so a CPU trains it
#: many times more steps per second (figures in the CHANGELOG). Torch
#: threads chosen by measured speed (cpu_threads 0): its update gains from a second core.
CONFIG: dict = {
    "vec": {"num_envs": 64},
    "policy": {"cnn_width": 16, "hidden_size": 256},
    "train": {"total_timesteps": 25_000_000, "batch_size": 16384, "minibatch_size": 2048, "cpu_threads": 0,
              "bptt_horizon": 16, "update_epochs": 3, "learning_rate": 5e-4, "gamma": 0.999,
              "gae_lambda": 0.95, "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.01,
              "max_grad_norm": 0.5, "anneal_lr": False},
}


def env_specs() -> list[EnvSpec]:
    """One native spec per game."""
    return [EnvSpec(id=PREFIX + game, creator="puffer_procgen.env:ProcgenVector",
                    kwargs={"env_name": game, **KWARGS}, policy="puffer_procgen.policy:ProcgenCNN",
                    config={k: dict(v) for k, v in CONFIG.items()}, backend=NATIVE, package=PACKAGE,
                    description=f"Procgen {game} (batched C++ stepping)")
            for game in GAMES]
