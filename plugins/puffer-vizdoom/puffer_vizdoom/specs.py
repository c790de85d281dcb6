"""The `vizdoom-<scenario>` specs, one per scenario that ships with vizdoom 1.3.2 and runs as a
single-player env with binary buttons (no heavy imports: vizdoom loads when an env is made).

Left out, from the same scenarios folder: `cig`, `deathmatch`, `oblige`, `multi`, `multi_duel`
(multiplayer or bots, analog "delta" buttons, or no map of their own), `doom`, `doom2`,
`freedoom1`, `freedoom2` (whole game campaigns, not scenarios; doom and doom2 need commercial
WADs), `basic_audio` and `basic_notifications` (`basic` with an audio or notifications buffer,
which these envs do not observe) and `learning` (the same map and buttons as `basic`).
"""

from __future__ import annotations

from pufferlib import EnvSpec

PACKAGE = "puffer-vizdoom"
PREFIX = "vizdoom-"
CREATOR = "puffer_vizdoom.env:make"
POLICY = "puffer_vizdoom.policy:VizdoomCNN"

#: scenario -> (description, reward_scale). Rewards per tic as the .cfg and the map's script give
#: them; reward_scale brings a step's reward near [-1, 1] for PPO (infos' `score` stays unscaled).
SCENARIOS: dict[str, tuple[str, float]] = {
    "basic": ("shoot the monster across the room: +101 kill, -5 per missed shot, -1 per tic; 300 tics", 0.01),
    "simpler_basic": ("basic with a larger, easier target", 0.01),
    "rocket_basic": ("basic with a rocket launcher (the rocket flies; no autoaim)", 0.01),
    "defend_the_center": ("turn and shoot the monsters closing in on the centre: +1 kill, -1 death; 26 bullets", 1.0),
    "defend_the_line": ("shoot the monsters advancing on a line: +1 kill, -1 death", 1.0),
    "health_gathering": ("pick up medkits on an acid floor: +1 per tic alive, -100 death", 0.01),
    "health_gathering_supreme": ("health_gathering with a maze and poison vials", 0.01),
    "deadly_corridor": ("reach the vest down a corridor of shooters: + progress, -100 death", 0.01),
    "my_way_home": ("find the vest in a maze of rooms: +1 on reaching it, -0.0001 per tic", 1.0),
    "predict_position": ("hit a moving monster with a rocket: +1 hit, -0.001 per tic", 1.0),
    "take_cover": ("dodge the fireballs by strafing: +1 per tic alive; no timeout", 0.01),
}

#: Env defaults of every id (see puffer_vizdoom.env.VizdoomEnv), listed so that each is a config key.
DEFAULTS: dict = {
    "frameskip": 4,          # tics per agent step (the action repeats; rewards summed)
    "screen_size": 64,       # observations are screen_size x screen_size (area-resampled from 160x120)
    "grayscale": True,       # False: RGB, 3 channels per stacked screen
    "stack_num": 4,          # screens stacked along the first (channel) axis
    "episode_timeout": None,  # tics before truncation; None: the scenario .cfg's
}

#: Training settings of every id: PPO's Atari settings (CleanRL's ppo_atari: 4 epochs, GAE 0.95,
#: entropy 0.01) over 16 copies in 2 worker processes, with the smaller CNN of puffer_vizdoom.policy,
#: clip 0.2 and a learning rate of 1e-3: at 5e-4 (and at Atari's 2.5e-4) the updates of basic moved
#: the policy by an approximate KL of only 0.001-0.005 and it had barely left random play after
#: 80k steps. See the README for what they reached and in how many steps.
BASE_CONFIG: dict = {
    "vec": {"num_envs": 16, "num_workers": 2},
    "policy": {"cnn_width": 16, "hidden_size": 256},
    "train": {"total_timesteps": 1_000_000, "batch_size": 2048, "minibatch_size": 512, "cpu_threads": 0,
              "update_epochs": 4, "learning_rate": 1e-3, "gamma": 0.99, "gae_lambda": 0.95,
              "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.01, "max_grad_norm": 0.5, "anneal_lr": True},
}

#: Per-scenario overrides of BASE_CONFIG.
SCENARIO_CONFIGS: dict[str, dict] = {
    "basic": {"train": {"total_timesteps": 200_000}},
    "simpler_basic": {"train": {"total_timesteps": 200_000}},
    "rocket_basic": {"train": {"total_timesteps": 300_000}},
    "defend_the_center": {"train": {"total_timesteps": 1_000_000}},
}


def env_id(scenario: str) -> str:
    """`defend_the_center` -> `vizdoom-defend-the-center`."""
    return PREFIX + scenario.replace("_", "-")


def _merge(base: dict, override: dict) -> dict:
    out = {key: dict(value) for key, value in base.items()}
    for section, values in override.items():
        out.setdefault(section, {}).update(values)
    return out


def env_specs() -> list[EnvSpec]:
    """One spec per scenario: id `vizdoom-<scenario>` with hyphens, alias with underscores."""
    specs = []
    for scenario, (text, reward_scale) in SCENARIOS.items():
        name, alias = env_id(scenario), PREFIX + scenario
        specs.append(EnvSpec(
            id=name, creator=CREATOR, kwargs={"scenario": scenario, **DEFAULTS, "reward_scale": reward_scale},
            policy=POLICY, config=_merge(BASE_CONFIG, SCENARIO_CONFIGS.get(scenario, {})), package=PACKAGE,
            description=f"ViZDoom {scenario}: {text}", aliases=(alias,) if alias != name else ()))
    return specs
