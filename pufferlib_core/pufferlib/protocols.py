"""The typed contracts at the plugin seam: the envs a plugin provides, what the trainer needs
of a vectorized env, and what it needs of a policy.

The classes are `typing.Protocol`s, checked structurally: a plugin's vectorized env or policy
meets them by having the attributes and methods, with no base class to inherit. Every
backend of `pufferlib.vector` returns a `VecEnv`; every policy of `pufferlib.models` is a
`SplitPolicy` (a `Policy`), and `models.LSTMWrapper` a `RecurrentPolicy`. Members are read-only properties
here, so a plain attribute of a narrower type (`spaces.Box` for `spaces.Space`) meets them.

The aliases (`Env`, `EnvCreator`, `Logits`, `LSTMState`, `Batch`) are for annotations; the
ones that name torch, pettingzoo or the env classes are strings, so importing this module
imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

import numpy as np
from gymnasium import spaces

if TYPE_CHECKING:
    import gymnasium
    import torch
    from pettingzoo import AECEnv, ParallelEnv

    from pufferlib.environment import PufferEnv
    from pufferlib.spaces import ObsLayout

#: An info dict of an env step: str keys, values of the env's choosing (`episode_return` and
#: `episode_length` are numbers; the trainer averages every number). `Any`: readers convert them.
Info: TypeAlias = dict[str, Any]

#: What `VecEnv.recv()` returns: (observations, rewards, terminals, truncations, infos,
#: env_ids, masks) for `agents_per_batch` agent rows.
Batch: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[Info], np.ndarray, np.ndarray]

#: Any Gymnasium env. `gymnasium.Env` is generic in its observation and action types,
#: invariantly: `Any` there is what admits every env.
GymnasiumEnv: TypeAlias = "gymnasium.Env[Any, Any]"

#: An env that `pufferlib.vector` and `pufferlib.emulate` take: an in-place or simple-style
#: PufferEnv, a Gymnasium env, or a PettingZoo env (parallel or AEC).
Env: TypeAlias = "PufferEnv | GymnasiumEnv | ParallelEnv | AECEnv"

#: What a plugin's env spec points at (`"module:attr"`) and what `pufferlib.vector.make` calls:
#: `creator(*env_args, **env_kwargs)` (in-place PufferEnvs also get `buf=`) returns an `Env`.
EnvCreator: TypeAlias = "Callable[..., Env]"

#: What a plugin's spec names as its default policy (`"module:Class"`): called as `cls(env, **kwargs)`
#: or `cls(observation_space, action_space, **kwargs)`, it builds a torch Module (see
#: `pufferlib.train.policy`).
PolicyFactory: TypeAlias = "Callable[..., torch.nn.Module]"

#: A policy's action output: logits (Discrete), a list of logits or one tensor split by `nvec`
#: (MultiDiscrete), or a `torch.distributions.Normal` (Box).
Logits: TypeAlias = "torch.Tensor | Sequence[torch.Tensor] | torch.distributions.Normal"

#: The (h, c) state of an LSTM policy, each (batch, hidden_size).
LSTMState: TypeAlias = "tuple[torch.Tensor, torch.Tensor]"


class SpecId(Protocol):
    """What the trainer reads of `VecEnv.spec` (a `pufferlib.EnvSpec`): the id it records in checkpoints."""

    @property
    def id(self) -> str: ...


@runtime_checkable
class EnvSpaces(Protocol):
    """What a policy reads of the env it is built for (`models.Default(env)`): the spaces of one
    agent, and the layout of structured (Dict/Tuple) observations, None when they are flat."""

    @property
    def single_observation_space(self) -> spaces.Space[object]: ...

    @property
    def single_action_space(self) -> spaces.Space[object]: ...

    @property
    def obs_layout(self) -> ObsLayout | None: ...


@runtime_checkable
class VecEnv(EnvSpaces, Protocol):
    """A vectorized env over `num_agents` agent rows, with the async API the trainer uses.

    `recv()` serves `agents_per_batch` rows at a time; a recv() of every row returns them in
    order (`env_ids == arange(num_agents)`). Where `writes_final_observations` is True,
    `final_observations[env_ids[i]]` holds the last observation of the episode that row i
    ended. `spec` is the registered spec when `pufferlib.make` made it, else None. See
    `pufferlib.vector.base` for the full contract.
    """

    @property
    def num_agents(self) -> int: ...

    @property
    def agents_per_batch(self) -> int: ...

    @property
    def writes_final_observations(self) -> bool: ...

    @property
    def final_observations(self) -> np.ndarray | None: ...

    @property
    def spec(self) -> SpecId | None: ...

    @property
    def game_seats(self) -> int:
        """Rows per game of an env of competitive games, 0 for others (`pufferlib.environment`)."""

    @property
    def masks(self) -> np.ndarray:
        """Each row's mask of its latest recv() (False: it does not act), by global row id."""

    @property
    def outcomes(self) -> np.ndarray:
        """Games only: each row's result (1, 0.5, 0, NaN) where its game ended, by global row id."""

    @property
    def builtin_players(self) -> dict[str, int]:
        """Games only: the env's built-in players that can take a seat, by name (`pufferlib.environment`)."""

    @property
    def players(self) -> np.ndarray:
        """Games with `builtin_players` only: per row, 0 its agent acts, k the built-in player k (an input)."""

    def async_reset(self, seed: int | None = None) -> None:
        """Reset every env; the first `recv()` returns the initial observations."""

    def recv(self) -> Batch:
        """The next ready batch of rows."""

    def send(self, actions: np.ndarray) -> None:
        """Actions for the rows of the last `recv()`."""

    def close(self) -> None:
        """Release the envs (and worker processes); idempotent."""


