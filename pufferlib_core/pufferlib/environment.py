"""PufferEnv: environments that write into preallocated arrays in place.

An in-place PufferEnv subclass sets `single_observation_space`, `single_action_space` and
`num_agents`, then calls `super().__init__(buf)`. The base class validates them and
binds the arrays below, either its own or slices of a vectorizer's shared batch
(`buf`), so a vectorized step copies nothing:

    observations        (num_agents, *obs_shape)  obs dtype
    rewards             (num_agents,)             float32
    terminals           (num_agents,)             bool
    truncations         (num_agents,)             bool
    masks               (num_agents,)             bool   (False: padded/absent agent)
    actions             (num_agents, *act_shape)  int32 (Discrete/MultiDiscrete) or float32 (Box)
    final_observations  (num_agents, *obs_shape)  obs dtype
    outcomes            (num_agents,)             float32 (games only: see below)
    players             (num_agents,)             int8    (an input; games only: see below)

An env whose class sets `writes_final_observations = True` copies an agent's last
observation of an episode into its `final_observations` row in the step that ends the
episode, before resetting it: that row is then valid until the next step. The trainer
bootstraps a truncated episode from its value, and `to_gymnasium`/`to_sb3` return it
(`final_obs`, `terminal_observation`). The emulation wrappers do this, and so do most
puffer-ocean envs and the native Atari env; where an env does not, a truncated episode
bootstraps from the value of its last observation before the final step.

An env of competitive games (connect four, go, chess, two-team matches) declares them with
`game_seats = k` (0, the default: not a game): agent rows come in blocks of k, one block per
game being played, row r being seat `r % k` of game slot `r // k`; every row of a game ends
(terminal or truncated) in the same step, and in that step each of its `outcomes` holds the
seat's result: 1 win, 0.5 draw, 0 loss, NaN when the game has no result (cut short by a step
limit the env does not score). `outcomes` is read only where a row ends: its other values
mean nothing. An env that plays one seat itself (a built-in scripted or random opponent)
has `game_seats = 1` and reports its agent's outcomes the same way. `pufferlib.games` reads it.

An env of games whose built-in players can also take a seat of a game whose seats are all
agents names them in `builtin_players` (e.g. {"scripted": 1, "random": 2}). `players` is then
an input that the trainer writes (self-play's anchors) and the env reads at every step: 0 (the
default) the row's agent acts; k the built-in player k acts for that row (its action is
ignored). The trainer changes a row's entry only between two games of its slot, right after
the step that ended the last one. Other envs leave `players` alone.

`reset(seed=None) -> (observations, infos)` and
`step(actions) -> (observations, rewards, terminals, truncations, infos)` fill the
arrays and return them; `infos` is a list of dicts. An in-place env resets its finished
agents itself inside `step`.

The simpler authoring style of the user guide is accepted too: a subclass that calls
`super().__init__(buf)` first, then sets `observation_space`/`action_space` (for
example with `make_space`/`make_discrete`), whose `reset()` returns an observation
and whose `step(action)` returns `(obs, reward, done, info)`. Such an env is a
single-agent env with `is_simple_style == True`; `pufferlib.emulate`, the
vectorizers and the trainer adapt it through `pufferlib.emulation`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces

from pufferlib import spaces as pspaces
from pufferlib.errors import APIUsageError

if TYPE_CHECKING:
    from pufferlib.spaces import ActionLayout, ObsLayout

OBS_SPACES = (spaces.Box,)
ACTION_SPACES = (spaces.Discrete, spaces.MultiDiscrete, spaces.Box)


def action_dtype(space: spaces.Space) -> np.dtype:
    """dtype of the actions array for a (flat) action space."""
    return np.dtype(np.float32) if isinstance(space, spaces.Box) else np.dtype(np.int32)


def action_shape(space: spaces.Space) -> tuple[int, ...]:
    """Per-agent shape of the actions array: (1,) for Discrete, else the space's shape."""
    if isinstance(space, spaces.Discrete):
        return (1,)
    assert space.shape is not None, f"{space!r} has no shape"  # flat spaces (MultiDiscrete, Box) have one
    return tuple(space.shape)


