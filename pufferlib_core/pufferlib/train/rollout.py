"""Rollout collection for PuffeRL, over the async vectorized-env API, into a
`pufferlib.train.storage.RolloutStorage`.

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

import numpy as np
import torch
from gymnasium import spaces

from pufferlib.errors import APIUsageError
from pufferlib.protocols import VecEnv
from pufferlib.train._kernels import copy_rows
from pufferlib.train.acting import ALL_ROWS, Actor
from pufferlib.train.storage import RolloutStorage

#: The env arrays a recv() brings, in the order `copy_rows` takes them.
ENV_FIELDS = ("obs", "masks", "rewards", "terminals", "truncations")


class PhaseTimer:
    """Seconds spent per phase of collection (env, copy, forward): each `lap_*` call charges
    the time since the previous lap to its phase; `add_to` adds them to a profile once."""

    __slots__ = ("clock", "copy", "env", "forward")

    def __init__(self) -> None:
        self.clock = time.perf_counter()
        self.env = self.copy = self.forward = 0.0

    def lap_env(self) -> None:
        now = time.perf_counter()
        self.env += now - self.clock
        self.clock = now

    def lap_copy(self) -> None:
        now = time.perf_counter()
        self.copy += now - self.clock
        self.clock = now

    def lap_forward(self) -> None:
        now = time.perf_counter()
        self.forward += now - self.clock
        self.clock = now

    def add_to(self, profile: dict[str, float]) -> None:
        profile["env"] += self.env
        profile["copy"] += self.copy
        profile["forward"] += self.forward


class Rollout:
    """Collects one batch at a time from `env` with `policy` into `self.storage` (`collect`)."""

    def __init__(self, env: VecEnv, policy: torch.nn.Module, device: torch.device, batch_size: int,
                 segment: int, recurrent: bool):
        rows = env.num_agents
        horizon = RolloutStorage.check_sizes(rows, batch_size, segment)
        self.actor = Actor(env, policy, device)
        if self.actor.recurrent != recurrent:
            raise APIUsageError(f"recurrent={recurrent} but the policy's is_recurrent is {self.actor.recurrent}.")
        self.env, self.policy, self.device, self.recurrent = env, policy, device, recurrent
        self.rows, self.horizon, self.batch_size = rows, horizon, batch_size
        self.nvec = self.actor.nvec
        obs_space, act_space = env.single_observation_space, env.single_action_space
        assert obs_space.shape is not None, f"{obs_space!r} has no shape"  # observation spaces are Boxes
        if isinstance(act_space, spaces.Box):
            act_shape, act_dtype = tuple(act_space.shape), torch.float32
        else:
            act_shape, act_dtype = (() if self.nvec is None else (len(self.nvec),)), torch.int64
        self.storage = RolloutStorage(rows, horizon, segment, tuple(obs_space.shape), np.dtype(obs_space.dtype),
                                      act_shape, act_dtype, device, self.actor.h.shape[1] if recurrent else None)
        self._writes_final = env.writes_final_observations
        # The synchronous case (every recv() returns all rows, `_collect_sync`) and the general
        # one (`_collect_async`, where each row has its own time index `ptr` and `stored` marks
        # the rows whose last action was stored this batch).
        self._sync = env.agents_per_batch == rows
        self.ptr = np.zeros(rows, np.int64)
        self._all_rows = np.arange(rows)
        self.stored = np.zeros(rows, bool)
        self.bootstrapped = np.zeros(rows, bool)
        self.held: tuple | None = None  # (obs, row ids or None when synchronous, masks, starts) carried over
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
        storage, step_copies, outputs = self.storage, self._step_copies, self._outputs
        obs_out = outputs.get("obs")
        actions_out, logprobs_out, values_out = outputs["actions"], outputs["logprobs"], outputs["values"]
        for values in outputs.values():
            values.clear()
        storage.final_values.fill_(float("nan"))
        timer = PhaseTimer()
        obs, masks, starts = self._first_observations(timer)
        first_starts = starts
        self._copy_rows(self._first_copy, (obs, masks))
        obs_np = obs_t = None  # the last observation array and its tensor (the same view each step on the CPU)
        t = 0
        while True:
            if each_step is not None:
                each_step()
            if obs is not obs_np:
                obs_np = obs
                obs_t = torch.from_numpy(obs) if storage.numpy is not None else None
            # Off the CPU a copy (what moving it there makes anyway), kept in the output lists.
            obs_dev = obs_t if obs_t is not None else torch.from_numpy(obs).to(dev, copy=True)
            state = actor.state(ALL_ROWS, torch.from_numpy(starts).to(dev)) if recurrent else None
            timer.lap_copy()
            action, logprob, value, new_state = actor.act(obs_dev, state)
            timer.lap_forward()
            if t == horizon:  # the bootstrap value; these observations start the next batch
                storage.bootstrap.copy_(value)
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
                storage.store_segment_state(ALL_ROWS, t, ALL_ROWS, state)
                actor.keep_state(ALL_ROWS, new_state)
            timer.lap_copy()
            self.env.send(send)
            obs, rewards, terminals, truncations, infos, _, masks = self.env.recv()
            timer.lap_env()
            if infos:
                self._add_infos(infos)
            # returns how many rows truncated: rarely any, and then their final values are due
            if self._copy_rows(step_copies[t], (obs, masks, rewards, terminals, truncations)) and self._writes_final:
                self._final_values(self._all_rows, t, terminals, truncations)
            t += 1
            if recurrent or t == horizon:
                starts = terminals | truncations
        self._finish_sync_batch(first_starts)
        timer.lap_copy()
        timer.add_to(profile)
        storage.steps_collected = self.batch_size
        return dict(self.infos)

    def _first_observations(self, timer: PhaseTimer) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(observations, masks, starts) that begin a batch: those held from the last batch, else
        the reset's (whose recv() closes no step)."""
        if self.held is not None:  # last batch's final observations, already accounted for
            obs, _, masks, starts = self.held
            self.held = None
            return obs, masks, starts
        obs, _, terminals, truncations, infos, _, masks = self.env.recv()
        timer.lap_env()
        if infos:
            self._add_infos(infos)
        return obs, masks, terminals | truncations

    def _copy_rows(self, destinations: tuple, arrays: tuple) -> int:
        """`copy_rows` of a recv()'s arrays (in `ENV_FIELDS` order) into their storage columns;
        APIUsageError naming the arrays that do not fit."""
        try:
            return copy_rows(destinations, arrays)
        except (TypeError, ValueError) as error:
            raise self._unfit_arrays(**dict(zip(ENV_FIELDS, arrays))) from error

    def _finish_sync_batch(self, first_starts: np.ndarray) -> None:
        """Move what the synchronous loop kept aside into the storage: the policy's outputs, the
        env fields' CPU mirrors (off the CPU), the weights (from the masks) and the starts."""
        storage = self.storage
        for name, values in self._outputs.items():  # time-major, then one transposed copy: faster than on dim 1
            getattr(storage, name).copy_(torch.stack(values).transpose(0, 1))
        if storage.numpy is None:
            for name, mirror in self._mirrors.items():
                if name != "masks":
                    getattr(storage, name).copy_(mirror)
        storage.weights.copy_(self._mirrors["masks"])  # padded agents: weight 0
        storage.starts[:, 0] = torch.from_numpy(first_starts)
        storage.starts[:, 1:] = storage.terminals[:, :-1] | storage.truncations[:, :-1]

    def _unfit_arrays(self, **arrays: np.ndarray) -> APIUsageError:
        """The error for a recv() whose arrays are not of the storage's dtypes and shapes."""
        storage = self.storage
        expected = {"obs": storage.obs, "masks": self._mirrors["masks"], "rewards": storage.rewards,
                    "terminals": storage.terminals, "truncations": storage.truncations}
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
        self._start_async_batch()
        actor, dev, recurrent, storage = self.actor, self.device, self.recurrent, self.storage
        timer = PhaseTimer()
        while True:
            if each_step is not None:
                each_step()
            obs, ids, masks, starts = self._next_rows(timer)
            t, store = self._where(ids)
            index = torch.from_numpy(ids).to(dev)
            obs_dev = torch.from_numpy(obs).to(dev)
            state = actor.state(index, torch.from_numpy(starts).to(dev)) if recurrent else None
            timer.lap_copy()
            action, logprob, value, new_state = actor.act(obs_dev, state, index)
            timer.lap_forward()
            send = actor.to_env(action)
            if store is not None:
                srows, st = (ids, t) if store is ALL_ROWS else (ids[store], t[store])  # some rows are full
                # Discrete actions are stored as sent (one conversion); Box actions unclipped.
                values = dict(obs=obs if storage.numpy is not None else obs_dev,
                              actions=action if actor.box or storage.numpy is None else send,
                              logprobs=logprob, values=value)
                if np.count_nonzero(starts):
                    values["starts"] = starts
                if np.count_nonzero(masks) != len(masks):  # padded agents: weight 0
                    values["weights"] = masks
                storage.store(srows, st, store, **values)
                if recurrent:
                    assert state is not None  # a recurrent actor has a state
                    storage.store_segment_state(srows, st, store, state)
            if self._bootstrap(ids, t, value):
                self.held = (obs.copy(), ids.copy(), np.array(masks, copy=True), np.array(starts, copy=True))
                timer.lap_copy()
                break
            if store is not None:
                self.stored[srows] = True
                self.ptr[srows] += 1
            if recurrent:
                actor.keep_state(index, new_state)
            timer.lap_copy()
            self.env.send(send)
            timer.lap_env()
        timer.add_to(profile)
        storage.steps_collected = self.batch_size
        return dict(self.infos)

    def _start_async_batch(self) -> None:
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

    def _next_rows(self, timer: PhaseTimer) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(observations, row ids, masks, starts) to act on next: those held from the last batch,
        else a recv()'s, whose rewards and dones close the rows' previous steps."""
        if self.held is not None:  # last batch's final observations, already accounted for
            obs, ids, masks, starts = self.held
            self.held = None
            timer.clock = time.perf_counter()
            return obs, ids, masks, starts
        timer.clock = time.perf_counter()
        obs, rewards, terminals, truncations, infos, ids, masks = self.env.recv()
        timer.lap_env()
        if infos:
            self._add_infos(infos)
        ids = np.asarray(ids)
        self._close_steps(ids, rewards, terminals, truncations)
        return obs, ids, masks, terminals | truncations

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
        self.storage.store(rows, t, sel, rewards=rewards, **dones)
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
        self.storage.final_values[torch.from_numpy(rows).to(self.device), torch.from_numpy(t).to(self.device)] = \
            self.actor.value(obs, rows)

    def _bootstrap(self, rows: np.ndarray, t: np.ndarray, value: torch.Tensor) -> bool:
        """Record V(obs) of rows that are full and have no bootstrap value yet; True once all rows have one."""
        full = (t >= self.horizon) & ~self.bootstrapped[rows]
        if full.any():
            pos = np.flatnonzero(full)
            bootstrap = self.storage.bootstrap
            bootstrap[torch.from_numpy(rows[pos]).to(self.device)] = value[torch.from_numpy(pos).to(self.device)]
            self.bootstrapped[rows[pos]] = True
        return bool(self.bootstrapped.all())
