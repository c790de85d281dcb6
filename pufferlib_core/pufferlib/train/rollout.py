"""Rollout collection for PuffeRL: acting in a vectorized env (async API) with the policy,
one batch at a time, into a `pufferlib.train.storage.RolloutStorage`.

Contract: `Rollout.collect()` fills the storage with exactly `batch_size` agent steps,
`horizon` per agent row, and a bootstrap value per row; the trainer then reads the storage.
Each agent row of the env owns row `i` of the (rows, horizon) tensors, so batches may
arrive in any grouping (`env_ids`), as the async API allows. A `recv()` carries the
reward/terminal/truncation of the row's previous action (written to the step that took
it) and the next observation (auto-reset: the first of a new episode after a done, which
also resets the row's LSTM state).

A truncated step is bootstrapped from the value of the episode's final observation
(`final_values`), which the env keeps in `final_observations` when it can (see
`pufferlib.environment`); otherwise `final_values` stays NaN and the advantages stand in
the value of the step's own observation.

A batch ends when every row has `horizon` steps and a bootstrap value. In the synchronous
case that happens on one `recv()`, whose observations are held (not acted on) and become
the first step of the next batch, so no transition is lost. With several env groups, a
row that is full while others still collect keeps acting; those few transitions are not
stored (their rewards still count in the episode stats that the env reports).

Who does what: the storage holds the tensors; a writer (`pufferlib.train.writers`) puts the
steps into them, `ColumnWriter` in the synchronous case (every recv() returns all rows,
`Rollout._collect_sync`, the common case) and `RowWriter` in the general one
(`Rollout._collect_async`); the two loops share their step helpers (`_act`, `_send_recv`,
`_final_values`), the episode stats and one `PhaseTimer`.
"""

from __future__ import annotations

import time
import warnings
from collections import defaultdict
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol

import numpy as np
import torch
from gymnasium import spaces

from pufferlib.errors import APIUsageError
from pufferlib.protocols import Batch, VecEnv
from pufferlib.train.acting import ALL_ROWS, Actor, LSTMState, RowIndex
from pufferlib.train.storage import RolloutStorage
from pufferlib.train.writers import ColumnWriter, RowWriter

#: Observations, row ids (None: all rows, in order), masks and starts to act on next.
Rows = tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]
#: What acting on one batch of rows gives: ((action, logprob, value, the LSTM state it produced),
#: the LSTM state acted with); the states are None if not recurrent.
Acted = tuple[tuple[torch.Tensor, torch.Tensor, torch.Tensor, LSTMState | None], LSTMState | None]


class Opponents(Protocol):
    """Who else acts in the env's games besides the learner, as the rollout sees it: self-play's
    snapshots (`pufferlib.train.selfplay.SelfPlay`), or nobody (`NoOpponents`)."""

    def begin_batch(self) -> None:
        """A batch starts."""

    def act_opponents(self, obs: np.ndarray, ids: np.ndarray | None, send: np.ndarray) -> None:
        """Write the opponents' actions into `send` for the rows of `obs` (rows `ids`; None: all) they hold."""

    def observe(self, ids: np.ndarray | None, terminals: np.ndarray, truncations: np.ndarray) -> None:
        """The rows `ids` (None: all) received these done flags."""

    def train_masks(self, masks: np.ndarray, ids: np.ndarray | None) -> np.ndarray:
        """`masks` of rows `ids` with the rows the learner does not hold (it does not train on) cleared."""
        ...


class NoOpponents:
    """The `Opponents` of a run without self-play: the learner holds every row."""

    def begin_batch(self) -> None:
        """Nothing to prepare."""

    def act_opponents(self, obs: np.ndarray, ids: np.ndarray | None, send: np.ndarray) -> None:
        """No row to act on."""

    def observe(self, ids: np.ndarray | None, terminals: np.ndarray, truncations: np.ndarray) -> None:
        """No game to count."""

    def train_masks(self, masks: np.ndarray, ids: np.ndarray | None) -> np.ndarray:
        """`masks` as they are."""
        return masks


