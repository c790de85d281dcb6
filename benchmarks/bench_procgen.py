"""Procgen (coinrun, 64 envs): the cost of PufferLib's wrapper over raw `ProcgenEnv`.

- raw: procgen's `ProcgenEnv` (its gym3 baselines-style vector env), stepped directly.
- pufferlib: `pufferlib.make("procgen-coinrun", num_envs=64)`, where Procgen's C++
  code writes straight into the vectorizer's arrays.

Rounds alternate so that both see the same machine load. Both run in this process, so
besides wall-clock steps per second the script reports steps per CPU-second of this
process (all of Procgen's threads), which other processes' load disturbs far less: the
wrapper's cost is the drop in that rate. Target: overhead <= 10%.

    python benchmarks/bench_procgen.py [--game coinrun] [--num-envs 64] [--seconds 6]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pufferlib


def rate(step, actions: np.ndarray, seconds: float) -> tuple[float, float]:
    """Batches per wall-clock second and per CPU-second of `step(actions[i])`, for about `seconds`."""
    n = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        step(actions[n % len(actions)])
        n += 1
    return n / (time.perf_counter() - start), n / (time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="coinrun")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    from procgen import ProcgenEnv

    n = args.num_envs
    actions = np.random.default_rng(0).integers(0, 15, (1000, n)).astype(np.int32)
    raw = ProcgenEnv(num_envs=n, env_name=args.game, distribution_mode="easy", rand_seed=0)
    ours = pufferlib.make(f"procgen-{args.game}", num_envs=n, seed=0)
    raw.reset()
    ours.reset()
    raw_sps, our_sps = [], []
    try:
        for _ in range(5):
            raw_sps.append(rate(raw.step, actions, args.seconds / 10))
            our_sps.append(rate(ours.step, actions, args.seconds / 10))
    finally:
        raw.close()
        ours.close()
    (r, r_cpu), (p, p_cpu) = (np.median(np.array(x), axis=0) * n for x in (raw_sps, our_sps))
    print(f"procgen-{args.game}, {n} envs          steps/s   steps/CPU-s")
    print(f"  raw ProcgenEnv:   {r:10,.0f}  {r_cpu:10,.0f}")
    print(f"  pufferlib:        {p:10,.0f}  {p_cpu:10,.0f}")
    print(f"  ratio: {p / r:.2f}x wall-clock, {p_cpu / r_cpu:.2f}x per CPU-second "
          f"(overhead {max(0.0, 1 - p_cpu / r_cpu):.1%}; target <= 10%)")


if __name__ == "__main__":
    main()
