"""Agent lifetime under random play: uniformly random allowed actions until N agents have ended.

    python random_lifetime.py [--env nmmo-small] [--agents 512] [--num-envs 8] [--num-workers 2] [--seed 0]

Each action argument is drawn uniformly among the choices nmmo's `action_mask` allows (what an
untrained policy's masked sampling starts from). Pools the end-of-life infos of the first N agents
to end and prints the mean of each statistic (`puffer_nmmo.env.AGENT_STATS`), the lifetime's
standard deviation, the agent steps and the seconds taken.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

import pufferlib
import pufferlib.pytorch
from puffer_nmmo.env import AGENT_STATS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="nmmo-small")
    parser.add_argument("--agents", type=int, default=512)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = pufferlib.make(args.env, num_envs=args.num_envs, num_workers=args.num_workers, seed=args.seed)
    nvec = [int(n) for n in env.single_action_space.nvec]
    generator = torch.Generator().manual_seed(args.seed)
    ended: list[dict] = []
    steps, start = 0, time.perf_counter()
    obs, _ = env.reset(seed=args.seed)
    while len(ended) < args.agents:
        mask = pufferlib.pytorch.action_mask(torch.from_numpy(obs), env.obs_layout)
        noise = torch.rand(mask.shape, generator=generator).masked_fill(~mask, -1.0)  # argmax: a uniform allowed choice
        actions = torch.stack([part.argmax(-1) for part in torch.split(noise, nvec, dim=-1)], -1)
        steps += int(env.masks.sum())
        obs, _, _, _, infos = env.step(actions.numpy())
        ended += [i for i in infos if "lifetime" in i]
    seconds = time.perf_counter() - start
    env.close()
    ended = ended[:args.agents]
    lifetimes = np.array([i["lifetime"] for i in ended])
    print(f"{args.env} random play, seed {args.seed}: {len(ended)} agents, {steps} agent steps, {seconds:.0f} s")
    print(f"  lifetime mean {lifetimes.mean():.1f} std {lifetimes.std():.1f}")
    for key in AGENT_STATS[1:]:
        print(f"  {key} mean {np.mean([i[key] for i in ended]):.3f}")


if __name__ == "__main__":
    main()
