"""The experience of one training batch: (rows, horizon) tensors, one row per agent of the env.

Contract: `RolloutStorage` holds the per-step fields (`STEP_FIELDS`: observations, actions,
log-probabilities, values, rewards, weights, terminals, truncations, starts), the bootstrap
value of each row, the value of each truncated step's final observation (`final_values`,
NaN where none), and for recurrent policies the LSTM state at the start of each
`segment`-step training sequence. It knows how to write into them and nothing of envs or
policies: `pufferlib.train.rollout` fills it, the trainer reads it.

Writes take storage rows and per-row time indices (`store`): on the CPU through numpy views
of the tensors (`numpy`), cheaper per call than torch indexing; elsewhere through torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import pufferlib.pytorch
from pufferlib.errors import APIUsageError
from pufferlib.train.acting import ALL_ROWS

#: Row-id arrays whose storage index (`_index_of`) is remembered; the async API hands back the
#: same few arrays (one per env group), so a small cache holds them all.
ROW_INDEX_CACHE = 64


class RolloutStorage:
    """(rows, horizon) tensors for one batch of `rows * horizon` agent steps (see module doc)."""

    STEP_FIELDS = ("obs", "actions", "logprobs", "values", "rewards", "weights", "terminals", "truncations",
                   "starts")

    def __init__(self, rows: int, horizon: int, segment: int, obs_shape: tuple[int, ...], obs_dtype: np.dtype,
                 act_shape: tuple[int, ...], act_dtype: torch.dtype, device: torch.device,
                 state_size: int | None = None):
        self.rows, self.horizon, self.segment, self.device = rows, horizon, segment, device
        self.batch_size, self.num_segments = rows * horizon, rows * horizon // segment

        def zeros(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
            return torch.zeros(rows, horizon, *shape, dtype=dtype, device=device)

        self.obs = zeros(*obs_shape, dtype=pufferlib.pytorch.torch_dtype(obs_dtype))
        self.actions = zeros(*act_shape, dtype=act_dtype)
        self.logprobs, self.values, self.rewards, self.weights = zeros(), zeros(), zeros(), zeros()
        self.terminals, self.truncations, self.starts = (zeros(dtype=torch.bool) for _ in range(3))
        self.bootstrap = torch.zeros(rows, device=device)
        self.final_values = torch.full((rows, horizon), float("nan"), device=device)
        if state_size is not None:
            self.state_h = torch.zeros(self.num_segments, state_size, device=device)
            self.state_c = torch.zeros_like(self.state_h)
        #: Agent steps the storage holds (the batch size once a batch was collected).
        self.steps_collected = 0
        #: numpy views of the step fields on the CPU, else None (see `numpy_views`).
        self.numpy: dict[str, np.ndarray] | None = (
            {name: getattr(self, name).numpy() for name in self.STEP_FIELDS} if self.numpy_views(device) else None)
        self._row_cache: dict[int, tuple[np.ndarray, slice | torch.Tensor]] = {}

    @staticmethod
    def numpy_views(device: torch.device) -> bool:
        """Whether per-step writes go through numpy views of the storage: on the CPU, where
        they are cheaper than torch indexing."""
        return device.type == "cpu"

    @staticmethod
    def check_sizes(rows: int, batch_size: int, segment: int) -> int:
        """The steps per agent row of a batch; APIUsageError when the sizes do not fit."""
        if batch_size % rows:
            raise APIUsageError(
                f"batch_size={batch_size} must be a multiple of the env's {rows} agent rows "
                f"(e.g. {rows * max(1, batch_size // rows)}); change batch_size or num_envs.")
        horizon = batch_size // rows
        if horizon % segment:
            raise APIUsageError(
                f"bptt_horizon={segment} must divide the {horizon} steps per agent row of a batch "
                f"(batch_size {batch_size} / {rows} rows).")
        return horizon

    def segments(self, x: torch.Tensor) -> torch.Tensor:
        """A (rows, horizon, ...) tensor viewed as (num_segments, segment, ...)."""
        return x.view(self.num_segments, self.segment, *x.shape[2:])

    def store_segment_state(self, rows: slice | np.ndarray, t: int | np.ndarray, sel: slice | np.ndarray,
                            state: tuple[torch.Tensor, torch.Tensor]) -> None:
        """Keep the LSTM state (of batch positions `sel`) of stored rows whose step at `t` starts
        a `segment`-step training sequence (every row at one int `t` in the synchronous case)."""
        per_row = self.horizon // self.segment
        view_h = self.state_h.view(self.rows, per_row, -1)
        view_c = self.state_c.view(self.rows, per_row, -1)
        if isinstance(t, int):
            if t % self.segment == 0:
                view_h[:, t // self.segment], view_c[:, t // self.segment] = state
            return
        assert isinstance(rows, np.ndarray)  # with a time index per row come their row ids
        first = t % self.segment == 0
        if first.any():
            pos = (np.arange(len(t)) if isinstance(sel, slice) else sel)[first]  # a slice sel is ALL_ROWS
            seg_rows = torch.from_numpy(rows[first]).to(self.device)
            seg_t = torch.from_numpy(t[first] // self.segment).to(self.device)
            pick = torch.from_numpy(pos).to(self.device)
            view_h[seg_rows, seg_t], view_c[seg_rows, seg_t] = state[0][pick], state[1][pick]

    def _index_of(self, ids: np.ndarray) -> slice | torch.Tensor:
        """An index for storage rows `ids`: a slice when they are a sorted run (cached per array)."""
        cached = self._row_cache.get(id(ids))
        if cached is not None and cached[0] is ids:
            return cached[1]
        lo, hi = int(ids[0]), int(ids[-1]) + 1
        if hi - lo == len(ids) and (np.diff(ids) == 1).all():
            index: slice | torch.Tensor = slice(lo, hi)
        else:
            index = torch.from_numpy(ids).to(self.device)
        if len(self._row_cache) > ROW_INDEX_CACHE:
            self._row_cache.clear()
        self._row_cache[id(ids)] = (ids, index)
        return index

    def store(self, rows: np.ndarray, t: np.ndarray, sel: slice | np.ndarray, **values: Any) -> None:
        """storage[name][rows, t] = value[sel] for each named per-row batch value (numpy or torch):
        storage row ids `rows` with their time indices `t`; `sel` picks their positions in the batch."""
        n = len(rows)
        index: tuple
        if (t == t[0]).all():
            cached = self._index_of(rows)
            index = ((cached if isinstance(cached, slice) else rows) if self.numpy is not None else cached,
                     int(t[0]))
        elif self.numpy is not None:
            index = (rows, t)
        else:
            index = (torch.from_numpy(rows).to(self.device), torch.from_numpy(t).to(self.device))
        if self.numpy is not None:
            for name, value in values.items():
                if isinstance(value, torch.Tensor):
                    value = value.numpy()
                target = self.numpy[name]
                target[index] = (value if sel is ALL_ROWS else value[sel]).reshape(n, *target.shape[2:])
            return
        pick = sel if sel is ALL_ROWS else torch.from_numpy(sel).to(self.device)
        for name, value in values.items():
            target = getattr(self, name)
            if isinstance(value, np.ndarray):
                value = torch.from_numpy(value)
            value = value.to(self.device)
            target[index] = (value if pick is ALL_ROWS else value[pick]).to(target.dtype).reshape(
                n, *target.shape[2:])
