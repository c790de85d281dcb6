"""`puffer sweep ENV`: hyperparameter search over the `[sweep]` space of the config.

Contract: parses the config as `puffer train` does (see `pufferlib.sweep.config` for which
layer's space applies; `--resume` starts from the config and search space stored in the
sweep, and refuses a changed space), runs `pufferlib.sweep.driver.SweepDriver` and prints one
line to start, the best trial to end. Exit status: 0 with a best trial, 1 when no trial
finished with a score, 130 on Ctrl-C (the sweep can be resumed), 2 for a bad config, space
or sweep folder (a damaged sweep.db, a folder another sweep is writing), each a one-line
`puffer sweep: error: ...` (`pufferlib.cli.main`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pufferlib.cli.options import flag_values, parse_config
from pufferlib.sweep.config import resolve_space


def sweep_command(argv: list[str]) -> int:
    """Search hyperparameters of ENV: Protein (cost-aware Bayesian) or random (Sobol) trials."""
    parser = argparse.ArgumentParser(prog="puffer sweep", description=sweep_command.__doc__, allow_abbrev=False)
    parser.add_argument("env_id", help="environment id, e.g. ocean-squared (see `puffer list`)")
    parser.add_argument("--config", help="a TOML file overlaid on the defaults (may declare its own [sweep] space)")
    parser.add_argument("--resume", metavar="SWEEP_DIR", help="continue the sweep in this folder")
    parser.add_argument("--dir", metavar="SWEEP_DIR", help="folder of a new sweep (default: "
                                                          "train.data_dir/sweeps/ENV_TIME)")
    parser.add_argument("--quiet", action="store_true",
                        help="no live table (also off when stdout is not a terminal): one line per finished trial")
    from pufferlib.sweep.driver import SweepDriver
    from pufferlib.sweep.store import FILE_NAME, Store, check_resumable
    from pufferlib.train import trust

    pre = parser.parse_known_args([a for a in argv if a not in ("-h", "--help")])[0] \
        if any(not a.startswith("-") for a in argv) else parser.parse_known_args(argv)[0]
    base, keys = None, None
    if pre.resume:
        check_resumable(pre.resume)
        store = Store(pre.resume, readonly=True)
        base, keys = store.meta("config"), list(store.space())
        store.close()
        where = str(Path(pre.resume) / FILE_NAME)
        base, dropped = trust.from_file(base, where, env_id=pre.env_id,
                                        vouched=(pre.env_id, *flag_values(argv, "--policy.class")))
        if dropped:
            print(f"puffer sweep: --resume keeps the sweep's settings; where to run, log and write is yours (flags "
                  f"or defaults), not {where}'s: {', '.join(dropped)} left at their defaults", file=sys.stderr)
    config, args = parse_config(parser, argv, base)
    config, space = resolve_space(args.env_id, config, args.config, keys)
    sweep_dir = Path(args.resume or args.dir or Path(config["train"]["data_dir"]) / "sweeps" /
                     f"{args.env_id}_{time.strftime('%Y%m%d-%H%M%S')}")
    driver = SweepDriver(args.env_id, config, space, sweep_dir, quiet=args.quiet)
    print(f"puffer sweep: {config['sweep']['method']} over {', '.join(space.keys)}; "
          f"{config['sweep']['max_runs']} trials, {config['sweep']['workers']} at a time, in {sweep_dir}",
          flush=True)
    try:
        best = driver.run(resume=bool(args.resume))
    except KeyboardInterrupt:
        print(f"\npuffer sweep: interrupted; continue with: puffer sweep {args.env_id} --resume {sweep_dir}",
              file=sys.stderr)
        return 130
    if best is None:
        print(f"puffer sweep: no trial finished with a score. Last error: {driver.last_error}\n"
              f"The trials' output is in {sweep_dir}/trials/*/train.log.")
        return 1
    params = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in best["params"].items())
    print(f"best: trial {best['id']}, score {best['score']:.4g} ({params}). "
          f"Train it: puffer train {args.env_id} --config {sweep_dir / 'best.toml'}")
    return 0
