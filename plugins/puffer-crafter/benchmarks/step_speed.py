"""Crafter stepping speed: crafter alone, puffer-crafter, and upstream PufferLib 3.0's emulation.

Run with this repository's venv for `raw` and `ours`, and with upstream 3.0's venv
(`/work/shared/reference/build_pufferlib_3.sh DIR`, then `DIR/venv/bin/pip install crafter==1.8.3`)
for `upstream`. Upstream 3.0's own crafter wrapper (`pufferlib.environments.crafter`) does not
import (it needs `pufferlib.postprocess` and `pufferlib.utils`, which 3.0 no longer ships), so
`upstream` builds the rest of that wrapper's chain: `gym.make('CrafterReward-v1')`, shimmy's
GymV21 compatibility, upstream's `GymnasiumPufferEnv` and `pufferlib.vector`.

    python step_speed.py IMPL [--num-envs N] [--num-workers W] [--seconds S]

prints one line: IMPL, envs, workers, agent steps per second over S seconds of random actions.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def upstream_creator(buf=None, seed=0):
    """Upstream 3.0's crafter chain without its two missing modules (EpisodeStats, silence_warnings)."""
    import crafter  # noqa: F401 - registers CrafterReward-v1 with gym
    import gym
    import shimmy

    import pufferlib.emulation

    env = shimmy.GymV21CompatibilityV0(env=gym.make("CrafterReward-v1"))
    return pufferlib.emulation.GymnasiumPufferEnv(env=env, buf=buf, seed=seed)


def make(impl: str, num_envs: int, num_workers: int):
    """A vectorized env of `impl` (serial when num_workers is 1)."""
    if impl == "ours":
        import pufferlib

        backend = "serial" if num_workers == 1 else "multiprocessing"
        kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
        return pufferlib.make("crafter-reward", num_envs=num_envs, backend=backend, **kwargs)
    import pufferlib.vector

    backend = pufferlib.vector.Serial if num_workers == 1 else pufferlib.vector.Multiprocessing
    kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
    return pufferlib.vector.make(upstream_creator, backend=backend, num_envs=num_envs, **kwargs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=["raw", "ours", "upstream"])
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    steps = 0
    if args.impl == "raw":
        import crafter

        env = crafter.Env(seed=0)
        env.reset()
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            if env.step(int(rng.integers(17)))[2]:
                env.reset()
            steps += 1
    else:
        env = make(args.impl, args.num_envs, args.num_workers)
        env.reset(seed=0)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            env.step(rng.integers(0, 17, args.num_envs))
            steps += args.num_envs
        env.close()
    print(f"{args.impl} envs={args.num_envs} workers={args.num_workers} "
          f"{steps / (time.perf_counter() - start):.0f} agent steps/s")


if __name__ == "__main__":
    main()
