"""RetroGameEnv: one stable-retro game whose ROM ships inside the package, as a Gymnasium env.

Contract:
- `game` names one of `GAMES` (puffer_retro.specs); no path is ever taken from a caller, so a
  config file can only choose among them. The emulator, the game's RAM map, its reward and
  end conditions and its default save state are stable-retro's own (`stable_retro.RetroEnv`
  sets them up); each agent step then drives the emulator directly.
- One emulator per process: stable-retro's libretro cores allow one live emulator in a process.
  `RetroGameEnv` itself refuses a second one while one is open (APIUsageError with the fix);
  `make` (the creator of the ids) then gives a `HostedRetroEnv` instead: the same env run in a
  child process of its own (`puffer_retro._host`), stepped over a socket pair, which ends with
  `close()` or with this process. So several envs work in one process (a serial vector,
  `puffer check`), each extra one at the cost of a process and a pickled observation a step;
  one env per worker (`num_workers == num_envs`) needs no child. `close()` frees the emulator,
  so that a process may make another afterwards (and the vectorizers' probe env, closed before
  the workers start, does not block them).
- Actions: Discrete(n) over the game's action set (`GAMES`: for Airstriker the 9 pad
  directions, without and with fire: 18). An action holds its buttons for `frameskip`
  emulator frames. Sticky actions as the ALE's (Machado et al. 2018): at every frame, with
  probability `repeat_action_probability`, the buttons of the frame before are held instead
  (after a reset, no buttons); drawn from the env's generator, seeded by `reset(seed=...)`.
- Reward: the sum over those frames of stable-retro's reward (the game's scenario.json: for
  Airstriker the score's increments), times `reward_scale`.
- Observations: the maximum of the last two frames' RGB screens (as the ALE's frame pooling;
  when the episode ends on a step's first frames, its last frame and the previous step's),
  converted to grayscale (or kept RGB), area-resized to `screen_size` x `screen_size`, and the
  last `stack_num` of them stacked along the first axis, oldest first: (stack_num, S, S) uint8
  in grayscale, (3 * stack_num, S, S) in RGB. After a reset every slot holds the first frame.
- Ends: `terminated` when the game's end condition holds (Airstriker: game over, no lives);
  `truncated` after `max_episode_frames` emulator frames. At the end, infos carry `score` (the
  episode's reward before `reward_scale`) and `frames`.
- Determinism: the emulator itself is deterministic from the save state; the same seed and
  actions give the same screens, rewards and ends (the sticky draws come from the seed).
"""

from __future__ import annotations

import gc
import numbers
import socket
import subprocess
import sys
import weakref
from multiprocessing.connection import Connection
from typing import Any

import cv2
import gymnasium
import numpy as np
from gymnasium import spaces

from puffer_retro.specs import GAMES
from pufferlib.errors import APIUsageError

#: The keyword arguments of `make` (all of them).
KWARGS = ("game", "frameskip", "repeat_action_probability", "screen_size", "grayscale", "stack_num",
          "max_episode_frames", "reward_scale", "render_mode")

#: The open env of this process, if any (stable-retro allows one emulator per process).
_open: weakref.ReferenceType | None = None


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise APIUsageError(f"{name} must be an int in [{low}, {high}], got {value!r}.")


