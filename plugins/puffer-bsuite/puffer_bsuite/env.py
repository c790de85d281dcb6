"""BsuiteEnv: one bsuite experiment setting (a dm_env environment) as a Gymnasium env.

Contract:
- `BsuiteEnv(experiment, setting)` is bsuite's `<experiment>/<setting>`: the environment that
  `bsuite.load_from_id` gives, made from `bsuite.sweep.SETTINGS` (without its console notice).
  `setting` must index that experiment's sweep; anything else is an APIUsageError naming the
  valid range.
- Observations: bsuite's float32 array, flattened (shape `(prod(spec.shape),)`, unbounded Box).
  Actions: `Discrete(action_spec().num_values)`; an action outside it is an APIUsageError.
- dm_env -> Gymnasium: `reset()` returns the FIRST timestep's observation; `step()` returns
  `(obs, reward, terminated, truncated, info)` where an episode ends at bsuite's LAST timestep,
  `terminated` when its discount is 0 and `truncated` when it is not (the episode was cut off
  where bootstrapping from its last observation is still right). Stepping after an end without
  `reset()` is an APIUsageError (bsuite would silently start a new episode).
- Seeds: `reset(seed=s)` makes the setting afresh with bsuite's `seed` argument set to `s` where
  the experiment's loader takes one, else reseeds the environment's own random state; the setting
  itself (sizes, `mapping_seed`: which problem it is) is never changed. Such a reset starts a new
  bsuite run: its running totals (`bsuite_info()`) count from zero. `reset()` without a seed keeps
  them, as bsuite's own agent loop does over its `bsuite_num_episodes` episodes.
- Infos are empty except at the step that ends an episode, which carries what that episode added
  to each of bsuite's scoring totals (`bsuite_info()`): `total_regret` -> `regret`,
  `total_perfect` -> `perfect`, `total_bad_episodes` -> `bad_episodes`, `denoised_return`,
  `raw_return`, ...; `best_episode` (a maximum, not a total) is passed as it is. Averaged over a
  log step's episodes by the trainer, `perfect` is the rate of perfect episodes, `regret` the
  mean regret per episode.
- `add_episode_listener(fn)`: `fn(env, episode_return, episode_length, added)` is called at each
  episode end, `added` being the episode's increments under bsuite's own names (`total_regret`,
  ...); `puffer_bsuite.scoring.Recorder` pools copies into bsuite's CSV log so.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from puffer_bsuite import specs
from pufferlib.errors import APIUsageError

#: Keys of `bsuite_info()` that are maxima over episodes rather than running totals.
MAXIMA = frozenset({"best_episode"})
#: What `make` accepts (a checkpoint's config reaches these; nothing else is taken).
KWARGS = ("experiment", "setting")

#: `listener(env, episode_return, episode_length, added)`: `added` is what the episode added to
#: each of `bsuite_info()`'s totals, under bsuite's names (maxima: their value now).
EpisodeListener = Callable[["BsuiteEnv", float, int, dict[str, float]], None]


def check_experiment(experiment: object) -> str:
    """`experiment` if puffer-bsuite makes ids for it, else an APIUsageError that lists them."""
    if isinstance(experiment, str) and experiment in specs.EXPERIMENTS:
        return experiment
    if isinstance(experiment, str) and experiment in specs.LEFT_OUT:
        raise APIUsageError(f"bsuite's {experiment} has no puffer-bsuite id: bsuite {specs.LEFT_OUT[experiment]} "
                            "(this plugin makes no network requests).")
    raise APIUsageError(f"experiment must be one of bsuite's: {', '.join(specs.EXPERIMENTS)}; got {experiment!r}.")


def check_setting(experiment: str, setting: object) -> int:
    """`setting` if it indexes `experiment`'s sweep (`bsuite.sweep.SETTINGS`), else an
    APIUsageError giving the valid range and what the settings are."""
    count = specs.EXPERIMENTS[check_experiment(experiment)][0]
    if isinstance(setting, bool) or not isinstance(setting, (int, np.integer)) or not 0 <= setting < count:
        from bsuite import sweep

        first, last = sweep.SETTINGS[f"{experiment}/0"], sweep.SETTINGS[f"{experiment}/{count - 1}"]
        raise APIUsageError(f"setting must be an int from 0 to {count - 1}, an index into bsuite's {experiment} "
                            f"sweep ({experiment}/0: {dict(first)} ... {experiment}/{count - 1}: {dict(last)}); "
                            f"got {setting!r}.")
    return int(setting)


def _raw(env: Any) -> Any:
    """The innermost bsuite environment under bsuite's reward wrappers."""
    while hasattr(env, "_env"):
        env = env._env
    return env


