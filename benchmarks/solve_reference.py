"""Upstream's side of bench_solve.py: train one PufferLib 3.0 Ocean env with its shipped config (on CPU unless
`--device` says otherwise).

Run under the interpreter of a PufferLib 3.0.0 install (never ours), in a scratch working
directory (3.0 links `resources` and writes `experiments/` there), with PYTHONPATH empty:

    cd $(mktemp -d) && PYTHONPATH= /tmp/up3/venv/bin/python .../benchmarks/solve_reference.py puffer_cartpole \\
        --seed 1 --metric score --threshold 195 --timeout 900 --out rows.jsonl

It loads the env's config the way `puffer train puffer_ENV` does (`pufferl.load_config`: default.ini
under config/ocean/ENV.ini, with `--train.device DEVICE --train.seed S --vec.seed S` as command-line
overrides; where the shipped config asks for more worker processes than this machine has physical
cores, which 3.0 refuses, `cap_workers` lowers their number only), seeds Python's, NumPy's and
torch's generators with S (3.0 leaves them unseeded), and trains with 3.0's own
`pufferl.train(...)`, given a logger object: 3.0 calls its `log(logs, step)` at each of its log
steps (at most every 0.25 s, after an epoch). Each call appends one JSON line to `--out`: `time`
(time.time()), `step` (agent steps), `SPS` and every `environment/*` value.

It stops by itself at the first log whose metric ("key" or "key - key") is at or above
`--threshold`, or whose time is past `--timeout` seconds after its start, and on SIGTERM: it closes
the vectorized env (3.0's worker processes) and leaves with os._exit(0), as 3.0's own Ctrl-C does
(its trainer keeps a non-daemon monitoring thread). 3.0's dashboard goes to stdout (the parent
discards it); a run that reaches its total_timesteps ends with a line {"end": true}.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import time

from bench_solve import metric_value  # this file's folder is on sys.path; bench_solve imports only the stdlib


def cap_workers(vec: dict) -> None:
    """3.0 refuses more worker processes than physical cores (APIUsageError, unless `overwork`), and its
    `num_workers = auto` means one per env copy: where a shipped config asks for more (pong's 4, breakout's
    8 on a 2-core machine), use the most workers up to the core count that divide the copies and the batch,
    one process per core as 3.0's message recommends. Env copies, batch and hyperparameters stay as shipped."""
    import psutil

    cores = psutil.cpu_count(logical=False) or 1
    n = vec["num_envs"]
    if vec.get("backend") != "Multiprocessing" or vec.get("num_workers") != "auto" or n <= cores:
        return
    batch = n // 2 if vec.get("batch_size") == "auto" else vec["batch_size"]
    fits = [w for w in range(1, cores + 1) if n % w == 0 and batch % (n // w) == 0]
    if fits:
        vec["num_workers"] = max(fits)
        print(f"solve_reference: vec.num_workers {vec['num_workers']} instead of {n} ({cores} cores)",
              file=sys.stderr)


def main() -> None:
    """Train upstream's env until solved, timed out or signalled, writing its logs to --out."""
    start = time.time()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("env", help="upstream's env name, e.g. puffer_cartpole")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--metric", default="score", help='"key" or "key - key" of its environment/ logs')
    parser.add_argument("--threshold", type=float, default=float("inf"))
    parser.add_argument("--timeout", type=float, default=float("inf"), help="seconds after start")
    parser.add_argument("--out", required=True, help="the JSON-lines file to append the logs to")
    parser.add_argument("--device", default="cpu", help="its train.device (default cpu)")
    args = parser.parse_args()
    out = open(args.out, "a", buffering=1)

    # 3.0's load_config parses sys.argv: these are the only overrides of its shipped config.
    sys.argv = [sys.argv[0], "--train.device", args.device, "--train.seed", str(args.seed), "--vec.seed",
                str(args.seed)]
    import numpy as np
    import torch

    from pufferlib import pufferl  # sets SIGINT to os._exit(0) and RuntimeWarnings to errors, as `puffer` does

    config = pufferl.load_config(args.env)
    cap_workers(config["vec"])
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    vecenv = pufferl.load_env(args.env, config)
    closed = []

    def finish(*_: object) -> None:
        if not closed:
            closed.append(True)
            vecenv.close()
            out.flush()
        os._exit(0)

    signal.signal(signal.SIGTERM, finish)
    policy = pufferl.load_policy(config, vecenv)

    class Logger:
        """3.0's logger interface (run_id, log, close): one JSON line per log, and the stop rule."""

        run_id = str(int(100 * time.time()))

        def log(self, logs: dict, step: int) -> None:
            now = time.time()
            row = {"time": now, "step": int(logs["agent_steps"]), "SPS": float(logs["SPS"])}
            row.update({k: float(v) for k, v in logs.items()
                        if k.startswith("environment/") and isinstance(v, (int, float, np.number))})
            out.write(json.dumps(row) + "\n")
            value = metric_value(row, args.metric)
            if (value is not None and value >= args.threshold) or now - start > args.timeout:
                finish()

        def close(self, model_path: str) -> None:
            pass

    pufferl.train(args.env, args=config, vecenv=vecenv, policy=policy, logger=Logger())
    closed.append(True)  # train() closed the env at its end
    out.write(json.dumps({"end": True, "time": time.time()}) + "\n")
    finish()


if __name__ == "__main__":
    main()
