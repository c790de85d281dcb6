"""VizdoomEnv: one ViZDoom scenario that ships with the `vizdoom` package, as a Gymnasium env.

Contract:
- `scenario` names one of `SCENARIOS` (the .cfg/.wad pairs inside the installed vizdoom package);
  no path is ever taken from a caller, so a config file can only choose among them.
- The game runs headless (no window, no sound, no audio buffer) in ViZDoom's synchronous PLAYER
  mode, with the scenario's .cfg for everything else (map, skill, rewards, start time, buttons,
  `episode_timeout`), rendering 160x120 screens (RES_160X120, the smallest 4:3 resolution).
- Observations: the last `stack_num` screens, each downscaled to `screen_size` x `screen_size`
  by area averaging (`AreaResize`) and stacked along the first axis, oldest first: shape
  (stack_num, S, S) in grayscale (ViZDoom's GRAY8), (3 * stack_num, S, S) in RGB; uint8.
  After a reset every slot holds the first screen.
- Actions: Discrete(n), n the scenario's available buttons (all binary); action i presses
  button i alone (`buttons`) for `frameskip` tics (`DoomGame.make_action(..., tics)`, which
  renders only the last), and the reward is the sum over those tics, times `reward_scale`.
- Ends: `terminated` when the episode finished before its timeout (the player died, or the
  scenario's goal ended it: the monster of `basic` killed, the vest of `my_way_home` reached);
  `truncated` when it reached the timeout of the .cfg (or `episode_timeout`, in tics). The
  observation of that step repeats the last screens (ViZDoom has no state after the end).
- Infos are empty except at the step that ends an episode: `score` (the game's own total reward
  of the episode, unscaled), `kills` (KILLCOUNT), `health` (HEALTH at the end), `died` (1.0 or 0.0).
- `reset(seed=s)` calls `DoomGame.set_seed(s)` before the new episode: the same seed and actions
  give the same screens, rewards and ends, and the episodes after it follow from that seed.
- Files: ViZDoom writes its engine configuration (`_vizdoom.ini`) into a private temporary folder
  that `close()` removes, and removes the empty `_vizdoom/` folder its engine makes in the
  working directory when it was not there before. The engine is a child process; if this process
  dies without `close()`, a reaper (`puffer_vizdoom._reaper`) ends it and frees its shared memory.
"""

from __future__ import annotations

import numbers
import os
import shutil
import tempfile
import weakref
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from puffer_vizdoom import _reaper
from puffer_vizdoom.specs import SCENARIOS
from pufferlib.errors import APIUsageError

#: The engine's screen, before downscaling (height, width): ViZDoom's RES_160X120.
SCREEN = (120, 160)
#: The keyword arguments of `make` (all of them).
KWARGS = ("scenario", "frameskip", "screen_size", "grayscale", "stack_num", "reward_scale", "episode_timeout",
          "render_mode")
#: The folder ViZDoom's engine creates in its working directory at start.
ENGINE_FOLDER = "_vizdoom"


def area_weights(src: int, dst: int) -> np.ndarray:
    """A (dst, src) matrix whose row i averages the source pixels that output pixel i covers, each
    weighted by its overlap (area resampling, for any ratio)."""
    scale = src / dst
    weights = np.zeros((dst, src), np.float64)
    for i in range(dst):
        low, high = i * scale, (i + 1) * scale
        for j in range(int(low), min(src, int(np.ceil(high)))):
            weights[i, j] = min(high, j + 1) - max(low, j)
    return weights / weights.sum(axis=1, keepdims=True)


class AreaResize:
    """Resamples (channels, src_h, src_w) frames to (channels, dst, dst) by `area_weights`.

    Each output pixel mixes at most a few source pixels (3 per axis from 160x120 to 84x84), so the
    weights are kept as that many (index, weight) taps per axis and applied with gathers: no BLAS
    call, whose threads would compete with the other envs' processes for the cores.
    """

    def __init__(self, src_h: int, src_w: int, dst: int):
        self.rows, self.cols = self._taps(src_h, dst), self._taps(src_w, dst)

    @staticmethod
    def _taps(src: int, dst: int) -> list[tuple[np.ndarray, np.ndarray]]:
        weights = area_weights(src, dst)
        count = int((weights > 0).sum(axis=1).max())
        index = np.zeros((count, dst), np.intp)
        weight = np.zeros((count, dst), np.float32)
        for i in range(dst):
            (nonzero,) = np.nonzero(weights[i])
            index[:len(nonzero), i], weight[:len(nonzero), i] = nonzero, weights[i, nonzero]
        return list(zip(index, weight))

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        """(channels, src_h, src_w) uint8 -> (channels, dst, dst) uint8."""
        pixels = frame.astype(np.float32)
        (index, weight), *rest = self.rows
        tall = pixels[:, index] * weight[:, None]
        for index, weight in rest:
            tall += pixels[:, index] * weight[:, None]
        (index, weight), *rest = self.cols
        small = tall[:, :, index] * weight
        for index, weight in rest:
            small += tall[:, :, index] * weight
        return np.rint(small, out=small).astype(np.uint8)


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise APIUsageError(f"{name} must be an int in [{low}, {high}], got {value!r}.")


