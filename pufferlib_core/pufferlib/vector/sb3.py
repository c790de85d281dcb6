"""`to_sb3(vecenv)`: one of our vectorized envs as a Stable-Baselines3 `VecEnv`.

Needs `stable-baselines3`. Single-agent, synchronous vectorized envs only:

    from stable_baselines3 import PPO
    vecenv = pufferlib.vector.make(make_env, num_envs=8, backend="multiprocessing")
    PPO("MlpPolicy", pufferlib.vector.to_sb3(vecenv)).learn(10_000)

Semantics are SB3's: `reset()` returns observations, `step_wait()` returns
`(obs, rewards, dones, infos)` with one info dict per env; an env whose episode ends is
reset within the same step. Its info dict carries the env's final info,
`TimeLimit.truncated`, `episode` (`r`, `l`) as SB3's Monitor would, so the episode
statistics show up in SB3's logs, and `terminal_observation` when the envs keep it
(`writes_final_observations`, see `pufferlib.environment`), from which SB3 bootstraps
truncated episodes.
`get_attr` reads the attributes of the copy of env 0 that lives in the main process;
`set_attr` and `env_method` cannot reach envs in worker processes and raise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pufferlib.errors import APIUsageError

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

    from pufferlib.vector.base import Backend as PufferVecEnv

try:
    from stable_baselines3.common.vec_env import VecEnv as _SB3VecEnv
except ImportError as exc:  # pragma: no cover - exercised only without SB3
    raise ImportError("pufferlib.vector.to_sb3 needs Stable-Baselines3: pip install stable-baselines3") from exc


class SB3VecEnv(_SB3VecEnv):
    """Adapter from our `VecEnv` to Stable-Baselines3's `VecEnv` (see `to_sb3`)."""

    def __init__(self, vecenv: PufferVecEnv):
        if vecenv.agents_per_env != 1 or vecenv.batch_size != vecenv.num_envs:
            raise APIUsageError(
                "to_sb3() needs single-agent envs in a synchronous vectorized env (batch_size == num_envs); "
                f"got {vecenv.agents_per_env} agents per env and batch_size={vecenv.batch_size} for "
                f"num_envs={vecenv.num_envs}.")
        self.vecenv = vecenv
        self.driver_env = vecenv.driver_env
        self.render_mode = self.driver_env.render_mode
        super().__init__(vecenv.num_envs, vecenv.single_observation_space, vecenv.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seeds = self._seeds
        if seeds[0] is not None and any(s != seeds[0] + i for i, s in enumerate(seeds)):
            raise APIUsageError("Seeds must be consecutive (seed, seed + 1, ...); use VecEnv.seed(seed).")
        obs, infos = self.vecenv.reset(seed=seeds[0])
        self.reset_infos = self._per_env(infos, np.ones(self.num_envs, bool))
        self._reset_seeds()
        self._reset_options()
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise APIUsageError("step_wait() needs step_async(actions) first.")
        obs, rewards, terminals, truncations, infos = self.vecenv.step(self._actions)
        self._actions = None
        dones = terminals | truncations
        final_obs = self.vecenv.final_observations if self.vecenv.writes_final_observations else None
        env_infos = self._per_env(infos, dones)
        for i in np.flatnonzero(dones):
            info = env_infos[i]
            info["TimeLimit.truncated"] = bool(truncations[i] and not terminals[i])
            if "episode_return" in info and "episode" not in info:
                info["episode"] = {"r": info["episode_return"], "l": info["episode_length"]}
            if final_obs is not None:
                info["terminal_observation"] = final_obs[i].copy()
        return obs.copy(), rewards.copy(), dones, env_infos

    def _per_env(self, infos: list, owners: np.ndarray) -> list[dict]:
        """One dict per env: the k-th info dict belongs to the k-th env in `owners`."""
        out: list[dict] = [{} for _ in range(self.num_envs)]
        envs = np.flatnonzero(owners)
        if infos and len(infos) == len(envs):
            for env, info in zip(envs, infos):
                out[env] = dict(info)
        elif infos:
            out[0]["pufferlib_infos"] = list(infos)
        return out

    def close(self) -> None:
        self.vecenv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        target = getattr(self.driver_env, "env", self.driver_env)
        return [getattr(target, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: object, indices: VecEnvIndices = None) -> None:
        raise APIUsageError(f"set_attr({attr_name!r}) cannot reach envs that live in worker processes; "
                            "pass the value to the env creator instead.")

    def env_method(self, method_name: str, *method_args: object, indices: VecEnvIndices = None,
                   **method_kwargs: object) -> list[Any]:
        raise APIUsageError(f"env_method({method_name!r}) cannot reach envs that live in worker processes; "
                            "call it inside the env (e.g. from its step/reset) instead.")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        import gymnasium
        from stable_baselines3.common.env_util import is_wrapped

        target = getattr(self.driver_env, "env", self.driver_env)  # the emulated env, else env 0 itself
        wrapped = isinstance(target, gymnasium.Env) and is_wrapped(target, wrapper_class)
        return [wrapped for _ in self._get_indices(indices)]


def to_sb3(vecenv: PufferVecEnv) -> SB3VecEnv:
    """Wrap a synchronous, single-agent vectorized env as a Stable-Baselines3 `VecEnv`."""
    return SB3VecEnv(vecenv)


__all__ = ["SB3VecEnv", "to_sb3"]
