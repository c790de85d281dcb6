"""The `craftax-classic` and `craftax-full` (alias `craftax`) specs (no heavy imports).

Craftax's two games with symbolic observations, each one native vectorized env (a
`puffer_craftax.env.CraftaxVector` holds every copy and steps them in one jitted call):
- `craftax-classic`: Craftax-Classic, Crafter rewritten in JAX (22 achievements);
- `craftax-full` (also `craftax`): the full Craftax game (9 floors, 65+ achievements).
"""

from __future__ import annotations

from pufferlib import NATIVE, EnvSpec

PACKAGE = "puffer-craftax"
PREFIX = "craftax-"
CREATOR = "puffer_craftax.env:make"
POLICY = "puffer_craftax.policy:CraftaxMLP"
#: id -> (variant, aliases, Craftax's own step limit, description).
GAMES = {
    "craftax-classic": ("classic", (), 10_000, "Craftax-Classic (Crafter in JAX), symbolic observations, batched"),
    "craftax-full": ("full", ("craftax",), 100_000, "Craftax (the full game), symbolic observations, batched"),
}
#: Env defaults of both ids (see puffer_craftax.env.CraftaxVector), listed so that each is a config key
#: (`max_timesteps` is per id, above; `reset_pool` 0: num_envs / 32, at least 4).
KWARGS = {"reset_pool": 0, "score_window": 100}
#: PPO on a CPU: the copies live in one process (one jitted step for all of them), 64 of them with
#: 64-step rollouts (batches of 4,096: the Craftax paper's PPO steps 1,024 envs for 64 steps, sized for
#: a GPU and a billion steps), 4 minibatches, 4 epochs, GAE lambda 0.8, learning rate 2e-4, entropy
#: 0.01 and gradient clip 1.0 as in the paper; 256-unit layers (the paper's are 512). 1M steps: the
#: Crafter paper's budget (Craftax's own benchmarks are 1M and 1B).
CONFIG: dict = {
    "vec": {"num_envs": 64, "num_workers": 1},
    "policy": {"hidden_size": 256, "num_layers": 2},
    "train": {"total_timesteps": 1_000_000, "batch_size": 4096, "minibatch_size": 1024, "bptt_horizon": 64,
              "update_epochs": 4, "learning_rate": 2e-4, "gamma": 0.99, "gae_lambda": 0.8, "clip_coef": 0.2,
              "vf_coef": 0.5, "ent_coef": 0.01, "max_grad_norm": 1.0},
}


def env_specs() -> list[EnvSpec]:
    """One native spec per game."""
    return [EnvSpec(id=env_id, creator=CREATOR, kwargs={"variant": variant, "max_timesteps": steps, **KWARGS},
                    policy=POLICY, config={k: dict(v) for k, v in CONFIG.items()}, backend=NATIVE,
                    package=PACKAGE, description=text, aliases=aliases)
            for env_id, (variant, aliases, steps, text) in GAMES.items()]
