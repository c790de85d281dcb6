"""ProcgenVector: many copies of one Procgen game, stepped by Procgen's own batched C++ code.

Procgen's `libenv` steps every copy in its own threads and writes observations, rewards
and episode-start flags into buffers it is given. Here those buffers are the PufferEnv's
own arrays (the vectorizer's shared batch), so a step copies nothing in Python: the
C++ code writes straight into `observations`, `rewards` and `terminals`.

Procgen resets finished copies itself: after a step that ends an episode, that copy's
observation is the first of the next episode and its terminal flag is set (Procgen
does not tell time-outs from other ends, so every end is a terminal).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

import pufferlib
from puffer_procgen.specs import GAMES  # the 16 games, listed once (the specs module is light)
from pufferlib import EpisodeStats
from pufferlib.errors import APIUsageError
from pufferlib.spaces import ActionCheck
from pufferlib.vector.base import check_seed

DISTRIBUTION_MODES = ("easy", "hard", "extreme", "memory", "exploration")


_GYM3_CLASS = None


def _in_place_class() -> type:
    """A ProcgenGym3Env whose libenv buffers are arrays we pass in (built on first use).

    gym3's `CEnv.__init__` allocates the buffers libenv writes to through
    `_allocate_specs` (observations, actions, infos, in that order) and `_allocate_array`
    (rewards, episode-start flags), then hands them to libenv once (libenv accepts them
    only before its first reset). Overriding the two methods makes libenv write into
    the PufferEnv's arrays from the start. Relies on gym3 0.3.3's CEnv (pinned).
    """
    global _GYM3_CLASS
    if _GYM3_CLASS is not None:
        return _GYM3_CLASS
    try:
        from procgen import ProcgenGym3Env
    except ModuleNotFoundError as exc:
        raise APIUsageError(
            f"puffer-procgen needs the procgen package ({exc.name} is missing). Its wheel declares "
            "numpy<2, so it is installed without its declared dependencies: "
            "pip install --no-deps procgen-mirror==0.10.7 gym3==0.3.3") from exc

    class InPlaceProcgen(ProcgenGym3Env):
        def __init__(self, arrays: dict, **kwargs: Any):
            self._targets = arrays
            self._spec_calls = 0
            self._keepalive: list = []  # cffi pointers into our arrays, alive as long as the env
            super().__init__(**kwargs)

        def _allocate_specs(self, num: int, specs: Any) -> tuple[dict, Any]:
            kind = ("ob", "ac", "info")[self._spec_calls]
            self._spec_calls += 1
            if kind == "info":
                return super()._allocate_specs(num, specs)
            (spec,) = specs
            arr = _checked(self._targets[kind], spec.dtype, int(np.prod(spec.shape)), spec.name)
            pointers = self._ffi.new(f"void *[{num}]")
            base, row = self._ffi.from_buffer(arr), arr[0].nbytes
            for i in range(num):
                pointers[i] = base + i * row
            self._keepalive += [pointers, base]
            return {spec.name: arr}, pointers

        def _allocate_array(self, num: int, dtype: np.dtype) -> tuple[np.ndarray, Any]:
            arr = self._targets["rew" if dtype == np.float32 else "first"]
            arr = _checked(arr, dtype, 1, "rew" if dtype == np.float32 else "first")
            pointer = self._ffi.from_buffer(arr)
            self._keepalive.append(pointer)
            return arr, pointer

    _GYM3_CLASS = InPlaceProcgen
    return _GYM3_CLASS


def _checked(arr: np.ndarray, dtype: Any, row_size: int, name: str) -> np.ndarray:
    """`arr` if libenv can write rows of `row_size` items of `dtype` into it in place."""
    if arr.dtype != np.dtype(dtype) or arr[0].size != row_size or not arr.flags.c_contiguous:
        raise APIUsageError(f"Procgen's {name} needs C-contiguous rows of {row_size} {np.dtype(dtype)}; "
                            f"got an array of shape {arr.shape} and dtype {arr.dtype}.")
    return arr


class ProcgenVector(pufferlib.PufferEnv):
    """`num_envs` copies of the Procgen game `env_name`; observations uint8 (64, 64, 3).

    `distribution_mode`: "easy", "hard", "extreme", "memory" or "exploration".
    `num_levels`: number of distinct levels (0: unlimited); `start_level`: the first
    level seed. `num_threads`: Procgen's stepping threads. `render_mode="rgb_array"`:
    `render()` returns copy 0's 512 x 512 frame. Other keyword arguments
    (`use_backgrounds`, `paint_vel_info`, ...) go to Procgen.
    """

    def __init__(self, env_name: str, num_envs: int = 1, buf: Any = None, distribution_mode: str = "easy",
                 num_levels: int = 0, start_level: int = 0, num_threads: int = 4,
                 render_mode: str | None = None, **procgen_kwargs: Any):
        if env_name not in GAMES:
            raise APIUsageError(f"{env_name!r} is not a Procgen game; choose one of {', '.join(GAMES)}.")
        if distribution_mode not in DISTRIBUTION_MODES:
            raise APIUsageError(f"distribution_mode must be one of {DISTRIBUTION_MODES}, got {distribution_mode!r}.")
        for name, value, low in (("num_envs", num_envs, 1), ("num_levels", num_levels, 0),
                                 ("start_level", start_level, 0), ("num_threads", num_threads, 0)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise APIUsageError(f"{name} must be an int >= {low}, got {value!r}.")
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        self.env_name, self.render_mode = env_name, render_mode
        self._options = dict(env_name=env_name, distribution_mode=distribution_mode, num_levels=num_levels,
                             start_level=start_level, num_threads=num_threads, render_mode=render_mode,
                             **procgen_kwargs)
        if distribution_mode == "exploration":  # Procgen picks the one level of this mode itself
            del self._options["num_levels"], self._options["start_level"]
        self.single_observation_space = spaces.Box(0, 255, (64, 64, 3), np.uint8)
        self.single_action_space = spaces.Discrete(15)
        self.num_agents = int(num_envs)
        super().__init__(buf)
        self._stats = EpisodeStats(self.num_agents)
        self._check_actions = ActionCheck(self.single_action_space, "ProcgenVector").check
        self._env = None
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise APIUsageError("This ProcgenVector is closed; create a new one.")

    def _build(self, seed: int | None) -> None:
        """(Re)create Procgen's env, seeded with `seed` (None: fresh entropy), writing into our arrays."""
        if self._env is not None:
            self._env.close()
        arrays = {"ob": self.observations, "ac": self.actions, "rew": self.rewards, "first": self.terminals}
        try:
            self._env = _in_place_class()(arrays, num=self.num_agents, rand_seed=seed, **self._options)
        except AssertionError as exc:  # Procgen checks its options with asserts
            raise APIUsageError(f"Procgen rejected the options {self._options}: {exc}") from exc
        lib = self._env._c_lib
        self._act, self._observe, self._handle = lib.libenv_act, lib.libenv_observe, self._env._c_env

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[dict]]:
        """Start new episodes in every copy: Procgen is re-created with `seed` (None: fresh entropy)."""
        self._check_open()
        self._build(check_seed(seed))
        self._observe(self._handle)
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        self._stats.reset()
        return self.observations, []

    def step(self, actions: np.ndarray) -> tuple:
        """Step every copy; Procgen writes the results into our arrays."""
        if self._env is None:
            self._check_open()
            raise APIUsageError("Call reset() before step().")
        if actions is not self.actions:  # checked before the int32 cast: 2**32 or 0.5 never become 0
            self.actions[:] = self._check_actions(actions, self.actions.shape)
        elif self.actions.min() < 0 or self.actions.max() >= self.single_action_space.n:
            raise APIUsageError(f"Procgen actions must be in [0, {self.single_action_space.n}); got "
                                f"[{self.actions.min()}, {self.actions.max()}].")
        self._act(self._handle)
        self._observe(self._handle)
        infos = self._stats.step(self.rewards, self.terminals)  # Procgen ends episodes as terminals only
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def render(self) -> np.ndarray | None:
        """Copy 0's 512 x 512 RGB frame with render_mode="rgb_array", else None."""
        if self.render_mode != "rgb_array":
            return None
        if self._env is None:
            self._check_open()
            raise APIUsageError("Call reset() before render().")
        return self._env.get_info()[0]["rgb"]

    def close(self) -> None:
        """Free Procgen's env; every later call raises APIUsageError. Safe to call again."""
        self._closed = True
        if self._env is not None:
            self._env.close()
            self._env = None
