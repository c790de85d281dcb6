"""CrafterEnv: crafter's old-Gym env (4-tuple step) as a Gymnasium env, with the Crafter score.

Contract:
- Observations are crafter's own (64, 64, 3) uint8 RGB frames; 17 discrete actions.
- `step` returns Gymnasium's 5-tuple: `terminated` when the player died (crafter's
  `discount` is 0), `truncated` when the episode reached `length` steps alive.
- `reset(seed=s)` starts the world sequence of `crafter.Env(seed=s)`: with the same seed and
  actions, observations, rewards and ends equal crafter's own.
- Determinism: crafter 1.8.3 keeps each chunk's objects in a `set`, whose order follows
  memory addresses, and draws which creature to despawn by index into it: two copies with one
  seed drift apart after some hundred steps. After each reset the adapter swaps those sets for
  `_ObjectsInOrder` (insertion order; the world's first objects sorted by position), so that the
  same seed and actions give the same episode in any process.
- Infos are empty except at the step that ends an episode, which carries plain numbers only
  (crafter's semantic map and inventory are dropped, so workers ship no arrays):
  `achievement_<name>` (1.0 if unlocked in that episode, else 0.0; 22 of them),
  `achievements` (how many were unlocked) and `score`, the Crafter score of this env copy's
  last `score_window` episodes (`crafter_score`). Averaged over a log step's episodes by the
  trainer, `achievement_<name>` is that achievement's success rate.
"""

from __future__ import annotations

import contextlib
import io
import math
import sys
from collections import defaultdict, deque
from collections.abc import Iterable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from pufferlib.errors import APIUsageError

#: The 22 achievements of crafter 1.8.3 (`crafter.constants.achievements`), in its order.
ACHIEVEMENTS = (
    "collect_coal", "collect_diamond", "collect_drink", "collect_iron", "collect_sapling", "collect_stone",
    "collect_wood", "defeat_skeleton", "defeat_zombie", "eat_cow", "eat_plant", "make_iron_pickaxe",
    "make_iron_sword", "make_stone_pickaxe", "make_stone_sword", "make_wood_pickaxe", "make_wood_sword",
    "place_furnace", "place_plant", "place_stone", "place_table", "wake_up")


def import_crafter() -> Any:
    """`import crafter`, without the notice that gym 0.26 prints to stderr when crafter imports it
    (crafter registers its ids with gym when gym is installed; this adapter does not use gym).
    Anything else written to stderr during the import is written through."""
    if "crafter" in sys.modules or "gym" in sys.modules:
        import crafter

        return crafter
    captured = io.StringIO()
    with contextlib.redirect_stderr(captured):
        import crafter
    text = captured.getvalue()
    with contextlib.suppress(Exception):
        import gym
        from gym_notices.notices import notices

        text = text.replace(notices.get(gym.__version__, "\0") + "\n", "")
    if text:
        sys.stderr.write(text)
    return crafter


def crafter_score(success_rates: Iterable[float]) -> float:
    """The Crafter score (Hafner 2021), in percent: exp(mean(ln(1 + s_i))) - 1 over the success
    rates s_i of the 22 achievements, each in percent (0..100). 0 when nothing is ever unlocked,
    100 when everything always is."""
    rates = [float(s) for s in success_rates]
    if len(rates) != len(ACHIEVEMENTS) or not all(0.0 <= s <= 100.0 for s in rates):
        raise APIUsageError(f"crafter_score takes {len(ACHIEVEMENTS)} success rates in percent (0..100), "
                            f"got {len(rates)}: {rates}.")
    return math.exp(sum(math.log1p(s) for s in rates) / len(rates)) - 1.0


class _ObjectsInOrder:
    """The set operations crafter's `World` uses on a chunk's objects (add, remove, iteration),
    iterating in insertion order rather than in the order of memory addresses."""

    def __init__(self, objects: Iterable[Any] = ()):
        self._items: dict[Any, None] = dict.fromkeys(objects)

    def add(self, obj: Any) -> None:
        self._items[obj] = None

    def remove(self, obj: Any) -> None:
        del self._items[obj]

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, obj: Any) -> bool:
        return obj in self._items


def _order_chunks(world: Any) -> None:
    """Replace the chunk sets of a freshly reset crafter `World` by `_ObjectsInOrder`: each
    chunk's objects sorted by position (one object per cell), later ones in insertion order."""
    ordered: defaultdict[Any, _ObjectsInOrder] = defaultdict(_ObjectsInOrder)
    for key, objects in world._chunks.items():
        ordered[key] = _ObjectsInOrder(sorted(objects, key=lambda obj: tuple(int(x) for x in obj.pos)))
    world._chunks = ordered


class CrafterEnv(gymnasium.Env):
    """One Crafter world. `reward`: crafter's reward (True) or reward 0 (False, the paper's
    no-reward setting). `length`: steps before an episode is truncated (crafter's 10,000).
    `score_window`: episodes of this copy that the logged `score` is computed over.
    `render_mode="rgb_array"`: `render()` returns the current frame."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, reward: bool = True, length: int = 10_000, score_window: int = 100,
                 render_mode: str | None = None):
        for name, value in (("length", length), ("score_window", score_window)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise APIUsageError(f"{name} must be an int >= 1, got {value!r}.")
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        crafter = import_crafter()
        if tuple(crafter.constants.achievements) != ACHIEVEMENTS:
            raise APIUsageError("This crafter lists other achievements than crafter 1.8.3, which puffer-crafter "
                                "is written for: pip install crafter==1.8.3")
        self._crafter = crafter
        self.reward, self.length, self.render_mode = bool(reward), length, render_mode
        self.env = crafter.Env(reward=self.reward, length=length)
        self.observation_space = spaces.Box(0, 255, (64, 64, 3), np.uint8)
        self.action_space = spaces.Discrete(len(crafter.constants.actions))
        self._history: deque[np.ndarray] = deque(maxlen=score_window)
        self._frame: np.ndarray | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new episode; `seed` starts the world sequence of `crafter.Env(seed=seed)`."""
        super().reset(seed=seed)
        if seed is not None:
            self.env = self._crafter.Env(reward=self.reward, length=self.length, seed=int(seed) % (2 ** 31 - 1))
        self._frame = self.env.reset()
        _order_chunks(self.env._world)
        return self._frame, {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """One step: (obs, reward, terminated, truncated, info); `info` is filled at episode ends."""
        obs, reward, done, info = self.env.step(int(action))
        self._frame = obs
        if not done:
            return obs, float(reward), False, False, {}
        died = info["discount"] == 0
        unlocked = np.array([info["achievements"][name] > 0 for name in ACHIEVEMENTS], np.float64)
        self._history.append(unlocked)
        rates = 100.0 * np.mean(self._history, axis=0)
        out = {f"achievement_{name}": float(u) for name, u in zip(ACHIEVEMENTS, unlocked)}
        out["achievements"] = float(unlocked.sum())
        out["score"] = crafter_score(rates)
        return obs, float(reward), bool(died), not died, out

    def render(self) -> np.ndarray | None:
        """The current frame (64x64 RGB) with render_mode="rgb_array", else None."""
        return None if self.render_mode is None else self._frame

    def close(self) -> None:
        self.env = None


def make(reward: bool = True, length: int = 10_000, score_window: int = 100,
         render_mode: str | None = None) -> CrafterEnv:
    """Creator of the `crafter-*` ids (see `CrafterEnv`)."""
    return CrafterEnv(reward=reward, length=length, score_window=score_window, render_mode=render_mode)
