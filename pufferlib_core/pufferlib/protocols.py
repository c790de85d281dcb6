"""The typed contracts at the plugin seam: what the trainer needs of a vectorized env and of a policy.

These are `typing.Protocol`s, checked structurally: a plugin's vectorized env or policy
meets them by having the attributes and methods, with no base class to inherit. Every
backend of `pufferlib.vector` returns a `VecEnv`; every policy of `pufferlib.models` is a
`Policy`, and `models.LSTMWrapper` a `RecurrentPolicy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces

#: What `VecEnv.recv()` returns: (observations, rewards, terminals, truncations, infos,
#: env_ids, masks) for `agents_per_batch` agent rows.
Batch = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]], np.ndarray, np.ndarray]


@runtime_checkable
class VecEnv(Protocol):
    """A vectorized env over `num_agents` agent rows, with the async API the trainer uses.

    `recv()` serves `agents_per_batch` rows at a time; a recv() of every row returns them in
    order (`env_ids == arange(num_agents)`). See `pufferlib.vector.base` for the full contract,
    including `final_observations` where `writes_final_observations` is True.
    """

    num_agents: int
    agents_per_batch: int
    single_observation_space: spaces.Space
    single_action_space: spaces.Space

    def async_reset(self, seed: int | None = None) -> None:
        """Reset every env; the first `recv()` returns the initial observations."""

    def recv(self) -> Batch:
        """The next ready batch of rows."""

    def send(self, actions: np.ndarray) -> None:
        """Actions for the rows of the last `recv()`."""

    def close(self) -> None:
        """Release the envs (and worker processes); idempotent."""


@runtime_checkable
class Policy(Protocol):
    """A feed-forward policy: `policy(obs)` returns `(logits, value)`.

    `logits`: a tensor (Discrete), a list of tensors or one tensor split by `nvec`
    (MultiDiscrete), or a `torch.distributions.Normal` (Box); `value`: (batch, 1) or (batch,).
    """

    def __call__(self, obs: Any) -> Sequence[Any]: ...


@runtime_checkable
class RecurrentPolicy(Protocol):
    """A recurrent policy, as `pufferlib.models.LSTMWrapper` is: `is_recurrent = True`.

    Acting: `policy(obs, (h, c)) -> (logits, value, (h, c))` with states of shape
    (batch, hidden_size). Training: `forward_sequence(obs, (h, c), starts) -> (logits, value)`
    over (batch, time) sequences, zeroing the state where `starts` marks a new episode.
    """

    is_recurrent: bool
    hidden_size: int

    def __call__(self, obs: Any, state: tuple[Any, Any]) -> Sequence[Any]: ...

    def forward_sequence(self, obs: Any, state: tuple[Any, Any], starts: Any) -> Sequence[Any]:
        """Logits and values of whole sequences."""
