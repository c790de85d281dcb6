"""`to_sb3(vecenv)`: one of our vectorized envs as a Stable-Baselines3 `VecEnv`.

Needs `stable-baselines3`. Each agent row of a synchronous vectorized env is one SB3 env
(`num_envs` of the SB3 VecEnv = `vecenv.num_agents`; see `pufferlib.vector.rows`), so
single-agent vectors and native multi-agent envs alike train with SB3:

    from stable_baselines3 import PPO
    vecenv = pufferlib.vector.make(make_env, num_envs=8, backend="multiprocessing")
    PPO("MlpPolicy", pufferlib.vector.to_sb3(vecenv)).learn(10_000)
    PPO("MlpPolicy", pufferlib.vector.to_sb3(pufferlib.make("ocean-squared", num_envs=16))).learn(10_000)

Semantics are SB3's: `reset()` returns observations, `step_wait()` returns
`(obs, rewards, dones, infos)` with one info dict per env; an env whose episode ends is
reset within the same step. Its info dict carries `TimeLimit.truncated`, `episode`
(`r` return, `l` length, `t` seconds since the adapter was made) as SB3's Monitor would,
so the episode statistics show up in SB3's logs, and `terminal_observation` when the envs
keep it (`writes_final_observations`, see `pufferlib.environment`), from which SB3
bootstraps truncated episodes. A single-agent env's own final info is merged into it;
info dicts that belong to no row (those of multi-agent envs, which describe a whole copy
or aggregate episodes) are listed under `infos[0]["pufferlib_infos"]`.

Not supported: asynchronous vectorized envs (`batch_size < num_envs`), and envs whose
agents come and go (a row without an agent raises APIUsageError; see `pufferlib.vector.rows`).
`get_attr` reads the attributes of the copy of env 0 that lives in the main process (of the
env it emulates, else its own);
`set_attr` and `env_method` cannot reach envs in worker processes and raise.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from pufferlib.errors import APIUsageError
from pufferlib.vector.rows import EpisodeCounter, check_adaptable, require_present, split_infos

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

    from pufferlib.protocols import Info
    from pufferlib.vector.base import Backend as PufferVecEnv

try:
    from stable_baselines3.common.vec_env import VecEnv as _SB3VecEnv
except ImportError as exc:  # pragma: no cover - exercised only without SB3
    raise ImportError("pufferlib.vector.to_sb3 needs Stable-Baselines3: pip install stable-baselines3") from exc


class SB3VecEnv(_SB3VecEnv):
    """Adapter from our `VecEnv` to Stable-Baselines3's `VecEnv`, one SB3 env per agent row (see `to_sb3`)."""

    def __init__(self, vecenv: PufferVecEnv):
        check_adaptable(vecenv, "to_sb3")
        self.vecenv = vecenv
        self.driver_env = vecenv.driver_env
        self.render_mode = self.driver_env.render_mode
        super().__init__(vecenv.num_agents, vecenv.single_observation_space, vecenv.single_action_space)
        self._actions: np.ndarray | None = None
        self._episodes = EpisodeCounter(self.num_envs)
        self._made_at = time.time()  # Monitor's `t` counts from here

    def reset(self) -> np.ndarray:
        """Reset every env (env copy c with seed + c, when seeded with `seed()`); return the observations."""
        seeds = self._seeds
        if seeds[0] is not None and any(s != seeds[0] + i for i, s in enumerate(seeds)):
            raise APIUsageError("Seeds must be consecutive (seed, seed + 1, ...); use VecEnv.seed(seed).")
        obs, infos = self.vecenv.reset(seed=seeds[0])
        require_present(self.vecenv.masks, self.vecenv.agents_per_env, "to_sb3", "reset")
        self._episodes.restart()
        self.reset_infos = self._per_env(infos, np.ones(self.num_envs, bool))
        self._reset_seeds()
        self._reset_options()
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the actions (one per env) for `step_wait`."""
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        """Step every env on the actions of `step_async`; return (obs, rewards, dones, infos)."""
        if self._actions is None:
            raise APIUsageError("step_wait() needs step_async(actions) first.")
        obs, rewards, terminals, truncations, infos = self.vecenv.step(self._actions)
        self._actions = None
        require_present(self.vecenv.masks, self.vecenv.agents_per_env, "to_sb3", "step")
        dones = terminals | truncations
        final_obs = self.vecenv.final_observations if self.vecenv.writes_final_observations else None
        env_infos = self._per_env(infos, dones)
        for row, ret, length, _ in self._episodes.step(rewards, dones):
            info = env_infos[row]
            info["TimeLimit.truncated"] = bool(truncations[row] and not terminals[row])
            info.setdefault("episode", {"r": round(ret, 6), "l": length, "t": round(time.time() - self._made_at, 6)})
            if final_obs is not None:
                info["terminal_observation"] = final_obs[row].copy()
        return obs.copy(), rewards.copy(), dones, env_infos

    def _per_env(self, infos: list[Info], owners: np.ndarray) -> list[dict[str, Any]]:
        """One dict per env: its own where the infos can be matched to rows (`split_infos`)."""
        per_row, unmatched = split_infos(infos, owners, self.vecenv.agents_per_env)
        out: list[dict[str, Any]] = [per_row.get(row, {}) for row in range(self.num_envs)]
        if unmatched:
            out[0]["pufferlib_infos"] = unmatched
        return out

    def close(self) -> None:
        """Close the vectorized env."""
        self.vecenv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute of the copy of env 0 in this process (of the env it emulates, else its own),
        once per index."""
        target = getattr(self.driver_env, "env", self.driver_env)
        value = getattr(target if hasattr(target, attr_name) else self.driver_env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: object, indices: VecEnvIndices = None) -> None:
        """Refused: envs in worker processes cannot be reached."""
        raise APIUsageError(f"set_attr({attr_name!r}) cannot reach envs that live in worker processes; "
                            "pass the value to the env creator instead.")

    def env_method(self, method_name: str, *method_args: object, indices: VecEnvIndices = None,
                   **method_kwargs: object) -> list[Any]:
        """Refused: envs in worker processes cannot be reached."""
        raise APIUsageError(f"env_method({method_name!r}) cannot reach envs that live in worker processes; "
                            "call it inside the env (e.g. from its step/reset) instead.")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """Whether the Gymnasium env of env 0 in this process is wrapped in `wrapper_class`, once per index."""
        import gymnasium
        from stable_baselines3.common.env_util import is_wrapped

        target = getattr(self.driver_env, "env", self.driver_env)  # the emulated env, else env 0 itself
        wrapped = isinstance(target, gymnasium.Env) and is_wrapped(target, wrapper_class)
        return [wrapped for _ in self._get_indices(indices)]


def to_sb3(vecenv: PufferVecEnv) -> SB3VecEnv:
    """Wrap a synchronous vectorized env as a Stable-Baselines3 `VecEnv` with one env per agent row."""
    return SB3VecEnv(vecenv)


__all__ = ["SB3VecEnv", "to_sb3"]
