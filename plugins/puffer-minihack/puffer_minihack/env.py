"""MiniHack tasks as Gymnasium envs, through puffer-nethack's seeding wrapper.

Contract:
- Observations: a dict of the chosen MiniHack keys (default `specs.OBSERVATION_KEYS`: the
  21 x 79 `glyphs`, the 9 x 9 `glyphs_crop` around the agent, the 27 `blstats`), flattened by
  the core's emulation; the action space is the task's own (8 moves for most navigation
  tasks, up to NetHack's 85 actions for the skill tasks).
- Seeding: `reset(seed=s)` starts a generator that draws NetHack's (core, disp) seeds for
  each episode (`puffer_nethack.env.NetHackEnv`): a seeded run is reproducible and its
  episodes (and so its random levels) differ.
- Episode ends: `terminated` when the task is won or the agent died, `truncated` at
  `max_episode_steps` (NLE's own step limit would quit the game and report a terminal). At
  the step that ends an episode the info carries `success` (1.0 when the task was won).
- minihack 1.0.2 imports `pkg_resources` for `resource_filename`, which setuptools 81 and
  later no longer ship; `import_minihack` gives it a stand-in for that one function while it
  imports, so neither setuptools nor anything else in the environment has to change.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types
import warnings
from typing import Any

import gymnasium
from gymnasium.envs.registration import load_env_creator
from gymnasium.wrappers import TimeLimit

from puffer_minihack.specs import OBSERVATION_KEYS, STEP_LIMITS, TASKS
from pufferlib.errors import APIUsageError

INSTALL = "pip install --no-deps nle==1.3.0 minihack==1.0.2"
#: MiniHack's own observation keys, beside NLE's (see `minihack.base`).
MINIHACK_KEYS = ("glyphs_crop", "chars_crop", "colors_crop", "specials_crop", "tty_chars_crop", "tty_colors_crop",
                 "screen_descriptions_crop", "pixel", "pixel_crop")


def _resource_filename(package: str, resource: str) -> str:
    """`pkg_resources.resource_filename` for an installed package's directory."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"No package named {package!r}", name=package)
    return os.path.join(list(spec.submodule_search_locations)[0], resource)


def import_minihack() -> types.ModuleType:
    """`import minihack` (which registers its tasks with Gymnasium), with or without pkg_resources.

    Where `pkg_resources` is importable (setuptools < 81) it is used, without its deprecation
    warning. Otherwise a module holding only `resource_filename` stands in while minihack's
    modules import (they keep it as their global) and is then taken out of `sys.modules` again,
    so other code still finds no `pkg_resources`.
    """
    if sys.modules.get("minihack") is not None:
        return sys.modules["minihack"]
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="pkg_resources is deprecated", category=UserWarning)
            import pkg_resources  # noqa: F401
    except ImportError:
        blocked = "pkg_resources" in sys.modules  # None there: someone made the import fail on purpose
        stand_in = types.ModuleType("pkg_resources", "puffer-minihack's stand-in: resource_filename only")
        stand_in.resource_filename = _resource_filename  # type: ignore[attr-defined]
        sys.modules["pkg_resources"] = stand_in
        try:
            return importlib.import_module("minihack")
        finally:
            if sys.modules.get("pkg_resources") is stand_in:
                if blocked:
                    sys.modules["pkg_resources"] = None  # type: ignore[assignment]
                else:
                    del sys.modules["pkg_resources"]
    return importlib.import_module("minihack")


def _give_minigrid_a_seed_method(env: gymnasium.Env) -> None:
    """The MultiRoom tasks (minihack's `MiniGridHack`) draw each level from a MiniGrid env, and
    their `seed` calls that env's `seed(core)`, which Gymnasium 1.x envs no longer have. Give it
    one that seeds through `reset(seed=...)`: the level of every episode then follows the seeds."""
    minigrid_env = getattr(env, "minigrid_env", None)
    if minigrid_env is not None and not hasattr(minigrid_env, "seed"):
        minigrid_env.seed = lambda seed=None: minigrid_env.reset(seed=seed)


