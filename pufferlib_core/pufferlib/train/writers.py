"""How rollout collection writes agent steps into a `pufferlib.train.storage.RolloutStorage`.

Contract: a writer turns what one collection step has (a recv()'s arrays, the policy's
outputs) into writes to the storage's (rows, horizon) tensors, and knows nothing of the
policy or of how the env is stepped: `pufferlib.train.rollout.Rollout` drives it. Each
writer's `begin` readies the storage for a new batch; once the collector has finished the
batch, every step field, the starts and the weights are written (the bootstrap, final
values and LSTM segment states the collector writes itself).

Two strategies, one per collection loop:

* `ColumnWriter`, when every recv() returns all rows, which then share one time index: each
  recv()'s arrays go into their columns in one C call (`pufferlib.train._kernels.copy_rows`,
  into numpy views made once), the policy's outputs are kept aside and stacked into the
  storage once per batch, and the starts are derived from the dones then. This is the common
  case, and its per-step cost is a visible share of a cheap env's step.
* `RowWriter`, when recv() returns groups of rows: each row has its own time pointer, and
  each step's values go where its rows' pointers say, through `RolloutStorage.store` (numpy
  views on the CPU, torch indexing elsewhere).
"""

from __future__ import annotations

import numpy as np
import torch

from pufferlib.errors import APIUsageError
from pufferlib.train._kernels import copy_rows
from pufferlib.train.acting import ALL_ROWS, LSTMState
from pufferlib.train.storage import RolloutStorage

#: The env arrays a recv() brings, in the order `copy_rows` takes them.
ENV_FIELDS = ("obs", "masks", "rewards", "terminals", "truncations")

#: Which rows of a batch still have room in the storage: all (ALL_ROWS), these positions, or none.
Room = slice | np.ndarray | None


