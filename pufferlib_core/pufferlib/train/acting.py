"""Acting with a policy over the async vectorized-env API: the one place that turns a batch of
observations into actions for `env.send()`.

`Actor` owns what acting needs beyond the policy itself: the action space's sampling
parameters, the env's action mask, the LSTM state of every agent row (reset where an
episode starts), and the conversion of sampled actions to what the env accepts (a Box
action is sampled unclipped, scored unclipped, and clipped to the bounds only on its way
to the env), and gSDE's exploration noise, held per agent row for several steps
(`pufferlib.pytorch.StateDependentNormal`). Training (`pufferlib.train.rollout`) and `puffer eval`
both act through it.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import torch
from gymnasium import spaces

import pufferlib.pytorch
from pufferlib.errors import APIUsageError
from pufferlib.protocols import EnvSpaces, Logits

#: A row index into per-row storage: every row (a slice) or some rows (an index tensor).
RowIndex = slice | torch.Tensor
LSTMState = tuple[torch.Tensor, torch.Tensor]

ALL_ROWS = slice(None)


class AgentRows(EnvSpaces, Protocol):
    """What an `Actor` reads of the env: the spaces of one agent row, and how many rows there are
    (a vectorized env, or `pufferlib.agent.AgentSpaces` for acting outside one)."""

    @property
    def num_agents(self) -> int: ...


class Actor:
    """Samples actions of `policy` for batches of agent rows of `env`.

    A recurrent policy (`is_recurrent = True`, see `pufferlib.models.LSTMWrapper`) takes
    `(obs, (h, c))` and returns `(logits, value, (h, c))`, with a `hidden_size`; the actor
    keeps one (h, c) per agent row. Any other policy returns `(logits, value, ...)`.
    """

    def __init__(self, env: AgentRows, policy: torch.nn.Module, device: torch.device | str = "cpu"):
        self.policy, self.device = policy, torch.device(device)
        self._on_cpu = self.device.type == "cpu"
        self.rows = env.num_agents
        self.recurrent = bool(getattr(policy, "is_recurrent", False))
        act_space = env.single_action_space
        self.nvec: list[int] | None = None
        self.box = isinstance(act_space, spaces.Box)
        if isinstance(act_space, spaces.MultiDiscrete):
            self.nvec = [int(n) for n in act_space.nvec.ravel()]
        elif not (self.box or isinstance(act_space, spaces.Discrete)):
            raise APIUsageError(f"Unsupported action space {act_space}; expected Discrete, MultiDiscrete or Box.")
        if isinstance(act_space, spaces.Box):
            self._low, self._high = act_space.low, act_space.high
        obs_space = env.single_observation_space
        assert obs_space.shape is not None, f"{obs_space!r} has no shape"  # observation spaces are Boxes
        self._layout = env.obs_layout
        # gSDE (a StateDependentNormal policy): each row's noise matrix and the steps it has been held.
        self._noise: torch.Tensor | None = None
        self._noise_age: torch.Tensor | None = None
        probe = torch.zeros(1, *obs_space.shape, dtype=pufferlib.pytorch.torch_dtype(obs_space.dtype))
        self._has_mask = pufferlib.pytorch.action_mask(probe, self._layout) is not None
        if self.recurrent:
            size = getattr(policy, "hidden_size", None)
            if not isinstance(size, int):
                raise APIUsageError(f"{type(policy).__name__} sets is_recurrent but has no integer hidden_size: "
                                    "a recurrent policy needs hidden_size and forward(obs, (h, c)) -> "
                                    "(logits, value, (h, c)); see pufferlib.models.LSTMWrapper.")
            self.h = torch.zeros(self.rows, size, device=self.device)
            self.c = torch.zeros(self.rows, size, device=self.device)

    def action_mask(self, obs: torch.Tensor) -> torch.Tensor | None:
        """The env's action mask for `obs` (see `pufferlib.pytorch.action_mask`), or None."""
        return pufferlib.pytorch.action_mask(obs, self._layout) if self._has_mask else None

    def state(self, rows: RowIndex, starts: torch.Tensor) -> LSTMState | None:
        """The LSTM state of `rows`, zeroed where `starts` (a new episode); None if not recurrent."""
        if not self.recurrent:
            return None
        keep = (~starts).unsqueeze(1).to(self.h.dtype)
        return self.h[rows] * keep, self.c[rows] * keep

    def act(self, obs: torch.Tensor, state: LSTMState | None, rows: RowIndex = ALL_ROWS,
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, LSTMState | None]:
        """(action, logprob, value, new LSTM state or None) for one batch of observations, of agent
        rows `rows` (their order in the batch; the rows matter to gSDE's held noise)."""
        logits, value, state = self._forward(obs, state)
        action, logprob, _ = pufferlib.pytorch.sample_logits(logits, self._held_action(rows, logits), self.nvec,
                                                             self.action_mask(obs), entropy=False)
        return action, logprob, value.float().view(-1), state

    def choose(self, obs: torch.Tensor, state: LSTMState | None, deterministic: bool = False,
               rows: RowIndex = ALL_ROWS) -> tuple[torch.Tensor, LSTMState | None]:
        """(action, new LSTM state or None) of `rows` (every row by default), for acting outside
        training: sampled (`pufferlib.pytorch.sample_action`: no log-prob or value computed), or with
        `deterministic` the greedy action (`pufferlib.pytorch.greedy_action`)."""
        logits, _, state = self._forward(obs, state)
        if deterministic:
            return pufferlib.pytorch.greedy_action(logits, self.nvec, self.action_mask(obs)), state
        held = self._held_action(rows, logits)
        if held is not None:
            return held, state
        return pufferlib.pytorch.sample_action(logits, self.nvec, self.action_mask(obs)), state

    def _forward(self, obs: torch.Tensor, state: LSTMState | None,
                 ) -> tuple[Logits, torch.Tensor, LSTMState | None]:
        if self.recurrent:
            return self.policy(obs, state)
        logits, value = self.policy(obs)[:2]
        return logits, value, None

    def _held_action(self, rows: RowIndex, logits: Logits) -> torch.Tensor | None:
        """gSDE's action of `rows` (the mean plus the rows' held noise) for a StateDependentNormal
        head; None for any other head, whose action is sampled."""
        if not isinstance(logits, pufferlib.pytorch.StateDependentNormal):
            return None
        return logits.mean + logits.noise(self._held_noise(rows, logits))

    def _held_noise(self, rows: RowIndex, dist: pufferlib.pytorch.StateDependentNormal) -> torch.Tensor:
        """gSDE's noise matrices of `rows`; each row draws a new one every `dist.hold` steps."""
        std = dist.noise_std.detach()
        if self._noise is None or self._noise.shape[1:] != std.shape:
            self._noise = torch.randn(self.rows, *std.shape, device=std.device) * std
            self._noise_age = torch.zeros(self.rows, dtype=torch.long, device=std.device)
        assert self._noise_age is not None
        age = self._noise_age[rows]
        stale = age >= dist.hold
        if bool(stale.any()):
            index = torch.arange(self.rows, device=std.device)[rows][stale]
            self._noise[index] = torch.randn(len(index), *std.shape, device=std.device) * std
            age = torch.where(stale, 0, age)
        self._noise_age[rows] = age + 1
        return self._noise[rows]

    def keep_state(self, rows: RowIndex, state: LSTMState | None) -> None:
        """Store the LSTM state that acting on `rows` produced."""
        if state is not None:
            self.h[rows], self.c[rows] = state[0].float(), state[1].float()

    def value(self, obs: torch.Tensor, rows: np.ndarray) -> torch.Tensor:
        """V(obs) of `rows`, each with its current LSTM state (for final observations)."""
        if self.recurrent:
            index = torch.from_numpy(rows).to(self.device)
            return self.policy(obs, (self.h[index], self.c[index]))[1].float().view(-1)
        return self.policy(obs)[1].float().view(-1)

    def to_env(self, action: torch.Tensor) -> np.ndarray:
        """Sampled actions as the env takes them: numpy, Box actions clipped to the bounds."""
        send = action.numpy() if self._on_cpu else action.cpu().numpy()  # .cpu() is not free even on the CPU
        return send.clip(self._low, self._high) if self.box else send
