"""The agent rows of a vectorized env as the envs of another library's vector API.

`to_gymnasium` (`pufferlib.vector.gymnasium_compat`) and `to_sb3` (`pufferlib.vector.sb3`)
show each agent row of a synchronous vectorized env as one env of that library: the
`vecenv.num_agents` rows (`num_envs` copies of `agents_per_env` agents each) are that many
envs, and env i observes, acts and is rewarded through row i. A single-agent vector of 8
copies is 8 envs; `pufferlib.make('ocean-squared', num_envs=16)` (one native env of 16
agents) is 16. What both adapters share lives here:

- `check_adaptable`: only synchronous vectorized envs (`batch_size == num_envs`) are wrapped.
- `require_present`: neither library can say that one of its envs sits out a step, so
  every row must hold an agent (mask True) after each reset and step. A row without one
  (a PettingZoo agent that has left while the others play on, or one that has not joined
  yet) raises APIUsageError naming the rows: such envs are not supported. Supported are
  envs whose agents are all present at every step: single-agent envs, native multi-agent
  envs (Ocean's), PettingZoo envs whose agents play whole episodes together.
- `split_infos`: each row's info dict, where the env's info dicts can be matched to rows.
- `EpisodeCounter`: each row's episode return, length and duration, counted from the
  rewards the library sees (what Gymnasium's `RecordEpisodeStatistics` and SB3's `Monitor`
  report as `episode`), so multi-agent rows get them too.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from pufferlib.errors import APIUsageError

if TYPE_CHECKING:
    from pufferlib.protocols import Info
    from pufferlib.vector.base import Backend


def check_adaptable(vecenv: Backend, who: str) -> None:
    """APIUsageError unless `vecenv` is synchronous (`batch_size == num_envs`); `who` names the adapter."""
    if vecenv.batch_size != vecenv.num_envs:
        raise APIUsageError(
            f"{who}() needs a synchronous vectorized env (batch_size == num_envs), got batch_size="
            f"{vecenv.batch_size} for num_envs={vecenv.num_envs}; make it without batch_size.")


def require_present(masks: np.ndarray, agents_per_env: int, who: str, when: str) -> None:
    """APIUsageError naming the rows whose agent is absent (mask False) after a reset or step (`when`)."""
    if masks.all():
        return
    rows = np.flatnonzero(~masks)
    named = ", ".join(f"{row} (agent {row % agents_per_env} of copy {row // agents_per_env})" for row in rows[:5])
    more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
    raise APIUsageError(
        f"{who}(): agent row(s) {named}{more} hold no agent after this {when} (mask False: an agent that left "
        "while the others play on, or one that has not joined yet). Each row is one env of the wrapped API, "
        "which steps every env at every step and cannot leave one out, so only envs whose agents are all "
        "present at every step are supported (single-agent envs, native multi-agent envs, PettingZoo envs "
        "whose agents play whole episodes together). Use the vectorized env's own API, whose `masks` mark "
        "absent agents, or pufferlib.PuffeRL for this env.")


def split_infos(infos: list[Info], owners: np.ndarray, agents_per_env: int) -> tuple[dict[int, Info], list[Info]]:
    """(row -> its info dict, the info dicts that belong to no row).

    A single-agent env emits an info dict exactly for the envs whose episode ended (at
    reset, for every env with a non-empty reset info), in env order: the k-th dict is then
    the k-th row's of `owners` when the counts agree. A multi-agent env's dicts describe a
    whole copy, or aggregate several episodes as native envs do: they belong to no row, as
    do dicts that cannot be matched.
    """
    rows = np.flatnonzero(owners)
    if agents_per_env == 1 and infos and len(infos) == len(rows):
        return {int(row): dict(info) for row, info in zip(rows, infos)}, []
    return {}, list(infos)


class EpisodeCounter:
    """Each row's episode so far: the sum of its rewards, its steps, and when it started."""

    def __init__(self, rows: int):
        self.returns = np.zeros(rows, np.float64)
        self.lengths = np.zeros(rows, np.int64)
        self.starts = np.full(rows, time.perf_counter())

    def restart(self) -> None:
        """Every row starts a new episode now (after a reset)."""
        self.returns[:] = 0
        self.lengths[:] = 0
        self.starts[:] = time.perf_counter()

    def step(self, rewards: np.ndarray, done: np.ndarray) -> list[tuple[int, float, int, float]]:
        """Count one step of every row; return (row, return, length, seconds) of each episode
        that `done` ends, and start those rows' next episodes."""
        self.returns += rewards
        self.lengths += 1
        now = time.perf_counter()
        ended = [(int(row), float(self.returns[row]), int(self.lengths[row]), now - float(self.starts[row]))
                 for row in np.flatnonzero(done)]
        self.returns[done] = 0
        self.lengths[done] = 0
        self.starts[done] = now
        return ended
