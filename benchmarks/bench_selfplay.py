"""Self-play's cost: training SPS of ocean-connect4 with both seats agents, plain against
`[selfplay]` (half the games against pool snapshots), in the same process, epochs interleaved.

    .venv/bin/python benchmarks/bench_selfplay.py [--rounds 3] [--epochs 12] [--num-envs 256]

Each round makes a fresh trainer of each kind (the shipped connect4 sizes: batches of 16,384
agent steps), trains each one untimed warm-up batch, then `--epochs` timed batches of each,
alternating between the two batch by batch (the first of each pair alternates too), so that a
change of the machine's speed during the round (another process, a frequency step) falls on
both alike; SPS = agent steps / wall seconds of `evaluate()` + `train()` + `mean_and_log()`.
The self-play run takes its first snapshot after its first batch, so from its second batch on
half its games are against frozen snapshots (their forward passes are the cost), and then one
every 4 batches (65,536 steps: each is a checkpoint file written; the default,
`snapshot_interval = 0`, snapshots only when the learner beats the pool, far less often).
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


def trainer(selfplay: bool, num_envs: int, run_dir: str) -> PuffeRL:
    """A connect4 trainer, plain or self-play, after one untimed batch."""
    env = pufferlib.make("ocean-connect4", num_envs=num_envs, opponent="none", seed=1)
    config = {"selfplay": {"enabled": selfplay, "snapshot_interval": 65536}}
    made = PuffeRL(config, env=env, device="cpu", seed=1, total_timesteps=10**9, batch_size=16384,
                   minibatch_size=4096, checkpoint_interval=0, learning_rate=0.003, run_dir=run_dir,
                   dashboard=Dashboard(interval=1e9, rich=False))
    made.evaluate()
    made.train()
    return made


def timed_batch(made: PuffeRL) -> tuple[int, float]:
    """(agent steps, wall seconds) of one batch: collect, train, log."""
    start, step = time.perf_counter(), made.global_step
    made.evaluate()
    made.train()
    made.mean_and_log()
    return made.global_step - step, time.perf_counter() - start


def round_sps(epochs: int, num_envs: int) -> tuple[float, float]:
    """(plain SPS, self-play SPS) of one round: fresh trainers, batches interleaved (module doc)."""
    with tempfile.TemporaryDirectory() as plain_dir, tempfile.TemporaryDirectory() as play_dir:
        kinds = [trainer(False, num_envs, plain_dir), trainer(True, num_envs, play_dir)]
        steps, seconds = [0, 0], [0.0, 0.0]
        try:
            for epoch in range(epochs):
                for kind in ((0, 1) if epoch % 2 == 0 else (1, 0)):
                    n, dt = timed_batch(kinds[kind])
                    steps[kind] += n
                    seconds[kind] += dt
        finally:
            for made in kinds:
                made.close()
    return steps[0] / seconds[0], steps[1] / seconds[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--num-envs", type=int, default=256)
    args = parser.parse_args()
    ratios = []
    for r in range(args.rounds):
        plain, play = round_sps(args.epochs, args.num_envs)
        ratios.append(play / plain)
        print(f"round {r + 1}: plain {plain:,.0f} SPS, self-play {play:,.0f} SPS, ratio {play / plain:.3f}", flush=True)
    print(f"self-play / plain SPS over {args.rounds} rounds: {statistics.median(ratios):.3f} "
          f"[{min(ratios):.3f}, {max(ratios):.3f}] (target >= 0.85)")


if __name__ == "__main__":
    main()
