"""`pufferlib.make`, `pufferlib.emulate` and `make_from_config`: from an id, an env or a trainer
config to a vectorized env."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pufferlib import registry
from pufferlib.errors import APIUsageError
from pufferlib.registry.spec import NATIVE

if TYPE_CHECKING:
    from pufferlib.protocols import Env, EnvCreator
    from pufferlib.vector.base import Backend


def make(env_id: str, num_envs: int = 1, num_workers: int | None = None,
         envs_per_worker: int | None = None, batch_size: int | None = None,
         backend: str | type | None = None, seed: int | None = 0, zero_copy: bool | None = None,
         start_method: str | None = None, timeout: float | None = None, init_timeout: float | None = None,
         **env_kwargs: object) -> Backend:
    """Make a vectorized env from a registered id, a family id or a 'module:Callable' id.

    `env_kwargs` override the spec's default env kwargs. The backend defaults to the
    spec's, else 'multiprocessing' when `num_workers > 1`, else 'serial'. Native specs
    (`backend='native'`) get `num_envs` as an env kwarg: one env object holds the copies.
    `zero_copy=False` makes the multiprocessing backend return copies, never views;
    A turn-based PettingZoo game whose creator does not take `opponent` or `loss_penalty` (a
    plugin's AEC env) gets them through the turn-based adapter (`turn_based.made_game`).
    `start_method`, `timeout` and `init_timeout` are the multiprocessing backend's too
    (see `pufferlib.vector.multiprocessing.Multiprocessing`).
    """
    if not isinstance(env_id, str):
        raise APIUsageError(f"env_id must be a string such as 'gym-CartPole-v1', got {type(env_id).__name__}; "
                            "use pufferlib.emulate() for env objects and creators.")
    from pufferlib import vector

    vector.check_counts(num_envs=num_envs, num_workers=num_workers, envs_per_worker=envs_per_worker,
                        batch_size=batch_size)
    seed = vector.check_seed(seed)
    spec = registry.spec(env_id)
    kwargs = {**spec.kwargs, **env_kwargs}
    # Options of the multiprocessing backend; only those given travel (serial rejects them).
    options = {k: v for k, v in dict(zero_copy=zero_copy, start_method=start_method, timeout=timeout,
                                      init_timeout=init_timeout).items() if v is not None}
    if spec.backend == NATIVE and backend in (None, NATIVE):
        return _make_native(spec, kwargs, num_envs, num_workers, seed, batch_size=batch_size,
                            envs_per_worker=envs_per_worker, options=options)
    if backend is None:
        backend = spec.backend or ("multiprocessing" if (num_workers or 1) > 1 else "serial")

    creator = spec.load_creator()
    from pufferlib.turn_based import ADAPTER_OPTIONS, made_game

    if any(key in kwargs for key in ADAPTER_OPTIONS):  # a plugin's AEC game takes them through the adapter
        creator = functools.partial(made_game, creator)
    vecenv = vector.make(creator, env_args=(), env_kwargs=kwargs, backend=backend, num_envs=num_envs,
                         num_workers=num_workers, envs_per_worker=envs_per_worker,
                         batch_size=batch_size, seed=seed, **options)
    vecenv.spec = spec
    return vecenv


def make_from_config(env_id: str, config: Mapping[str, Any], rank: int = 0, **env_overrides: Any) -> Backend:
    """The vectorized env of a trainer config (its `vec` and `env` sections); `rank` offsets the
    seeds under torchrun; `env_overrides` override env kwargs (e.g. render_mode).

    `config` holds TOML values and `env_overrides` the user's env kwargs: both are passed through.
    """
    vec = config["vec"]
    if vec["backend"] == "ray":
        from pufferlib.vector.ray import connect

        connect(config["ray"]["address"] or None)
    return make(env_id, num_envs=vec["num_envs"], num_workers=vec["num_workers"] or None,
                batch_size=vec["env_batch_size"] or None, backend=None if vec["backend"] == "auto" else vec["backend"],
                seed=vec["seed"] + rank * vec["num_envs"], timeout=vec.get("timeout") or None,
                **{**config["env"], **env_overrides})


def _make_native(spec: registry.EnvSpec, kwargs: dict, num_envs: int, num_workers: int | None,
                 seed: int | None, batch_size: int | None = None, envs_per_worker: int | None = None,
                 options: dict[str, Any] | None = None) -> Backend:
    """A native env steps all its copies in one C loop: one env object per process.

    Without workers, one env holds all `num_envs` copies; with `num_workers=W`, each of W
    worker processes hosts one env of `num_envs / W` copies. Arguments that this layout
    cannot honour are errors, never silently dropped. `options`: the backend's, passed through.
    """
    from pufferlib import vector

    workers = num_workers or 1
    if num_envs % workers:
        raise APIUsageError(f"num_envs={num_envs} must be divisible by num_workers={workers}.")
    per_worker = num_envs // workers
    if batch_size not in (None, num_envs):
        raise APIUsageError(
            f"batch_size={batch_size}: {spec.id} is a native env that steps all its copies in one call, "
            "so every recv() returns all num_envs; drop batch_size (async batches need a Python env and "
            "backend='multiprocessing').")
    if envs_per_worker not in (None, per_worker):
        raise APIUsageError(
            f"envs_per_worker={envs_per_worker}: {spec.id} is a native env; each of num_workers={workers} "
            f"process(es) hosts one env of num_envs / num_workers = {per_worker} copies. Set num_envs and "
            "num_workers instead.")
    options = dict(options or {})
    if workers == 1:
        given = sorted(k for k, v in options.items() if k != "zero_copy" or v is False)
        if given:
            raise APIUsageError(
                f"{', '.join(given)}: option(s) of worker processes, but {spec.id} is a native env stepped in "
                "this process (num_workers=1), which returns views of its arrays. Pass num_workers > 1 for "
                "worker processes, or drop them.")
        options = {}
    backend = "serial" if workers == 1 else "multiprocessing"
    vecenv = vector.make(spec.load_creator(), env_kwargs={**kwargs, "num_envs": per_worker},
                         backend=backend, num_envs=workers, num_workers=num_workers, seed=seed, **options)
    vecenv.spec = spec
    return vecenv


def emulate(env_or_creator: Env | EnvCreator, num_envs: int = 1, **vec_kwargs: Any) -> Backend:
    """Vectorize an env instance, an env class or a creator (Gymnasium, PettingZoo or PufferEnv).

    An instance is never shared between copies: a Gymnasium env is re-made from its
    spec, other instances are deep-copied (pass a class or creator when they cannot be).
    `vec_kwargs` go to `pufferlib.vector.make` as they are (backend, seed, batch_size, ...).
    """
    from pufferlib import vector
    from pufferlib.emulation import creator_from_instance

    creator: EnvCreator
    if isinstance(env_or_creator, type) or not _looks_like_env(env_or_creator):
        if not callable(env_or_creator):
            raise APIUsageError(f"Cannot emulate {env_or_creator!r}: pass an env, an env class or a creator.")
        creator = env_or_creator
    elif num_envs == 1:
        instance = env_or_creator
        creator = lambda: instance  # noqa: E731 - the one copy is the instance itself
    else:
        creator = creator_from_instance(env_or_creator)
    return vector.make(creator, num_envs=num_envs, **vec_kwargs)


def _looks_like_env(obj: object) -> bool:
    return hasattr(obj, "step") and hasattr(obj, "reset") and not isinstance(obj, type)
