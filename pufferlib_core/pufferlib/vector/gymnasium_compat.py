"""`to_gymnasium(vecenv)`: any of our vectorized envs as a `gymnasium.vector.VectorEnv`.

So that code written for Gymnasium's vector API (a CleanRL-style script that would use
`gym.vector.SyncVectorEnv`) runs on our backends unchanged:

    envs = pufferlib.vector.to_gymnasium(pufferlib.vector.make(make_env, num_envs=8,
                                                               backend="multiprocessing"))
    obs, infos = envs.reset(seed=1)
    obs, rewards, terminations, truncations, infos = envs.step(envs.action_space.sample())

Each agent row of the vectorized env is one env of the VectorEnv (`envs.num_envs` =
`vecenv.num_agents`; see `pufferlib.vector.rows`): a single-agent vector of 8 copies is 8
envs, `pufferlib.make('ocean-squared', num_envs=16)` (one native env of 16 agents) is 16.

Autoreset mode: `AutoresetMode.SAME_STEP` (`envs.metadata["autoreset_mode"]`). An env
whose episode ends is reset within the same `step()`: the returned observation is the
first one of its next episode, while reward, termination and truncation belong to the
step that ended the episode. As with Gymnasium's SAME_STEP envs, `infos["final_obs"]`
(an object array, None for the envs that go on; mask `infos["_final_obs"]`) holds the
last observation of each ended episode, when the envs keep it (`writes_final_observations`,
see `pufferlib.environment`), and `infos["final_info"]` the info dict of that step. That
dict is also merged into `infos` itself (`infos[key]` an array over envs,
`infos["_" + key]` the mask of envs that have it).

Finished episodes are reported first the way Gymnasium's `RecordEpisodeStatistics` +
`SyncVectorEnv` (SAME_STEP) do, which CleanRL, SB3's monitor and other Gymnasium code
read: `infos["final_info"]["episode"]` (and `infos["episode"]`) holds `"r"` (return),
`"l"` (length) and `"t"` (seconds the episode took) arrays with their masks `"_r"`, `"_l"`,
`"_t"`, and `["_episode"]` marks the envs whose episode ended. A single-agent env's own
final info follows (PufferLib's `episode_return`/`episode_length` among it); info dicts
that belong to no row (those of multi-agent envs, which describe a whole copy or
aggregate episodes) are listed under `infos["pufferlib_infos"]`.

Observations and actions are the flat ones of the vectorized env (structured spaces
are flattened by `pufferlib.emulation`). Not supported: asynchronous vectorized envs
(`batch_size < num_envs`), and envs whose agents come and go (a row without an agent
raises APIUsageError; see `pufferlib.vector.rows`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pufferlib.errors import APIUsageError
from pufferlib.vector.rows import EpisodeCounter, check_adaptable, require_present, split_infos

if TYPE_CHECKING:
    from pufferlib.protocols import Info
    from pufferlib.vector.base import Backend as PufferVecEnv


class GymnasiumVecEnv(VectorEnv):
    """Adapter from our `VecEnv` to `gymnasium.vector.VectorEnv`, one env per agent row (see `to_gymnasium`)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, vecenv: PufferVecEnv):
        check_adaptable(vecenv, "to_gymnasium")
        self.vecenv = vecenv
        self.num_envs = vecenv.num_agents
        self.single_observation_space = vecenv.single_observation_space
        self.single_action_space = vecenv.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = vecenv.driver_env.render_mode
        self._episodes = EpisodeCounter(self.num_envs)

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Reset every env (env copy c gets `seed + c`); return (observations, infos)."""
        if isinstance(seed, (list, tuple)):
            if self.vecenv.agents_per_env != 1 or list(seed) != list(range(seed[0], seed[0] + self.num_envs)):
                raise APIUsageError(
                    "A list of seeds must be consecutive (seed, seed + 1, ...), one per env of a single-agent "
                    "vector; pass one int instead (copy c of the vectorized env is reset with seed + c).")
            seed = seed[0]
        if seed is not None:
            self._np_random_seed = seed
        obs, infos = self.vecenv.reset(seed=seed)
        require_present(self.vecenv.masks, self.vecenv.agents_per_env, "to_gymnasium", "reset")
        self._episodes.restart()
        per_row, unmatched = split_infos(infos, np.ones(self.num_envs, bool), self.vecenv.agents_per_env)
        return obs.copy(), self._vector_infos(per_row, unmatched)

    def step(self, actions: npt.ArrayLike):
        """Step every env; return (observations, rewards, terminations, truncations, infos)."""
        obs, rewards, terminals, truncations, infos = self.vecenv.step(actions)
        require_present(self.vecenv.masks, self.vecenv.agents_per_env, "to_gymnasium", "step")
        done = terminals | truncations
        per_row, unmatched = split_infos(infos, done, self.vecenv.agents_per_env)
        for row, ret, length, seconds in self._episodes.step(rewards, done):
            episode = {"r": ret, "l": length, "t": round(seconds, 6)}
            per_row[row] = {"episode": episode, **per_row.get(row, {})}
        vector_infos = self._vector_infos(per_row, unmatched)
        if done.any():
            ended = {key: value for key, value in vector_infos.items() if key != "pufferlib_infos"}
            if ended:
                vector_infos["final_info"], vector_infos["_final_info"] = ended, done.copy()
            final_obs = self.vecenv.final_observations
            if self.vecenv.writes_final_observations and final_obs is not None:
                final = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(done):
                    final[i] = final_obs[i].copy()
                vector_infos["final_obs"], vector_infos["_final_obs"] = final, done.copy()
        return obs.copy(), rewards.astype(np.float64), terminals.copy(), truncations.copy(), vector_infos

    def _vector_infos(self, per_row: dict[int, Info], unmatched: list[Info]) -> dict:
        """Gymnasium's dict of arrays over envs from each row's info dict; the dicts that belong
        to no row as a list under "pufferlib_infos"."""
        out: dict = {}
        for row in sorted(per_row):
            out = self._add_info(out, per_row[row], row)
        if unmatched:
            out["pufferlib_infos"] = unmatched
        return out

    def render(self) -> Any:  # gymnasium's signature (a tuple of frames); this returns env 0's frame
        """Render env 0 when the backend can (the serial backend)."""
        render = getattr(self.vecenv, "render", None)
        return render() if render is not None else None

    def close_extras(self, **kwargs: object) -> None:
        """Close the vectorized env."""
        self.vecenv.close()


def to_gymnasium(vecenv: PufferVecEnv) -> VectorEnv:
    """Wrap a synchronous vectorized env as a `gymnasium.vector.VectorEnv` with one env per agent row."""
    return GymnasiumVecEnv(vecenv)