class PhaseTimer:
    """Seconds spent per phase of collection (env, copy, forward), timed by laps: each `lap_*`
    call charges the time since the previous lap (or the timer's start) to its phase, and
    `add_to` adds the totals to a profile once. Laps, not context managers: they cost
    less, and they are few: the shared step helpers of `Rollout` and the end of `collect`."""

    __slots__ = ("clock", "copy", "env", "forward")

    def __init__(self) -> None:
        self.clock = time.perf_counter()
        self.env = self.copy = self.forward = 0.0

    def lap_env(self) -> None:
        """Charge the time since the last lap to stepping the env (send and recv)."""
        now = time.perf_counter()
        self.env += now - self.clock
        self.clock = now

    def lap_copy(self) -> None:
        """Charge the time since the last lap to moving data (storage writes, host/device copies)."""
        now = time.perf_counter()
        self.copy += now - self.clock
        self.clock = now

    def lap_forward(self) -> None:
        """Charge the time since the last lap to the policy's forward pass and sampling."""
        now = time.perf_counter()
        self.forward += now - self.clock
        self.clock = now

    def add_to(self, profile: dict[str, float]) -> None:
        """Add the phases' seconds to `profile["env"]`, `["copy"]` and `["forward"]`."""
        profile["env"] += self.env
        profile["copy"] += self.copy
        profile["forward"] += self.forward


def _storage_for(env: VecEnv, actor: Actor, horizon: int, segment: int, device: torch.device) -> RolloutStorage:
    """The storage of `horizon` steps per agent row of `env`, as `actor` acts in it (see `Rollout`)."""
    obs_space, act_space = env.single_observation_space, env.single_action_space
    assert obs_space.shape is not None, f"{obs_space!r} has no shape"  # observation spaces are Boxes
    if isinstance(act_space, spaces.Box):
        act_shape, act_dtype = tuple(act_space.shape), torch.float32
    else:
        act_shape, act_dtype = (() if actor.nvec is None else (len(actor.nvec),)), torch.int64
    return RolloutStorage(env.num_agents, horizon, segment, tuple(obs_space.shape), np.dtype(obs_space.dtype),
                          act_shape, act_dtype, device, actor.h.shape[1] if actor.recurrent else None)