def _check_real(name: str, value: Any, low: float, high: float, low_open: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
            or not (low < value if low_open else low <= value) or not value <= high:
        bounds = f"({low}, {high}]" if low_open else f"[{low}, {high}]"
        raise APIUsageError(f"{name} must be a number in {bounds}, got {value!r}.")


def _one_per_process_error() -> APIUsageError:
    return APIUsageError(
        "stable-retro runs one emulator per process, and this process already has one open. Close it "
        "(env.close()) before making another, or vectorize with one env per worker process: "
        "pufferlib.make('retro-airstriker-genesis', num_envs=N, num_workers=N) (`--vec.num-workers` equal "
        "to `--vec.num-envs`).")


class RetroGameEnv(gymnasium.Env):
    """One stable-retro game with a shipped ROM (see the module docstring for the contract).

    `game`: a name of `GAMES` ("Airstriker-Genesis-v0"). `frameskip`: emulator frames per step.
    `repeat_action_probability`: the sticky-action probability per frame. `screen_size`: side of
    the square observation. `grayscale`: one channel per frame (else RGB). `stack_num`: frames
    stacked. `max_episode_frames`: emulator frames before truncation (0: none). `reward_scale`:
    multiplies the reward given to the learner (infos' `score` stays in the game's points).
    `render_mode="rgb_array"`: `render()` gives the full-size RGB screen.
    """

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, game: str = "Airstriker-Genesis-v0", frameskip: int = 4,
                 repeat_action_probability: float = 0.25, screen_size: int = 84, grayscale: bool = True,
                 stack_num: int = 4, max_episode_frames: int = 108_000, reward_scale: float = 1.0,
                 render_mode: str | None = None):
        global _open
        if not isinstance(game, str) or game not in GAMES:
            raise APIUsageError(f"game must be one of the stable-retro games whose ROM ships with the package: "
                                f"{', '.join(GAMES)}; got {game!r}. (Games that need a ROM from elsewhere are "
                                "not offered.)")
        _check_int("frameskip", frameskip, 1, 1000)
        _check_real("repeat_action_probability", repeat_action_probability, 0.0, 1.0)
        if repeat_action_probability == 1.0:
            raise APIUsageError("repeat_action_probability must be below 1 (at 1 no action is ever taken).")
        _check_int("screen_size", screen_size, 8, 512)
        _check_int("stack_num", stack_num, 1, 64)
        _check_int("max_episode_frames", max_episode_frames, 0, 10 ** 9)
        if not isinstance(grayscale, (bool, np.bool_)):
            raise APIUsageError(f"grayscale must be True or False, got {grayscale!r}.")
        _check_real("reward_scale", reward_scale, 0.0, 1e9, low_open=True)
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        if _open is not None and _open() is not None:
            raise _one_per_process_error()
        import stable_retro

        integrations = stable_retro.data.Integrations.STABLE
        try:
            stable_retro.data.get_romfile_path(game, integrations)
        except FileNotFoundError:
            raise APIUsageError(f"The installed stable-retro ({stable_retro.__version__.strip()}) has no ROM of "
                                f"{game}; puffer-retro is tested with stable-retro==1.0.1.") from None
        gc.collect()  # a dropped but uncollected emulator would still count as open
        try:
            self._retro = stable_retro.RetroEnv(game, inttype=integrations, render_mode=None,
                                                use_restricted_actions=stable_retro.Actions.ALL)
        except RuntimeError as exc:
            if "multiple emulator" in str(exc):
                raise _one_per_process_error() from exc
            raise
        _open = weakref.ref(self)
        self.game, self.frameskip, self.reward_scale = game, int(frameskip), float(reward_scale)
        self.repeat_action_probability = float(repeat_action_probability)
        self.max_episode_frames, self.render_mode = int(max_episode_frames), render_mode
        self.grayscale = bool(grayscale)
        self._em, self._data = self._retro.em, self._retro.data
        buttons = list(self._retro.buttons)
        #: The buttons each action holds, in action order.
        self.actions = GAMES[game][2]
        self._masks = np.zeros((len(self.actions), len(buttons)), np.uint8)
        for i, held in enumerate(self.actions):
            for button in held:
                self._masks[i, buttons.index(button)] = 1
        self._size = (int(screen_size), int(screen_size))
        self.channels = 1 if self.grayscale else 3
        self._stack = np.zeros((stack_num * self.channels, screen_size, screen_size), np.uint8)
        self._frames: list[np.ndarray] = [self._em.get_screen(), self._em.get_screen()]
        self.observation_space = spaces.Box(0, 255, self._stack.shape, np.uint8)
        self.action_space = spaces.Discrete(len(self.actions))
        self._rng = np.random.default_rng()
        self._held = 0          # the action whose buttons the emulator holds now
        self._frame = 0         # emulator frames of this episode
        self._score = 0.0       # this episode's reward before reward_scale
        self._ended = True      # reset() is due

    def _observe(self) -> np.ndarray:
        """The max-pooled newest frames, converted and resized: (channels, S, S) uint8."""
        pooled = np.maximum(self._frames[0], self._frames[1])
        if self.grayscale:
            small = cv2.resize(cv2.cvtColor(pooled, cv2.COLOR_RGB2GRAY), self._size, interpolation=cv2.INTER_AREA)
            return small[None]
        return cv2.resize(pooled, self._size, interpolation=cv2.INTER_AREA).transpose(2, 0, 1)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new episode from the game's save state; `seed` reseeds the sticky-action draws."""
        super().reset(seed=seed)
        if self._em is None:
            raise APIUsageError("This RetroGameEnv is closed; make a new one.")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        screen, _ = self._retro.reset()
        self._frames = [screen, screen]
        frame = self._observe()
        self._stack[:] = np.tile(frame, (len(self._stack) // self.channels, 1, 1))
        self._held, self._frame, self._score, self._ended = 0, 0, 0.0, False
        return self._stack.copy(), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Hold one action's buttons for `frameskip` frames: (obs, reward, terminated, truncated, info)."""
        if self._em is None:
            raise APIUsageError("This RetroGameEnv is closed; make a new one.")
        index = int(action)
        if not 0 <= index < len(self.actions):
            raise APIUsageError(f"action {action!r} is outside Discrete({len(self.actions)}).")
        if self._ended:
            raise APIUsageError("This episode has ended (or none began): call reset() before step().")
        em, data, sticky = self._em, self._data, self.repeat_action_probability
        draws = self._rng.random(self.frameskip) if sticky > 0 else None
        reward, done = 0.0, False
        for k in range(self.frameskip):
            if draws is None or draws[k] >= sticky:
                self._held = index
            em.set_button_mask(self._masks[self._held], 0)
            em.step()
            data.update_ram()
            reward += data.current_reward()
            self._frame += 1
            done = data.is_done()
            if done or k >= self.frameskip - 2:  # keep the last two frames' screens for pooling
                self._frames[0], self._frames[1] = self._frames[1], em.get_screen()
            if done:
                break
        self._score += reward
        truncated = not done and 0 < self.max_episode_frames <= self._frame
        self._stack[:-self.channels] = self._stack[self.channels:]
        self._stack[-self.channels:] = self._observe()
        info: dict = {}
        if done or truncated:
            self._ended = True
            info = {"score": self._score, "frames": float(self._frame)}
        return self._stack.copy(), reward * self.reward_scale, bool(done), bool(truncated), info

    def render(self) -> np.ndarray | None:
        """The full-size RGB screen (H, W, 3) with render_mode="rgb_array", else None."""
        if self.render_mode is None or self._em is None:
            return None
        return self._em.get_screen()

    def close(self) -> None:
        """Free the emulator (so that this process may make another env); safe to call twice."""
        global _open
        if self._em is None:
            return
        self._em = self._data = None
        self._retro.close()
        self._retro = None
        gc.collect()
        if _open is not None and _open() is self:
            _open = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def _stop(conn: Connection, proc: subprocess.Popen) -> None:
    """End a host child: ask it to close its env, then wait (kill it if it does not exit in 5 s)."""
    try:
        conn.send(("close", (), {}))
        if conn.poll(5):
            conn.recv()
    except (OSError, EOFError, BrokenPipeError):
        pass
    finally:
        conn.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class HostedRetroEnv(gymnasium.Env):
    """A RetroGameEnv run in a child process, for a process that already has an emulator open.

    Same arguments, spaces, `actions` and behaviour as RetroGameEnv (the child makes one with
    them); each call goes over a socket pair to the child and its result (or exception) comes
    back. `close()` ends the child; so does the end of this process (the child reads end of file).
    """

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, **kwargs: Any):
        ours, theirs = socket.socketpair()
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", "puffer_retro._host", str(theirs.fileno())],
                                          pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        self._conn: Connection | None = Connection(ours.detach())
        self._finalizer = weakref.finalize(self, _stop, self._conn, self._proc)
        try:
            self.observation_space, self.action_space, self.actions = self._call("make", (), kwargs)
        except BaseException:
            self.close()
            raise
        self.render_mode = kwargs.get("render_mode")

    def _call(self, method: str, args: tuple = (), kwargs: dict | None = None) -> Any:
        if self._conn is None:
            raise APIUsageError("This RetroGameEnv is closed; make a new one.")
        try:
            self._conn.send((method, args, kwargs or {}))
            status, result = self._conn.recv()
        except (EOFError, OSError) as exc:
            raise RuntimeError(f"the child process hosting this retro env (pid {self._proc.pid}) ended "
                               f"(exit code {self._proc.poll()}).") from exc
        if status == "error":
            raise result
        return result

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """As RetroGameEnv.reset, in the child."""
        super().reset(seed=seed)
        return self._call("reset", (), {"seed": seed})

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """As RetroGameEnv.step, in the child."""
        return self._call("step", (int(action),))

    def render(self) -> np.ndarray | None:
        """As RetroGameEnv.render, in the child."""
        return self._call("render")

    def close(self) -> None:
        """End the child process (and its emulator); safe to call twice."""
        if self._conn is not None:
            self._conn = None
            self._finalizer()


def make(game: str = "Airstriker-Genesis-v0", frameskip: int = 4, repeat_action_probability: float = 0.25,
         screen_size: int = 84, grayscale: bool = True, stack_num: int = 4, max_episode_frames: int = 108_000,
         reward_scale: float = 1.0, render_mode: str | None = None,
         **others: Any) -> RetroGameEnv | HostedRetroEnv:
    """Creator of the `retro-*` ids (see `RetroGameEnv`); refuses any other keyword argument.

    The first env of a process runs here; one made while another is open runs in a child
    process (`HostedRetroEnv`), as stable-retro allows one emulator per process."""
    if others:
        raise APIUsageError(f"retro envs do not take {', '.join(sorted(others))}; they take only: "
                            f"{', '.join(KWARGS)}. (A game is chosen by name, never by a ROM path.)")
    kwargs = dict(game=game, frameskip=frameskip, repeat_action_probability=repeat_action_probability,
                  screen_size=screen_size, grayscale=grayscale, stack_num=stack_num,
                  max_episode_frames=max_episode_frames, reward_scale=reward_scale, render_mode=render_mode)
    if _open is not None and _open() is not None:
        return HostedRetroEnv(**kwargs)
    return RetroGameEnv(**kwargs)
