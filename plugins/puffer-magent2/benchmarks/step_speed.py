"""MAgent2 battle stepping speed in agent steps per second: MAgent2 alone, puffer-magent2, upstream 3.0's chain.

Run `raw`, `parallel` and `ours` with an environment that has puffer-magent2 (magent2==0.3.4),
and `upstream` with upstream 3.0's venv plus `pip install magent2==0.3.4`, from a scratch
directory (3.0 links `resources` into the working directory when imported).

- `raw`: MAgent2's C++ gridworld alone (`magent2.gridworld.GridWorld` of battle_v4): per team
  `set_action` of random actions, `step`, `get_observation`, `get_reward`, `clear_dead`;
  a new episode when the game ends or after 1000 steps. No dicts, no PettingZoo.
- `parallel`: MAgent2's own PettingZoo parallel env (`battle_v4.parallel_env()`), a dict of
  random actions a step: MAgent2 "stepped alone" through its public API.
- `ours`: `pufferlib.make('magent2-battle', ...)`: that parallel env through the core's
  PettingZoo emulation and vectorization (serial, or multiprocessing over workers).
- `upstream`: upstream 3.0's chain. Its own wrapper (`pufferlib.environments.magent`) does not
  import: `ModuleNotFoundError: No module named 'pufferlib.wrappers'` (and it imports
  `pettingzoo.magent`, which PettingZoo removed when MAgent moved to magent2). So this builds
  the rest of it: `battle_v4.parallel_env()` (already parallel, with truncations, which the
  wrapper's `aec_to_parallel_wrapper` and `PettingZooTruncatedWrapper` provided), 3.0's
  `PettingZooPufferEnv` and `pufferlib.vector`.

    python step_speed.py IMPL [--num-envs N] [--num-workers W] [--seconds S]

prints one line: IMPL, envs, workers, agent steps per second over S seconds of random actions
(rows stepped: all 162 agents of each copy; the dead are a few in random play).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

MAX_CYCLES = 1000


def run_raw(seconds: float, rng: np.random.Generator) -> int:
    """Step battle_v4's gridworld directly; returns agent steps."""
    from magent2.environments import battle_v4

    parallel = battle_v4.parallel_env()
    parallel.reset(seed=0)
    grid, handles = parallel.env, parallel.handles
    steps, cycles = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for handle in handles:
            n = grid.get_num(handle)
            grid.set_action(handle, rng.integers(0, 21, n, dtype=np.int32))
            steps += n
        done = grid.step()
        for handle in handles:
            grid.get_observation(handle)
            grid.get_reward(handle)
        grid.clear_dead()
        cycles += 1
        if done or cycles >= MAX_CYCLES:
            parallel.reset()
            cycles = 0
    return steps


def run_parallel(seconds: float, rng: np.random.Generator) -> int:
    """Step MAgent2's PettingZoo parallel env of battle; returns agent steps."""
    from magent2.environments import battle_v4

    env = battle_v4.parallel_env()
    env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        agents = env.agents
        actions = dict(zip(agents, rng.integers(0, 21, len(agents)).tolist()))
        env.step(actions)
        steps += len(agents)
        if not env.agents:
            env.reset()
    return steps


def upstream_creator(buf=None, seed=0):
    """Upstream 3.0's magent chain without its missing modules."""
    from magent2.environments import battle_v4

    import pufferlib.emulation

    return pufferlib.emulation.PettingZooPufferEnv(env=battle_v4.parallel_env(), buf=buf, seed=seed)


def make(impl: str, num_envs: int, num_workers: int):
    """A vectorized env of `impl` (serial when num_workers is 1)."""
    if impl == "ours":
        import pufferlib

        if num_workers == 1:
            return pufferlib.make("magent2-battle", num_envs=num_envs, backend="serial")
        return pufferlib.make("magent2-battle", num_envs=num_envs, backend="multiprocessing", num_workers=num_workers)
    import pufferlib.vector

    if num_workers == 1:
        return pufferlib.vector.make(upstream_creator, backend=pufferlib.vector.Serial, num_envs=num_envs)
    return pufferlib.vector.make(upstream_creator, backend=pufferlib.vector.Multiprocessing, num_envs=num_envs,
                                 num_workers=num_workers, overwork=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=["raw", "parallel", "ours", "upstream"])
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    if args.impl == "raw":
        steps = run_raw(args.seconds, rng)
    elif args.impl == "parallel":
        steps = run_parallel(args.seconds, rng)
    else:
        env = make(args.impl, args.num_envs, args.num_workers)
        rows = env.num_agents
        n = env.single_action_space.n
        env.reset(seed=0)
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            env.step(rng.integers(0, n, rows))
            steps += rows
        env.close()
    rate = steps / (time.perf_counter() - start)
    print(f"{args.impl} envs={args.num_envs} workers={args.num_workers} {rate:.0f} agent steps/s")


if __name__ == "__main__":
    main()