@dataclass
class Buffers:
    """The in-place arrays of a batch of agents; `slice` hands a block to one env.

    `final_observations`, `outcomes` and `players` may be None (given buffers without them): an env then
    keeps its own.
    """

    observations: np.ndarray
    rewards: np.ndarray
    terminals: np.ndarray
    truncations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    final_observations: np.ndarray | None = None
    outcomes: np.ndarray | None = None
    players: np.ndarray | None = None

    @classmethod
    def allocate(cls, obs_space: spaces.Space, act_space: spaces.Space, num_agents: int,
                 alloc=np.zeros) -> Buffers:
        """New zeroed buffers for `num_agents` rows; `alloc(shape, dtype)` may map shared memory."""
        assert obs_space.shape is not None, f"{obs_space!r} has no shape"  # observation spaces are Boxes
        buf = cls(
            observations=alloc((num_agents, *obs_space.shape), obs_space.dtype),
            rewards=alloc((num_agents,), np.float32),
            terminals=alloc((num_agents,), np.bool_),
            truncations=alloc((num_agents,), np.bool_),
            masks=alloc((num_agents,), np.bool_),
            actions=alloc((num_agents, *action_shape(act_space)), action_dtype(act_space)),
            final_observations=alloc((num_agents, *obs_space.shape), obs_space.dtype),
            outcomes=alloc((num_agents,), np.float32),
            players=alloc((num_agents,), np.int8),
        )
        buf.masks[:] = True
        buf.outcomes[:] = np.nan  # type: ignore[index]  # allocated just above
        return buf

    def slice(self, start: int, stop: int) -> Buffers:
        """Views of rows [start, stop) of every array."""
        final, outcomes, players = self.final_observations, self.outcomes, self.players
        return Buffers(self.observations[start:stop], self.rewards[start:stop], self.terminals[start:stop],
                       self.truncations[start:stop], self.masks[start:stop], self.actions[start:stop],
                       None if final is None else final[start:stop],
                       None if outcomes is None else outcomes[start:stop],
                       None if players is None else players[start:stop])

    def expose(self, target: object) -> None:
        """Set the arrays as attributes of `target` (an env or a vectorizer)."""
        for f in fields(self):
            setattr(target, f.name, getattr(self, f.name))

    @classmethod
    def coerce(cls, buf: object) -> Buffers:
        """Accept a Buffers, a mapping or any object with the array attributes
        (`final_observations`, `outcomes` and `players` optional)."""
        if isinstance(buf, cls):
            return buf
        names = [f.name for f in fields(cls)]
        # The values are the caller's, unchecked here: `PufferEnv._bind` checks each array's type and shape.
        get: Callable[[str], Any] = buf.get if isinstance(buf, Mapping) else (lambda k: getattr(buf, k, None))
        optional = ("final_observations", "outcomes", "players")
        missing = [k for k in names if get(k) is None and k not in optional]
        if missing:
            raise APIUsageError(f"buf is missing the arrays {missing}; it needs "
                                f"{[k for k in names if k not in optional]} (and may have {' and '.join(optional)}).")
        return cls(*(get(k) for k in names))


class EpisodeStats:
    """Episode return and length of every agent row, for in-place envs that reset rows themselves.

    `step(rewards, done)` counts one step of every row and returns an info dict
    (`episode_return`, `episode_length`) for each row whose episode `done` ends, in row
    order, then starts those rows over: what an in-place env returns as its infos.
    """

    def __init__(self, rows: int):
        self.returns = np.zeros(rows, np.float64)
        self.lengths = np.zeros(rows, np.int64)

    def reset(self) -> None:
        """Start every row over."""
        self.returns[:] = 0
        self.lengths[:] = 0

    def step(self, rewards: np.ndarray, done: np.ndarray) -> list[dict]:
        """Add one step with `rewards`; the infos of the rows that `done` (bool, per row) ends."""
        self.returns += rewards
        self.lengths += 1
        if not done.any():
            return []
        ended = np.flatnonzero(done)
        infos = [{"episode_return": float(self.returns[i]), "episode_length": int(self.lengths[i])} for i in ended]
        self.returns[ended] = 0
        self.lengths[ended] = 0
        return infos


