"""`puffer bench ENV`: time the vectorization settings of an env on this machine, print the best."""

from __future__ import annotations

import argparse

from pufferlib import registry
from pufferlib.cpu.cores import usable_cores
from pufferlib.registry.make import make
from pufferlib.registry.spec import NATIVE
from pufferlib.vector.autotune import tune


def bench_command(argv: list[str]) -> int:
    """`puffer bench ENV_ID`: time the vectorization settings and print the best."""
    parser = argparse.ArgumentParser(prog="puffer bench", description=bench_command.__doc__)
    parser.add_argument("env_id", help="an env id, e.g. gym-CartPole-v1")
    parser.add_argument("--num-envs", type=int, default=None, help="env copies (default: 2 x cores)")
    parser.add_argument("--seconds", type=float, default=1.0, help="timing per setting")
    args = parser.parse_args(argv)
    num_envs = args.num_envs or 2 * usable_cores()
    native = registry.spec(args.env_id).backend == NATIVE
    tune(lambda **settings: make(args.env_id, num_envs=num_envs, **settings), num_envs, args.env_id,
         native=native, seconds=args.seconds)
    return 0
