"""DMControlEnv: one DeepMind Control Suite task (dm_control.suite) as a Gymnasium env.

Contract:
- Observations: the task's observation dict (an OrderedDict whose order the task fixes) flattened
  into one float32 vector, entries in the order of `observation_spec()`, each raveled in C order
  (scalars take one slot). `DMControlEnv.obs_slices` maps each entry to its slice and shape.
- Actions: a Box in [-1, 1] per actuator, clipped to it and scaled linearly to the task's own
  bounds (`action_spec().minimum` .. `maximum`; for the suite's tasks these are -1 and 1, so the
  scaling is the identity). NaN actions are refused (they would make the physics diverge).
- Action repeat: `action_repeat=k` applies each action for k control steps and returns the sum
  of their rewards; an episode of the suite's 1000 control steps is then ceil(1000 / k) env steps.
- Ends: the suite's time limit (1000 control steps for every benchmarking task) is a truncation
  (dm_control's discount stays 1); an end with discount 0 (only `lqr` has one) is a termination.
- Seeding: `reset(seed=s)` reseeds the task's own `random` (a numpy RandomState), which draws the
  initial state of every following episode: the same seed and actions give the same episode.
- Infos are empty (the trainer adds episode return and length at episode ends).

dm_control picks its OpenGL backend once, when it is first imported: on a Linux machine with no
display and no `MUJOCO_GL` set, `import_suite` chooses EGL (as the core does for Gymnasium's
MuJoCo envs), or no renderer for that import when no EGL library exists and nothing is rendered.
"""

from __future__ import annotations

import contextlib
import ctypes.util
import logging
import math
import os
import sys
from collections.abc import Iterator
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from pufferlib.errors import APIUsageError

#: The kwargs the creator takes; anything else is refused (a checkpoint's config can reach them).
ALLOWED_KWARGS = ("domain", "task", "action_repeat", "render_mode", "render_size")
INSTALL = "pip install puffer-dmcontrol  (dm-control==1.0.52, mujoco>=4.0.1)"


def _headless() -> bool:
    return (sys.platform.startswith("linux") and not os.environ.get("DISPLAY")
            and not os.environ.get("WAYLAND_DISPLAY"))


@contextlib.contextmanager
def _env_var(name: str, value: str) -> Iterator[None]:
    os.environ[name] = value
    try:
        yield
    finally:
        os.environ.pop(name, None)


class _QuietDeprecation(logging.Filter):
    """Drops MuJoCo 4's notice that the suite's own cheetah and humanoid models use the deprecated
    `settotalmass` compiler attribute (dm_control logs it at every load of those tasks)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.getMessage()).startswith("compiler attribute 'settotalmass' is deprecated")


_QUIET = _QuietDeprecation()


def import_suite(render: bool = False) -> Any:
    """`dm_control.suite`, imported with a working OpenGL choice on a server (see the module doc).

    `render`: whether the caller will render; then EGL is chosen even if no EGL library is found
    (the error of a missing EGL then says so; set MUJOCO_GL=osmesa for software rendering)."""
    logging.getLogger("absl").addFilter(_QUIET)  # once: the same filter is not added twice
    if "dm_control.suite" in sys.modules:
        return sys.modules["dm_control.suite"]
    choice: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if "MUJOCO_GL" not in os.environ and _headless():
        if render or ctypes.util.find_library("EGL"):
            os.environ["MUJOCO_GL"] = "egl"  # kept, as pufferlib's Gymnasium maker keeps it
        else:
            choice = _env_var("MUJOCO_GL", "disable")  # dm_control's "no renderer"; unset afterwards
    try:
        with choice:
            from dm_control import suite
    except ImportError as exc:
        raise APIUsageError(f"dm_control did not import ({exc}). Install it: {INSTALL}. If the error is about "
                            "OpenGL or EGL, choose another backend before the first env is made: MUJOCO_GL=osmesa "
                            "(software rendering) or MUJOCO_GL=disable (no rendering).") from None
    return suite


def check_task(suite: Any, domain: Any, task: Any) -> None:
    """Refuse a (domain, task) that dm_control's suite does not have, naming the valid ones."""
    if not isinstance(domain, str) or domain not in suite.TASKS_BY_DOMAIN:
        raise APIUsageError(f"domain={domain!r} is not a dm_control suite domain; domains: "
                            f"{', '.join(sorted(suite.TASKS_BY_DOMAIN))}.")
    if not isinstance(task, str) or task not in suite.TASKS_BY_DOMAIN[domain]:
        raise APIUsageError(f"task={task!r} is not a task of the {domain} domain; its tasks: "
                            f"{', '.join(suite.TASKS_BY_DOMAIN[domain])}.")


