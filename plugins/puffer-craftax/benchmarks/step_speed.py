"""Craftax's JAX CPU step cost per env-step at several batch sizes, beside Crafter's Python step.

Usage (from the repository root, in a venv with puffer-craftax and puffer-crafter):
    python plugins/puffer-craftax/benchmarks/step_speed.py --variant classic --batch 1 64 1024
    python plugins/puffer-craftax/benchmarks/step_speed.py --variant full --batch 1 64 1024 --no-crafter

For each batch size N it makes one `CraftaxVector` of N copies and prints:
- compile: seconds (wall and process CPU) of the first reset (tracing + XLA compile of the reset
  program + N world generations) and of the first step (the step program, with its pool of
  fresh worlds);
- step: microseconds per env-step (one copy stepped once), wall and CPU, over `--repeats` runs
  of `--steps` batched steps with uniform random actions, min/median/max; the program alone
  (`Program.step`, results left in JAX) and through `CraftaxVector.step` (copies into numpy,
  infos), so that the difference is what leaving JAX costs.
Crafter (`puffer_crafter.env.CrafterEnv`, one Python env, resets excluded) is timed the same way
in the same process run, beside it.

JAX's CPU client is confined to one thread (`--xla-threads 1`, the default, sets XLA_FLAGS
before JAX starts), so that the figures are per core, like Crafter's; `--xla-threads 0` leaves
XLA's pool as JAX makes it. `--cache-dir DIR` turns JAX's persistent compilation cache on there
(the compile column then shows a cache hit on a second run).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def summary(values: list[float]) -> str:
    return f"{min(values):8.1f} {statistics.median(values):8.1f} {max(values):8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=("classic", "full"), default="classic")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024])
    parser.add_argument("--env-steps", type=int, default=2048,
                        help="env-steps per repeat: batched steps = max(--min-steps, this / N)")
    parser.add_argument("--min-steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--xla-threads", type=int, default=1, help="1: one XLA thread; 0: JAX's default pool")
    parser.add_argument("--cache-dir", default=None, help="JAX persistent compilation cache folder (off by default)")
    parser.add_argument("--no-crafter", action="store_true", help="skip Crafter's timing")
    parser.add_argument("--crafter-steps", type=int, default=300)
    args = parser.parse_args()

    if args.xla_threads == 1:
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import numpy as np

    if args.cache_dir:
        jax.config.update("jax_compilation_cache_dir", args.cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    from puffer_craftax.env import CraftaxVector

    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  load {os.getloadavg()}  jax {jax.__version__} "
          f"XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r}  python {sys.version.split()[0]}", flush=True)
    print(f"# craftax-{args.variant}: us per env-step, min/median/max of {args.repeats} repeats", flush=True)
    rng = np.random.default_rng(0)
    for n in args.batch:
        env = CraftaxVector(args.variant, num_envs=n)
        w, c = time.time(), cpu_seconds()
        env.reset(seed=0)
        reset_w, reset_c = time.time() - w, cpu_seconds() - c
        actions = rng.integers(0, env.single_action_space.n, (n,))
        w, c = time.time(), cpu_seconds()
        env.step(actions)
        step_w, step_c = time.time() - w, cpu_seconds() - c
        print(f"N={n:5d} pool={env.reset_pool:3d}  first reset {reset_w:6.1f} s wall {reset_c:6.1f} s CPU;  "
              f"first step (compile) {step_w:6.1f} s wall {step_c:6.1f} s CPU", flush=True)
        steps = max(args.min_steps, args.env_steps // n)
        program, pool = env._program, env.reset_pool
        batches = [np.ascontiguousarray(rng.integers(0, env.single_action_space.n, (n,)), np.int32)
                   for _ in range(16)]
        rows: dict[str, tuple[list[float], list[float]]] = {"program": ([], []), "CraftaxVector.step": ([], [])}
        for _ in range(args.repeats):
            key, state = env._key, env._state
            w, c = time.time(), cpu_seconds()
            for i in range(steps):
                key, state, *out = program.step(key, state, batches[i % 16], pool)
            jax.block_until_ready(state)
            rows["program"][0].append(1e6 * (time.time() - w) / (steps * n))
            rows["program"][1].append(1e6 * (cpu_seconds() - c) / (steps * n))
            env._key, env._state = key, state
            ends = 0
            w, c = time.time(), cpu_seconds()
            for i in range(steps):
                _, _, terms, truncs, _ = env.step(batches[i % 16])
                ends += int(terms.sum() + truncs.sum())
            rows["CraftaxVector.step"][0].append(1e6 * (time.time() - w) / (steps * n))
            rows["CraftaxVector.step"][1].append(1e6 * (cpu_seconds() - c) / (steps * n))
        obs = np.asarray(out[0])
        w = time.time()
        for _ in range(100):
            env.observations[:] = obs
        copy_us = 1e6 * (time.time() - w) / (100 * n)
        for name, (wall, cpu) in rows.items():
            print(f"N={n:5d}  {name:20s} wall {summary(wall)}   CPU {summary(cpu)}   ({steps} steps/repeat)",
                  flush=True)
        print(f"N={n:5d}  observation copy out of JAX: {copy_us:.2f} us per env-step "
              f"({obs.nbytes / n:.0f} bytes); episodes ended in the last repeat: {ends}", flush=True)
        env.close()

    if not args.no_crafter:
        from puffer_crafter.env import CrafterEnv

        env = CrafterEnv()
        env.reset(seed=0)
        wall, cpu = [], []
        for _ in range(args.repeats):
            taken, used = 0.0, 0.0
            for _ in range(args.crafter_steps):
                w, c = time.time(), cpu_seconds()
                _, _, term, trunc, _ = env.step(int(rng.integers(17)))
                taken, used = taken + time.time() - w, used + cpu_seconds() - c
                if term or trunc:
                    env.reset()
            wall.append(1e6 * taken / args.crafter_steps)
            cpu.append(1e6 * used / args.crafter_steps)
        print(f"crafter 1.8.3 (one Python env, resets excluded)  wall {summary(wall)}   CPU {summary(cpu)}   "
              f"({args.crafter_steps} steps/repeat)", flush=True)
    print(f"# done {time.strftime('%H:%M:%S')}  load {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