class PufferEnv:
    """Base class of in-place environments (see the module docstring for the contract)."""

    render_mode: str | None = None
    #: True when the subclass set no `single_observation_space` before `super().__init__`,
    #: i.e. it follows the simple authoring style and needs `pufferlib.emulation`.
    is_simple_style: bool = False
    #: True when `step` fills `final_observations` for the agents whose episode ends (module doc).
    writes_final_observations: bool = False
    #: How structured (Dict/Tuple) observations and actions map onto the flat rows; None for an
    #: in-place env (its spaces are flat). Set by the emulation wrappers (`pufferlib.emulation`).
    obs_layout: ObsLayout | None = None
    action_layout: ActionLayout | None = None
    #: Rows per game of an env of competitive games (module doc); 0: not a game.
    game_seats: int = 0

    # Set by the subclass before `super().__init__(buf)` (simple-style envs: by pufferlib.emulation).
    single_observation_space: spaces.Box
    single_action_space: spaces.Space
    num_agents: int
    # Set by `__init__`: the spaces of all agents together, and the arrays of `Buffers.expose`.
    observation_space: spaces.Space
    action_space: spaces.Space
    observations: np.ndarray
    rewards: np.ndarray
    terminals: np.ndarray
    truncations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    final_observations: np.ndarray
    outcomes: np.ndarray
    players: np.ndarray

    def __init__(self, buf: object = None):
        """Bind the arrays: `buf` is None (allocate them) or what `Buffers.coerce` takes."""
        if not hasattr(self, "single_observation_space") and not hasattr(self, "single_action_space"):
            if buf is not None:
                raise APIUsageError(
                    f"{type(self).__name__} got a vectorizer buffer but sets no "
                    "single_observation_space/single_action_space before super().__init__(buf). "
                    "Set them (and num_agents) first, or create it with pufferlib.emulate().")
            self.is_simple_style = True
            return
        self._validate_spaces()
        self.observation_space = pspaces.joint_space(self.single_observation_space, self.num_agents)
        self.action_space = pspaces.joint_space(self.single_action_space, self.num_agents)
        if buf is None:
            buf = Buffers.allocate(self.single_observation_space, self.single_action_space, self.num_agents)
        self._bind(Buffers.coerce(buf))

    def _validate_spaces(self) -> None:
        name = type(self).__name__
        for attr in ("single_observation_space", "single_action_space"):
            if not hasattr(self, attr):
                raise APIUsageError(f"{name} must set self.{attr} before calling super().__init__(buf).")
        n = getattr(self, "num_agents", None)
        if n is None:
            raise APIUsageError(f"{name} must set self.num_agents (an int >= 1) before super().__init__(buf).")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise APIUsageError(f"{name}.num_agents must be an int >= 1, got {n!r}.")
        self.num_agents = int(n)
        obs, act = self.single_observation_space, self.single_action_space
        if not isinstance(obs, OBS_SPACES):
            raise APIUsageError(
                f"{name}.single_observation_space is {obs!r}; a PufferEnv observation must be a Box. "
                "Structured (Dict/Tuple/Discrete) observations go through pufferlib.emulation, which "
                "flattens them.")
        if not isinstance(act, ACTION_SPACES):
            raise APIUsageError(
                f"{name}.single_action_space is {act!r}; a PufferEnv action must be Discrete, "
                "MultiDiscrete or Box. Structured actions go through pufferlib.emulation.")

    def _bind(self, buf: Buffers) -> None:
        """Validate and adopt `buf` as this env's arrays."""
        n, name = self.num_agents, type(self).__name__
        obs, act = self.single_observation_space, self.single_action_space
        if buf.final_observations is None:
            buf = replace(buf, final_observations=np.zeros((n, *obs.shape), obs.dtype))
        if buf.outcomes is None:
            buf = replace(buf, outcomes=np.full(n, np.nan, np.float32))
        if buf.players is None:
            buf = replace(buf, players=np.zeros(n, np.int8))
        expected = {
            "observations": ((n, *obs.shape), np.dtype(obs.dtype)),
            "rewards": ((n,), np.dtype(np.float32)),
            "terminals": ((n,), np.dtype(np.bool_)),
            "truncations": ((n,), np.dtype(np.bool_)),
            "masks": ((n,), np.dtype(np.bool_)),
            "actions": ((n, *action_shape(act)), action_dtype(act)),
            "final_observations": ((n, *obs.shape), np.dtype(obs.dtype)),
            "outcomes": ((n,), np.dtype(np.float32)),
            "players": ((n,), np.dtype(np.int8)),
        }
        for key, (shape, dtype) in expected.items():
            arr = getattr(buf, key)
            if not isinstance(arr, np.ndarray):
                raise APIUsageError(f"{name}: buf.{key} must be a numpy array, got {type(arr).__name__}.")
            if arr.shape != shape or arr.dtype != dtype:
                raise APIUsageError(
                    f"{name}: buf.{key} has shape {arr.shape} and dtype {arr.dtype}; "
                    f"expected shape {shape} and dtype {dtype}.")
        buf.expose(self)

    @property
    def buffers(self) -> Buffers:
        """This env's arrays."""
        return Buffers(self.observations, self.rewards, self.terminals, self.truncations,
                       self.masks, self.actions, self.final_observations, self.outcomes, self.players)

    # Helpers of the simple authoring style.
    make_space = staticmethod(pspaces.make_space)
    make_discrete = staticmethod(pspaces.make_discrete)
    make_multidiscrete = staticmethod(pspaces.make_multidiscrete)

    def reset(self, seed: int | None = None):
        """Reset every agent; return (observations, infos)."""
        raise NotImplementedError

    def step(self, actions: np.ndarray):
        """Advance one step; return (observations, rewards, terminals, truncations, infos)."""
        raise NotImplementedError

    def render(self) -> object:
        """Render the env (what depends on `render_mode`: an RGB array, text, ...); None when it cannot."""
        return None

    def close(self) -> None:
        """Release resources; safe to call more than once."""


