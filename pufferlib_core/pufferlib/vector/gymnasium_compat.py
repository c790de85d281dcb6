"""`to_gymnasium(vecenv)`: any of our vectorized envs as a `gymnasium.vector.VectorEnv`.

So that code written for Gymnasium's vector API (a CleanRL-style script that would use
`gym.vector.SyncVectorEnv`) runs on our backends unchanged:

    envs = pufferlib.vector.to_gymnasium(pufferlib.vector.make(make_env, num_envs=8,
                                                               backend="multiprocessing"))
    obs, infos = envs.reset(seed=1)
    obs, rewards, terminations, truncations, infos = envs.step(envs.action_space.sample())

Autoreset mode: `AutoresetMode.SAME_STEP` (`envs.metadata["autoreset_mode"]`). An env
whose episode ends is reset within the same `step()`: the returned observation is the
first one of its next episode, while reward, termination and truncation belong to the
step that ended the episode. As with Gymnasium's SAME_STEP envs, `infos["final_obs"]`
(an object array, None for the envs that go on; mask `infos["_final_obs"]`) holds the
last observation of each ended episode, when the envs keep it (`writes_final_observations`,
see `pufferlib.environment`), and `infos["final_info"]` the info dict of that step. That
dict is also merged into `infos` itself (`infos[key]` an array over envs,
`infos["_" + key]` the mask of envs that have it), including `episode_return` and
`episode_length`.

Finished episodes are reported first the way Gymnasium's `RecordEpisodeStatistics` +
`SyncVectorEnv` (SAME_STEP) do, which CleanRL, SB3's monitor and other Gymnasium code
read: `infos["final_info"]["episode"]` (and `infos["episode"]`) holds `"r"` (return),
`"l"` (length) and `"t"` (seconds the episode took) arrays with their masks `"_r"`, `"_l"`,
`"_t"`, and `["_episode"]` marks the envs whose episode ended; PufferLib's own
`episode_return`/`episode_length` follow.

Observations and actions are the flat ones of the vectorized env (structured spaces
are flattened by `pufferlib.emulation`). Only single-agent envs and synchronous
vectorized envs (`batch_size == num_envs`) can be wrapped.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pufferlib.errors import APIUsageError

if TYPE_CHECKING:
    from pufferlib.vector.base import Backend as PufferVecEnv


class GymnasiumVecEnv(VectorEnv):
    """Adapter from our `VecEnv` to `gymnasium.vector.VectorEnv` (see `to_gymnasium`)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, vecenv: PufferVecEnv):
        if vecenv.agents_per_env != 1:
            raise APIUsageError(
                f"to_gymnasium() needs single-agent envs; this one has {vecenv.agents_per_env} agents per "
                "env. Use the vectorized env's own API for multi-agent envs.")
        if vecenv.batch_size != vecenv.num_envs:
            raise APIUsageError(
                f"to_gymnasium() needs a synchronous vectorized env (batch_size == num_envs), got "
                f"batch_size={vecenv.batch_size} for num_envs={vecenv.num_envs}.")
        self.vecenv = vecenv
        self.num_envs = vecenv.num_envs
        self.single_observation_space = vecenv.single_observation_space
        self.single_action_space = vecenv.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = vecenv.driver_env.render_mode
        self._episode_start = np.full(self.num_envs, time.perf_counter())

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Reset every env (env i gets `seed + i`); return (observations, infos)."""
        if isinstance(seed, (list, tuple)):
            if list(seed) != list(range(seed[0], seed[0] + self.num_envs)):
                raise APIUsageError("A list of seeds must be consecutive (seed, seed + 1, ...); pass one int.")
            seed = seed[0]
        if seed is not None:
            self._np_random_seed = seed
        obs, infos = self.vecenv.reset(seed=seed)
        self._episode_start[:] = time.perf_counter()
        return obs.copy(), self._vector_infos(infos, np.ones(self.num_envs, bool))

    def step(self, actions: npt.ArrayLike):
        """Step every env; return (observations, rewards, terminations, truncations, infos)."""
        obs, rewards, terminals, truncations, infos = self.vecenv.step(actions)
        done = terminals | truncations
        if done.any():
            infos = self._with_episode_stats(infos, done)
        vector_infos = self._vector_infos(infos, done)
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

    def _with_episode_stats(self, infos: list, done: np.ndarray) -> list:
        """Each ended episode's info dict led by Gymnasium's `{"episode": {"r", "l", "t"}}`."""
        now = time.perf_counter()
        ended = np.flatnonzero(done)
        took = now - self._episode_start[ended]
        self._episode_start[ended] = now
        if len(infos) != len(ended):
            return infos  # not one dict per ended env: cannot be matched (see _vector_infos)
        out = []
        for info, seconds in zip(infos, took):
            if "episode_return" in info and "episode_length" in info and "episode" not in info:
                episode = {"r": float(info["episode_return"]), "l": int(info["episode_length"]),
                           "t": round(float(seconds), 6)}
                info = {"episode": episode, **info}
            out.append(info)
        return out

    def _vector_infos(self, infos: list, owners: np.ndarray) -> dict:
        """Gymnasium's dict of arrays: the k-th info dict belongs to the k-th env in `owners`.

        Emulated envs emit an info dict exactly for the envs whose episode ended (or, at
        reset, for every env with a non-empty reset info); dicts that cannot be matched to
        envs that way are returned as a list under "pufferlib_infos".
        """
        out: dict = {}
        if not infos:
            return out
        envs = np.flatnonzero(owners)
        if len(infos) != len(envs):
            return {"pufferlib_infos": list(infos)}
        for env, info in zip(envs, infos):
            out = self._add_info(out, info, int(env))
        return out

    def render(self) -> Any:  # gymnasium's signature (a tuple of frames); this returns env 0's frame
        """Render env 0 when the backend can (the serial backend)."""
        render = getattr(self.vecenv, "render", None)
        return render() if render is not None else None

    def close_extras(self, **kwargs: object) -> None:
        self.vecenv.close()


def to_gymnasium(vecenv: PufferVecEnv) -> VectorEnv:
    """Wrap a synchronous, single-agent vectorized env as a `gymnasium.vector.VectorEnv`."""
    return GymnasiumVecEnv(vecenv)
