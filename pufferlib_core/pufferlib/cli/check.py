"""`puffer check ENV`: the report of `pufferlib.check_env`; exit status 1 when a check failed."""

from __future__ import annotations

import argparse

from pufferlib.checker import check_env


def check_command(argv: list[str]) -> int:
    """`puffer check ENV`: print the report; exit 1 when a check failed."""
    parser = argparse.ArgumentParser(prog="puffer check", description="Check that an env keeps PufferLib's "
                                     "contract: spaces, buffers, determinism, auto-reset, stats, rendering, speed.")
    parser.add_argument("env_id", help="an env id (see `puffer list`) or 'package.module:Creator'")
    parser.add_argument("--num-envs", type=int, default=2, help="env copies (default 2)")
    parser.add_argument("--steps", type=int, default=512, help="random steps (default 512)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    report = check_env(args.env_id, num_envs=args.num_envs, steps=args.steps, seed=args.seed)
    print(report)
    return 0 if report.ok else 1