class ColumnWriter:
    """Writes synchronous steps (all rows at one time index `t`) into `storage` (see module doc).

    The recv() after acting at t brings the observation and masks of step t + 1 and the
    rewards and dones of step t: `close_step(t, ...)` copies them into their columns.
    """

    def __init__(self, storage: RolloutStorage, env_name: str):
        self.storage, self.env_name = storage, env_name
        self.rows, self.horizon = storage.rows, storage.horizon
        self.mirrors, self._first_copy, self._step_copies = self._destinations()
        #: Each step's (observations acted on, action, logprob, value), stacked into the storage
        #: by `finish`; the observations only off the CPU, where they are not mirrored.
        self.kept: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]] = []
        #: keep((obs, action, logprob, value)): set aside one step's policy outputs (Box actions
        #: unclipped) and the observation tensor acted on. A bound `list.append`, the cheapest
        #: call there is: it runs every step.
        self.keep = self.kept.append

    def _destinations(self) -> tuple[dict[str, torch.Tensor], tuple, list[tuple]]:
        """(CPU mirrors, first copy, step copies): where `copy_rows` copies the env's arrays.

        The mirrors are (rows, horizon) CPU tensors of the env fields: the storage itself on the
        CPU, copies of it (moved over once per batch) on another device; `masks` is always a
        mirror (bool), turned into the float `weights` once per batch. On another device the
        observations are not mirrored: they are on it already for acting, and are kept aside
        with the policy's outputs (`keep`). `step_copies[t]` holds the (rows, ...) numpy column views that the recv()
        after acting at t is copied into, in `ENV_FIELDS` order (None: not stored, for the
        observation that ends the batch), and `first_copy` those of step 0's observation and masks.
        """
        storage = self.storage
        names = ["obs"] if storage.numpy is not None else []
        mirrors = {name: getattr(storage, name) if storage.numpy is not None
                   else torch.zeros_like(getattr(storage, name), device="cpu")
                   for name in [*names, "rewards", "terminals", "truncations"]}
        mirrors["masks"] = torch.zeros(self.rows, self.horizon, dtype=torch.bool)
        columns = {name: list(tensor.numpy().swapaxes(0, 1)) for name, tensor in mirrors.items()}

        def observed(name: str, t: int) -> np.ndarray | None:
            return columns[name][t] if name in columns and t < self.horizon else None

        first = (observed("obs", 0), observed("masks", 0))
        steps = [(observed("obs", t + 1), observed("masks", t + 1), columns["rewards"][t], columns["terminals"][t],
                  columns["truncations"][t]) for t in range(self.horizon)]
        return mirrors, first, steps

    def begin(self) -> None:
        """Start a batch: drop the last one's outputs, no final values yet."""
        self.kept.clear()
        self.storage.final_values.fill_(float("nan"))

    def first_step(self, obs: np.ndarray, masks: np.ndarray) -> None:
        """Write the observations and masks of step 0."""
        self._copy_rows(self._first_copy, (obs, masks))

    def close_step(self, t: int, obs: np.ndarray, masks: np.ndarray, rewards: np.ndarray, terminals: np.ndarray,
                   truncations: np.ndarray) -> int:
        """Write the recv() after acting at `t`: the rewards and dones of step t, the observation
        and masks of step t + 1. Returns the count of truncated rows (their final values are due)."""
        return self._copy_rows(self._step_copies[t], (obs, masks, rewards, terminals, truncations))

    def finish(self, first_starts: np.ndarray) -> None:
        """Move what the batch kept aside into the storage: the policy's outputs, the env fields'
        CPU mirrors (off the CPU), the weights (from the masks) and the starts (step 0's are
        `first_starts`, each later step's the previous step's dones)."""
        storage = self.storage
        obs, actions, logprobs, values = zip(*self.kept)
        outputs = {"actions": actions, "logprobs": logprobs, "values": values}
        if "obs" not in self.mirrors:
            outputs["obs"] = obs
        for name, steps in outputs.items():  # time-major, then one transposed copy: faster than on dim 1
            getattr(storage, name).copy_(torch.stack(steps).transpose(0, 1))
        if storage.numpy is None:
            for name, mirror in self.mirrors.items():
                if name != "masks":
                    getattr(storage, name).copy_(mirror)
        storage.weights.copy_(self.mirrors["masks"])  # padded agents: weight 0
        storage.starts[:, 0] = torch.from_numpy(first_starts)
        storage.starts[:, 1:] = storage.terminals[:, :-1] | storage.truncations[:, :-1]

    def _copy_rows(self, destinations: tuple, arrays: tuple) -> int:
        """`copy_rows` of a recv()'s arrays (in `ENV_FIELDS` order) into their columns;
        APIUsageError naming the arrays that do not fit."""
        try:
            return copy_rows(destinations, arrays)
        except (TypeError, ValueError) as error:
            raise self._unfit_arrays(**dict(zip(ENV_FIELDS, arrays))) from error

    def _unfit_arrays(self, **arrays: np.ndarray) -> APIUsageError:
        """The error for a recv() whose arrays are not of the storage's dtypes and shapes."""
        storage = self.storage
        expected = {"obs": storage.obs, "masks": self.mirrors["masks"], "rewards": storage.rewards,
                    "terminals": storage.terminals, "truncations": storage.truncations}
        described = []
        for name, array in arrays.items():
            want = expected[name]
            want_dtype, want_shape = str(want.dtype).removeprefix("torch."), (self.rows, *want.shape[2:])
            got = np.asarray(array)
            if str(got.dtype) != want_dtype or got.shape != want_shape or not got.flags.c_contiguous:
                described.append(f"{name} {got.dtype} {got.shape}{'' if got.flags.c_contiguous else ' strided'} "
                                 f"(expected {want_dtype} {want_shape}, C-contiguous)")
        return APIUsageError(f"{self.env_name}.recv() returned arrays that do not fit its spaces: "
                             f"{'; '.join(described) or 'see the chained error'}. A vectorized env returns "
                             "C-contiguous arrays of its single spaces' dtypes, one row per agent (observations "
                             "of the observation space, float32 rewards, bool terminals, truncations and masks).")


