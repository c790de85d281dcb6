"""The `retro-<game>` specs: the stable-retro 1.0.1 games whose ROM ships inside the package.

stable-retro carries about a thousand game integrations (RAM maps, rewards, save states) but
ROMs for only those games whose authors allow it; every other game needs a ROM from elsewhere
(`python -m stable_retro.import`), which this plugin never reads. In 1.0.1 that leaves one game:
Airstriker-Genesis-v0, a homebrew shoot-'em-up (its `rom.md` is in the wheel). No heavy imports
here: stable_retro loads when an env is made.
"""

from __future__ import annotations

from pufferlib import EnvSpec

PACKAGE = "puffer-retro"
PREFIX = "retro-"
CREATOR = "puffer_retro.env:make"
POLICY = "pufferlib.models:SmallConvolutional"

#: The eight directions of a pad and no direction, in action order.
_DIRECTIONS: tuple[tuple[str, ...], ...] = (
    (), ("UP",), ("DOWN",), ("LEFT",), ("RIGHT",), ("UP", "LEFT"), ("UP", "RIGHT"), ("DOWN", "LEFT"),
    ("DOWN", "RIGHT"))


def _pad_with(fire: str) -> tuple[tuple[str, ...], ...]:
    """The 18 actions of a pad with one fire button: each direction (or none), without and with fire."""
    return tuple(d for d in _DIRECTIONS) + tuple(d + (fire,) for d in _DIRECTIONS)


#: game (stable-retro's name) -> (description, reward_scale, actions: the buttons each action holds).
#: Airstriker fires on B (A and C do nothing; tested by pressing each), so its 126 combinations of
#: retro's `Actions.DISCRETE` reduce to the 18 of an Atari pad. A shot is fired when B goes down:
#: holding it fires once, so the agent learns to press and release. Rewards are the score's
#: increments (20 a plane); reward_scale 0.05 makes a plane 1.0 for PPO (infos' `score` stays in points).
GAMES: dict[str, tuple[str, float, tuple[tuple[str, ...], ...]]] = {
    "Airstriker-Genesis-v0": ("Airstriker (Genesis homebrew): shoot the planes, dodge their fire; +20 points a plane, "
                              "3 lives", 0.05, _pad_with("B")),
}

#: Env defaults of every id (see puffer_retro.env.RetroGameEnv), listed so that each is a config key.
DEFAULTS: dict = {
    "frameskip": 4,                     # emulator frames per agent step (rewards summed, last two frames max-pooled)
    "repeat_action_probability": 0.25,  # sticky actions (Machado et al. 2018): each frame repeats the last one's action
    "screen_size": 84,                  # observations are screen_size x screen_size (area-resized from 320x224)
    "grayscale": True,                  # False: RGB, 3 channels per stacked frame
    "stack_num": 4,                     # frames stacked along the first (channel) axis
    "max_episode_frames": 108_000,      # emulator frames before truncation (30 minutes at 60 fps, as the ALE's)
}

#: Training settings of every id: PPO's Atari settings (CleanRL's ppo_atari: 8 envs, 4 epochs, GAE
#: 0.95, entropy 0.01, clip 0.2) with batches of 512 steps (64 an env) in minibatches of 128 instead
#: of 1,024 in 256, and a learning rate of 5e-4 instead of 2.5e-4: twice the updates per emulator
#: step, as on a CPU the emulator (~1.5 ms a frame) bounds how many steps a run sees. Over 8
#: emulators with pufferlib.models.SmallConvolutional. `num_workers` 0 lets the vectorizer choose
#: (as many as the cores, dividing num_envs): with one env per worker no env needs a child process
#: of its own (stable-retro runs one emulator per process; see puffer_retro.env). The README's
#: learning runs (32,768 steps, above random play in 3 of 3 seeds) used these settings on one core.
BASE_CONFIG: dict = {
    "vec": {"num_envs": 8, "num_workers": 0},
    "policy": {"cnn_width": 16, "hidden_size": 256},
    "train": {"total_timesteps": 1_000_000, "batch_size": 512, "minibatch_size": 128, "cpu_threads": 0,
              "update_epochs": 4, "learning_rate": 5e-4, "gamma": 0.99, "gae_lambda": 0.95,
              "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.01, "max_grad_norm": 0.5, "anneal_lr": True},
}


def env_id(game: str) -> str:
    """`Airstriker-Genesis-v0` -> `retro-airstriker-genesis`."""
    name = game[:-3] if game.endswith("-v0") else game
    return PREFIX + name.lower()


def env_specs() -> list[EnvSpec]:
    """One spec per shipped game: id `retro-<game>` in lower case, alias `retro-<first word>`."""
    specs = []
    for game, (text, reward_scale, _) in GAMES.items():
        name = env_id(game)
        alias = PREFIX + game.split("-")[0].lower()
        specs.append(EnvSpec(
            id=name, creator=CREATOR, kwargs={"game": game, **DEFAULTS, "reward_scale": reward_scale},
            policy=POLICY, config={k: dict(v) for k, v in BASE_CONFIG.items()}, package=PACKAGE,
            description=f"stable-retro {game}: {text}", aliases=(alias,) if alias != name else ()))
    return specs
