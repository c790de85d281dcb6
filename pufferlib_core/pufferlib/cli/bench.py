"""`puffer bench ENV`: time the vectorization settings of an env on this machine, print the best."""

from __future__ import annotations

import argparse

from pufferlib.vector.autotune import autotune


def bench_command(argv: list[str]) -> int:
    """`puffer bench ENV_ID`: time the vectorization settings and print the best."""
    parser = argparse.ArgumentParser(prog="puffer bench", description=bench_command.__doc__)
    parser.add_argument("env_id", help="an env id, e.g. gym-CartPole-v1")
    parser.add_argument("--num-envs", type=int, default=None, help="env copies (default: 2 x cores)")
    parser.add_argument("--seconds", type=float, default=1.0, help="timing per setting")
    args = parser.parse_args(argv)
    autotune(args.env_id, num_envs=args.num_envs, seconds=args.seconds)
    return 0
