"""Serial vectorization of CartPole: PufferLib (emulated) vs Gymnasium's SyncVectorEnv.

Both step the same envs with the same pre-drawn random actions; the ratio is from one
run, side by side, since this machine is shared and noisy. Target: >= 1.5x.

    python benchmarks/bench_serial.py [--num-envs 8] [--steps 20000]
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
from timing import rate

import pufferlib.vector


def cartpole() -> gym.Env:
    return gym.make("CartPole-v1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    actions = np.random.default_rng(0).integers(0, 2, (1000, args.num_envs))

    gym_vec = gym.vector.SyncVectorEnv([cartpole] * args.num_envs)
    gym_vec.reset(seed=0)
    puffer_vec = pufferlib.vector.make(cartpole, num_envs=args.num_envs, backend="serial")
    puffer_vec.reset(seed=0)
    # Alternate short rounds so that both see the same machine load.
    # The floor: the bare env's own step (no wrappers, no vectorizer) for the same actions.
    bare = [cartpole().unwrapped for _ in range(args.num_envs)]
    for i, env in enumerate(bare):
        env.reset(seed=i)

    def bare_step(batch: np.ndarray) -> None:
        for env, action in zip(bare, batch):
            if env.step(action)[2]:
                env.reset()

    gym_sps, puffer_sps, bare_sps = [], [], []
    for _ in range(3):
        gym_sps.append(rate(gym_vec.step, actions, args.seconds / 3))
        puffer_sps.append(rate(puffer_vec.step, actions, args.seconds / 3))
        bare_sps.append(rate(bare_step, actions.astype(np.int32), args.seconds / 3))
    gym_vec.close()
    puffer_vec.close()
    g, p, b = (np.median(x) * args.num_envs for x in (gym_sps, puffer_sps, bare_sps))
    print(f"CartPole-v1, {args.num_envs} envs, serial, agent steps/s")
    print(f"  gymnasium SyncVectorEnv: {g:12,.0f}")
    print(f"  pufferlib Serial:        {p:12,.0f}")
    print(f"  bare env.step loop:      {b:12,.0f}  (upper bound for any vectorizer: {b / g:.2f}x gymnasium)")
    print(f"  ratio: {p / g:.2f}x (target >= 1.5x)")


if __name__ == "__main__":
    main()
