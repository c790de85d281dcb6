"""Ocean learning scores: what each env's shipped training config reaches, beside random play.

For each env, trains `ocean-<name>` with its spec's config (the one `puffer train` uses,
CPU) and reports the mean `score` of the last report, the agent steps and the wall
time; then steps the same env with uniformly random actions and reports its mean score
over the episodes that end. These are the figures of the README table.

    python benchmarks/learn_ocean.py --envs target,freeway [--steps 2000000] [--random-steps 20000]

`--steps` overrides the config's total_timesteps (for a shorter run on a loaded machine).
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time

import numpy as np

import pufferlib
from pufferlib.config import load_default, merge
from pufferlib.dashboard import Dashboard


def train(name: str, steps: int | None = None, verbose: bool = False) -> tuple[float | None, int, float]:
    """Train ocean-<name> with its shipped config; returns (last score, agent steps, seconds).
    `verbose` prints every score report."""
    spec = pufferlib.registry.spec(f"ocean-{name}")
    overrides = {"train": {"device": "cpu", "checkpoint_interval": 10**9}}
    if steps:
        overrides["train"]["total_timesteps"] = steps
    config = merge(load_default(), spec.config, overrides)
    start = time.perf_counter()
    vec = pufferlib.make(spec.id, num_envs=config["vec"]["num_envs"], seed=config["vec"]["seed"])
    score, agent_steps = None, 0
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = pufferlib.PuffeRL(config, env=vec, env_id=spec.id, run_dir=run_dir,
                                    dashboard=Dashboard(spec.id, interval=1e9, stream=io.StringIO(), rich=False))
        try:
            while not trainer.done_training():
                trainer.evaluate()
                trainer.train()
                metrics = trainer.mean_and_log()
                score = metrics.get("environment/score", score)
                agent_steps = trainer.global_step
                if verbose and "environment/score" in metrics:
                    ret = metrics.get("environment/episode_return", float("nan"))
                    print(f"  {agent_steps / 1e6:.2f}M steps: score {score:.3g}, return {ret:.3g}", flush=True)
        finally:
            trainer.close()
    return score, agent_steps, time.perf_counter() - start


def random_score(name: str, steps: int, num_envs: int = 64) -> float:
    """Mean score of the episodes that end while ocean-<name> steps uniformly random actions."""
    spec = pufferlib.registry.spec(f"ocean-{name}")
    env = spec.load_creator()(num_envs=num_envs, log_interval=10**9, **spec.kwargs)
    try:
        space, rng = env.single_action_space, np.random.default_rng(0)
        env.reset(seed=0)
        for _ in range(steps):
            if hasattr(space, "n"):
                actions = rng.integers(0, space.n, env.actions.shape, dtype=np.int32)
            elif hasattr(space, "nvec"):
                actions = rng.integers(0, space.nvec, env.actions.shape, dtype=np.int32)
            else:
                actions = rng.uniform(space.low, space.high, env.actions.shape).astype(np.float32)
            env.step(actions)
        log = env.log()
        return float(log["score"]) if log else float("nan")
    finally:
        env.close()


def main() -> None:
    """Print one line per env: trained score, steps, wall time, random-play score."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", required=True, help="comma-separated env names (ocean-<name>)")
    parser.add_argument("--steps", type=int, default=None, help="override total_timesteps")
    parser.add_argument("--random-steps", type=int, default=20_000, help="steps of random play per env")
    parser.add_argument("--no-train", action="store_true", help="random play only")
    parser.add_argument("--verbose", action="store_true", help="print every score report")
    args = parser.parse_args()
    for name in args.envs.split(","):
        rand = random_score(name, args.random_steps)
        if args.no_train:
            print(f"{name:<12} random {rand:.3g}", flush=True)
            continue
        score, steps, seconds = train(name, args.steps, args.verbose)
        trained = f"{score:.3g}" if score is not None else "no report"
        print(f"{name:<12} trained {trained} after {steps / 1e6:.2f}M steps in {seconds:.0f} s; random {rand:.3g}",
              flush=True)


if __name__ == "__main__":
    main()
