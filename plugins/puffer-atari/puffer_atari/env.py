"""AtariEnv: one ALE game with the evaluation-protocol preprocessing of Machado et al. (2018).

The game is set up (ROM, seeding, sticky actions, action set, episode cap) by ale-py's own
`ale_py.env.AtariEnv`, so the same seed gives the same emulator state as
`gymnasium.make("ALE/<Game>-v5", frameskip=1)`. Each agent step then drives the emulator
directly: the action is repeated `frameskip` times, the last two grayscale frames are
max-pooled, resized to `screen_size` x `screen_size` with area interpolation and pushed on
a channel-first stack of `stack_num` frames. With the same seed and actions, the
observations equal those of Gymnasium's `AtariPreprocessing` + `FrameStackObservation`
with the same settings (see tests/atari).
"""

from __future__ import annotations

from typing import Any

import cv2
import gymnasium
import numpy as np
from gymnasium import spaces

from puffer_atari.specs import check_options
from pufferlib.errors import APIUsageError


class AtariEnv(gymnasium.Env):
    """One Atari game (`game` is an ale-py ROM name such as "breakout") with preprocessing.

    Observations: uint8 `(stack_num * channels, screen_size, screen_size)`, oldest frame
    first, where channels is 1 (grayscale) or 3 (RGB). Actions: Discrete over the minimal
    (or full) action set. Every keyword argument is documented in `puffer_atari.specs.DEFAULTS`;
    `mode`/`difficulty` select a game variant, `render_mode="rgb_array"` renders the
    full-size RGB screen.
    """

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, game: str, frameskip: int = 4, repeat_action_probability: float = 0.25,
                 full_action_space: bool = False, noop_max: int = 30, screen_size: int = 84,
                 grayscale: bool = True, stack_num: int = 4, episodic_life: bool = False,
                 reward_clipping: bool = False, max_episode_frames: int = 108_000,
                 mode: int | None = None, difficulty: int | None = None,
                 render_mode: str | None = None):
        check_options(frameskip=frameskip, repeat_action_probability=repeat_action_probability,
                      noop_max=noop_max, screen_size=screen_size, stack_num=stack_num,
                      max_episode_frames=max_episode_frames, render_mode=render_mode,
                      full_action_space=full_action_space, grayscale=grayscale, episodic_life=episodic_life,
                      reward_clipping=reward_clipping)
        from ale_py import roms
        from ale_py.env import AtariEnv as ALEGymEnv

        if game not in roms.get_all_rom_ids():
            raise APIUsageError(f"{game!r} is not an ale-py ROM; known ROMs: {', '.join(roms.get_all_rom_ids())}.")
        self.base = ALEGymEnv(game, mode=mode, difficulty=difficulty, obs_type="grayscale", frameskip=1,
                              repeat_action_probability=repeat_action_probability,
                              full_action_space=full_action_space,
                              max_num_frames_per_episode=max_episode_frames or None,
                              render_mode=render_mode)
        self.ale = self.base.ale
        self.game = game
        self.render_mode = render_mode
        self.frameskip, self.noop_max, self.stack_num = frameskip, noop_max, stack_num
        self.episodic_life, self.reward_clipping, self.grayscale = episodic_life, reward_clipping, grayscale
        actions = self.ale.getLegalActionSet() if full_action_space else self.ale.getMinimalActionSet()
        self._action_set = list(actions)
        self.action_space = spaces.Discrete(len(self._action_set))
        height, width = self.ale.getScreenDims()
        self._screens = np.zeros((2, height, width) if grayscale else (2, height, width, 3), np.uint8)
        self._grab = self.ale.getScreenGrayscale if grayscale else self.ale.getScreenRGB
        self._size = (screen_size, screen_size)
        channels = 1 if grayscale else 3
        self._stack = np.zeros((stack_num, screen_size, screen_size) if grayscale
                               else (stack_num, screen_size, screen_size, 3), np.uint8)
        self.observation_space = spaces.Box(0, 255, (stack_num * channels, screen_size, screen_size), np.uint8)
        self._lives = 0
        self._game_over = True

    @property
    def np_random(self) -> np.random.Generator:
        """The random generator of the no-op starts (ale-py's, seeded with the emulator)."""
        return self.base.np_random

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Start an episode (with `episodic_life`, after a lost life: go on with the same game)."""
        if self.episodic_life and not self._game_over and seed is None:
            self._step_frames(0)
        else:
            self.base.reset(seed=seed)
            noops = int(self.base.np_random.integers(1, self.noop_max + 1)) if self.noop_max > 0 else 0
            for _ in range(noops):
                self.ale.act(self._action_set[0])
                if self.ale.game_over():
                    self.base.reset()
            self._game_over = False
        self._lives = self.ale.lives()
        self._grab(self._screens[0])
        self._screens[1] = 0
        frame = self._frame()
        self._stack[:] = frame
        return self._observation(), {"lives": self._lives}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Repeat `action` for `frameskip` frames; observe the max of the last two frames."""
        if not 0 <= action < len(self._action_set):
            raise APIUsageError(f"action {action} is out of range for {self.action_space}.")
        reward, terminated, truncated = self._step_frames(action)
        self._stack[:-1] = self._stack[1:]
        self._stack[-1] = self._frame()
        if self.reward_clipping:
            reward = float(np.sign(reward))
        return self._observation(), reward, terminated, truncated, {"lives": self._lives}

    def _step_frames(self, action: int) -> tuple[float, bool, bool]:
        ale, act, last = self.ale, self._action_set[action], self.frameskip - 1
        reward, terminated, truncated = 0.0, False, False
        for t in range(self.frameskip):
            reward += ale.act(act)
            terminated = ale.game_over(with_truncation=False)
            truncated = ale.game_truncated()
            self._game_over = terminated or truncated
            if self.episodic_life:
                lives = ale.lives()
                terminated = terminated or lives < self._lives
                self._lives = lives
            if terminated or truncated:
                break
            if t == last - 1:
                self._grab(self._screens[1])
            elif t == last:
                self._grab(self._screens[0])
        return reward, terminated, truncated

    def _frame(self) -> np.ndarray:
        if self.frameskip > 1:
            np.maximum(self._screens[0], self._screens[1], out=self._screens[0])
        return cv2.resize(self._screens[0], self._size, interpolation=cv2.INTER_AREA)

    def _observation(self) -> np.ndarray:
        if self.grayscale:
            return self._stack.copy()
        return np.ascontiguousarray(self._stack.transpose(0, 3, 1, 2)).reshape(self.observation_space.shape)

    def render(self) -> np.ndarray | None:
        """The full RGB screen (210 x 160 x 3) with render_mode="rgb_array", else None."""
        return self.ale.getScreenRGB() if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        self.base.close()


def make(game: str, num_envs: int | None = None, buf: Any = None, **kwargs: Any) -> Any:
    """Creator of the `atari-<game>` ids.

    Without `num_envs`: one `AtariEnv` (emulated by the core; the serial and
    multiprocessing backends). With `num_envs` (the native backend): one
    `puffer_atari.vector.AtariVector` stepping that many copies in ale-py's C++ threads.
    """
    if num_envs is None:
        if buf is not None:
            raise APIUsageError("AtariEnv is a Gymnasium env and takes no buf; pass num_envs for the native path.")
        return AtariEnv(game, **kwargs)
    from puffer_atari.vector import AtariVector

    return AtariVector(game, num_envs=num_envs, buf=buf, **kwargs)