def game_seats_of(env: PufferEnv) -> int:
    """The `game_seats` an env declares (0: not a game), checked against its rows.

    Raises APIUsageError when it is not an int >= 0 or does not divide the env's agent rows
    (a game's seats are one block of rows).
    """
    seats = getattr(env, "game_seats", 0)
    name = type(env).__name__
    if isinstance(seats, bool) or not isinstance(seats, (int, np.integer)) or seats < 0:
        raise APIUsageError(f"{name}.game_seats must be an int >= 0 (rows per game; 0: not a game), got {seats!r}.")
    if seats and env.num_agents % seats:
        raise APIUsageError(f"{name}.game_seats = {seats} does not divide its {env.num_agents} agent rows: "
                            "each game is one block of game_seats rows.")
    return int(seats)


def render_modes(env: object) -> list[str] | None:
    """The render modes an env (or the env under a vector/emulation wrapper) declares, or None.

    Any object: the chain of wrappers (`driver_env`, `env`, ...) and where the modes are
    declared differ between Gymnasium, PettingZoo and PufferEnvs, so each link is probed.
    """
    seen = set()
    while env is not None and id(env) not in seen:
        seen.add(id(env))
        modes = getattr(env, "metadata", None)
        if isinstance(modes, dict) and modes.get("render_modes"):
            return [str(m) for m in modes["render_modes"]]
        declared = getattr(env, "render_modes", None)
        if declared:
            return [str(m) for m in declared if m]
        env = next((getattr(env, a) for a in ("driver_env", "env", "_inner", "unwrapped")
                    if getattr(env, a, None) is not None and getattr(env, a) is not env), None)
    return None