class MiniHackEnv(gymnasium.Wrapper):
    """Adds `success` to the info of an episode's last step and drops MiniHack's other info
    (an enum and a flag), so that vector workers send plain numbers only."""

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if not (terminated or truncated):
            return obs, reward, terminated, truncated, {}
        won = int(info.get("end_status", 0)) == int(self.env.unwrapped.StepStatus.TASK_SUCCESSFUL)
        return obs, reward, terminated, truncated, {"success": float(won)}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        obs, _ = self.env.reset(seed=seed, options=options)
        return obs, {}


def make(task: str, observation_keys: tuple[str, ...] | list[str] = OBSERVATION_KEYS,
         max_episode_steps: int | None = None, render_mode: str | None = None,
         **minihack_kwargs: Any) -> gymnasium.Env:
    """Creator of the `minihack-<task>` ids.

    `observation_keys`: NLE's keys (glyphs, chars, colors, specials, blstats, message, ...) and
    MiniHack's (glyphs_crop, chars_crop, ..., pixel, pixel_crop). `max_episode_steps`: the step
    limit, a truncation; None is the task's own (`puffer_minihack.specs.STEP_LIMITS`).
    `render_mode="rgb_array"`: `render()` gives NLE's pixel rendering of the screen. Other
    keyword arguments go to the MiniHack task (e.g. `obs_crop_h`, `reward_lose`, `seeds`).
    """
    if task not in TASKS:
        import difflib

        close = difflib.get_close_matches(task, list(TASKS), n=3)
        hint = f" Close: {', '.join(close)}." if close else ""
        raise APIUsageError(f"Unknown MiniHack task {task!r}.{hint} All {len(TASKS)}: "
                            "puffer_minihack.specs.TASKS.")
    max_episode_steps = STEP_LIMITS[task] if max_episode_steps is None else max_episode_steps
    if isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int) or max_episode_steps < 1:
        raise APIUsageError(f"max_episode_steps must be an int >= 1, got {max_episode_steps!r}.")
    if render_mode not in (None, "rgb_array"):
        raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
    if isinstance(observation_keys, str) or not observation_keys:
        raise APIUsageError(f"observation_keys must be a non-empty list of keys, got {observation_keys!r}.")
    try:
        from nle.nethack import OBSERVATION_DESC

        import_minihack()
    except ModuleNotFoundError as exc:
        raise APIUsageError(
            f"puffer-minihack needs nle and minihack ({exc.name} is missing). Their metadata pins other "
            f"gymnasium versions, so they are installed without their declared dependencies: {INSTALL}") from exc
    from puffer_nethack.env import NetHackEnv

    offered = [k for k in OBSERVATION_DESC if k not in ("internal", "program_state")] + list(MINIHACK_KEYS)
    unknown = [k for k in observation_keys if k not in offered]
    if unknown:
        raise APIUsageError(f"Unknown observation keys {unknown}; MiniHack offers {', '.join(offered)}.")
    # As in puffer-nethack: NLE's limit one step later than the TimeLimit, so the limit is a truncation.
    spec = gymnasium.spec(TASKS[task])
    task_class = load_env_creator(spec.entry_point)
    try:
        env = task_class(**{**spec.kwargs, **minihack_kwargs}, observation_keys=tuple(observation_keys),
                         max_episode_steps=max_episode_steps + 1, render_mode="pixel" if render_mode else None)
    except ModuleNotFoundError as exc:
        needs = "minigrid: pip install 'puffer-minihack[multiroom]'" if task.startswith("multiroom") else exc.name
        raise APIUsageError(f"minihack-{task} could not import what it needs ({exc}); it needs {needs}") from exc
    except TypeError as exc:  # an argument neither MiniHack nor NLE takes
        raise APIUsageError(f"minihack-{task}: {exc}. Its arguments: those of make() (puffer_minihack.env), of "
                            "minihack.MiniHack and of nle's NLE.") from exc
    _give_minigrid_a_seed_method(env)
    return MiniHackEnv(TimeLimit(NetHackEnv(env, render_mode=render_mode), max_episode_steps))
