"""Serial vectorization of CartPole: PufferLib (emulated) against the bare env loop and
Gymnasium's SyncVectorEnv.

All three step the same envs with the same pre-drawn random actions in short alternating
rounds (so that load from other processes hits them alike). The bare loop calls
`env.unwrapped.step` directly: no wrapper, no vectorizer, the ceiling of any vectorizer.
The ratios are taken round by round and their median and range printed.
Target: serial >= 0.9x the bare loop.

    python benchmarks/bench_serial.py [--num-envs 8] [--seconds 6] [--rounds 12]
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
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=12)
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
    window = args.seconds / args.rounds / 3
    for _ in range(args.rounds):
        gym_sps.append(rate(gym_vec.step, actions, window) * args.num_envs)
        puffer_sps.append(rate(puffer_vec.step, actions, window) * args.num_envs)
        bare_sps.append(rate(bare_step, actions.astype(np.int32), window) * args.num_envs)
    gym_vec.close()
    puffer_vec.close()
    to_bare = np.array(puffer_sps) / np.array(bare_sps)
    to_gym = np.array(puffer_sps) / np.array(gym_sps)
    print(f"CartPole-v1, {args.num_envs} envs, serial, agent steps/s (median of {args.rounds} rounds)")
    print(f"  gymnasium SyncVectorEnv: {np.median(gym_sps):12,.0f}")
    print(f"  pufferlib Serial:        {np.median(puffer_sps):12,.0f}")
    print(f"  bare env.step loop:      {np.median(bare_sps):12,.0f}")
    print(f"  serial / bare loop: {np.median(to_bare):.2f}x [{to_bare.min():.2f}, {to_bare.max():.2f}] "
          "(target >= 0.9x)")
    print(f"  serial / gymnasium: {np.median(to_gym):.2f}x [{to_gym.min():.2f}, {to_gym.max():.2f}]")


if __name__ == "__main__":
    main()
