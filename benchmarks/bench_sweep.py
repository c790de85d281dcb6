"""Sweep figures: search quality, suggest() time, parallel trials.

    .venv/bin/python benchmarks/bench_sweep.py [quality|suggest|parallel|all] [--trials 24] [--seeds 3]

quality   CartPole (gym-CartPole-v1) started from a deliberately mistuned config (learning
          rate 100x too small), a fixed budget per trial (--steps agent steps), --trials
          trials per sweep; Protein, random (Sobol) and Optuna's TPE (`pip install optuna`,
          optional: a reference, not a dependency) each over --seeds sweep seeds, through
          the `pufferlib.sweep.Sweeper` API with in-process training. Prints the best score
          of each sweep, the medians, and the score of the default (first) trial.
suggest   Protein.suggest() time with 100 and 500 observations in an 8-key space.
parallel  `puffer sweep` of 8 cheap trials with 1 worker and with 2 workers: wall time ratio.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

SPACE = {
    "train.learning_rate": {"distribution": "log_normal", "min": 1e-5, "max": 1e-1},
    "train.gamma": {"distribution": "logit_normal", "min": 0.9, "max": 0.999},
    "train.gae_lambda": {"distribution": "logit_normal", "min": 0.7, "max": 0.99},
    "train.ent_coef": {"distribution": "log_normal", "min": 1e-5, "max": 1e-1},
    "train.update_epochs": {"distribution": "int_uniform", "min": 1, "max": 8},
}


def train_cartpole(params: dict, steps: int, seed: int) -> float:
    """Mean episode return of the last log steps of a CartPole run with `params` (in process)."""
    import pufferlib
    from pufferlib import PuffeRL
    from pufferlib.config import load_default, merge
    from pufferlib.sweep.space import apply
    from pufferlib.train.dashboard import Dashboard

    config = apply(merge(load_default(), {"train": {"total_timesteps": steps, "learning_rate": 2.5e-5,
                                                    "seed": seed, "checkpoint_interval": 0}}), params)
    env = pufferlib.make("gym-CartPole-v1", num_envs=8, backend="serial", seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        trainer = PuffeRL(config, env, env_id="gym-CartPole-v1", run_dir=tmp,
                          dashboard=Dashboard(stream=io.StringIO(), rich=False))
        returns = []
        try:
            while not trainer.done_training():
                trainer.evaluate()
                trainer.train()
                value = trainer.mean_and_log().get("environment/episode_return")
                if value is not None:
                    returns.append(value)
        finally:
            trainer.close()
    tail = returns[-max(1, len(returns) // 5):]
    return float(np.mean(tail)) if tail else 0.0


def default_config() -> dict:
    from pufferlib.config import load_default, merge

    return merge(load_default(), {"train": {"learning_rate": 2.5e-5}})


def sweep_ours(method: str, trials: int, steps: int, seed: int) -> list[float]:
    from pufferlib.sweep import Sweeper

    sweeper = Sweeper(SPACE, config=default_config(), method=method, seed=seed)
    scores = []
    for _ in range(trials):
        params = sweeper.suggest()
        start = time.perf_counter()
        score = train_cartpole(params, steps, seed)
        sweeper.observe(params, score, cost=time.perf_counter() - start)
        scores.append(score)
    return scores


def sweep_tpe(trials: int, steps: int, seed: int) -> list[float]:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    from pufferlib.sweep.space import Space

    space = Space.from_tables(SPACE, default_config())
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed))
    study.enqueue_trial({p.key: float(p.normalize(space.values(space.point(default_config()))[p.key]))
                         for p in space.params})  # the default first, like ours
    scores = []

    def objective(trial):
        x = [trial.suggest_float(p.key, 0.0, 1.0) for p in space.params]
        score = train_cartpole(space.values(x), steps, seed)
        scores.append(score)
        return score

    study.optimize(objective, n_trials=trials)
    return scores


def quality(args) -> None:
    base = train_cartpole({}, args.steps, 0)
    wanted = set(args.methods.split(","))
    print(f"quality: CartPole, lr 2.5e-5 (100x too small), {args.steps} steps per trial, {args.trials} trials")
    print(f"  default (mistuned) config: {base:.1f}")
    runs = {"protein": lambda s: sweep_ours("protein", args.trials, args.steps, s),
            "random": lambda s: sweep_ours("random", args.trials, args.steps, s)}
    try:
        import optuna  # noqa: F401

        runs["optuna-tpe"] = lambda s: sweep_tpe(args.trials, args.steps, s)
    except ImportError:
        print("  (optuna not installed: no TPE reference)")
    for name, run in runs.items():
        if name not in wanted:
            continue
        bests = []
        for seed in range(args.seeds):
            start = time.perf_counter()
            scores = run(seed)
            bests.append(max(scores))
            print(f"  {name:<11} seed {seed}: best {max(scores):6.1f} (first {scores[0]:.1f}) "
                  f"in {time.perf_counter() - start:.0f}s", flush=True)
        print(f"  {name:<11} median best {statistics.median(bests):6.1f}  all {[round(b, 1) for b in bests]}")


def suggest_time(args) -> None:
    import random

    import torch

    from pufferlib.sweep.protein import Observation, Protein

    rng = random.Random(0)
    for n in (100, 500):
        obs = [Observation([rng.random() for _ in range(8)], rng.random(), rng.uniform(1, 100),
                           [(rng.random(), rng.uniform(1, 100)) for _ in range(4)]) for _ in range(n)]
        protein = Protein(8)
        times, cpu = [], []
        for i in range(5):
            start, start_cpu = time.perf_counter(), time.process_time()
            protein.suggest(50 + i, obs, [[0.5] * 8] * 3, [[0.2] * 8] * 2)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        print(f"suggest: {n} observations: wall median {statistics.median(times) * 1000:.0f} ms "
              f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}); CPU time median "
              f"{statistics.median(cpu) * 1000:.0f} ms on {torch.get_num_threads()} torch threads")


def parallel(args) -> None:
    walls = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pufferlib", "sweep", "gym-CartPole-v1", "--dir", f"{tmp}/s",
                            "--quiet", "--sweep.max-runs", "8", "--sweep.workers", str(workers),
                            "--sweep.method", "random", "--sweep.early-stop-quantile", "0",
                            "--train.total-timesteps", "8192", "--vec.num-envs", "4",
                            "--train.checkpoint-interval", "0"], check=True, capture_output=True)
            walls[workers] = time.perf_counter() - start
    print(f"parallel: 8 trials, 1 worker {walls[1]:.1f}s, 2 workers {walls[2]:.1f}s, "
          f"ratio {walls[2] / walls[1]:.2f} (target <= 0.65)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", default="all", choices=["quality", "suggest", "parallel", "all"])
    parser.add_argument("--trials", type=int, default=24)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=12_288)
    parser.add_argument("--methods", default="protein,random,optuna-tpe", help="comma-separated quality contenders")
    args = parser.parse_args()
    if args.what in ("suggest", "all"):
        suggest_time(args)
    if args.what in ("parallel", "all"):
        parallel(args)
    if args.what in ("quality", "all"):
        quality(args)


if __name__ == "__main__":
    main()
