"""The `microrts-vs-<bot>` specs (no heavy imports).

The setting of Gym-μRTS (Huang et al. 2021): the 16x16 map basesWorkers16x16, grid-mode
observations and per-cell actions with invalid-action masks, the shaped reward (win/loss
10, resources 1, workers 1, buildings 0.2, attacks 1, combat units 4), games of at most
2000 steps, against one of microRTS' built-in bots (see `puffer_microrts.env`).
"""

from __future__ import annotations

from pufferlib import EnvSpec

PACKAGE = "puffer-microrts"
PREFIX = "microrts-"
CREATOR = "puffer_microrts.env:make"
POLICY = "puffer_microrts.policy:GridNet"
#: id -> (the env's `opponent`, description).
OPPONENTS = {
    "microrts-vs-randombiased": ("randombiased", "16x16 basesWorkers vs RandomBiasedAI (random, biased to attack)"),
    "microrts-vs-workerrush": ("workerrush", "16x16 basesWorkers vs WorkerRush (scripted rush of workers)"),
    "microrts-vs-lightrush": ("lightrush", "16x16 basesWorkers vs LightRush (scripted rush of light units)"),
    "microrts-vs-coac": ("coac", "16x16 basesWorkers vs CoacAI (winner of the 2020 microRTS competition)"),
}
#: Env defaults of every id (see puffer_microrts.env.MicroRTSEnv), listed so that each is a config key.
KWARGS = {"map": "16x16/basesWorkers16x16", "num_games": 24, "max_steps": 2000}
#: The paper's PPO setting where it fits: 24 games, 512 steps per game per batch in 4
#: minibatches, 4 epochs, learning rate 2.5e-4, clip 0.1, entropy 0.01, 50M steps. The 24 games
#: run in one env copy, in the main process: its Java client steps them on a thread pool of all
#: cores, which gave 680-760 agent steps/s on the 2-core test machine against 450-520 for 2 x 12
#: games in 2 worker processes (2 JVMs contending for the same cores; README).
CONFIG: dict = {
    "vec": {"backend": "serial", "num_envs": 1},
    "policy": {"width": 32, "critic_size": 256},
    "train": {"total_timesteps": 50_000_000, "batch_size": 12_288, "minibatch_size": 3072, "cpu_threads": 0,
              "update_epochs": 4, "learning_rate": 2.5e-4, "gamma": 0.99, "gae_lambda": 0.95,
              "clip_coef": 0.1, "vf_coef": 0.5, "ent_coef": 0.01, "max_grad_norm": 0.5},
}


def env_specs() -> list[EnvSpec]:
    """One spec per built-in opponent."""
    return [EnvSpec(id=env_id, creator=CREATOR, kwargs={"opponent": opponent, **KWARGS}, policy=POLICY,
                    config={k: dict(v) for k, v in CONFIG.items()}, package=PACKAGE, description=text)
            for env_id, (opponent, text) in OPPONENTS.items()]
