"""Running observation normalization and reward scaling for PPO (the `[normalize]` config section).

`wrap(policy, env, settings)` returns the policy itself when both are off, else a
`NormalizedPolicy` whose forward passes normalized observations, `(obs - mean) / std`
clipped to `[-clip, clip]`, to the wrapped policy, and which carries the reward scale.
The statistics are buffers of that module, so they are saved in checkpoints, used by
`puffer eval` and restored by `--resume` with the weights.

Timing, so that acting and training see the same normalization: the statistics change
only between batches (`PuffeRL.train()` updates them from the batch it has just trained
on), never while a batch is collected or trained on; the stored logprobs of a batch are
therefore reproduced exactly by its first update. Rewards are divided by the running std of
the discounted return (as Gymnasium's `NormalizeReward` and SB3's `VecNormalize` do), with
the batch's own returns included. Under torch.distributed every rank merges the moments of
all ranks' batches, so the statistics stay identical across ranks. A feature that never
varies keeps a variance of 0 and is divided by sqrt(epsilon), never by zero.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import torch
from torch import nn

from pufferlib.errors import APIUsageError

if TYPE_CHECKING:
    from pufferlib.protocols import EnvSpaces, Logits, LSTMState, RecurrentPolicy


class RunningMoments(nn.Module):
    """Count, mean and variance of a stream of (batch, *shape) tensors, merged batch by batch."""

    # Buffers (registered in __init__): saved in the state dict, moved by .to().
    count: torch.Tensor
    mean: torch.Tensor
    var: torch.Tensor

    def __init__(self, shape: tuple[int, ...] = ()):
        super().__init__()
        self.register_buffer("count", torch.zeros((), dtype=torch.float64))
        self.register_buffer("mean", torch.zeros(shape, dtype=torch.float64))
        self.register_buffer("var", torch.ones(shape, dtype=torch.float64))

    @torch.no_grad()
    def update(self, x: torch.Tensor, weights: torch.Tensor | None = None) -> None:
        """Merge the moments of `x` (rows where `weights` > 0 only), summed over ranks when distributed."""
        x = x.detach().to(self.mean.device, torch.float64).reshape(-1, *self.mean.shape)
        if weights is not None:
            x = x[weights.detach().reshape(-1).to(x.device) > 0]
        sums = torch.cat([torch.tensor([float(len(x))], dtype=torch.float64, device=x.device),
                          x.sum(0).reshape(-1), (x * x).sum(0).reshape(-1)])
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            torch.distributed.all_reduce(sums)
        n = sums[0]
        if n == 0:
            return
        size = self.mean.numel()
        mean = (sums[1:1 + size] / n).view_as(self.mean)
        var = (sums[1 + size:] / n).view_as(self.mean) - mean * mean
        total = self.count + n
        delta = mean - self.mean
        if self.count == 0:
            self.mean.copy_(mean)
            self.var.copy_(var.clamp_min(0))
        else:
            m2 = self.var * self.count + var * n + delta * delta * self.count * n / total
            self.mean.add_(delta * n / total)
            self.var.copy_((m2 / total).clamp_min(0))
        self.count.copy_(total)


class NormalizedPolicy(nn.Module):
    """A policy that sees normalized observations; carries the running statistics as buffers.

    Forwards `forward`, `forward_sequence` (recurrent training), `is_recurrent`,
    `hidden_size` and `initial_state` to the wrapped policy (`self.policy`).
    """

    def __init__(self, policy: nn.Module, obs_shape: tuple[int, ...], observations: bool, rewards: bool,
                 clip: float, epsilon: float, gamma: float):
        super().__init__()
        self.policy = policy  # forward_sequence and initial_state: a RecurrentPolicy's, when is_recurrent
        self.normalize_observations, self.scale_rewards = observations, rewards
        self.clip, self.epsilon, self.gamma = float(clip), float(epsilon), float(gamma)
        self.obs_moments = RunningMoments(obs_shape)
        self.return_moments = RunningMoments()
        self.is_recurrent = bool(getattr(policy, "is_recurrent", False))
        if hasattr(policy, "hidden_size"):
            self.hidden_size = policy.hidden_size
        self._returns: torch.Tensor | None = None  # each row's running discounted return

    def normalize(self, obs: torch.Tensor) -> torch.Tensor:
        """Observations as the wrapped policy sees them."""
        if not self.normalize_observations:
            return obs
        mean = self.obs_moments.mean.to(torch.float32)
        std = (self.obs_moments.var.to(torch.float32) + self.epsilon).sqrt()
        return ((obs.float() - mean) / std).clamp(-self.clip, self.clip)

    def forward(self, obs: torch.Tensor, *state: LSTMState) -> tuple[Logits, torch.Tensor] | \
            tuple[Logits, torch.Tensor, LSTMState]:
        """The wrapped policy on normalized observations (with the LSTM state of a recurrent one)."""
        return self.policy(self.normalize(obs), *state)

    def forward_sequence(self, obs: torch.Tensor, state: LSTMState,
                         starts: torch.Tensor) -> tuple[Logits, torch.Tensor]:
        """The wrapped recurrent policy's `forward_sequence` on normalized observations."""
        return cast("RecurrentPolicy", self.policy).forward_sequence(self.normalize(obs), state, starts)

    def initial_state(self, batch: int, device: torch.device | str = "cpu") -> LSTMState:
        """The wrapped recurrent policy's zero state."""
        return cast("RecurrentPolicy", self.policy).initial_state(batch, device)

    def reward_scale(self) -> float:
        """The factor rewards are multiplied by for training (1 when reward scaling is off)."""
        if not self.scale_rewards or self.return_moments.count == 0:
            return 1.0
        return float(1.0 / np.sqrt(float(self.return_moments.var) + self.epsilon))

    @torch.no_grad()
    def update(self, obs: torch.Tensor, rewards: torch.Tensor, dones: torch.Tensor, weights: torch.Tensor) -> None:
        """Merge one batch of (rows, horizon, ...) observations and rewards into the statistics.

        `dones` (terminal or truncated) end a row's discounted return; `weights` > 0 marks
        real (unpadded) agent steps.
        """
        if self.normalize_observations:
            self.obs_moments.update(obs, weights)
        if self.scale_rewards:
            rows, horizon = rewards.shape
            if self._returns is None or len(self._returns) != rows:
                self._returns = torch.zeros(rows, dtype=torch.float64, device=rewards.device)
            returns = torch.empty(rows, horizon, dtype=torch.float64, device=rewards.device)
            ret = self._returns
            for t in range(horizon):
                ret = ret * self.gamma + rewards[:, t].double()
                returns[:, t] = ret
                ret = ret * (~dones[:, t]).double()
            self._returns = ret
            self.return_moments.update(returns, weights)


def wrap(policy: nn.Module, env: EnvSpaces, settings: Mapping[str, Any], gamma: float) -> nn.Module:
    """`policy` with the `[normalize]` settings applied: itself when both options are off.

    `settings`: the `[normalize]` section of a trainer config, as read from TOML.
    """
    if not (settings["observations"] or settings["rewards"]):
        return policy
    if isinstance(policy, NormalizedPolicy):
        raise APIUsageError("The policy is already a NormalizedPolicy; pass the inner policy.")
    space = env.single_observation_space
    layout = env.obs_layout
    if settings["observations"] and (layout is not None and layout.structured
                                     or not np.issubdtype(space.dtype, np.number)):
        raise APIUsageError(f"normalize.observations needs a numeric Box observation space; {space} is structured "
                            "or not numeric. Normalize inside your policy instead, or set normalize.observations "
                            "= false.")
    assert space.shape is not None, "observation spaces are Boxes"
    return NormalizedPolicy(policy, tuple(space.shape), bool(settings["observations"]), bool(settings["rewards"]),
                            settings["clip"], settings["epsilon"], gamma)
