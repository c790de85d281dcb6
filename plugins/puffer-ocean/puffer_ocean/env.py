"""OceanEnv: one PufferEnv holding `num_envs` copies of a native C environment.

The copies live in one C array (`puffer_ocean._ocean.Vec`). The PufferEnv arrays, either
allocated here or slices of a vectorizer's shared batch (`buf`), are bound to C once;
`step` then checks the actions and steps every copy in one C loop with the GIL released,
writing straight into those arrays. Finished copies reset themselves inside `step`.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces

from puffer_ocean import _ocean
from pufferlib import ObsLayout
from pufferlib.environment import PufferEnv
from pufferlib.errors import APIUsageError
from pufferlib.vector.base import check_seed

RENDER_MODES = (None, "ansi", "rgb_array")
#: The names of an Ocean game's `opponent` argument, by its value: "none" makes every seat an
#: agent (a game of `game_seats` rows, for self-play and matches); the others play one seat
#: with a built-in player (the env's rating anchors).
OPPONENTS = ("none", "scripted", "random")


def _build_spaces(info: dict) -> tuple[spaces.Box, spaces.Space]:
    """Gymnasium spaces of one agent from the C description."""
    dtype = np.float32 if info["obs_dtype"] == "f" else np.uint8
    obs = spaces.Box(low=info["obs_low"], high=info["obs_high"], shape=info["obs_shape"], dtype=dtype)
    kind = info["act_kind"]
    if kind == "D":
        act: spaces.Space = spaces.Discrete(info["act_n"][0])
    elif kind == "M":
        act = spaces.MultiDiscrete(np.array(info["act_n"], dtype=np.int64))
    else:
        act = spaces.Box(low=info["act_low"], high=info["act_high"], shape=(info["act_dims"],), dtype=np.float32)
    return obs, act


class OceanEnv(PufferEnv):
    """`num_envs` copies of the native environment `env_name`, stepped together in C.

    `num_threads` splits the copies across that many threads inside this process;
    `log_interval`: every that many steps, `step` returns the mean episode stats of the
    episodes finished since the last report (a one-dict `infos` list; otherwise empty).
    `render_mode` is None, 'ansi' (text) or 'rgb_array' ((h, w, 3) uint8). Other keyword
    arguments are the environment's own (see `OceanEnv.params()`); bad ones raise
    `pufferlib.APIUsageError`.
    """

    env_name: str = ""
    metadata = {"render_modes": [m for m in RENDER_MODES if m]}
    #: the compiled module holding the C envs (a third-party package built with the headers of
    #: `puffer_ocean.get_include()`, copied by `puffer new --c`, sets its own)
    native_module: Any = _ocean

    def __init__(self, num_envs: int = 1, buf: Any = None, render_mode: str | None = None,
                 log_interval: int = 128, num_threads: int = 1, opponent: str | int | None = None, **kwargs: Any):
        name = f"ocean-{self.env_name}"
        if opponent is not None:  # a named parameter: a file's `opponent` is one of OPPONENTS (pufferlib.train.trust)
            kwargs["opponent"] = opponent
        for arg, value in (("num_envs", num_envs), ("log_interval", log_interval), ("num_threads", num_threads)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise APIUsageError(f"{name}: {arg} must be an int, got {value!r}.")
        if render_mode not in RENDER_MODES:
            raise APIUsageError(f"{name}: render_mode must be one of {RENDER_MODES}, got {render_mode!r}.")
        if isinstance(kwargs.get("opponent"), str):
            if kwargs["opponent"] not in OPPONENTS:
                raise APIUsageError(f"{name}: opponent={kwargs['opponent']!r} is not one of {list(OPPONENTS)}.")
            kwargs["opponent"] = OPPONENTS.index(kwargs["opponent"])
        try:
            self._c = self.native_module.Vec(self.env_name, int(num_envs), kwargs, int(num_threads), int(log_interval))
        except (ValueError, TypeError, OverflowError) as exc:
            raise APIUsageError(str(exc)) from None
        self.render_mode = render_mode
        self.num_envs = int(num_envs)
        self._info = self._c.spaces()
        self.agents_per_env = self._info["num_agents"]
        self.num_agents = self.num_envs * self.agents_per_env
        obs_space, self.single_action_space = _build_spaces(self._info)
        #: Whether the observation starts with the legal actions (`OceanSpaces.legal_actions`): it is
        #: then the Dict {"action_mask", "observation"} (`obs_layout`), stored as one flat float row,
        #: and training, `puffer eval` and `puffer match` sample legal actions only.
        self.legal_actions = bool(self._info.get("legal_actions", 0))
        self.single_observation_space = (self._masked_space(obs_space) if self.legal_actions
                                         else self._observation_space(obs_space))
        self._discrete = not isinstance(self.single_action_space, spaces.Box)
        # The envs that keep the last observation of an ended episode (pufferlib.environment).
        self.writes_final_observations = bool(self._info["writes_final"])
        # Envs of games (pufferlib.environment): rows per game. A module built with older headers
        # (a third-party package) describes no games and binds no outcomes.
        self.game_seats = int(self._info.get("game_seats", 0))
        #: The built-in players that can take a seat of a game whose seats are all agents, by name
        #: (their `opponent` numbers; pufferlib.environment's `players`): self-play's anchors.
        self.builtin_players = ({OPPONENTS[i]: i for i in range(1, int(self._info.get("builtin_players", 0)) + 1)}
                                if self.game_seats >= 2 else {})
        self._seeded = False
        try:
            super().__init__(buf)
            arrays = (self.observations, self.actions, self.rewards, self.terminals, self.truncations,
                      self.final_observations)
            if "game_seats" in self._info:  # headers that know games also write masks
                arrays += (self.outcomes, self.masks)
            if "builtin_players" in self._info:  # and these read who plays each row (older modules: neither)
                arrays += (self.players,)
            self._call(self._c.bind, *arrays)
        except BaseException:
            self._c.close()
            raise

    def _observation_space(self, flat: spaces.Box) -> spaces.Box:
        """The flat observation Box; envs with structured observations set `obs_layout` here."""
        return flat

    def _masked_space(self, flat: spaces.Box) -> spaces.Box:
        """The flat Box of a Dict {"action_mask": (n,), "observation": (rest,)} observation (`obs_layout`)."""
        n = int(getattr(self.single_action_space, "n", 0))
        if not n or len(flat.shape) != 1 or flat.shape[0] <= n or flat.dtype != np.float32:
            raise APIUsageError(f"ocean-{self.env_name}: an observation that starts with the legal actions needs a "
                                f"Discrete action space and a flat float32 observation longer than its legal-action "
                                f"entries; it has {self.single_action_space} and {flat}.")
        self.obs_layout = ObsLayout(spaces.Dict({
            "action_mask": spaces.Box(0, 1, (n,), np.float32),
            "observation": spaces.Box(flat.low[n:], flat.high[n:], (flat.shape[0] - n,), np.float32),
        }))
        return self.obs_layout.flat_space

    @classmethod
    def params(cls) -> dict[str, tuple[str, float, float, float]]:
        """The environment's own constructor arguments: name -> (type, default, low, high)."""
        params = cls.native_module.params(cls.env_name)
        return {name: (kind, default, low, high) for name, kind, default, low, high in params}

    @property
    def num_threads(self) -> int:
        """Threads that step the copies (1: the calling thread only)."""
        return self._c.num_threads

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[dict]]:
        """Reset every copy. Copy i draws from a random state derived from (seed, i);
        `seed=None` keeps the current random states (fresh entropy on the first reset)."""
        if seed is not None:
            try:
                seed = check_seed(seed)  # the rule of every vectorizer
            except APIUsageError as exc:
                raise APIUsageError(f"ocean-{self.env_name}: {exc}") from None
            self._seeded = True
        elif not self._seeded:
            seed = int.from_bytes(os.urandom(8), "little")
            self._seeded = True
        self._call(self._c.reset, seed)
        return self.observations, []

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """Step every copy with `actions` (one row per agent); returns the in-place arrays."""
        info = self._call(self._c.step, actions)
        if info is False:  # not an array of the right dtype and shape: convert, check, copy
            self._write_actions(actions)
            info = self._call(self._c.step, self.actions)
        return self.observations, self.rewards, self.terminals, self.truncations, [info] if info else []

    def _call(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except ValueError as exc:
            raise APIUsageError(f"ocean-{self.env_name}: {exc}") from None

    def _write_actions(self, actions: Any) -> None:
        a = np.asarray(actions)
        name = f"ocean-{self.env_name}"
        if self._discrete and not (np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
            raise APIUsageError(f"{name}: actions must be integers for {self.single_action_space}, got dtype "
                                f"{a.dtype}.")
        if not self._discrete and not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
            raise APIUsageError(f"{name}: actions must be floats for {self.single_action_space}, got dtype {a.dtype}.")
        if a.shape != self.actions.shape:
            if a.size != self.actions.size or a.ndim > self.actions.ndim or a.shape[:1] != self.actions.shape[:1]:
                raise APIUsageError(f"{name}: actions have shape {a.shape}; expected {self.actions.shape} "
                                    f"({self.num_agents} agents of {self.single_action_space}).")
            a = a.reshape(self.actions.shape)
        if self._discrete and a.dtype.itemsize > 4 and a.size and (a.min() < 0 or a.max() > np.iinfo(np.int32).max):
            raise APIUsageError(f"{name}: actions out of range for {self.single_action_space}: min {a.min()}, "
                                f"max {a.max()}.")
        np.copyto(self.actions, a, casting="unsafe")

    def field(self, name: str, env_id: int = 0) -> float:
        """A state field or constructor argument of copy `env_id` (for tests and debugging)."""
        return self._call(self._c.get_field, env_id, name)

    def set_field(self, name: str, value: float, env_id: int = 0) -> None:
        """Overwrite a state field of copy `env_id` (for tests and debugging)."""
        self._call(self._c.set_field, env_id, name, value)

    def log(self) -> dict | None:
        """The mean stats of the episodes finished since the last report (then cleared), or None."""
        return self._call(self._c.log)

    def render(self, env_id: int = 0) -> str | np.ndarray | None:
        """Copy `env_id` drawn per `render_mode`: text ('ansi'), an (h, w, 3) uint8 array
        ('rgb_array'), or None when render_mode is None."""
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return self._call(self._c.render_ansi, env_id)
        pixels = self._call(self._c.render_rgb, env_id)
        return np.frombuffer(pixels, dtype=np.uint8).reshape(self._info["render_height"],
                                                             self._info["render_width"], 3)

    def close(self) -> None:
        """Free the C copies; safe to call more than once."""
        self._c.close()
