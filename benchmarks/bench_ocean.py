"""Ocean stepping speed: agent-steps/s of each env beside the reference library's figures.

Each env steps pre-drawn random actions (64 batches, cycled) in one process on one core:
1,024 copies, except squared and snake with 4,096 agents (the second-wave rows note
theirs beside the reference figure). The last lines compare
breakout with 2 threads against 1. Timing on a shared machine is noisy: read the ratios.
The ratio uses agent-steps per CPU-second of this process (`time.process_time`), which
other jobs on the machine disturb far less than wall time; both are printed.

    python benchmarks/bench_ocean.py [--seconds 1.0] [--envs squared,breakout]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from puffer_ocean import envs

#: name -> (class, constructor kwargs, reference agent-steps/s on this machine class)
CASES = {
    "squared": (envs.Squared, {"num_envs": 4096}, 72e6),
    "cartpole": (envs.Cartpole, {"num_envs": 1024}, 35e6),
    "pong": (envs.Pong, {"num_envs": 1024}, 35e6),
    "breakout": (envs.Breakout, {"num_envs": 1024}, 4.4e6),
    "grid": (envs.Grid, {"num_envs": 1024}, 4.8e6),
    "snake": (envs.Snake, {"num_envs": 512}, 4.0e6),
    "connect4": (envs.Connect4, {"num_envs": 1024}, 0.05e6),
    "bandit": (envs.Bandit, {"num_envs": 1024}, None),
    "memory": (envs.Memory, {"num_envs": 1024}, None),
    "password": (envs.Password, {"num_envs": 1024}, None),
    "stochastic": (envs.Stochastic, {"num_envs": 1024}, None),
    "multiagent": (envs.Multiagent, {"num_envs": 512}, None),
    "spaces": (envs.Spaces, {"num_envs": 1024}, None),
    "continuous": (envs.Continuous, {"num_envs": 1024}, None),
    # Second wave: reference figures of PufferLib 3.0.0 (one process, 1,024 copies unless noted).
    "target": (envs.Target, {"num_envs": 1024}, 3.3e6),                   # 8 agents per copy
    "freeway": (envs.Freeway, {"num_envs": 1024}, 0.70e6),
    "convert": (envs.Convert, {"num_envs": 1, "num_agents": 1024}, 4.0e6),  # 1,024 agents in one copy
    "tripletriad": (envs.Tripletriad, {"num_envs": 1024}, 5.5e6),
    "tetris": (envs.Tetris, {"num_envs": 1024}, 1.8e6),
    "pacman": (envs.Pacman, {"num_envs": 1024}, 1.9e6),
    "go": (envs.Go, {"num_envs": 1024}, 0.99e6),
    "rware": (envs.Rware, {"num_envs": 256}, 14.3e6),                     # 4 agents per copy
    "trash_pickup": (envs.TrashPickup, {"num_envs": 256}, 2.2e6),         # 3 agents per copy
    "drone": (envs.Drone, {"num_envs": 64}, 7.6e6),                        # 64 copies
    "enduro": (envs.Enduro, {"num_envs": 1024}, 1.6e6),
    "tower_climb": (envs.TowerClimb, {"num_envs": 4096}, 1.4e6),          # 4,096 copies
    # Third wave.
    "chain_mdp": (envs.ChainMdp, {"num_envs": 1024}, None),
    "tmaze": (envs.Tmaze, {"num_envs": 1024}, None),
    "g2048": (envs.G2048, {"num_envs": 1024}, None),
    "flappy": (envs.Flappy, {"num_envs": 1024}, None),
    "hex": (envs.Hex, {"num_envs": 1024}, None),
    "tron": (envs.Tron, {"num_envs": 1024}, None),
    "onestateworld": (envs.Onestateworld, {"num_envs": 1024}, None),
    "cpr": (envs.Cpr, {"num_envs": 1024}, None),
    "boids": (envs.Boids, {"num_envs": 1024}, None),
    "slimevolley": (envs.Slimevolley, {"num_envs": 1024}, None),
    "checkers": (envs.Checkers, {"num_envs": 1024}, None),
    "squared_continuous": (envs.SquaredContinuous, {"num_envs": 4096}, None),
    "space_invaders": (envs.SpaceInvaders, {"num_envs": 1024}, None),
    "blastar": (envs.Blastar, {"num_envs": 1024}, None),
}


def random_actions(env: envs.OceanEnv, batches: int = 64, seed: int = 0) -> np.ndarray:
    """`batches` pre-drawn action batches for every agent of `env`."""
    rng = np.random.default_rng(seed)
    space = env.single_action_space
    if hasattr(space, "n"):
        return rng.integers(0, space.n, (batches, *env.actions.shape), dtype=np.int32)
    if hasattr(space, "nvec"):
        return rng.integers(0, space.nvec, (batches, *env.actions.shape), dtype=np.int32)
    return rng.uniform(-1, 1, (batches, *env.actions.shape)).astype(np.float32)


def agent_steps_per_second(cls: type, kwargs: dict, seconds: float, cpu: bool = False) -> tuple[float, int]:
    """Step `cls(**kwargs)` with pre-drawn random actions for about `seconds`;
    returns (agent-steps per second, agents): per wall second, or per CPU second of this
    process with `cpu=True`."""
    env = cls(**kwargs)
    try:
        actions = random_actions(env)
        env.reset(seed=0)
        for i in range(10):
            env.step(actions[i])
        clock = time.process_time if cpu else time.perf_counter
        steps, start = 0, clock()
        while True:
            for i in range(len(actions)):
                env.step(actions[i])
            steps += len(actions)
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps * env.num_agents / elapsed, env.num_agents
    finally:
        env.close()


def main() -> None:
    """Print each env's figure, the reference's and their ratio, then the threads figure."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="timing per env")
    parser.add_argument("--envs", default=",".join(CASES), help="comma-separated env names")
    args = parser.parse_args()
    print(f"{'env':<12}{'agents':>8}{'agent-steps/s':>16}{'per CPU-s':>12}{'reference':>12}{'ratio':>8}")
    for name in args.envs.split(","):
        if name not in CASES:
            raise SystemExit(f"unknown env {name!r}; choose from {', '.join(CASES)}")
        cls, kwargs, ref = CASES[name]
        sps, agents = agent_steps_per_second(cls, kwargs, args.seconds)
        cpu_sps, _ = agent_steps_per_second(cls, kwargs, args.seconds, cpu=True)
        ref_text, ratio = (f"{ref / 1e6:.2f}M", f"{cpu_sps / ref:.2f}x") if ref else ("-", "-")
        print(f"{name:<12}{agents:>8}{sps / 1e6:>15.2f}M{cpu_sps / 1e6:>11.2f}M{ref_text:>12}{ratio:>8}")
    one, _ = agent_steps_per_second(envs.Breakout, {"num_envs": 1024}, args.seconds)
    two, _ = agent_steps_per_second(envs.Breakout, {"num_envs": 1024, "num_threads": 2}, args.seconds)
    print(f"breakout threads: 1 thread {one / 1e6:.2f}M, 2 threads {two / 1e6:.2f}M: {two / one:.2f}x "
          "(target >= 1.7x; needs 2 idle cores)")


if __name__ == "__main__":
    main()
