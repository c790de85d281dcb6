"""`puffer list`, `puffer plugins` and `puffer rollout`."""

from __future__ import annotations

import argparse
import time

import numpy as np


def list_command(argv: list[str]) -> int:
    """Print the listed env ids of every plugin, the id families each one resolves, and the
    plugin problems (id conflicts, failed hooks) found on the way."""
    argparse.ArgumentParser(prog="puffer list", description="List environment ids per plugin.").parse_args(argv)
    from pufferlib import registry
    from pufferlib.registry.plugins import plugin_manager, problems
    from pufferlib.registry.prefixes import prefix_owners

    specs = registry.listed_specs()
    owners = prefix_owners()
    for name, _ in plugin_manager().list_name_plugin():
        prefixes = [prefix for prefix, owner in owners.items() if owner == name]
        ids = [s.id for s in specs.get(name, [])]
        if not ids and not prefixes:
            continue
        print(f"{name}:")
        for prefix in prefixes:
            if not any(i.startswith(prefix) for i in ids):
                print(f"  {prefix}<name>    (resolved on demand)")
        for env_id in ids:
            print(f"  {env_id}")
    for env_id in (s.id for s in specs.get("local", [])):
        print(f"local: {env_id}")
    _print_problems(problems())
    return 0


def _print_problems(found: list) -> None:
    if found:
        print("problems (ignored parts of plugins):")
        for problem in found:
            print(f"  {problem.plugin}: {problem.message}")


def plugins_command(argv: list[str]) -> int:
    """Print installed plugins with distribution, version and load errors, then the problems
    reported so far; calls no plugin's hooks (so that a hanging one cannot stop it): `puffer
    list` calls them and shows what they got wrong."""
    argparse.ArgumentParser(prog="puffer plugins", description="List installed plugins, without calling their "
                            "hooks (`puffer list` calls them and shows their problems).").parse_args(argv)
    from pufferlib.registry.plugins import installed_plugins, problems

    for info in installed_plugins():
        status = f"  FAILED: {info.error}" if info.error else ""
        print(f"{info.name:<16} {info.distribution} {info.version}{status}")
    _print_problems([problem for problem in problems() if problem.where != "load"])  # those are above
    return 0


def rollout_command(argv: list[str]) -> int:
    """Step a vectorized env with random actions and print agent steps per second."""
    parser = argparse.ArgumentParser(prog="puffer rollout", description=rollout_command.__doc__)
    parser.add_argument("env_id")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=None)
    parser.add_argument("--backend", default=None)
    parser.add_argument("--steps", type=int, default=1000, help="vectorized steps to time")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import pufferlib

    with pufferlib.make(args.env_id, num_envs=args.num_envs, num_workers=args.num_workers,
                        backend=args.backend, seed=args.seed) as env:
        env.reset(seed=args.seed)
        env.action_space.seed(args.seed)
        actions = [env.action_space.sample() for _ in range(64)]
        episodes, returns = 0, []
        start = time.perf_counter()
        for step in range(args.steps):
            _, _, _, _, infos = env.step(actions[step % len(actions)])
            for info in infos:
                if "episode_return" in info:
                    episodes += 1
                    returns.append(info["episode_return"])
        elapsed = time.perf_counter() - start
        sps = args.steps * env.num_agents / elapsed
        mean_return = float(np.mean(returns)) if returns else float("nan")
        print(f"{args.env_id}: {env.num_agents} agents, {args.steps} steps in {elapsed:.2f}s = {sps:,.0f} "
              f"agent steps/s; {episodes} episodes, mean return {mean_return:.2f} (random policy)")
    return 0