class Rollout:
    """Collects one batch at a time from `env` with `policy` into `self.storage` (`collect`).

    `batch_size` agent steps per batch, a multiple of the env's agent rows whose steps per row
    (the horizon) `segment` (the LSTM's training sequence length) divides; `recurrent` must
    match the policy's `is_recurrent`. `actor` acts; `nvec` is its MultiDiscrete sizes or None.
    `opponents` act on the rows they hold, which are masked out of training (self-play's snapshots;
    `NoOpponents` by default).
    """

    def __init__(self, env: VecEnv, policy: torch.nn.Module, device: torch.device, batch_size: int,
                 segment: int, recurrent: bool, opponents: Opponents | None = None):
        horizon = RolloutStorage.check_sizes(env.num_agents, batch_size, segment)  # before the actor allocates
        self.actor = Actor(env, policy, device)
        if self.actor.recurrent != recurrent:
            raise APIUsageError(f"recurrent={recurrent} but the policy's is_recurrent is {self.actor.recurrent}.")
        self.env, self.policy, self.device, self.recurrent = env, policy, device, recurrent
        self.storage = _storage_for(env, self.actor, horizon, segment, device)
        self.rows, self.horizon, self.batch_size = env.num_agents, horizon, batch_size
        self.nvec = self.actor.nvec
        self._writes_final = env.writes_final_observations
        self._all_rows = np.arange(self.rows)
        self._sync = env.agents_per_batch == self.rows
        self._columns: ColumnWriter | None = None
        self._row_writer: RowWriter | None = None
        self._writer: ColumnWriter | RowWriter  # the one of the two that this env needs
        if self._sync:
            self._writer = self._columns = ColumnWriter(self.storage, type(env).__name__)
        else:
            self._writer = self._row_writer = RowWriter(self.storage, self.actor.box)
        self.held: Rows | None = None  # the observations that end a batch begin the next
        self.opponents: Opponents = opponents if opponents is not None else NoOpponents()
        self.infos: dict[str, list[float]] = defaultdict(list)
        self._grad_mode: Callable[[], AbstractContextManager[None]] = torch.inference_mode  # see collect()
        env.async_reset()

    def pop_infos(self) -> dict[str, list[float]]:
        """The numeric env infos gathered since the last call."""
        infos, self.infos = self.infos, defaultdict(list)
        return infos

    def add_infos(self, infos: list) -> None:
        """Gather the numbers of a recv()'s infos (one level of nesting: `key/sub`) into `self.infos`."""
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
        """Fill the storage with one batch; returns the env infos gathered since `pop_infos`.

        `profile` accumulates env/forward/copy seconds, and `each_step` (if given) is called
        before each step's acting (the trainer's thread tuner looks at the machine's load there).

        Acting runs under `torch.inference_mode`, which skips autograd's bookkeeping that
        `no_grad` still does (version counters, view tracking) and so acts faster. A policy
        that assigns new tensors to its buffers while acting (a running normaliser, say)
        would leave inference tensors that training cannot use: after the batch they are
        copied back into normal tensors, a warning says so, and later batches collect under
        `no_grad`.
        """
        self.opponents.begin_batch()
        with self._grad_mode():
            self._writer.begin()  # resets the storage where needed: not charged to a phase
            timer = PhaseTimer()
            (self._collect_sync if self._sync else self._collect_async)(timer, each_step)
            timer.lap_copy()
        timer.add_to(profile)
        if self._grad_mode is torch.inference_mode:
            self._recover_from_inference_mode()
        self.storage.steps_collected = self.batch_size
        return dict(self.infos)

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
            self._grad_mode = torch.no_grad
            warnings.warn(f"{type(self.policy).__name__} assigned new tensors to buffers {replaced} while acting; "
                          "they were copied out of inference mode, and acting runs under torch.no_grad from now "
                          "on (slower). Update buffers in place (buf.copy_(...)) to keep the fast path.",
                          stacklevel=3)

    # -- the step helpers both loops share ---------------------------------------------------
    def _act(self, timer: PhaseTimer, obs: torch.Tensor, starts: np.ndarray, rows: RowIndex) -> Acted:
        """Act on observations `obs` (on the device) of agent `rows`, whose LSTM state is reset
        where `starts`; times the copies before as `copy` and acting as `forward`."""
        state = self.actor.state(rows, torch.from_numpy(starts).to(self.device)) if self.recurrent else None
        timer.lap_copy()
        acted = self.actor.act(obs, state, rows)
        timer.lap_forward()
        return acted, state  # as they come: this runs every step

    def _act_opponents(self, timer: PhaseTimer, obs: np.ndarray, ids: np.ndarray | None, send: np.ndarray) -> None:
        """The opponents act on the rows of `obs` they hold (`Opponents.act_opponents`), timed as
        `forward` (the copies before it as `copy`)."""
        timer.lap_copy()
        self.opponents.act_opponents(obs, ids, send)
        timer.lap_forward()

    def _send_recv(self, timer: PhaseTimer, send: np.ndarray | None) -> Batch:
        """`env.send(send)` (None: nothing to send, as after a reset) and what `env.recv()` returns,
        timed as `env`; the infos received go to the episode stats."""
        if send is not None:
            timer.lap_copy()
            self.env.send(send)
        received = self.env.recv()
        timer.lap_env()
        if received[4]:  # the infos
            self.add_infos(received[4])
        return received

    def _take_held(self) -> Rows | None:
        """The observations that ended the last batch (already accounted for), once; else None."""
        held, self.held = self.held, None
        return held

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

    # -- the synchronous loop: every recv() returns all rows ----------------------------------
    def _collect_sync(self, timer: PhaseTimer, each_step: Callable[[], object] | None) -> None:
        """`collect` when every recv() returns all rows: they share one time index `t`.

        A recv() after acting at t closes step t (its reward and dones) and brings the
        observation of step t + 1, which `ColumnWriter.close_step` writes at once; the policy's
        outputs wait in the writer until the batch is full, and each step's start flag is the
        previous step's done. The observations after the last step are acted on only for the
        bootstrap value, and held for the next batch.
        """
        actor, recurrent, storage, horizon = self.actor, self.recurrent, self.storage, self.horizon
        columns = self._columns
        assert columns is not None  # made for the synchronous case
        obs, _, masks, starts = self._take_held() or self._first_rows(timer)
        first_starts = starts
        columns.first_step(obs, masks)
        keep, on_cpu = columns.keep, storage.numpy is not None
        obs_np = obs_t = None  # the last observation array and its tensor
        for t in range(horizon + 1):
            if each_step is not None:
                each_step()
            if obs is not obs_np:  # on the CPU a view of the array, made once: the env hands back the same one
                obs_np, obs_t = obs, (torch.from_numpy(obs) if on_cpu else None)
            # Off the CPU a copy (what moving it there makes anyway), which the writer keeps.
            obs_dev = obs_t if obs_t is not None else torch.from_numpy(obs).to(self.device, copy=True)
            (action, logprob, value, new_state), state = self._act(timer, obs_dev, starts, ALL_ROWS)
            if t == horizon:  # the bootstrap value; these observations start the next batch
                storage.bootstrap.copy_(value)
                self.held = (obs.copy(), None, np.array(masks, copy=True), starts)  # rows: all, in order
                break
            send = actor.to_env(action)
            self._act_opponents(timer, obs, None, send)
            keep((obs_dev, action, logprob, value))
            if recurrent:
                assert state is not None  # a recurrent actor has a state
                storage.store_segment_state(ALL_ROWS, t, ALL_ROWS, state)
                actor.keep_state(ALL_ROWS, new_state)
            obs, rewards, terminals, truncations, _, _, masks = self._send_recv(timer, send)
            self.opponents.observe(None, terminals, truncations)
            masks = self.opponents.train_masks(masks, None)
            # returns how many rows truncated: rarely any, and then their final values are due
            if columns.close_step(t, obs, masks, rewards, terminals, truncations) and self._writes_final:
                self._final_values(self._all_rows, t, terminals, truncations)
            if recurrent or t + 1 == horizon:
                starts = terminals | truncations
        columns.finish(first_starts)

    def _first_rows(self, timer: PhaseTimer) -> Rows:
        """The reset's observations, masks and starts (its recv() closes no step)."""
        obs, _, terminals, truncations, _, _, masks = self._send_recv(timer, None)
        return obs, None, self.opponents.train_masks(masks, None), terminals | truncations

    # -- the general loop: recv() returns groups of rows --------------------------------------
    def _collect_async(self, timer: PhaseTimer, each_step: Callable[[], object] | None) -> None:
        """`collect` when recv() returns groups of rows (`env_ids`): each row has its own time
        index (`RowWriter`), and the batch ends once every row has its bootstrap value."""
        actor, dev, writer = self.actor, self.device, self._row_writer
        assert writer is not None  # made for the general case
        obs, ids, masks, starts = self._take_held() or self._recv_rows(timer)
        assert ids is not None  # groups of rows come with their ids
        while True:
            if each_step is not None:
                each_step()
            t, room = writer.where(ids)
            index = torch.from_numpy(ids).to(dev)
            obs_dev = torch.from_numpy(obs).to(dev)
            (action, logprob, value, new_state), state = self._act(timer, obs_dev, starts, index)
            send = actor.to_env(action)
            self._act_opponents(timer, obs, ids, send)
            if room is not None:
                writer.write(ids, t, room, obs, obs_dev, action, send, logprob, value, starts, masks, state)
            if writer.bootstrap(ids, t, value):  # the batch is complete; these observations start the next
                self.held = (obs.copy(), ids.copy(), np.array(masks, copy=True), np.array(starts, copy=True))
                return
            if self.recurrent:
                actor.keep_state(index, new_state)
            obs, ids, masks, starts = self._recv_rows(timer, send)

    def _recv_rows(self, timer: PhaseTimer, send: np.ndarray | None = None,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(observations, row ids, masks, starts) of the next group of rows, received after sending
        `send` (if given); their rewards and dones close the rows' previous steps (with the final
        values of truncated ones)."""
        writer = self._row_writer
        assert writer is not None  # made for the general case
        obs, rewards, terminals, truncations, _, ids, masks = self._send_recv(timer, send)
        ids = np.asarray(ids)
        self.opponents.observe(ids, terminals, truncations)
        masks = self.opponents.train_masks(masks, ids)
        closed = writer.close(ids, rewards, terminals, truncations)
        if closed is not None and self._writes_final and np.count_nonzero(truncations):
            rows, t, sel = closed
            self._final_values(rows, t, terminals[sel], truncations[sel])
        return obs, ids, masks, terminals | truncations
