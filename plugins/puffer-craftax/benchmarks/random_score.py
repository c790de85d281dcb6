"""The Crafter score of uniformly random play on a craftax id: each of N copies plays its first episode.

    python random_score.py [--variant classic] [--num-envs 256] [--seed 0]

Only each copy's first episode counts (all start together), so short episodes are not favoured.
Prints the Crafter score of the achievement success rates over those N episodes, the mean return
and length, and the achievements above 20%. XLA runs on one thread (as in step_speed.py).
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=("classic", "full"), default="classic")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=20_000, help="give up after this many batched steps")
    args = parser.parse_args()
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import numpy as np

    from puffer_craftax.env import CraftaxVector, crafter_score

    n = args.num_envs
    env = CraftaxVector(args.variant, num_envs=n)
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    first: dict[int, dict] = {}
    start = time.time()
    for _ in range(args.max_steps):
        _, _, terms, truncs, infos = env.step(rng.integers(0, env.single_action_space.n, n))
        ended = np.flatnonzero(terms | truncs)  # infos come in row order, one per ended row
        for row, info in zip(ended.tolist(), infos):
            first.setdefault(row, info)
        if len(first) == n:
            break
    names = env.achievement_names
    episodes = list(first.values())
    rates = {k: 100.0 * float(np.mean([e[f"achievement_{k}"] for e in episodes])) for k in names}
    top = ", ".join(f"{k} {r:.0f}" for k, r in sorted(rates.items(), key=lambda kv: -kv[1]) if r > 20)
    print(f"craftax-{args.variant} random play, {len(episodes)} first episodes of {n} copies "
          f"({sum(e['episode_length'] for e in episodes):,} steps, {time.time() - start:.0f} s): "
          f"Crafter score {crafter_score(rates.values()):.2f}%, mean return "
          f"{np.mean([e['episode_return'] for e in episodes]):.2f}, mean length "
          f"{np.mean([e['episode_length'] for e in episodes]):.0f}; above 20%: {top}")


if __name__ == "__main__":
    main()
