"""Rollout storage and collection for PuffeRL, over the async vectorized-env API.

Each agent row of the env owns row `i` of the (rows, horizon) tensors and its own time
pointer, so batches may arrive in any grouping (`env_ids`), as the async API allows.
A `recv()` carries the reward/terminal/truncation of the row's previous action (written
to the step that took it) and the next observation (auto-reset: the first of a new
episode after a done, which also resets the row's LSTM state).

A truncated step is bootstrapped from the value of the episode's final observation
(`final_values`), which the env keeps in `final_observations` when it can (see
`pufferlib.environment`); otherwise `final_values` stays NaN and the advantages stand in
the value of the step's own observation.

A batch ends when every row has `horizon` steps and a bootstrap value. In the synchronous
case that happens on one `recv()`, whose observations are held (not acted on) and become
the first step of the next batch, so no transition is lost. With several env groups, a
row that is full while others still collect keeps acting; those few transitions are not
stored (their rewards still count in the episode stats that the env reports).
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

import numpy as np
import torch
from gymnasium import spaces

import pufferlib.pytorch
from pufferlib.errors import APIUsageError


class Rollout:
    """(rows, horizon) storage for one batch, filled by `collect`."""

    STEP_FIELDS = ("obs", "actions", "logprobs", "values", "rewards", "weights", "terminals", "truncations",
                   "starts")

    def __init__(self, env: Any, policy: torch.nn.Module, device: torch.device, batch_size: int,
                 segment: int, recurrent: bool):
        rows = env.num_agents
        if batch_size % rows:
            raise APIUsageError(
                f"batch_size={batch_size} must be a multiple of the env's {rows} agent rows "
                f"(e.g. {rows * max(1, batch_size // rows)}); change batch_size or num_envs.")
        horizon = batch_size // rows
        if horizon % segment:
            raise APIUsageError(
                f"bptt_horizon={segment} must divide the {horizon} steps per agent row of a batch "
                f"(batch_size {batch_size} / {rows} rows).")
        self.env, self.policy, self.device, self.recurrent = env, policy, device, recurrent
        self.rows, self.horizon, self.segment = rows, horizon, segment
        self.batch_size, self.num_segments = batch_size, batch_size // segment
        obs_space, act_space = env.single_observation_space, env.single_action_space
        self.nvec: list[int] | None = None
        self.box = isinstance(act_space, spaces.Box)
        if isinstance(act_space, spaces.Discrete):
            act_shape, act_dtype = (), torch.int64
        elif isinstance(act_space, spaces.MultiDiscrete):
            self.nvec = [int(n) for n in act_space.nvec.ravel()]
            act_shape, act_dtype = (len(self.nvec),), torch.int64
        elif self.box:
            act_shape, act_dtype = tuple(act_space.shape), torch.float32
            self._low, self._high = act_space.low, act_space.high
        else:
            raise APIUsageError(f"Unsupported action space {act_space}; expected Discrete, MultiDiscrete or Box.")

        def zeros(*shape, dtype=torch.float32):
            return torch.zeros(rows, horizon, *shape, dtype=dtype, device=device)

        self.obs = zeros(*obs_space.shape, dtype=pufferlib.pytorch.torch_dtype(obs_space.dtype))
        self.actions = zeros(*act_shape, dtype=act_dtype)
        self.logprobs, self.values, self.rewards, self.weights = zeros(), zeros(), zeros(), zeros()
        self.terminals, self.truncations, self.starts = (zeros(dtype=torch.bool) for _ in range(3))
        self.bootstrap = torch.zeros(rows, device=device)
        self.final_values = torch.full((rows, horizon), float("nan"), device=device)
        if recurrent:
            size = policy.hidden_size
            self.h = torch.zeros(rows, size, device=device)
            self.c = torch.zeros(rows, size, device=device)
            self.state_h = torch.zeros(rows * horizon // segment, size, device=device)
            self.state_c = torch.zeros_like(self.state_h)
        self._layout = getattr(env, "obs_layout", None)
        self._writes_final = bool(getattr(env, "writes_final_observations", False))
        self._has_mask = pufferlib.pytorch.action_mask(torch.zeros(1, *obs_space.shape, dtype=self.obs.dtype),
                                                       self._layout) is not None
        self.ptr = np.zeros(rows, np.int64)
        self._all_rows = np.arange(rows)
        self.stored = np.zeros(rows, bool)  # the row's last action was stored this batch
        self.bootstrapped = np.zeros(rows, bool)
        self.steps_collected = 0
        self.held: tuple | None = None
        self._row_cache: dict[int, tuple] = {}
        # On CPU, per-step writes go through numpy views of the storage (cheaper than torch indexing).
        self._numpy = {name: getattr(self, name).numpy() for name in self.STEP_FIELDS} if device.type == "cpu" else None
        self.infos: dict[str, list[float]] = defaultdict(list)
        env.async_reset()

    def action_mask(self, obs: torch.Tensor) -> torch.Tensor | None:
        """The env's action mask for `obs` (see `pufferlib.pytorch.action_mask`), or None."""
        return pufferlib.pytorch.action_mask(obs, self._layout) if self._has_mask else None

    def segments(self, x: torch.Tensor) -> torch.Tensor:
        """A (rows, horizon, ...) tensor viewed as (num_segments, segment, ...)."""
        return x.view(self.num_segments, self.segment, *x.shape[2:])

    def pop_infos(self) -> dict[str, list[float]]:
        """The numeric env infos gathered since the last call."""
        infos, self.infos = self.infos, defaultdict(list)
        return infos

    def _add_infos(self, infos: list) -> None:
        for info in infos:
            for key, value in info.items():
                if isinstance(value, dict):
                    for sub, v in value.items():
                        if isinstance(v, (int, float, np.number)):
                            self.infos[f"{key}/{sub}"].append(float(v))
                elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
                    self.infos[key].append(float(value))

    def _act(self, obs_t: torch.Tensor, state: tuple | None):
        """(action, logprob, value, new LSTM state or None) of one batch of observations."""
        if self.recurrent:
            logits, value, state = self.policy(obs_t, state)
        else:
            logits, value = self.policy(obs_t)[:2]
        action, logprob, _ = pufferlib.pytorch.sample_logits(logits, None, self.nvec, self.action_mask(obs_t),
                                                             entropy=False)
        return action, logprob, value.float().view(-1), state

    def _recv(self, profile: dict[str, float]) -> tuple:
        """`env.recv()`, timed as env time; its numeric infos join `self.infos`."""
        clock = time.perf_counter()
        batch = self.env.recv()
        profile["env"] += time.perf_counter() - clock
        if batch[4]:
            self._add_infos(batch[4])
        return batch

    def _final_values(self, rows: np.ndarray, t: np.ndarray | int, terminals: np.ndarray,
                      truncations: np.ndarray) -> None:
        """final_values[rows, t] = V(final observation) where the step at t was truncated, not terminal.

        The LSTM state is the row's state after acting at t, as the observation's own would be.
        """
        if not self._writes_final or not truncations.any():
            return
        cut = truncations & ~terminals
        if not cut.any():
            return
        rows, t = rows[cut], (t[cut] if isinstance(t, np.ndarray) else np.full(int(cut.sum()), t))
        obs = torch.from_numpy(self.env.final_observations[rows]).to(self.device)
        if self.recurrent:
            index = torch.from_numpy(rows).to(self.device)
            value = self.policy(obs, (self.h[index], self.c[index]))[1]
        else:
            value = self.policy(obs)[1]
        self.final_values[torch.from_numpy(rows).to(self.device), torch.from_numpy(t).to(self.device)] = \
            value.float().view(-1)

    def _send(self, action: torch.Tensor) -> np.ndarray:
        send = action.cpu().numpy()
        return send.clip(self._low, self._high) if self.box else send

    def _set(self, t: int, **values: Any) -> None:
        """storage[name][:, t] = value for every row (the synchronous case)."""
        for name, value in values.items():
            if self._numpy is not None:
                self._numpy[name][:, t] = value.numpy() if isinstance(value, torch.Tensor) else value
            else:
                target = getattr(self, name)
                target[:, t] = torch.as_tensor(value).to(self.device, target.dtype).view(target[:, t].shape)

    # no_grad rather than inference_mode: a policy may keep state (e.g. a running observation
    # normaliser) set while acting, which inference tensors would bar from training.
    @torch.no_grad()
    def collect(self, profile: dict[str, float]) -> dict[str, list[float]]:
        """Fill the storage with one batch; `profile` accumulates env/forward/copy seconds."""
        self.final_values.fill_(float("nan"))
        if self.env.agents_per_batch == self.rows:
            self._collect_sync(profile)
            self.steps_collected = self.batch_size
            return dict(self.infos)
        self.ptr[:] = 0
        self.stored[:] = False
        self.bootstrapped[:] = False
        env, T, dev = self.env, self.horizon, self.device
        while True:
            if self.held is not None:  # last batch's final observations, already accounted for
                obs, ids, masks, starts = self.held
                self.held = None
                clock = time.perf_counter()
            else:
                obs, rewards, terminals, truncations, _, ids, masks = self._recv(profile)
                clock = time.perf_counter()
                ids = np.asarray(ids)
                prev = self.stored[ids]
                if prev.all():
                    self._write(ids, self.ptr[ids] - 1, rewards=rewards, terminals=terminals,
                                truncations=truncations)
                elif prev.any():
                    self._write(ids[prev], self.ptr[ids[prev]] - 1, rewards=rewards[prev],
                                terminals=terminals[prev], truncations=truncations[prev])
                if prev.any():
                    self._final_values(ids[prev], self.ptr[ids[prev]] - 1, terminals[prev], truncations[prev])
                self.stored[ids] = False
                starts = np.logical_or(terminals, truncations)
            obs_t = torch.from_numpy(obs).to(dev, non_blocking=True)
            starts_t = torch.from_numpy(np.asarray(starts)).to(dev)
            ptr = self.ptr[ids]
            free = ptr < T
            state = None
            if self.recurrent:
                keep = (~starts_t).float().unsqueeze(1)
                idx_t = torch.from_numpy(ids).to(dev)
                state = (self.h[idx_t] * keep, self.c[idx_t] * keep)
            profile["copy"] += time.perf_counter() - clock

            clock = time.perf_counter()
            action, logprob, value, new_state = self._act(obs_t, state)
            now = time.perf_counter()
            profile["forward"] += now - clock
            clock = now

            if free.any():
                pos = np.flatnonzero(free)
                sel = slice(None) if len(pos) == len(ids) else torch.from_numpy(pos).to(dev)
                rows, t = (ids, ptr) if len(pos) == len(ids) else (ids[pos], ptr[pos])
                self._write(rows, t, obs=obs_t[sel], actions=action[sel], logprobs=logprob[sel], values=value[sel],
                            weights=torch.from_numpy(np.asarray(masks)[pos]), starts=starts_t[sel])
                if self.recurrent:
                    first = t % self.segment == 0
                    if first.any():
                        seg_ids = torch.from_numpy(rows[first] * (T // self.segment) + t[first] // self.segment).to(dev)
                        pick = torch.from_numpy(pos[first]).to(dev)
                        self.state_h[seg_ids] = state[0][pick]
                        self.state_c[seg_ids] = state[1][pick]
            newly_full = (~free) & ~self.bootstrapped[ids]
            if newly_full.any():
                pos = np.flatnonzero(newly_full)
                self.bootstrap[torch.from_numpy(ids[pos]).to(dev)] = value[torch.from_numpy(pos).to(dev)]
                self.bootstrapped[ids[pos]] = True
            if self.bootstrapped.all():
                self.held = (obs.copy(), ids.copy(), np.array(masks, copy=True), np.array(starts, copy=True))
                profile["copy"] += time.perf_counter() - clock
                break
            if free.any():
                rows = ids[free]
                self.stored[rows] = True
                self.ptr[rows] += 1
            if self.recurrent:
                self.h[idx_t], self.c[idx_t] = new_state[0].float(), new_state[1].float()
            send = self._send(action)
            profile["copy"] += time.perf_counter() - clock
            clock = time.perf_counter()
            env.send(send)
            profile["env"] += time.perf_counter() - clock
        self.steps_collected = self.batch_size
        return dict(self.infos)

    def _collect_sync(self, profile: dict[str, float]) -> None:
        """`collect` when every recv() returns all rows: one time index for the whole batch."""
        env, dev = self.env, self.device
        for t in range(self.horizon + 1):
            if t == 0 and self.held is not None:
                obs, _, masks, starts = self.held
                self.held = None
                clock = time.perf_counter()
            else:
                obs, rewards, terminals, truncations, _, _, masks = self._recv(profile)
                clock = time.perf_counter()
                if t > 0:
                    self._set(t - 1, rewards=rewards, terminals=terminals, truncations=truncations)
                    self._final_values(self._all_rows, t - 1, terminals, truncations)
                starts = terminals | truncations
            obs_t = torch.from_numpy(obs) if self._numpy is not None else torch.from_numpy(obs).to(dev)
            state = None
            if self.recurrent:
                keep = torch.from_numpy(~starts).to(dev).unsqueeze(1)
                state = (self.h * keep, self.c * keep)
            profile["copy"] += time.perf_counter() - clock
            clock = time.perf_counter()
            action, logprob, value, new_state = self._act(obs_t, state)
            now = time.perf_counter()
            profile["forward"] += now - clock
            clock = now
            if t == self.horizon:
                self.bootstrap[:] = value
                self.held = (obs.copy(), None, np.array(masks, copy=True), np.array(starts, copy=True))
                profile["copy"] += time.perf_counter() - clock
                return
            self._set(t, obs=obs if self._numpy is not None else obs_t, actions=action, logprobs=logprob,
                      values=value, weights=masks, starts=starts)
            if self.recurrent:
                if t % self.segment == 0:
                    per_row = self.horizon // self.segment
                    self.state_h.view(self.rows, per_row, -1)[:, t // self.segment] = state[0]
                    self.state_c.view(self.rows, per_row, -1)[:, t // self.segment] = state[1]
                self.h, self.c = new_state[0].float(), new_state[1].float()
            send = self._send(action)
            now = time.perf_counter()
            profile["copy"] += now - clock
            env.send(send)
            profile["env"] += time.perf_counter() - now

    def _rows(self, ids: np.ndarray) -> slice | torch.Tensor:
        """An index for storage rows `ids`: a slice when they are a sorted run (cached per array)."""
        cached = self._row_cache.get(id(ids))
        if cached is not None and cached[0] is ids:
            return cached[1]
        lo, hi = int(ids[0]), int(ids[-1]) + 1
        if hi - lo == len(ids) and (np.diff(ids) == 1).all():
            index: slice | torch.Tensor = slice(lo, hi)
        else:
            index = torch.from_numpy(ids).to(self.device)
        if len(self._row_cache) > 64:
            self._row_cache.clear()
        self._row_cache[id(ids)] = (ids, index)
        return index

    def _write(self, rows: np.ndarray, t: np.ndarray, **values: Any) -> None:
        """storage[name][rows, t] = value for each named value (numpy or torch)."""
        if self._numpy is not None:
            index_np: tuple = (rows, t)
            if (t == t[0]).all():
                cached = self._rows(rows)
                index_np = (cached if isinstance(cached, slice) else rows, int(t[0]))
            for name, value in values.items():
                target = self._numpy[name]
                target[index_np] = (value.numpy() if isinstance(value, torch.Tensor) else value).reshape(
                    len(rows), *target.shape[2:])
            return
        if (t == t[0]).all():
            index: tuple = (self._rows(rows), int(t[0]))
        else:
            index = (torch.from_numpy(rows).to(self.device), torch.from_numpy(t).to(self.device))
        for name, value in values.items():
            target = getattr(self, name)
            if isinstance(value, np.ndarray):
                value = torch.from_numpy(value)
            target[index] = value.to(self.device, target.dtype).reshape(len(rows), *target.shape[2:])