def _cleanup(game: Any, engine_pid: int | None, folder: str) -> None:
    """Close the game, remove the private folder, then tell the reaper (also run at garbage collection).

    The reaper hears of it last, so that a process killed in between (a worker terminated while it
    closes its envs) still leaves the folder to the reaper."""
    try:
        game.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        _reaper.forget(engine_pid)


class VizdoomEnv(gymnasium.Env):
    """One ViZDoom scenario (see the module docstring for the contract).

    `scenario`: a name of `SCENARIOS` ("basic", "defend_the_center", ...). `frameskip`: tics per
    step (the action repeats). `screen_size`: side of the square observation. `grayscale`: one
    channel per screen (else RGB). `stack_num`: screens stacked. `reward_scale`: multiplies the
    reward given to the learner (infos' `score` stays in the game's units). `episode_timeout`:
    tics before truncation, None for the .cfg's (0 there means none). `render_mode="rgb_array"`:
    `render()` gives the newest observed screen as (S, S, 3).
    """

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, scenario: str = "basic", frameskip: int = 4, screen_size: int = 64, grayscale: bool = True,
                 stack_num: int = 4, reward_scale: float = 1.0, episode_timeout: int | None = None,
                 render_mode: str | None = None):
        if not isinstance(scenario, str) or scenario not in SCENARIOS:
            raise APIUsageError(f"scenario must be one of the scenarios that ship with vizdoom: "
                                f"{', '.join(SCENARIOS)}; got {scenario!r}.")
        _check_int("frameskip", frameskip, 1, 1000)
        _check_int("screen_size", screen_size, 8, 512)
        _check_int("stack_num", stack_num, 1, 64)
        if episode_timeout is not None:
            _check_int("episode_timeout", episode_timeout, 1, 10 ** 9)
        if not isinstance(grayscale, (bool, np.bool_)):
            raise APIUsageError(f"grayscale must be True or False, got {grayscale!r}.")
        if isinstance(reward_scale, bool) or not isinstance(reward_scale, numbers.Real) \
                or not np.isfinite(reward_scale) or reward_scale <= 0:
            raise APIUsageError(f"reward_scale must be a finite number > 0, got {reward_scale!r}.")
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        import vizdoom as vzd

        cfg = os.path.join(vzd.scenarios_path, scenario + ".cfg")
        if not os.path.isfile(cfg):
            raise APIUsageError(f"The installed vizdoom ({vzd.__version__}) has no scenario {scenario!r} "
                                f"({cfg} is missing); puffer-vizdoom is tested with vizdoom==1.3.2.")
        self.scenario, self.frameskip, self.reward_scale = scenario, int(frameskip), float(reward_scale)
        self.render_mode = render_mode
        self._vzd = vzd
        self._folder = tempfile.mkdtemp(prefix=_reaper.FOLDER_PREFIX)
        game = vzd.DoomGame()
        try:
            if not game.load_config(cfg):
                raise APIUsageError(f"vizdoom could not load its scenario file {cfg}.")
            game.set_window_visible(False)
            game.set_sound_enabled(False)
            game.set_audio_buffer_enabled(False)
            game.set_console_enabled(False)
            game.set_mode(vzd.Mode.PLAYER)
            game.set_screen_resolution(vzd.ScreenResolution.RES_160X120)
            game.set_screen_format(vzd.ScreenFormat.GRAY8 if grayscale else vzd.ScreenFormat.CRCGCB)
            game.set_doom_config_path(os.path.join(self._folder, "_vizdoom.ini"))
            if episode_timeout is not None:
                game.set_episode_timeout(int(episode_timeout))
            buttons = game.get_available_buttons()
            if not buttons or not all(vzd.is_binary_button(b) for b in buttons):
                raise APIUsageError(f"scenario {scenario!r} has buttons that are not binary: {buttons}.")
            had_folder = os.path.lexists(ENGINE_FOLDER)
            game.init()
            if not had_folder:
                try:
                    os.rmdir(ENGINE_FOLDER)  # the engine's empty folder in the working directory
                except OSError:
                    pass
        except BaseException:
            game.close()
            shutil.rmtree(self._folder, ignore_errors=True)
            raise
        self.game = game
        engine = _reaper.watch(game.get_instance_id(), self._folder)
        self._finalizer = weakref.finalize(self, _cleanup, game, engine, self._folder)
        #: The buttons, in action order: action i presses buttons[i] alone.
        self.buttons = tuple(b.name for b in buttons)
        self._actions = [[1.0 if i == j else 0.0 for j in range(len(buttons))] for i in range(len(buttons))]
        self.channels = 1 if grayscale else 3
        self._resize = AreaResize(*SCREEN, screen_size)
        self._stack = np.zeros((stack_num * self.channels, screen_size, screen_size), np.uint8)
        self.observation_space = spaces.Box(0, 255, self._stack.shape, np.uint8)
        self.action_space = spaces.Discrete(len(buttons))

    def _screen(self) -> np.ndarray:
        """The current screen, downscaled: (channels, S, S) uint8."""
        return self._resize(self.game.get_state().screen_buffer.reshape(self.channels, *SCREEN))

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new episode; with `seed`, ViZDoom's episode seeds restart from it."""
        super().reset(seed=seed)
        if self.game is None:
            raise APIUsageError("This VizdoomEnv is closed; make a new one.")
        if seed is not None:
            self.game.set_seed(int(seed) % 2 ** 32)
        self.game.new_episode()
        screen = self._screen()
        self._stack[:] = np.tile(screen, (len(self._stack) // self.channels, 1, 1))
        return self._stack.copy(), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Press one button for `frameskip` tics: (obs, reward, terminated, truncated, info)."""
        if self.game is None:
            raise APIUsageError("This VizdoomEnv is closed; make a new one.")
        index = int(action)
        if not 0 <= index < len(self._actions):
            raise APIUsageError(f"action {action!r} is outside Discrete({len(self._actions)}) "
                                f"(buttons {', '.join(self.buttons)}).")
        if self.game.is_episode_finished():
            raise APIUsageError("This ViZDoom episode has ended: call reset() before step().")
        reward = self.game.make_action(self._actions[index], self.frameskip) * self.reward_scale
        if not self.game.is_episode_finished():
            self._stack[:-self.channels] = self._stack[self.channels:]
            self._stack[-self.channels:] = self._screen()
            return self._stack.copy(), reward, False, False, {}
        game, variables = self.game, self._vzd.GameVariable
        died = game.is_player_dead()
        truncated = game.is_episode_timeout_reached() and not died
        info = {"score": float(game.get_total_reward()), "kills": float(game.get_game_variable(variables.KILLCOUNT)),
                "health": float(game.get_game_variable(variables.HEALTH)), "died": float(died)}
        return self._stack.copy(), reward, not truncated, truncated, info

    def render(self) -> np.ndarray | None:
        """The newest observed screen as (S, S, 3) uint8 with render_mode="rgb_array", else None."""
        if self.render_mode is None:
            return None
        newest = self._stack[-self.channels:].transpose(1, 2, 0)
        return np.repeat(newest, 3, axis=2) if self.channels == 1 else newest.copy()

    def close(self) -> None:
        """End the Doom engine and remove the private folder; safe to call twice."""
        if self.game is not None:
            self.game = None
            self._finalizer()


def make(scenario: str = "basic", frameskip: int = 4, screen_size: int = 64, grayscale: bool = True,
         stack_num: int = 4, reward_scale: float = 1.0, episode_timeout: int | None = None,
         render_mode: str | None = None, **others: Any) -> VizdoomEnv:
    """Creator of the `vizdoom-*` ids (see `VizdoomEnv`); refuses any other keyword argument."""
    if others:
        raise APIUsageError(f"vizdoom envs do not take {', '.join(sorted(others))}; they take only: "
                            f"{', '.join(KWARGS)}. (A scenario is chosen by name, never by a file path.)")
    return VizdoomEnv(scenario=scenario, frameskip=frameskip, screen_size=screen_size, grayscale=grayscale,
                      stack_num=stack_num, reward_scale=reward_scale, episode_timeout=episode_timeout,
                      render_mode=render_mode)
