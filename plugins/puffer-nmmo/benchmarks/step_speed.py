"""Neural MMO stepping speed: nmmo alone, puffer-nmmo, and upstream PufferLib 3.0's emulation.

Run `raw` and `ours` with this repository's venv (plus nmmo, see the plugin's README), and
`upstream` with upstream 3.0's venv plus nmmo 2.1.2 installed the same way. Upstream 3.0's own
nmmo wrapper (`pufferlib.environments.nmmo`) does not import: it needs `pufferlib.wrappers` and
`pufferlib.postprocess`, which 3.0 no longer ships. So `upstream` builds the rest of its chain:
`nmmo.Env()` (the default config), its info filter (each agent's first task info) and 3.0's
`PettingZooPufferEnv` and `pufferlib.vector`, without the episode-stats wrappers it cannot import.
All three step nmmo's default world (128 agents, 1024 ticks) with uniformly random actions.
Run from a scratch folder: nmmo itself (`raw`, `upstream`) writes its maps to ./maps.

    python step_speed.py IMPL [--num-envs N] [--num-workers W] [--seconds S]

prints one line: IMPL, envs, workers, agent steps per second over S seconds.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def upstream_creator(buf=None, seed=0):
    """Upstream 3.0's nmmo chain without its missing modules (MultiagentEpisodeStats, MeanOverAgents)."""
    import nmmo

    import pufferlib.emulation

    class FirstTaskInfo:
        """What upstream's NMMOWrapper does to each step: keep each agent's first task info."""

        def __init__(self, env):
            self.env = env

        def __getattr__(self, name):
            return getattr(self.env, name)

        def reset(self, seed=None, options=None):
            return self.env.reset(seed=seed)

        def step(self, actions):
            obs, rewards, terms, truncs, infos = self.env.step(actions)
            infos = {k: list(v["task"].values())[0] for k, v in infos.items()}
            return obs, rewards, terms, truncs, infos

    return pufferlib.emulation.PettingZooPufferEnv(env=FirstTaskInfo(nmmo.Env()), buf=buf, seed=seed)


def make(impl: str, num_envs: int, num_workers: int):
    """A vectorized env of `impl` (serial when num_workers is 1)."""
    if impl == "ours":
        import pufferlib

        backend = "serial" if num_workers == 1 else "multiprocessing"
        kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
        return pufferlib.make("nmmo-default", num_envs=num_envs, backend=backend, **kwargs)
    import pufferlib.vector

    backend = pufferlib.vector.Serial if num_workers == 1 else pufferlib.vector.Multiprocessing
    kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
    return pufferlib.vector.make(upstream_creator, backend=backend, num_envs=num_envs, **kwargs)


def raw_speed(seconds: float, rng: np.random.Generator) -> float:
    """nmmo.Env alone: random (unmasked) actions built as nmmo's nested dicts."""
    import nmmo

    env = nmmo.Env()
    env.reset(seed=0)
    space = env.action_space(1)
    heads = [(atn, arg, int(space[atn][arg].n)) for atn in space.spaces for arg in space[atn].spaces]
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if not env.agents:
            env.reset()
        actions = {}
        for agent in env.agents:
            action: dict = {}
            for atn, arg, n in heads:
                action.setdefault(atn, {})[arg] = int(rng.integers(n))
            actions[agent] = action
        env.step(actions)
        steps += len(actions)
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=["raw", "ours", "upstream"])
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    if args.impl == "raw":
        speed = raw_speed(args.seconds, rng)
    else:
        env = make(args.impl, args.num_envs, args.num_workers)
        env.reset(seed=0)
        nvec = np.asarray(env.single_action_space.nvec)
        rows = env.num_agents
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            _, _, _, _, _ = env.step(rng.integers(0, nvec, (rows, len(nvec))))
            steps += int(np.count_nonzero(env.masks)) if hasattr(env, "masks") else rows
        speed = steps / (time.perf_counter() - start)
        env.close()
    print(f"{args.impl} envs={args.num_envs} workers={args.num_workers} {speed:.0f} agent steps/s")


if __name__ == "__main__":
    main()