class BsuiteEnv(gymnasium.Env):
    """bsuite's `<experiment>/<setting>` as a Gymnasium env (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, experiment: str = "memory_len", setting: int = 0):
        self.experiment = check_experiment(experiment)
        self.setting = check_setting(self.experiment, setting)
        from bsuite import bsuite, sweep

        self.bsuite_id = f"{self.experiment}{sweep.SEPARATOR}{self.setting}"
        self._kwargs = dict(sweep.SETTINGS[self.bsuite_id])
        self._loader = bsuite.EXPERIMENT_NAME_TO_ENVIRONMENT[self.experiment]
        self._takes_seed = "seed" in inspect.signature(self._loader).parameters
        self.env = self._load(None)
        obs_spec, action_spec = self.env.observation_spec(), self.env.action_spec()
        self.observation_space = spaces.Box(-np.inf, np.inf, (int(np.prod(obs_spec.shape)),), np.float32)
        self.action_space = spaces.Discrete(int(action_spec.num_values))
        self.bsuite_num_episodes: int = int(self.env.bsuite_num_episodes)
        self._listeners: list[EpisodeListener] = []
        self._needs_reset = True
        self._episode_return, self._episode_length = 0.0, 0
        self._totals = self.bsuite_info()

    def _load(self, seed: int | None) -> Any:
        kwargs = dict(self._kwargs)
        if seed is not None and self._takes_seed:
            kwargs["seed"] = seed
        env = self._loader(**kwargs)
        rng = getattr(_raw(env), "_rng", None)
        if seed is not None and not self._takes_seed and isinstance(rng, np.random.RandomState):
            rng.seed(seed)
        return env

    def bsuite_info(self) -> dict[str, float]:
        """bsuite's running totals for scoring (`Environment.bsuite_info()`), as plain numbers."""
        return {key: float(value) for key, value in self.env.bsuite_info().items()}

    def add_episode_listener(self, listener: EpisodeListener) -> None:
        """Call `listener(env, episode_return, episode_length, added)` at each episode end."""
        self._listeners.append(listener)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new episode; with `seed`, a new bsuite run of the same setting (see the module docstring)."""
        super().reset(seed=seed)
        if seed is not None:
            self.env = self._load(int(seed) % 2 ** 32)
            self._totals = self.bsuite_info()
        timestep = self.env.reset()
        self._needs_reset = False
        self._episode_return, self._episode_length = 0.0, 0
        return np.asarray(timestep.observation, np.float32).reshape(-1), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """One dm_env step as Gymnasium's 5-tuple; the info is filled at episode ends."""
        if self._needs_reset:
            raise APIUsageError(f"{self.bsuite_id}: call reset() before step() and after an episode ends.")
        act = int(action)
        if not 0 <= act < self.action_space.n:
            raise APIUsageError(f"{self.bsuite_id} takes actions 0 to {self.action_space.n - 1}; got {action!r}.")
        timestep = self.env.step(act)
        obs = np.asarray(timestep.observation, np.float32).reshape(-1)
        reward = float(timestep.reward)
        self._episode_return += reward
        self._episode_length += 1
        if not timestep.last():
            return obs, reward, False, False, {}
        self._needs_reset = True
        terminated = float(timestep.discount) == 0.0
        totals = self.bsuite_info()
        added = {key: value if key in MAXIMA else value - self._totals.get(key, 0.0) for key, value in totals.items()}
        self._totals = totals
        for listener in self._listeners:
            listener(self, self._episode_return, self._episode_length, added)
        return obs, reward, terminated, not terminated, {key.removeprefix("total_"): v for key, v in added.items()}

    def render(self) -> None:
        """bsuite environments do not render."""
        return None

    def close(self) -> None:
        self._listeners.clear()


def make(experiment: str = "memory_len", setting: int = 0, **unknown: Any) -> BsuiteEnv:
    """Creator of the `bsuite-*` ids: `experiment` (the id's) and `setting` (an index into its sweep)."""
    if unknown:
        raise APIUsageError(f"bsuite envs take only {', '.join(KWARGS)}; got {', '.join(sorted(unknown))}. "
                            f"Pick a setting of the experiment's sweep with setting=N.")
    return BsuiteEnv(experiment=experiment, setting=setting)
