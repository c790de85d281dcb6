"""`puffer check ENV`: the report of `pufferlib.check_env`; exit status 1 when a check failed.

Numbers out of range (`--steps 0`, `--timeout -1`) are `check_env`'s APIUsageError: one line
`puffer check: error: ...` and exit status 2, before any env is made.
"""

from __future__ import annotations

import argparse

from pufferlib.checker import DEFAULT_TIMEOUT, check_env


def check_command(argv: list[str]) -> int:
    """`puffer check ENV`: print the report; exit 1 when a check failed."""
    parser = argparse.ArgumentParser(prog="puffer check", description="Check that an env keeps PufferLib's "
                                     "contract: what reset/step return, spaces, buffers, determinism, auto-reset, "
                                     "stats, rendering, speed. The env runs in a child process, with a deadline "
                                     "per check.")
    parser.add_argument("env_id", help="an env id (see `puffer list`) or 'package.module:Creator'")
    parser.add_argument("--num-envs", type=int, default=2, help="env copies (default 2)")
    parser.add_argument("--steps", type=int, default=512, help="random steps (default 512)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"the deadline of each check (default {DEFAULT_TIMEOUT:g}; inf: none)")
    args = parser.parse_args(argv)
    report = check_env(args.env_id, num_envs=args.num_envs, steps=args.steps, seed=args.seed, timeout=args.timeout)
    print(report)
    return 0 if report.ok else 1
