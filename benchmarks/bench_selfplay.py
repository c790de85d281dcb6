"""Self-play's cost: training SPS of ocean-connect4 with both seats agents, plain against
`[selfplay]` (half the games against pool snapshots), in the same process, rounds alternated.

    .venv/bin/python benchmarks/bench_selfplay.py [--rounds 3] [--epochs 12] [--num-envs 256]

Each round trains a fresh trainer of each kind for `--epochs` batches of 16,384 agent steps
(the shipped connect4 sizes), after one untimed warm-up batch; SPS = agent steps / wall seconds
of `evaluate()` + `train()`. The self-play run takes its first snapshot after its first batch, so
from its second batch on half its games are against frozen snapshots (their forward passes are
the cost), and then one every 4 batches (65,536 steps: each is a checkpoint file written; the
default, `snapshot_interval = 0`, snapshots only when the learner beats the pool, far less often).
Prints each round's two figures and the ratio, then median [min, max] of the ratios (target
>= 0.85).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import pufferlib
from pufferlib import PuffeRL
from pufferlib.train.dashboard import Dashboard


def sps(selfplay: bool, epochs: int, num_envs: int) -> float:
    """Steady-state training SPS of one fresh trainer (one untimed batch first)."""
    env = pufferlib.make("ocean-connect4", num_envs=num_envs, opponent="none", seed=1)
    with tempfile.TemporaryDirectory() as run_dir:
        config = {"selfplay": {"enabled": selfplay, "snapshot_interval": 65536}}
        trainer = PuffeRL(config, env=env, device="cpu", seed=1, total_timesteps=10**9, batch_size=16384,
                          minibatch_size=4096, checkpoint_interval=0, learning_rate=0.003, run_dir=run_dir,
                          dashboard=Dashboard(interval=1e9, rich=False))
        trainer.evaluate()
        trainer.train()
        start, step = time.perf_counter(), trainer.global_step
        for _ in range(epochs):
            trainer.evaluate()
            trainer.train()
            trainer.mean_and_log()
        rate = (trainer.global_step - step) / (time.perf_counter() - start)
        trainer.close()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--num-envs", type=int, default=256)
    args = parser.parse_args()
    ratios = []
    for r in range(args.rounds):
        plain, play = sps(False, args.epochs, args.num_envs), sps(True, args.epochs, args.num_envs)
        ratios.append(play / plain)
        print(f"round {r + 1}: plain {plain:,.0f} SPS, self-play {play:,.0f} SPS, ratio {play / plain:.3f}", flush=True)
    print(f"self-play / plain SPS over {args.rounds} rounds: {statistics.median(ratios):.3f} "
          f"[{min(ratios):.3f}, {max(ratios):.3f}] (target >= 0.85)")


if __name__ == "__main__":
    main()
