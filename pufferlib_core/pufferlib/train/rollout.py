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

The synchronous case has its own loop (`_collect_sync`), because it is the common one and
its per-step cost is a visible share of a cheap env's step: each recv()'s arrays go into
their columns of the storage in one C call (`pufferlib.train._kernels.copy_rows`, into views made
once), the policy's outputs stay in lists stacked into the storage once per batch, and
starts are derived from the dones then. The general loop (`_collect_async`) writes each
step's values where its rows' own time pointers say.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import torch
from gymnasium import spaces

import pufferlib.pytorch
from pufferlib.errors import APIUsageError
from pufferlib.protocols import VecEnv
from pufferlib.train._kernels import copy_rows
from pufferlib.train.acting import ALL_ROWS, Actor

#: Row-id arrays whose storage index (`_rows`) is remembered; the async API hands back the same
#: few arrays (one per env group), so a small cache holds them all.
ROW_INDEX_CACHE = 64


class Rollout:
    """(rows, horizon) storage for one batch, filled by `collect`."""

    STEP_FIELDS = ("obs", "actions", "logprobs", "values", "rewards", "weights", "terminals", "truncations",
                   "starts")

    def __init__(self, env: VecEnv, policy: torch.nn.Module, device: torch.device, batch_size: int,
                 segment: int, recurrent: bool):
        rows = env.num_agents
        horizon = self.check_sizes(rows, batch_size, segment)
        self.actor = Actor(env, policy, device)
        if self.actor.recurrent != recurrent:
            raise APIUsageError(f"recurrent={recurrent} but the policy's is_recurrent is {self.actor.recurrent}.")
        self.env, self.policy, self.device, self.recurrent = env, policy, device, recurrent
        self.rows, self.horizon, self.segment = rows, horizon, segment
        self.batch_size, self.num_segments = batch_size, batch_size // segment
        self.nvec = self.actor.nvec
        obs_space, act_space = env.single_observation_space, env.single_action_space
        assert obs_space.shape is not None, f"{obs_space!r} has no shape"  # observation spaces are Boxes
        if isinstance(act_space, spaces.Box):
            act_shape, act_dtype = tuple(act_space.shape), torch.float32
        else:
            act_shape, act_dtype = (() if self.nvec is None else (len(self.nvec),)), torch.int64

        def zeros(*shape, dtype=torch.float32):
            return torch.zeros(rows, horizon, *shape, dtype=dtype, device=device)

        self.obs = zeros(*obs_space.shape, dtype=pufferlib.pytorch.torch_dtype(obs_space.dtype))
        self.actions = zeros(*act_shape, dtype=act_dtype)
        self.logprobs, self.values, self.rewards, self.weights = zeros(), zeros(), zeros(), zeros()
        self.terminals, self.truncations, self.starts = (zeros(dtype=torch.bool) for _ in range(3))
        self.bootstrap = torch.zeros(rows, device=device)
        self.final_values = torch.full((rows, horizon), float("nan"), device=device)
        if recurrent:
            size = self.actor.h.shape[1]
            self.state_h = torch.zeros(rows * horizon // segment, size, device=device)
            self.state_c = torch.zeros_like(self.state_h)
        self._writes_final = env.writes_final_observations
        # The synchronous case (every recv() returns all rows, `_collect_sync`) and the general
        # one (`_collect_async`, where each row has its own time index `ptr` and `stored` marks
        # the rows whose last action was stored this batch).
        self._sync = env.agents_per_batch == rows
        self.ptr = np.zeros(rows, np.int64)
        self._all_rows = np.arange(rows)
        self.stored = np.zeros(rows, bool)
        self.bootstrapped = np.zeros(rows, bool)
        self.steps_collected = 0
        self.held: tuple | None = None  # (obs, row ids or None when synchronous, masks, starts) carried over
        self._row_cache: dict[int, tuple] = {}
        self._numpy = ({name: getattr(self, name).numpy() for name in self.STEP_FIELDS}
                       if self.numpy_views(device) else None)
        if self._sync:
            self._mirrors, self._first_copy, self._step_copies = self._sync_destinations()
            self._outputs: dict[str, list[torch.Tensor]] = {
                name: [] for name in ("actions", "logprobs", "values") + (() if "obs" in self._mirrors else ("obs",))}
        self.infos: dict[str, list[float]] = defaultdict(list)
        self._grad_mode: Callable[[], AbstractContextManager[None]] = torch.inference_mode  # see collect()
        env.async_reset()

    def _sync_destinations(self) -> tuple[dict[str, torch.Tensor], tuple, list[tuple]]:
        """(CPU mirrors, first copy, step copies): where the synchronous loop copies the env's arrays.

        The mirrors are (rows, horizon) CPU tensors of the env fields: the storage itself on the
        CPU, copies of it (moved over once per batch) on another device; `masks` is always a
        mirror (bool), turned into the float `weights` once per batch. On another device the
        observations are not mirrored: they are on it already for acting, and go through the
        output lists. The recv() after acting at t brings the observation and masks of step
        t + 1 and the rewards and dones of step t; `step_copies[t]` holds the (rows, ...)
        numpy column views that `copy_rows` copies them into, in that order (None: not stored,
        for the observation that ends the batch), and `first_copy` those of step 0's.
        """
        names = ["obs"] if self._numpy is not None else []
        mirrors = {name: getattr(self, name) if self._numpy is not None else torch.zeros_like(getattr(self, name),
                                                                                               device="cpu")
                   for name in [*names, "rewards", "terminals", "truncations"]}
        mirrors["masks"] = torch.zeros(self.rows, self.horizon, dtype=torch.bool)
        columns = {name: list(tensor.numpy().swapaxes(0, 1)) for name, tensor in mirrors.items()}

        def observed(name: str, t: int) -> np.ndarray | None:
            return columns[name][t] if name in columns and t < self.horizon else None

        first = (observed("obs", 0), observed("masks", 0))
        steps = [(observed("obs", t + 1), observed("masks", t + 1), columns["rewards"][t], columns["terminals"][t],
                  columns["truncations"][t]) for t in range(self.horizon)]
        return mirrors, first, steps

    @staticmethod
    def numpy_views(device: torch.device) -> bool:
        """Whether per-step writes go through numpy views of the storage: on the CPU, where
        they are cheaper than torch indexing. Elsewhere they go through torch, and the
        synchronous loop's env fields through CPU mirrors (`_sync_destinations`)."""
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

    def action_mask(self, obs: torch.Tensor) -> torch.Tensor | None:
        """The env's action mask for `obs` (see `pufferlib.pytorch.action_mask`), or None."""
        return self.actor.action_mask(obs)

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

    def collect(self, profile: dict[str, float], each_step: Callable[[], object] | None = None,
                ) -> dict[str, list[float]]:
        """Fill the storage with one batch; `profile` accumulates env/forward/copy seconds, and
        `each_step` (if given) is called before each step's acting (the trainer's thread tuner
        looks at the machine's load there).

        Acting runs under `torch.inference_mode` (on CartPole's small network, acting is 15%
        faster than under `no_grad`). A policy that assigns new tensors to its buffers while
        acting (a running normaliser, say) would leave inference tensors that training
        cannot use: after the batch they are copied back into normal tensors, a warning
        says so, and later batches collect under `no_grad`.
        """
        with self._grad_mode():
            infos = (self._collect_sync if self._sync else self._collect_async)(profile, each_step)
        if self._grad_mode is torch.inference_mode:
            self._recover_from_inference_mode()
        return infos

    def _recover_from_inference_mode(self) -> None:
        """Turn buffers the policy set while acting back into normal tensors (see `collect`)."""
        replaced = []
        for prefix, module in self.policy.named_modules():  # one walk, its dicts read directly
            if any(p is not None and p.is_inference() for p in module._parameters.values()):
                raise APIUsageError(f"{type(self.policy).__name__} created parameters while acting "
                                    f"({prefix or 'the policy'}); create them in __init__.")
            for name, buf in module._buffers.items():
                if buf is not None and buf.is_inference():
                    module._buffers[name] = buf.clone()  # outside inference mode: a normal tensor
                    replaced.append(f"{prefix}.{name}" if prefix else name)
        if replaced:
            import warnings

            self._grad_mode = torch.no_grad
            warnings.warn(f"{type(self.policy).__name__} assigned new tensors to buffers {replaced} while acting; "
                          "they were copied out of inference mode, and acting runs under torch.no_grad from now "
                          "on (slower). Update buffers in place (buf.copy_(...)) to keep the fast path.",
                          stacklevel=3)

    def _collect_sync(self, profile: dict[str, float], each_step: Callable[[], object] | None,
                      ) -> dict[str, list[float]]:
        """`collect` when every recv() returns all rows: they share one time index `t`.

        A recv() after acting at t closes step t (its reward and dones) and brings the
        observation of step t + 1: one `copy_rows` call copies them all into their columns of
        the storage (`_sync_destinations`). The policy's outputs stay in lists until the batch is
        full and are then stacked into it, and each step's start flag is the previous step's done.
        """
        actor, recurrent, horizon, dev = self.actor, self.recurrent, self.horizon, self.device
        step_copies, outputs = self._step_copies, self._outputs
        obs_out = outputs.get("obs")
        actions_out, logprobs_out, values_out = outputs["actions"], outputs["logprobs"], outputs["values"]
        for values in outputs.values():
            values.clear()
        self.final_values.fill_(float("nan"))
        env_s = copy_s = forward_s = 0.0
        clock = time.perf_counter()
        if self.held is not None:  # last batch's final observations, already accounted for
            obs, _, masks, starts = self.held
            self.held = None
        else:  # the reset's observations: no step to close
            obs, _, terminals, truncations, infos, _, masks = self.env.recv()
            now = time.perf_counter()
            env_s += now - clock
            clock = now
            if infos:
                self._add_infos(infos)
            starts = terminals | truncations
        first_starts = starts
        try:
            copy_rows(self._first_copy, (obs, masks))
        except (TypeError, ValueError) as error:
            raise self._unfit_arrays(obs=obs, masks=masks) from error
        obs_np = obs_t = None  # the last observation array and its tensor (the same view each step on the CPU)
        t = 0
        while True:
            if each_step is not None:
                each_step()
            if obs is not obs_np:
                obs_np = obs
                obs_t = torch.from_numpy(obs) if self._numpy is not None else None
            # Off the CPU a copy (what moving it there makes anyway), kept in the output lists.
            obs_dev = obs_t if obs_t is not None else torch.from_numpy(obs).to(dev, copy=True)
            state = actor.state(ALL_ROWS, torch.from_numpy(starts).to(dev)) if recurrent else None
            now = time.perf_counter()
            copy_s += now - clock

            action, logprob, value, new_state = actor.act(obs_dev, state)
            clock = time.perf_counter()
            forward_s += clock - now

            if t == horizon:  # the bootstrap value; these observations start the next batch
                self.bootstrap.copy_(value)
                self.held = (obs.copy(), None, np.array(masks, copy=True), starts)  # rows: all, in order
                break
            send = actor.to_env(action)
            if obs_out is not None:
                obs_out.append(obs_dev)
            actions_out.append(action)  # Box actions unclipped
            logprobs_out.append(logprob)
            values_out.append(value)
            if recurrent:
                assert state is not None  # a recurrent actor has a state
                self._store_segment_state(ALL_ROWS, t, ALL_ROWS, state)
                actor.keep_state(ALL_ROWS, new_state)
            now = time.perf_counter()
            copy_s += now - clock
            self.env.send(send)
            obs, rewards, terminals, truncations, infos, _, masks = self.env.recv()
            clock = time.perf_counter()
            env_s += clock - now
            if infos:
                self._add_infos(infos)
            try:  # returns how many rows truncated: rarely any, and then their final values are due
                truncated = copy_rows(step_copies[t], (obs, masks, rewards, terminals, truncations))
            except (TypeError, ValueError) as error:
                raise self._unfit_arrays(obs=obs, masks=masks, rewards=rewards, terminals=terminals,
                                         truncations=truncations) from error
            if truncated and self._writes_final:
                self._final_values(self._all_rows, t, terminals, truncations)
            t += 1
            if recurrent or t == horizon:
                starts = terminals | truncations
        for name, values in outputs.items():  # time-major, then one transposed copy: twice as fast as stacking on dim 1
            getattr(self, name).copy_(torch.stack(values).transpose(0, 1))
        if self._numpy is None:
            for name, mirror in self._mirrors.items():
                if name != "masks":
                    getattr(self, name).copy_(mirror)
        self.weights.copy_(self._mirrors["masks"])  # padded agents: weight 0
        self.starts[:, 0] = torch.from_numpy(first_starts)
        self.starts[:, 1:] = self.terminals[:, :-1] | self.truncations[:, :-1]
        profile["env"] += env_s
        profile["copy"] += copy_s + time.perf_counter() - clock
        profile["forward"] += forward_s
        self.steps_collected = self.batch_size
        return dict(self.infos)

    def _unfit_arrays(self, **arrays: np.ndarray) -> APIUsageError:
        """The error for a recv() whose arrays are not of the storage's dtypes and shapes."""
        expected = {"obs": self.obs, "masks": self._mirrors["masks"], "rewards": self.rewards,
                    "terminals": self.terminals, "truncations": self.truncations}
        described = []
        for name, array in arrays.items():
            want = expected[name]
            want_dtype, want_shape = str(want.dtype).removeprefix("torch."), (self.rows, *want.shape[2:])
            got = np.asarray(array)
            if str(got.dtype) != want_dtype or got.shape != want_shape or not got.flags.c_contiguous:
                described.append(f"{name} {got.dtype} {got.shape}{'' if got.flags.c_contiguous else ' strided'} "
                                 f"(expected {want_dtype} {want_shape}, C-contiguous)")
        return APIUsageError(f"{type(self.env).__name__}.recv() returned arrays that do not fit its spaces: "
                             f"{'; '.join(described) or 'see the chained error'}. A vectorized env returns "
                             "C-contiguous arrays of its single spaces' dtypes, one row per agent (observations "
                             "of the observation space, float32 rewards, bool terminals, truncations and masks).")

    def _collect_async(self, profile: dict[str, float], each_step: Callable[[], object] | None,
                       ) -> dict[str, list[float]]:
        """`collect` when recv() returns groups of rows (`env_ids`): each row has its own time index."""
        self.final_values.fill_(float("nan"))
        # The usual values of the sparse fields: steps write them only where they differ
        # (a done, a padded agent), which most steps do not.
        self.terminals.zero_()
        self.truncations.zero_()
        self.starts.zero_()
        self.weights.fill_(1.0)
        self.ptr[:] = 0
        self.stored[:] = False
        self.bootstrapped[:] = False
        actor, dev, recurrent = self.actor, self.device, self.recurrent
        # Seconds per profile key, added to `profile` once at the end (not per step).
        env_s = copy_s = forward_s = 0.0
        while True:
            if each_step is not None:
                each_step()
            if self.held is not None:  # last batch's final observations, already accounted for
                obs, ids, masks, starts = self.held
                self.held = None
                clock = time.perf_counter()
            else:
                clock = time.perf_counter()
                obs, rewards, terminals, truncations, infos, ids, masks = self.env.recv()
                now = time.perf_counter()
                env_s += now - clock
                clock = now
                if infos:
                    self._add_infos(infos)
                ids = np.asarray(ids)
                self._close_steps(ids, rewards, terminals, truncations)
                starts = terminals | truncations
            t, store = self._where(ids)
            index = torch.from_numpy(ids).to(dev)
            obs_dev = torch.from_numpy(obs).to(dev)
            state = actor.state(index, torch.from_numpy(starts).to(dev)) if recurrent else None
            now = time.perf_counter()
            copy_s += now - clock

            action, logprob, value, new_state = actor.act(obs_dev, state, index)
            clock = time.perf_counter()
            forward_s += clock - now

            send = actor.to_env(action)
            if store is not None:
                srows, st = (ids, t) if store is ALL_ROWS else (ids[store], t[store])  # some rows are full
                # Discrete actions are stored as sent (one conversion); Box actions unclipped.
                values = dict(obs=obs if self._numpy is not None else obs_dev,
                              actions=action if actor.box or self._numpy is None else send,
                              logprobs=logprob, values=value)
                if np.count_nonzero(starts):
                    values["starts"] = starts
                if np.count_nonzero(masks) != len(masks):  # padded agents: weight 0
                    values["weights"] = masks
                self._store(srows, st, store, **values)
                if recurrent:
                    assert state is not None  # a recurrent actor has a state
                    self._store_segment_state(srows, st, store, state)
            if self._bootstrap(ids, t, value):
                self.held = (obs.copy(), ids.copy(), np.array(masks, copy=True), np.array(starts, copy=True))
                copy_s += time.perf_counter() - clock
                break
            if store is not None:
                self.stored[srows] = True
                self.ptr[srows] += 1
            if recurrent:
                actor.keep_state(index, new_state)
            now = time.perf_counter()
            copy_s += now - clock
            self.env.send(send)
            env_s += time.perf_counter() - now
        profile["env"] += env_s
        profile["copy"] += copy_s
        profile["forward"] += forward_s
        self.steps_collected = self.batch_size
        return dict(self.infos)

    def _where(self, ids: np.ndarray) -> tuple[np.ndarray, slice | np.ndarray | None]:
        """(t, store) of a batch of rows `ids`: their time indices, and which of them still have
        room (ALL_ROWS, positions in the batch, or None)."""
        t = self.ptr[ids]
        free = t < self.horizon
        if free.all():
            return t, ALL_ROWS
        return t, np.flatnonzero(free) if free.any() else None

    def _close_steps(self, ids: np.ndarray, rewards: np.ndarray, terminals: np.ndarray,
                     truncations: np.ndarray) -> None:
        """Write a recv()'s rewards and dones to the step whose action caused them (rows that stored one)."""
        prev = self.stored[ids]
        if not prev.any():
            return
        sel: slice | np.ndarray = ALL_ROWS if prev.all() else prev
        rows = ids[sel]
        t = self.ptr[rows] - 1
        dones = {name: flags for name, flags in (("terminals", terminals), ("truncations", truncations))
                 if np.count_nonzero(flags)}  # all False: the storage already says so
        self._store(rows, t, sel, rewards=rewards, **dones)
        if self._writes_final and np.count_nonzero(truncations):
            self._final_values(rows, t, terminals[sel], truncations[sel])
        self.stored[rows] = False

    def _final_values(self, rows: np.ndarray, t: np.ndarray | int, terminals: np.ndarray,
                      truncations: np.ndarray) -> None:
        """final_values[rows, t] = V(final observation) where the step at t was truncated, not terminal.

        The LSTM state is the row's state after acting at t, as the observation's own would be.
        """
        cut = truncations & ~terminals
        if not cut.any():
            return
        rows, t = rows[cut], (t[cut] if isinstance(t, np.ndarray) else np.full(int(cut.sum()), t))
        final = self.env.final_observations
        assert final is not None  # writes_final_observations: the env keeps them
        obs = torch.from_numpy(final[rows]).to(self.device)
        self.final_values[torch.from_numpy(rows).to(self.device), torch.from_numpy(t).to(self.device)] = \
            self.actor.value(obs, rows)

    def _store_segment_state(self, rows: slice | np.ndarray, t: int | np.ndarray, sel: slice | np.ndarray,
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

    def _bootstrap(self, rows: np.ndarray, t: np.ndarray, value: torch.Tensor) -> bool:
        """Record V(obs) of rows that are full and have no bootstrap value yet; True once all rows have one."""
        full = (t >= self.horizon) & ~self.bootstrapped[rows]
        if full.any():
            pos = np.flatnonzero(full)
            self.bootstrap[torch.from_numpy(rows[pos]).to(self.device)] = value[torch.from_numpy(pos).to(self.device)]
            self.bootstrapped[rows[pos]] = True
        return bool(self.bootstrapped.all())

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
        if len(self._row_cache) > ROW_INDEX_CACHE:
            self._row_cache.clear()
        self._row_cache[id(ids)] = (ids, index)
        return index

    def _store(self, rows: np.ndarray, t: np.ndarray, sel: slice | np.ndarray, **values: Any) -> None:
        """storage[name][rows, t] = value[sel] for each named per-row batch value (numpy or torch):
        storage row ids `rows` with their time indices `t`; `sel` picks their positions in the batch."""
        n = len(rows)
        index: tuple
        if (t == t[0]).all():
            cached = self._rows(rows)
            index = ((cached if isinstance(cached, slice) else rows) if self._numpy is not None else cached,
                     int(t[0]))
        elif self._numpy is not None:
            index = (rows, t)
        else:
            index = (torch.from_numpy(rows).to(self.device), torch.from_numpy(t).to(self.device))
        if self._numpy is not None:
            for name, value in values.items():
                if isinstance(value, torch.Tensor):
                    value = value.numpy()
                target = self._numpy[name]
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