@runtime_checkable
class Renderable(Protocol):
    """A vectorized env that can render (the serial backend renders env 0; `puffer eval` uses it)."""

    def render(self) -> object: ...


@runtime_checkable
class Policy(Protocol):
    """A feed-forward policy: `policy(obs)` returns `(logits, value)` (the trainer ignores any more items).

    `obs`: (batch, *obs_shape); `logits`: see `Logits`; `value`: (batch, 1) or (batch,).
    """

    def __call__(self, obs: torch.Tensor) -> tuple[Logits, torch.Tensor]: ...


@runtime_checkable
class SplitPolicy(Policy, Protocol):
    """A feed-forward policy in two steps, as every policy of `pufferlib.models` is, so that
    `models.LSTMWrapper` (`rnn.enabled`) can put an LSTM between them.

    `encode_observations(obs) -> (batch, hidden)`; `decode_actions(hidden) -> (logits, value)`.
    """

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor: ...

    def decode_actions(self, hidden: torch.Tensor) -> tuple[Logits, torch.Tensor]: ...


@runtime_checkable
class RecurrentPolicy(Protocol):
    """A recurrent policy, as `pufferlib.models.LSTMWrapper` is: `is_recurrent = True`.

    Acting: `policy(obs, (h, c)) -> (logits, value, (h, c))` with states of shape
    (batch, hidden_size). Training: `forward_sequence(obs, (h, c), starts) -> (logits, value)`
    over (batch, time) sequences, zeroing the state where `starts` marks a new episode.
    """

    is_recurrent: bool
    hidden_size: int

    def __call__(self, obs: torch.Tensor, state: LSTMState) -> tuple[Logits, torch.Tensor, LSTMState]: ...

    def forward_sequence(self, obs: torch.Tensor, state: LSTMState,
                         starts: torch.Tensor) -> tuple[Logits, torch.Tensor]:
        """Logits and values of whole sequences."""

    def initial_state(self, batch: int, device: torch.device | str = "cpu") -> LSTMState:
        """Zero (h, c) for `batch` rows."""
