"""Logging overhead: time spent logging per log step, as a share of training wall time.

Trains gym-CartPole-v1 with the default config (log_interval 1 s) twice in one run:
with no logger plugin (the core's metrics.jsonl only) and with tensorboard + wandb
(offline) + neptune (offline). Reports the time of the log path: every
`mean_and_log()` call (aggregation, dashboard) plus each log step (metrics.jsonl and
the `pufferlib_train_log` hooks), per log step and as a share of wall time; target < 1%.

    python benchmarks/bench_loggers.py [--steps 300000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import pufferlib
from pufferlib.cpu.threads import set_torch_threads
from pufferlib.train.dashboard import Dashboard


def train(steps: int, loggers: list[str], data_dir: str) -> tuple[float, float, int]:
    """(wall seconds, seconds in the log path, log steps) of one training run."""
    env = pufferlib.make("gym-CartPole-v1", num_envs=8, seed=0)
    config = {"train": {"total_timesteps": steps, "device": "cpu", "data_dir": data_dir,
                        "checkpoint_interval": 0},
              "logger": {"names": loggers},
              "wandb": {"mode": "offline", "project": "bench"},
              "neptune": {"mode": "offline", "project": "bench/bench"}}
    trainer = pufferlib.PuffeRL(config, env, env_id="gym-CartPole-v1", dashboard=Dashboard(interval=1e9, rich=False))
    log_steps = 0
    write_log_step = trainer._write_log_step

    def counted() -> None:
        nonlocal log_steps
        log_steps += 1
        write_log_step()

    trainer._write_log_step = counted
    logged = 0.0
    start = time.perf_counter()
    while not trainer.done_training():
        trainer.evaluate()
        trainer.train()
        t = time.perf_counter()
        trainer.mean_and_log()  # aggregation, dashboard (throttled), a log step every log_interval
        logged += time.perf_counter() - t
    t = time.perf_counter()
    trainer._write_log_step()  # the last log step (close() would write it; its services' shutdown is not logging)
    logged += time.perf_counter() - t
    wall = time.perf_counter() - start
    trainer.close()
    return wall, logged, log_steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300_000)
    args = parser.parse_args()
    set_torch_threads(1)
    os.environ.setdefault("WANDB_SILENT", "true")
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # neptune's offline records go to ./.neptune
        rows = [("metrics.jsonl only", *train(args.steps, [], tmp)),
                ("tensorboard+wandb+neptune", *train(args.steps, ["tensorboard", "wandb", "neptune"], tmp))]
    print(f"gym-CartPole-v1, {args.steps} steps, default config (log_interval 1 s)")
    for name, wall, logged, n in rows:
        print(f"  {name:<27} wall {wall:6.2f}s  {n:3d} log steps  log path {1000 * logged / n:6.2f} ms/log step "
              f"= {100 * logged / wall:5.2f}% of wall (target < 1%)")
    print(f"  wall-time ratio with/without loggers: {rows[1][1] / rows[0][1]:.3f}")


if __name__ == "__main__":
    main()
