"""The `atari-<game>` specs, one per ROM that the installed ale-py ships.

Kept light: the ROMs are found by listing ale-py's `roms/` folder through the import
system's metadata (`importlib.util.find_spec`), without importing ale-py itself.
"""

from __future__ import annotations

import importlib.util
import numbers
import os
from typing import Any

from pufferlib import NATIVE, EnvSpec

PACKAGE = "puffer-atari"
PREFIX = "atari-"
POLICY = "puffer_atari.policy:AtariCNN"

#: The defaults of every `atari-<game>` id (Machado et al. 2018; EnvPool's defaults).
DEFAULTS: dict = {
    "frameskip": 4,                      # emulator frames per agent step (action repeated)
    "repeat_action_probability": 0.25,   # sticky actions: the previous action repeats with this probability
    "full_action_space": False,          # False: the game's minimal action set; True: all 18 actions
    "noop_max": 30,                      # up to this many no-op frames after each reset (0: off)
    "screen_size": 84,                   # observations are screen_size x screen_size
    "grayscale": True,                   # False: RGB frames, 3 channels per stacked frame
    "stack_num": 4,                      # frames stacked along the first (channel) axis
    "episodic_life": False,              # True: losing a life ends the episode (the game goes on)
    "reward_clipping": False,            # True: rewards become their sign (-1, 0, 1)
    "max_episode_frames": 108_000,       # episode cap in emulator frames (30 min; 0: none), a truncation
}

def check_options(frameskip: Any = 4, repeat_action_probability: Any = 0.25, noop_max: Any = 30,
                  screen_size: Any = 84, stack_num: Any = 4, max_episode_frames: Any = 108_000,
                  render_mode: Any = None, num_threads: Any = 0, **others: Any) -> None:
    """APIUsageError unless the options of DEFAULTS are valid; used by AtariEnv and AtariVector alike.

    (ale-py's vector interface does not check them: screen_size=0 or stack_num=0 make its
    reset() hang in C++ threads that Ctrl-C cannot stop.)
    """
    from pufferlib.errors import APIUsageError

    for name, value, low in (("frameskip", frameskip, 1), ("noop_max", noop_max, 0),
                             ("screen_size", screen_size, 1), ("stack_num", stack_num, 1),
                             ("max_episode_frames", max_episode_frames, 0), ("num_threads", num_threads, 0)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise APIUsageError(f"{name} must be an int >= {low}, got {value!r}.")
    if screen_size > 1024 or stack_num > 64:
        raise APIUsageError(f"screen_size must be <= 1024 and stack_num <= 64; got {screen_size} and {stack_num}.")
    if isinstance(repeat_action_probability, bool) or not isinstance(repeat_action_probability, numbers.Real) \
            or not 0.0 <= repeat_action_probability <= 1.0:
        raise APIUsageError(f"repeat_action_probability must be a number in [0, 1], got {repeat_action_probability!r}.")
    for name in ("full_action_space", "grayscale", "episodic_life", "reward_clipping"):
        if name in others and not isinstance(others[name], (bool, numbers.Integral)):
            raise APIUsageError(f"{name} must be True or False, got {others[name]!r}.")
    if render_mode not in (None, "rgb_array"):
        raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")


#: Training settings shared by the Atari ids (PPO's Atari settings, CleanRL's ppo_atari), with
#: two of its four epochs per batch and the smaller network of puffer_atari.policy: on a CPU
#: the update is most of the time, so each halving of it nearly doubles the steps per second.
#: 16 envs (64 steps each per batch): acting on 16 frames per call costs less per frame than on
#: 8. Torch threads chosen by measured speed (cpu_threads 0, pufferlib.cpu.threads): the
#: convolutions' update gains from a second core on a quiet machine, and one thread is faster
#: beside a busy process (figures in the CHANGELOG).
BASE_CONFIG: dict = {
    "env": {"reward_clipping": True},
    "policy": {"cnn_width": 16, "hidden_size": 256},
    "vec": {"num_envs": 16},
    "train": {"total_timesteps": 10_000_000, "batch_size": 1024, "minibatch_size": 256, "cpu_threads": 0,
              "bptt_horizon": 16, "update_epochs": 2, "learning_rate": 2.5e-4, "gamma": 0.99,
              "gae_lambda": 0.95, "clip_coef": 0.1, "vf_coef": 0.5, "ent_coef": 0.01,
              "max_grad_norm": 0.5, "anneal_lr": True},
}

#: Per-game overrides of BASE_CONFIG (tuned games).
GAME_CONFIGS: dict[str, dict] = {
    "breakout": {"train": {"total_timesteps": 10_000_000}},
    "pong": {"train": {"total_timesteps": 5_000_000}},
}


def rom_names() -> list[str]:
    """ale-py's ROM ids ("breakout", "space_invaders", ...), or [] when ale-py is missing."""
    try:
        found = importlib.util.find_spec("ale_py")
    except (ImportError, ValueError):
        return []
    if found is None or not found.submodule_search_locations:
        return []
    for location in found.submodule_search_locations:
        folder = os.path.join(location, "roms")
        if os.path.isdir(folder):
            return sorted(name[:-4] for name in os.listdir(folder) if name.endswith(".bin"))
    return []


def env_id(game: str) -> str:
    """`space_invaders` -> `atari-space-invaders`."""
    return PREFIX + game.replace("_", "-")


def _merge(base: dict, override: dict) -> dict:
    out = {key: dict(value) for key, value in base.items()}
    for section, values in override.items():
        out.setdefault(section, {}).update(values)
    return out


def env_specs() -> list[EnvSpec]:
    """One spec per ROM: id `atari-<game>`, alias `atari-<game_with_underscores>` when different.

    The kwargs hold every default, so that each is also a config key (`--env.frameskip 2`).
    """
    specs = []
    for game in rom_names():
        name = env_id(game)
        alias = PREFIX + game
        specs.append(EnvSpec(
            id=name,
            creator="puffer_atari.env:make",
            kwargs={"game": game, **DEFAULTS},
            policy=POLICY,
            config=_merge(BASE_CONFIG, GAME_CONFIGS.get(game, {})),
            backend=NATIVE,
            package=PACKAGE,
            description=f"Atari 2600 {game.replace('_', ' ').title()} (ALE), Machado et al. protocol",
            aliases=(alias,) if alias != name else (),
        ))
    return specs
