"""Serial vectorization: every env steps in this process, in place in one batch.

Contract: that of `pufferlib.vector.base` (sync and async APIs, seeds, checks), with
`batch_size` (in envs) any divisor of `num_envs`: the async API serves the envs in fixed
groups of `batch_size`, round robin, and `recv()` returns views of the batch arrays (there
is no `zero_copy=False`). `send()` steps the group in this process before it returns, so the
next `recv()` never waits. Options that only the multiprocessing backend has (`start_method`,
`timeout`, `spin_us`, ...) are refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from pufferlib._emulation import step_group
from pufferlib.emulation import _Emulated, step_pairs
from pufferlib.environment import Buffers, PufferEnv
from pufferlib.errors import APIUsageError
from pufferlib.vector.base import Backend, check_seed, close_all, create_env, probe_env, refuse_options

if TYPE_CHECKING:
    from pufferlib.protocols import Batch, EnvCreator, Info


class Serial(Backend):
    """Steps `num_envs` envs one after another, each writing into its slice of the batch.

    With `batch_size < num_envs` (in envs) the async API serves the envs in fixed groups
    of `batch_size`, round robin: `recv()` returns the next group, `send()` steps it.
    """

    def __init__(self, env_creators: Sequence[EnvCreator], env_args: Sequence[tuple[object, ...]],
                 env_kwargs: Sequence[dict[str, object]], num_envs: int, batch_size: int | None = None,
                 seed: int | None = 0, num_workers: int | None = None, envs_per_worker: int | None = None,
                 zero_copy: bool | None = None, **options: object):
        refuse_options(options, "the serial backend steps every env in this process")
        if zero_copy is False:
            raise APIUsageError("zero_copy=False asks for copies, but the serial backend always returns views "
                                "of its batch arrays; copy what you keep, or use backend='multiprocessing'.")
        self.seed = check_seed(seed)
        batch_size = num_envs if batch_size is None else batch_size
        valid = [b for b in range(1, num_envs + 1) if num_envs % b == 0]
        if batch_size not in valid:
            raise APIUsageError(f"batch_size={batch_size} must divide num_envs={num_envs}. Valid values: {valid}.")
        first, in_place = probe_env(env_creators[0], env_args[0], env_kwargs[0])
        self._init_spaces(first, num_envs, batch_size)
        self.buffers = Buffers.allocate(self.single_observation_space, self.single_action_space,
                                        self.num_agents)
        self._bind_batch(self.buffers)
        n = self.agents_per_env
        self.envs: list[PufferEnv] = []
        env: PufferEnv
        try:
            for i in range(num_envs):
                buf = self.buffers.slice(i * n, (i + 1) * n)
                if i == 0 and not in_place:
                    assert isinstance(first, _Emulated)  # not an in-place PufferEnv: probe_env emulated it
                    first.rebind(buf)
                    env = first
                else:
                    if i == 0:
                        first.close()
                    env = create_env(env_creators[i], env_args[i], env_kwargs[i], buf, in_place, first, i)
                self.envs.append(env)
        except BaseException:
            close_all(self.envs)
            raise
        self.driver_env = self.envs[0]
        self._group_steps = [step_pairs(self.envs[i] for i in self._env_range(g))
                             for g in range(num_envs // batch_size)]
        self._group = 0
        self._groups = num_envs // batch_size
        self._infos: list[list[Info]] = [[] for _ in range(self._groups)]
        # What step() returns besides the infos (the whole batch: one group when it is synchronous).
        self._sync_result = (self.observations, self.rewards, self.terminals, self.truncations)

    def _env_range(self, group: int) -> range:
        return range(group * self.batch_size, (group + 1) * self.batch_size)

    def async_reset(self, seed: int | None = None) -> None:
        """Reset every env now (env i gets `seed + i`); the next recv() returns the first group."""
        seed = self._reset_seed(seed)
        for i, env in enumerate(self.envs):
            _, infos = env.reset(seed=None if seed is None else seed + i)
            self._infos[i // self.batch_size].extend(infos)
        self._group = 0
        self._recv_pending = False

    def send(self, actions: npt.ArrayLike) -> None:
        """Act for the group of the last recv() and step its envs now."""
        group = self._expect_send()
        self._write_actions(group, actions)  # raises before any state changes on bad actions
        self._step_group(group, self._infos[group])
        self._group = (group + 1) % self._groups

    def _step_group(self, group: int, infos: list[Info]) -> None:
        """Step the envs of `group` on the actions in their buffers; add their infos to `infos`."""
        step_group(self._group_steps[group], infos)

    def step(self, actions: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[Info]]:
        """Step every env; return (observations, rewards, terminals, truncations, infos).

        The same as `send(actions)` then `recv()`, in one call: the synchronous case is the
        common one, and its per-call bookkeeping is a visible share of a cheap env's step.
        """
        if self.batch_size != self.num_envs or self.closed or not self._recv_pending:
            return super().step(actions)  # the checks and errors of the general path
        self.actions[...] = self._act_check(actions, self.actions.shape)
        infos: list[Info] = []
        self._step_group(0, infos)
        return self._sync_result + (infos,)

    def recv(self) -> Batch:
        """The next group of envs, round robin: views of its rows of the batch arrays."""
        group = self._expect_recv(self._group)
        infos, self._infos[group] = self._infos[group], []
        obs, rewards, terminals, truncations, ids, masks, _ = self._group_views[group]
        return obs, rewards, terminals, truncations, infos, ids, masks

    def close(self) -> None:
        """Close every env, then raise the first error any close() raised; safe to call again."""
        if self.closed:
            return
        self.closed = True
        close_all(getattr(self, "envs", []))

    def pending_infos(self) -> list[Info]:
        """See `Backend.pending_infos`: every env with a `log()` method is asked."""
        self._check_open()
        reports = [log() for log in (getattr(env, "log", None) for env in self.envs) if callable(log)]
        return [info for info in reports if isinstance(info, dict) and info]

    def render(self, env_id: int = 0) -> object:
        """Render env `env_id` (its own render_mode decides what comes back)."""
        self._check_open()
        return self.envs[env_id].render()