class DMControlEnv(gymnasium.Env):
    """One dm_control suite task (see the module docstring for the contract).

    `domain`, `task`: the suite's names (`suite.ALL_TASKS`). `action_repeat`: control steps per
    env step (>= 1). `render_mode="rgb_array"`: `render()` returns a (height, width, 3) uint8 frame
    of camera 0, `render_size=(height, width)`.
    """

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, domain: str = "cartpole", task: str = "swingup", action_repeat: int = 1,
                 render_mode: str | None = None, render_size: tuple[int, int] | list[int] = (240, 320)):
        if isinstance(action_repeat, bool) or not isinstance(action_repeat, int) or action_repeat < 1:
            raise APIUsageError(f"action_repeat must be an int >= 1, got {action_repeat!r}.")
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        size = tuple(render_size) if isinstance(render_size, (tuple, list)) else None
        if size is None or len(size) != 2 or not all(
                isinstance(n, int) and not isinstance(n, bool) and 16 <= n <= 4096 for n in size):
            raise APIUsageError(f"render_size must be (height, width), two ints in [16, 4096], got {render_size!r}.")
        suite = import_suite(render=render_mode is not None)
        check_task(suite, domain, task)
        self.domain, self.task, self.action_repeat = domain, task, action_repeat
        self.render_mode, self.render_size = render_mode, (int(size[0]), int(size[1]))
        self._env = suite.load(domain, task)

        obs_spec = self._env.observation_spec()
        self.obs_slices: dict[str, tuple[slice, tuple[int, ...]]] = {}
        start = 0
        for name, array_spec in obs_spec.items():
            shape = tuple(int(n) for n in array_spec.shape)
            size_ = math.prod(shape)
            self.obs_slices[name] = (slice(start, start + size_), shape)
            start += size_
        self._obs_size = start
        self._where = [(name, where) for name, (where, _) in self.obs_slices.items()]
        self.observation_space = spaces.Box(-np.inf, np.inf, (start,), np.float32)

        action_spec = self._env.action_spec()
        self._low = np.asarray(action_spec.minimum, np.float64) * np.ones(action_spec.shape)
        self._high = np.asarray(action_spec.maximum, np.float64) * np.ones(action_spec.shape)
        self._identity = bool(np.all(self._low == -1.0) and np.all(self._high == 1.0))
        self.action_space = spaces.Box(-1.0, 1.0, action_spec.shape, np.float32)
        self._needs_reset = True

    def _flatten(self, observation: Any) -> np.ndarray:
        out = np.empty(self._obs_size, np.float32)
        for name, where in self._where:
            out[where] = np.ravel(observation[name])
        return out

    def unflatten(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The task's observation dict back from a flat observation (views into `obs`)."""
        return {name: obs[..., where].reshape(obs.shape[:-1] + shape)
                for name, (where, shape) in self.obs_slices.items()}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new episode; `seed` reseeds the task's random state, which draws each episode's start."""
        super().reset(seed=seed)
        if seed is not None:
            self._env.task.random.seed(int(seed) % 2 ** 32)
        timestep = self._env.reset()
        self._needs_reset = False
        return self._flatten(timestep.observation), {}

    def scale_action(self, action: Any) -> np.ndarray:
        """An action in [-1, 1] (clipped to it) as the task's control, in its own bounds."""
        a = np.asarray(action, np.float64).reshape(self.action_space.shape)
        a = np.minimum(np.maximum(a, -1.0), 1.0)  # NaN stays NaN (np.clip is slower on small arrays)
        if math.isnan(a.sum()):  # the clipped values cannot overflow: only a NaN makes the sum NaN
            raise APIUsageError(f"{self.domain}-{self.task} got the action {np.asarray(action)}; actions are "
                                "numbers in [-1, 1] (larger ones are clipped), never NaN.")
        return a if self._identity else self._low + (a + 1.0) * 0.5 * (self._high - self._low)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """`action_repeat` control steps: (obs, summed reward, terminated, truncated, {})."""
        if self._needs_reset:
            raise APIUsageError("step() before reset(), or after an episode ended: call reset() first.")
        control = self.scale_action(action)
        reward = 0.0
        for _ in range(self.action_repeat):
            timestep = self._env.step(control)
            reward += float(timestep.reward or 0.0)
            if timestep.last():
                self._needs_reset = True
                terminated = timestep.discount == 0.0
                return self._flatten(timestep.observation), reward, terminated, not terminated, {}
        return self._flatten(timestep.observation), reward, False, False, {}

    def render(self) -> np.ndarray | None:
        """Camera 0 as (height, width, 3) uint8 with render_mode="rgb_array", else None."""
        if self.render_mode is None:
            return None
        try:
            return self._env.physics.render(*self.render_size, camera_id=0)
        except RuntimeError as exc:
            raise APIUsageError(f"dm_control cannot render here ({exc}). Set MUJOCO_GL=egl (a GPU or Mesa's EGL) "
                                "or MUJOCO_GL=osmesa (software) before the first env is made.") from None

    def close(self) -> None:
        env, self._env = getattr(self, "_env", None), None
        if env is not None:
            env.close()


def make(domain: str = "cartpole", task: str = "swingup", action_repeat: int = 1,
         render_mode: str | None = None, render_size: tuple[int, int] | list[int] = (240, 320),
         **unknown: Any) -> DMControlEnv:
    """Creator of the `dmc-*` ids (see `DMControlEnv`); refuses kwargs it does not declare."""
    if unknown:
        raise APIUsageError(f"dmc envs do not take {', '.join(sorted(unknown))}; the env kwargs are "
                            f"{', '.join(ALLOWED_KWARGS)}. Remove the others (an [env] key, an --env.* flag).")
    return DMControlEnv(domain=domain, task=task, action_repeat=action_repeat, render_mode=render_mode,
                        render_size=render_size)
