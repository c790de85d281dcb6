"""Vectorization: many envs stepped as one batch of in-place arrays.

`make(...)` picks a backend by name. See `pufferlib.vector.base` for the sync and async
APIs shared by every backend.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pufferlib.errors import APIUsageError
from pufferlib.vector.base import Backend, check_seed
from pufferlib.vector.gymnasium_compat import to_gymnasium
from pufferlib.vector.serial import Serial

if TYPE_CHECKING:
    from pufferlib.protocols import EnvCreator
    from pufferlib.vector.sb3 import SB3VecEnv

#: Backend name -> "module:class"; imported on first use.
BACKENDS = {
    "serial": "pufferlib.vector.serial:Serial",
    "multiprocessing": "pufferlib.vector.multiprocessing:Multiprocessing",
    "ray": "pufferlib.vector.ray:Ray",  # needs the [ray] extra
}


def _resolve_backend(backend: str | type) -> type:
    if isinstance(backend, type):
        return backend
    key = str(backend).lower()
    if key not in BACKENDS:
        raise APIUsageError(f"Unknown backend {backend!r}; choose one of {sorted(BACKENDS)}.")
    module, _, attr = BACKENDS[key].partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise APIUsageError(f"The {key!r} backend is not available in this build of pufferlib.") from exc


def _per_env(value: Any, num_envs: int, per_env: bool, default: Any, name: str) -> list[Any]:
    """One entry per env: `value` is per-env when creators were given per env and it is a list.

    `value` is one entry for every env or a list of them, which only the caller's types tell apart.
    """
    if per_env and isinstance(value, list):
        if len(value) != num_envs:
            raise APIUsageError(f"Got {len(value)} {name} for num_envs={num_envs}; give one or {num_envs}.")
        return value
    return [default if value is None else value] * num_envs


def check_counts(**counts: object) -> None:
    """APIUsageError unless each of `counts` (num_envs=..., num_workers=...) is None or an int >= 1."""
    for name, value in counts.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
            raise APIUsageError(f"{name} must be a positive int (or None for the default), got {value!r}"
                                f"{' (a ' + type(value).__name__ + ')' if not isinstance(value, int) else ''}.")


def make(env_creator_or_creators: EnvCreator | Sequence[EnvCreator],
         env_args: Sequence[object] | Sequence[Sequence[object]] | None = None,
         env_kwargs: Mapping[str, object] | Sequence[Mapping[str, object]] | None = None,
         backend: str | type = "serial", num_envs: int = 1,
         seed: int | None = 0, batch_size: int | None = None, num_workers: int | None = None,
         envs_per_worker: int | None = None, **backend_kwargs: object) -> Backend:
    """Create `num_envs` envs with the given backend and return the vectorized env.

    `env_creator_or_creators`: a callable returning an env (a PufferEnv, a Gymnasium env
    or a PettingZoo env; the latter two are emulated), or one callable per env.
    `env_args`/`env_kwargs`: shared by every env, or (with a list of creators) a list
    with one entry per env.
    `batch_size`: envs per `recv()` (default `num_envs`: synchronous).
    `seed`: env i is reset with `seed + i`, so the same seed gives the same trajectories.
    `num_workers`/`envs_per_worker`: process layout for the multiprocessing backend.
    `backend_kwargs`: options of the backend (multiprocessing: `start_method`, `timeout`,
    `init_timeout`, `zero_copy`, `spin_us`).
    """
    check_counts(num_envs=num_envs, num_workers=num_workers, envs_per_worker=envs_per_worker,
                 batch_size=batch_size)
    seed = check_seed(seed)
    if envs_per_worker is not None and num_workers is not None and num_envs == 1:
        num_envs = envs_per_worker * num_workers
    if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
        raise APIUsageError(f"num_envs must be a positive int, got {num_envs!r}.")
    per_env = isinstance(env_creator_or_creators, (list, tuple))
    creators = _per_env(list(env_creator_or_creators) if isinstance(env_creator_or_creators, (list, tuple))
                        else env_creator_or_creators,
                        num_envs, per_env, None, "env creators")
    if not all(callable(c) for c in creators):
        raise APIUsageError("env_creator_or_creators must be a callable (or a list, one per env) returning an env.")
    args = [tuple(a) for a in _per_env(env_args, num_envs, per_env, (), "env_args")]
    kwargs = [dict(k) for k in _per_env(env_kwargs, num_envs, per_env, {}, "env_kwargs")]
    cls = _resolve_backend(backend)
    if cls is Serial and num_workers not in (None, 1):
        raise APIUsageError(
            f"num_workers={num_workers} needs backend='multiprocessing'; the serial backend runs in this process.")
    return cls(creators, args, kwargs, num_envs=num_envs, batch_size=batch_size, seed=seed,
               num_workers=num_workers, envs_per_worker=envs_per_worker, **backend_kwargs)


def to_sb3(vecenv: Backend) -> SB3VecEnv:
    """`vecenv` as a Stable-Baselines3 VecEnv (needs stable-baselines3; see pufferlib.vector.sb3)."""
    from pufferlib.vector.sb3 import to_sb3 as convert

    return convert(vecenv)


__all__ = ["make", "Backend", "Serial", "BACKENDS", "to_gymnasium", "to_sb3", "check_seed", "check_counts"]
