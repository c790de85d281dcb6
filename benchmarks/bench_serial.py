"""Serial vectorization of CartPole: PufferLib (emulated) against the bare env loop, the
least loop that keeps the vectorizer's contract, and Gymnasium's SyncVectorEnv.

All step the same envs with the same pre-drawn random actions in short alternating
rounds (so that load from other processes hits them alike). The bare loop calls
`env.unwrapped.step` directly: no wrapper, no vectorizer, the ceiling of any vectorizer.
The contract loop (`ContractLoop`) does, inline, only what a serial vectorizer must: check
the actions and keep them, write every observation, reward, terminal and truncation into
the batch arrays, count episode returns and lengths, truncate at the step limit, keep the
final observation and reset: no wrapper objects, no per-env method calls. A vectorizer
written in Python with this contract will not beat it; ours steps emulated envs in C
(`pufferlib._emulation`), which is how it gets past it.
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


class ContractLoop:
    """The serial vectorizer's contract as one plain loop over `envs` (unwrapped CartPoles)."""

    def __init__(self, envs: list[gym.Env], max_steps: int = 500):
        n, self.envs, self.max_steps = len(envs), envs, max_steps
        self.steps = [env.step for env in envs]
        for i, env in enumerate(envs):
            env.reset(seed=i)
        self.observations = np.zeros((n, 4), np.float32)
        self.final_observations = np.zeros((n, 4), np.float32)
        self.rewards, self.terminals, self.truncations = np.zeros(n, np.float32), np.zeros(n, bool), np.zeros(n, bool)
        self.actions = np.zeros((n, 1), np.int32)
        self.returns, self.lengths = [0.0] * n, [0] * n
        self._r, self._term, self._trunc = [0.0] * n, [False] * n, [False] * n

    def step(self, actions: np.ndarray):
        actions = np.asarray(actions).reshape(self.actions.shape)
        if max(actions.view(np.uint64).ravel().tolist()) >= 2:  # the range check, negatives included
            raise ValueError("action out of range")
        self.actions[...] = actions
        infos: list[dict] = []
        rows, finals, returns, lengths = self.observations, self.final_observations, self.returns, self.lengths
        for i, step in enumerate(self.steps):
            obs, reward, terminal, truncated, _ = step(actions[i, 0])
            returns[i] += reward
            length = lengths[i] = lengths[i] + 1
            truncated = truncated or length == self.max_steps
            self._r[i], self._term[i], self._trunc[i] = reward, terminal, truncated
            if terminal or truncated:
                finals[i] = obs
                infos.append({"episode_return": returns[i], "episode_length": length})
                obs, _ = self.envs[i].reset()
                returns[i], lengths[i] = 0.0, 0
            rows[i] = obs
        self.rewards[:], self.terminals[:], self.truncations[:] = self._r, self._term, self._trunc
        return self.observations, self.rewards, self.terminals, self.truncations, infos


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

    contract = ContractLoop([cartpole().unwrapped for _ in range(args.num_envs)])

    gym_sps, puffer_sps, bare_sps, contract_sps = [], [], [], []
    window = args.seconds / args.rounds / 4
    for _ in range(args.rounds):
        gym_sps.append(rate(gym_vec.step, actions, window) * args.num_envs)
        puffer_sps.append(rate(puffer_vec.step, actions, window) * args.num_envs)
        bare_sps.append(rate(bare_step, actions.astype(np.int32), window) * args.num_envs)
        contract_sps.append(rate(contract.step, actions, window) * args.num_envs)
    gym_vec.close()
    puffer_vec.close()
    ours = np.array(puffer_sps)

    def ratio(name: str, other: list[float], target: str = "") -> None:
        r = ours / np.array(other)
        print(f"  serial / {name}: {np.median(r):.2f}x [{r.min():.2f}, {r.max():.2f}]{target}")

    print(f"CartPole-v1, {args.num_envs} envs, serial, agent steps/s (median of {args.rounds} rounds)")
    print(f"  gymnasium SyncVectorEnv: {np.median(gym_sps):12,.0f}")
    print(f"  pufferlib Serial:        {np.median(puffer_sps):12,.0f}")
    print(f"  contract loop:           {np.median(contract_sps):12,.0f}")
    print(f"  bare env.step loop:      {np.median(bare_sps):12,.0f}")
    ratio("bare loop", bare_sps, " (target >= 0.9x)")
    ratio("contract loop", contract_sps)
    floor = np.array(contract_sps) / np.array(bare_sps)
    print(f"  contract loop / bare loop: {np.median(floor):.2f}x [{floor.min():.2f}, {floor.max():.2f}] "
          "(the contract's own cost, in Python)")
    ratio("gymnasium", gym_sps)


if __name__ == "__main__":
    main()
