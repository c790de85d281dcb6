"""The `nmmo-default` and `nmmo-small` specs (no heavy imports).

`nmmo-default` is `nmmo.config.Default`: a 160 x 160 map (128 x 128 playable), 128 agents,
128 NPCs, all game systems, 1024-tick episodes. `nmmo-small` is nmmo's Small map (64 x 64,
32 x 32 playable) with 16 agents, 8 NPCs and 256-tick episodes, for quick runs on a CPU.
Both reward survival (nmmo's default task) and log population statistics at agent ends
(see `puffer_nmmo.env`).
"""

from __future__ import annotations

from pufferlib import EnvSpec

PACKAGE = "puffer-nmmo"
PREFIX = "nmmo-"
CREATOR = "puffer_nmmo.env:make"
POLICY = "puffer_nmmo.policy:NMMOPolicy"
#: id -> (env kwargs, description). Every kwarg is listed so that each is a config key.
SETTINGS = {
    "nmmo-default": ({"preset": "medium", "num_agents": 128, "num_npcs": 128, "horizon": 1024},
                     "Neural MMO 2's default world: 128 agents on a 128x128 map, 1024 ticks"),
    "nmmo-small": ({"preset": "small", "num_agents": 16, "num_npcs": 8, "horizon": 256},
                   "Neural MMO 2 on its small map: 16 agents on a 32x32 map, 256 ticks"),
}
COMMON = {"num_maps": 1, "task_obs": False}
#: nmmo steps in Python (about 1,400-2,300 agent steps/s per core on the 2-core test machine),
#: so the copies run in worker processes, one per core. The entropy coefficient is 0.001, not
#: the usual 0.01: the entropy sums 13 arguments (some with hundreds of choices) and the default
#: task pays 1/horizon a tick, and at 0.01 three seeds did no better than random play in 123k
#: steps where 0.001 did (see the README).
CONFIGS: dict[str, dict] = {
    "nmmo-default": {
        "vec": {"num_envs": 2, "num_workers": 2},
        "policy": {"hidden_size": 256},
        "train": {"total_timesteps": 10_000_000, "batch_size": 32768, "minibatch_size": 4096, "cpu_threads": 0,
                  "update_epochs": 2, "learning_rate": 3e-4, "gamma": 0.99, "gae_lambda": 0.95,
                  "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.001, "max_grad_norm": 0.5},
    },
    "nmmo-small": {
        "vec": {"num_envs": 8, "num_workers": 2},
        "policy": {"hidden_size": 128},
        "train": {"total_timesteps": 1_000_000, "batch_size": 4096, "minibatch_size": 1024, "cpu_threads": 0,
                  "update_epochs": 2, "learning_rate": 1e-3, "gamma": 0.99, "gae_lambda": 0.95,
                  "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.001, "max_grad_norm": 0.5},
    },
}


def env_specs() -> list[EnvSpec]:
    """One spec per world size."""
    return [EnvSpec(id=env_id, creator=CREATOR, kwargs={**kwargs, **COMMON}, policy=POLICY,
                    config={k: dict(v) for k, v in CONFIGS[env_id].items()}, package=PACKAGE, description=text)
            for env_id, (kwargs, text) in SETTINGS.items()]