class RowWriter:
    """Writes steps of groups of rows (`ids`), each row at its own time pointer, into `storage`.

    A recv() closes the previous step of each of its rows that stored one (`close`), then
    the step acted on is written (`write`) while the row has room; a row whose pointer has
    reached the horizon waits for its bootstrap value (`bootstrap`).
    """

    def __init__(self, storage: RolloutStorage, box_actions: bool):
        self.storage, self.horizon, self.box_actions = storage, storage.horizon, box_actions
        rows = storage.rows
        self.ptr = np.zeros(rows, np.int64)  # each row's next time index
        self.stored = np.zeros(rows, bool)  # rows whose last action was stored this batch
        self.bootstrapped = np.zeros(rows, bool)  # rows that have their bootstrap value

    def begin(self) -> None:
        """Set the storage's sparse fields to their usual values (steps write them only where they
        differ: a done, a padded agent, which most steps do not) and every row's time index to 0."""
        storage = self.storage
        storage.final_values.fill_(float("nan"))
        storage.terminals.zero_()
        storage.truncations.zero_()
        storage.starts.zero_()
        storage.weights.fill_(1.0)
        self.ptr[:] = 0
        self.stored[:] = False
        self.bootstrapped[:] = False

    def where(self, ids: np.ndarray) -> tuple[np.ndarray, Room]:
        """(t, room) of a batch of rows `ids`: their time indices, and which of them still have
        room (ALL_ROWS, positions in the batch, or None)."""
        t = self.ptr[ids]
        free = t < self.horizon
        if free.all():
            return t, ALL_ROWS
        return t, np.flatnonzero(free) if free.any() else None

    def close(self, ids: np.ndarray, rewards: np.ndarray, terminals: np.ndarray, truncations: np.ndarray,
              ) -> tuple[np.ndarray, np.ndarray, slice | np.ndarray] | None:
        """Write a recv()'s rewards and dones to the step whose action caused them (rows that stored
        one). Returns (rows, their time indices, their positions in the batch), or None if none."""
        prev = self.stored[ids]
        if not prev.any():
            return None
        sel: slice | np.ndarray = ALL_ROWS if prev.all() else prev
        rows = ids[sel]
        t = self.ptr[rows] - 1
        dones = {name: flags for name, flags in (("terminals", terminals), ("truncations", truncations))
                 if np.count_nonzero(flags)}  # all False: the storage already says so
        self.storage.store(rows, t, sel, rewards=rewards, **dones)
        self.stored[rows] = False
        return rows, t, sel

    def write(self, ids: np.ndarray, t: np.ndarray, room: slice | np.ndarray, obs: np.ndarray,
              obs_dev: torch.Tensor, action: torch.Tensor, send: np.ndarray, logprob: torch.Tensor,
              value: torch.Tensor, starts: np.ndarray, masks: np.ndarray, state: LSTMState | None) -> None:
        """Store the step acted on for the rows of `ids` at positions `room`, and move their time
        pointers on. `obs`/`obs_dev`: the observations as received and on the device; `action`
        as sampled, `send` as sent; `state`: the LSTM state acted with (None if not recurrent)."""
        storage = self.storage
        rows, st = (ids, t) if room is ALL_ROWS else (ids[room], t[room])
        # Discrete actions are stored as sent (one conversion); Box actions unclipped.
        values = dict(obs=obs if storage.numpy is not None else obs_dev,
                      actions=action if self.box_actions or storage.numpy is None else send,
                      logprobs=logprob, values=value)
        if np.count_nonzero(starts):
            values["starts"] = starts
        if np.count_nonzero(masks) != len(masks):  # padded agents: weight 0
            values["weights"] = masks
        storage.store(rows, st, room, **values)
        if state is not None:
            storage.store_segment_state(rows, st, room, state)
        self.stored[rows] = True
        self.ptr[rows] += 1

    def bootstrap(self, rows: np.ndarray, t: np.ndarray, value: torch.Tensor) -> bool:
        """Record V(obs) of `rows` that are full and have no bootstrap value yet; True once all rows
        have one (the batch is complete)."""
        full = (t >= self.horizon) & ~self.bootstrapped[rows]
        if full.any():
            pos = np.flatnonzero(full)
            device = self.storage.device
            self.storage.bootstrap[torch.from_numpy(rows[pos]).to(device)] = value[torch.from_numpy(pos).to(device)]
            self.bootstrapped[rows[pos]] = True
        return bool(self.bootstrapped.all())
