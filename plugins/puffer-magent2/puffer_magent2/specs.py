"""The `magent2-<scenario>` specs: MAgent2 0.3.4's scenarios whose agents all share one
observation and one action space, so that the core's PettingZoo emulation can give every agent a
row (no heavy imports: magent2 loads when an env is made).

Left out: `combined_arms` (its melee and ranged units have different action spaces: 9 and 25
actions), `tiger_deer` and `adversarial_pursuit` (predators and prey see different windows:
9x9 and 3x3, 10x10 and 9x9); the emulation refuses agents of different spaces, and padding them
into one space is not done here.
"""

from __future__ import annotations

from pufferlib import EnvSpec

PACKAGE = "puffer-magent2"
PREFIX = "magent2-"
CREATOR = "puffer_magent2.env:make"
POLICY = "puffer_magent2.policy:MagentCNN"

#: scenario -> (magent2 module, description, reward keyword arguments the scenario takes, teams).
#: `teams` are the agent-name prefixes of the two sides (empty: one team, no opponent).
SCENARIOS: dict[str, tuple[str, str, tuple[str, ...], tuple[str, ...]]] = {
    "battle": ("magent2.environments.battle_v4",
               "two teams of 81 fight on a 45x45 map; +5 a kill, +0.2 a hit; 1000 steps",
               ("step_reward", "dead_penalty", "attack_penalty", "attack_opponent_reward"), ("red", "blue")),
    "battlefield": ("magent2.environments.battlefield_v5",
                    "battle with walls: two teams of 12 on an 80x80 map; 1000 steps",
                    ("step_reward", "dead_penalty", "attack_penalty", "attack_opponent_reward"), ("red", "blue")),
    "gather": ("magent2.environments.gather_v5",
               "495 agents compete for food (and may attack each other); +5 food eaten; 500 steps",
               ("step_reward", "dead_penalty", "attack_penalty", "attack_food_reward"), ()),
}

#: Training settings of every id: PPO with 2 epochs over 4 minibatches of `STEPS` steps of every agent row,
#: learning rate 1e-3, gamma 0.99, GAE 0.95, entropy 0.01, with the small CNN of puffer_magent2.policy
#: (its cost per agent step is what bounds training on a CPU). 2 copies in 2 worker processes.
BASE_CONFIG: dict = {
    "vec": {"num_envs": 2, "num_workers": 2},
    "policy": {"hidden_size": 128},
    "train": {"total_timesteps": 10_000_000, "cpu_threads": 0, "bptt_horizon": 16,
              "update_epochs": 2, "learning_rate": 1e-3, "gamma": 0.99, "gae_lambda": 0.95,
              "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.01, "max_grad_norm": 0.5, "anneal_lr": True},
}

#: Rows per copy with the defaults (opponent "none": every agent a row), and the steps of each row
#: in a batch (fewer for gather, whose 495 rows of 15x15x5 floats make a batch of 32 steps 140 MB).
AGENTS: dict[str, int] = {"battle": 162, "battlefield": 24, "gather": 495}
STEPS: dict[str, int] = {"battle": 128, "battlefield": 256, "gather": 32}


def env_id(scenario: str) -> str:
    """`battle` -> `magent2-battle`."""
    return PREFIX + scenario.replace("_", "-")


def env_specs() -> list[EnvSpec]:
    """One spec per scenario: id `magent2-<scenario>`."""
    specs = []
    for scenario, (_, text, _, teams) in SCENARIOS.items():
        config = {key: dict(value) for key, value in BASE_CONFIG.items()}
        batch = STEPS[scenario] * AGENTS[scenario] * config["vec"]["num_envs"]
        config["train"].update(batch_size=batch, minibatch_size=batch // 4)
        kwargs: dict = {"scenario": scenario}
        if teams:
            kwargs["opponent"] = "none"
        specs.append(EnvSpec(id=env_id(scenario), creator=CREATOR, kwargs=kwargs, policy=POLICY, config=config,
                             package=PACKAGE, description=f"MAgent2 {scenario}: {text}"))
    return specs
