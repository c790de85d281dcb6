"""Find the fastest vectorization settings for an env on this machine.

`autotune(env, num_envs=...)` times the serial backend and the multiprocessing backend
with a few `num_workers` (around the number of cores) and `batch_size` (all envs, or
half of them EnvPool-style) choices, stepping random actions, prints a table and returns
the fastest settings. `autotune(creator)` tunes an env creator for `pufferlib.vector.make`;
`tune(make, ...)` any maker of vectorized envs: `puffer bench ENV_ID` runs it with
`pufferlib.make` from the command line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pufferlib.cpu.cores import usable_cores
from pufferlib.errors import APIUsageError, PufferError

if TYPE_CHECKING:
    from pufferlib.protocols import EnvCreator
    from pufferlib.vector.base import Backend


def candidates(num_envs: int, native: bool = False, cores: int | None = None) -> list[dict]:
    """Settings worth timing: serial, and worker counts near the core count (sync and half batches)."""
    cores = cores or usable_cores()
    options: list[dict] = [{"backend": "serial"} if not native else {"num_workers": 1}]
    workers = sorted({w for w in (max(cores // 2, 2), cores, 2 * cores) if 1 < w <= num_envs and num_envs % w == 0})
    for w in workers:
        options.append({"backend": "multiprocessing", "num_workers": w} if not native else {"num_workers": w})
        if not native and w % 2 == 0:  # half of the envs is then a whole number of workers
            options.append({"backend": "multiprocessing", "num_workers": w, "batch_size": num_envs // 2})
    return options


def measure(vecenv: Backend, seconds: float) -> float:
    """Agent steps per second of `vecenv` under random actions (async API, any batch size)."""
    vecenv.action_space.seed(0)
    actions = [vecenv.action_space.sample() for _ in range(16)]
    vecenv.async_reset(0)
    for i in range(10):  # warm up
        vecenv.recv()
        vecenv.send(actions[i % 16])
    rows, steps = vecenv.agents_per_batch, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        vecenv.recv()
        vecenv.send(actions[steps % 16])
        steps += 1
    return steps * rows / (time.perf_counter() - start)


def autotune(env: EnvCreator, num_envs: int | None = None, seconds: float = 1.0,
             print_fn: Callable[[str], object] = print) -> dict[str, object]:
    """Time the candidate settings for the env creator `env`; print a table and return the fastest settings.

    `num_envs` defaults to twice the number of cores. Settings that fail (for example an
    env that cannot be created in worker processes) are reported and skipped. For an env id,
    `puffer bench ENV_ID` (which calls `tune` with `pufferlib.make`).
    """
    if isinstance(env, str):
        raise APIUsageError(f"autotune takes an env creator; time the env id {env!r} with `puffer bench {env}`.")
    from pufferlib.vector import make

    num_envs = num_envs or 2 * usable_cores()
    name = getattr(env, "__name__", repr(env))
    return tune(lambda **settings: make(env, num_envs=num_envs, **settings), num_envs, name,
                seconds=seconds, print_fn=print_fn)


def tune(make: Callable[..., Backend], num_envs: int, name: str, native: bool = False, seconds: float = 1.0,
         print_fn: Callable[[str], object] = print) -> dict[str, object]:
    """Time `make(**settings)` for each of `candidates(num_envs, native)`; print a table and return the fastest.

    `make` builds `num_envs` copies of one env with the candidate's settings (`backend`,
    `num_workers`, `batch_size`); `native` selects the settings of a natively vectorized env.
    """
    print_fn(f"{name}: {num_envs} envs, {usable_cores()} cores, {seconds:g} s per setting")
    print_fn(f"{'backend':<16} {'workers':>7} {'batch':>6} {'agent steps/s':>14}")
    results: list[tuple[float, dict]] = []
    for settings in candidates(num_envs, native):
        label = (f"{settings.get('backend', 'native'):<16} {settings.get('num_workers', 1):>7} "
                 f"{settings.get('batch_size', num_envs):>6}")
        try:
            with make(**settings) as vecenv:
                rate = measure(vecenv, seconds)
        except PufferError as exc:
            print_fn(f"{label} failed: {str(exc).splitlines()[0]}")
            continue
        results.append((rate, settings))
        print_fn(f"{label} {rate:>14,.0f}")
    if not results:
        raise PufferError(f"Every setting failed for {name}; see the messages above.")
    rate, best = max(results, key=lambda r: r[0])
    flags = " ".join(f"--vec.{_flag_name(k)} {v}" for k, v in best.items())
    kwargs = ", ".join(f"{k}={v!r}" for k, v in best.items())
    print_fn(f"best: {kwargs} ({rate:,.0f} agent steps/s); as flags: --vec.num-envs {num_envs} {flags}")
    return {"num_envs": num_envs, **best, "steps_per_second": rate}


def _flag_name(key: str) -> str:
    return "env-batch-size" if key == "batch_size" else key.replace("_", "-")
