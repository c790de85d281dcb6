"""Upstream PufferLib 3.0's Craftax wrapper, timed as step_speed.py times ours (us per env-step).

Run it with the upstream venv (plus jax 0.10.2, craftax 1.6.1, flax, gymnax, absl-py, matplotlib),
from a scratch folder: importing upstream 3.0 makes a `resources` link in the working directory.

    mkdir -p /tmp/up && cd /tmp/up && python .../upstream_step_speed.py --variant classic --batch 1 64 1024

Upstream's `pufferlib.environments.craftax.make` builds `pufferlib.emulation.GymnaxPufferEnv` over
Craftax's own auto-reset env: `jax.jit(jax.vmap(env.step))`, which generates a fresh world for
every copy at every step and keeps the one it needs. Same XLA thread setting and the same step
counts as step_speed.py, so the two print comparable rows. Upstream's wrapper does not run as
released: this script replaces its space conversion (`_spaces_shim`) and gives jax 0.10 back the
`jax.dlpack.to_dlpack` it calls (removed from jax; an identity, as torch takes the array itself).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
import types

NAMES = {"classic": "Craftax-Classic-Symbolic-v1", "full": "Craftax-Symbolic-v1"}


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def summary(values: list[float]) -> str:
    return f"{min(values):8.1f} {statistics.median(values):8.1f} {max(values):8.1f}"


def _spaces_shim() -> types.ModuleType:
    """Stands in for `gymnax.spaces`: upstream's `GymnaxPufferEnv` converts the env's spaces with
    `gymnax.spaces.gymnax_space_to_gym_space`, which no released gymnax has (1.0.1 has it in
    `gymnax.environments.spaces`, and it refuses craftax's own Box: `NotImplementedError:
    Conversion of Box not supported`). Only that conversion is replaced; the stepping is upstream's."""
    import gymnasium
    import numpy as np

    def convert(space):
        if hasattr(space, "n"):
            return gymnasium.spaces.Discrete(int(space.n))
        return gymnasium.spaces.Box(float(space.low), float(space.high), tuple(space.shape), np.dtype(space.dtype))

    module = types.ModuleType("gymnax.spaces")
    module.gymnax_space_to_gym_space = convert
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=tuple(NAMES), default="classic")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024])
    parser.add_argument("--env-steps", type=int, default=2048)
    parser.add_argument("--min-steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args()
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import numpy as np

    if args.cache_dir:
        jax.config.update("jax_compilation_cache_dir", args.cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    import pufferlib
    from pufferlib.environments.craftax.environment import make

    sys.modules["gymnax.spaces"] = _spaces_shim()
    if not hasattr(jax.dlpack, "to_dlpack"):  # removed from jax; torch.from_dlpack takes the array itself
        jax.dlpack.to_dlpack = lambda array: array

    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  load {os.getloadavg()}  "
          f"upstream pufferlib {pufferlib.__version__} jax {jax.__version__} "
          f"XLA_FLAGS={os.environ['XLA_FLAGS']!r}", flush=True)
    rng = np.random.default_rng(0)
    for n in args.batch:
        env = make(NAMES[args.variant], num_envs=n)
        w, c = time.time(), cpu_seconds()
        env.reset(0)
        reset_w, reset_c = time.time() - w, cpu_seconds() - c
        batches = [rng.integers(0, env.single_action_space.n, (n,)).astype(np.int32) for _ in range(16)]
        w, c = time.time(), cpu_seconds()
        env.step(batches[0])
        step_w, step_c = time.time() - w, cpu_seconds() - c
        print(f"N={n:5d} upstream  first reset {reset_w:6.1f} s wall {reset_c:6.1f} s CPU;  "
              f"first step (compile) {step_w:6.1f} s wall {step_c:6.1f} s CPU", flush=True)
        steps = max(args.min_steps, args.env_steps // n)
        wall, cpu = [], []
        for _ in range(args.repeats):
            w, c = time.time(), cpu_seconds()
            for i in range(steps):
                env.step(batches[i % 16])
            wall.append(1e6 * (time.time() - w) / (steps * n))
            cpu.append(1e6 * (cpu_seconds() - c) / (steps * n))
        print(f"N={n:5d}  {'upstream 3.0 step':20s} wall {summary(wall)}   CPU {summary(cpu)}   ({steps} steps/repeat)",
              flush=True)
    print(f"# done {time.strftime('%H:%M:%S')}  load {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
