"""Agent lifetime of random play or of a trained checkpoint, until N agents have ended.

    python lifetime.py [--checkpoint PATH] [--env nmmo-small] [--agents 256] [--num-envs 16]
                       [--num-workers 2] [--seed 100]

Random play (no `--checkpoint`): each action argument is drawn uniformly among the choices nmmo's
`action_mask` allows. A checkpoint (`pufferlib.load`) plays with sampled, masked actions. Pools
the end-of-life infos of the first N agents to end (with the defaults: every agent of one
episode of each of 16 worlds, seeds 100..115) and prints the mean of each statistic
(`puffer_nmmo.env.AGENT_STATS`), the lifetime's standard deviation and a 95% interval of its
mean, the agent steps and the seconds taken.
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
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--agents", type=int, default=256)
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(1)  # acting on a shared CPU: one thread, no spinning
    torch.manual_seed(args.seed)
    env = pufferlib.make(args.env, num_envs=args.num_envs, num_workers=args.num_workers, seed=args.seed)
    agent = None if args.checkpoint is None else pufferlib.load(args.checkpoint, env=env)
    nvec = [int(n) for n in env.single_action_space.nvec]
    generator = torch.Generator().manual_seed(args.seed)
    ended: list[dict] = []
    steps, start = 0, time.perf_counter()
    obs, _ = env.reset(seed=args.seed)
    while len(ended) < args.agents:
        if agent is None:
            mask = pufferlib.pytorch.action_mask(torch.from_numpy(obs), env.obs_layout)
            noise = torch.rand(mask.shape, generator=generator).masked_fill(~mask, -1.0)  # argmax: uniform allowed
            actions = torch.stack([part.argmax(-1) for part in torch.split(noise, nvec, dim=-1)], -1).numpy()
        else:
            actions = agent.act(obs, deterministic=False)[0]
        steps += int(env.masks.sum())
        obs, _, _, _, infos = env.step(actions)
        ended += [i for i in infos if "lifetime" in i]
    seconds = time.perf_counter() - start
    env.close()
    ended = ended[:args.agents]
    lifetimes = np.array([i["lifetime"] for i in ended])
    who = "random play" if agent is None else args.checkpoint
    print(f"{args.env} {who}, seed {args.seed}: {len(ended)} agents, {steps} agent steps, {seconds:.0f} s")
    half = 1.96 * lifetimes.std(ddof=1) / np.sqrt(len(lifetimes))
    print(f"  lifetime mean {lifetimes.mean():.1f} std {lifetimes.std():.1f} "
          f"(95% interval {lifetimes.mean() - half:.1f}-{lifetimes.mean() + half:.1f})")
    for key in AGENT_STATS[1:]:
        print(f"  {key} mean {np.mean([i[key] for i in ended]):.3f}")


if __name__ == "__main__":
    main()
