"""`puffer train ENV` and `puffer eval ENV`.

Configuration layers, later wins: `pufferlib/data/default.toml`, the env's default
config (its plugin's EnvSpec), `--config FILE.toml`, then dotted flags generated from the
resulting tree (`--train.learning-rate 3e-4 --vec.num-envs 8 --env.size 11`). The merged
config is validated up front (`pufferlib.config_check`): a bad value exits with status 2.

`puffer train` saves a checkpoint when interrupted (Ctrl-C or SIGTERM; its handler is
installed for the run only) and prints the command that resumes the run; it exits with
128 + the signal's number. Non-finite training values stop it with status 1 and no save.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from pufferlib import config as cfglib
from pufferlib.config_check import check_values
from pufferlib.errors import APIUsageError, PufferError
from pufferlib.factory import make_from_config
from pufferlib.policy_factory import make_policy


def _base_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description, allow_abbrev=False)
    parser.add_argument("env_id", help="environment id, e.g. gym-CartPole-v1 (see `puffer list`)")
    parser.add_argument("--config", help="a TOML file overlaid on the defaults")
    parser.add_argument("--load-model-path", help="checkpoint file, run folder, or 'latest' (newest under "
                                                  "train.data_dir) to start from")
    return parser


def _pre_parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The fixed options, before the config flags exist; `--help` waits for them when ENV is given."""
    without_help = [a for a in argv if a not in ("-h", "--help")]
    if len(without_help) == len(argv) or any(not a.startswith("-") for a in without_help):
        return parser.parse_known_args(without_help)[0]
    return parser.parse_known_args(argv)[0]  # `puffer train --help`: the fixed options only


def parse_config(parser: argparse.ArgumentParser, argv: list[str], base: dict | None = None) -> tuple[dict, Any]:
    """(config, args) from the layers described in the module docstring.

    `base` replaces the default + env layers (used by --resume with the run's config).
    Exits with status 2 and close matches on unknown flags; APIUsageError for bad values.
    """
    pre = _pre_parse(parser, argv)
    default = cfglib.load_default()
    if base is None:
        spec_config, spec_kwargs = cfglib.env_config(pre.env_id)
        base = cfglib.merge(default, {"env": spec_kwargs}, spec_config)
    else:  # a run's saved config; sections added since then get their defaults
        base = cfglib.merge(default, base)
    tree = cfglib.merge(base, cfglib.load_toml(pre.config) if pre.config else None)
    cfglib.check_keys(tree, default)
    dests = cfglib.add_config_flags(parser, tree)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        parser.error(cfglib.unknown_flag_error(unknown, dests))
    config = cfglib.merge(tree, cfglib.overrides_from_args(args, dests))
    check_values(config, default)
    return config, args


def _check_loggers(names: list[str]) -> list[str]:
    """`names` if logger plugins provide them all, else APIUsageError naming what to install."""
    import difflib

    from pufferlib.plugins import call_hook

    available = {name for _, provided in call_hook("pufferlib_loggers") for name in provided}
    for name in names:
        if name not in available:
            close = difflib.get_close_matches(name, sorted(available), n=3)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise APIUsageError(f"No logger plugin provides {name!r}.{hint} Installed loggers: "
                                f"{', '.join(sorted(available)) or 'none'} (pip install puffer-loggers).")
    return names


def _fail(prog: str, exc: Exception) -> int:
    """Print the error; status 1 for a failed run (non-finite values), 2 for bad input."""
    print(f"{prog}: error: {exc}", file=sys.stderr)
    return 1 if isinstance(exc, FloatingPointError) else 2


def train_command(argv: list[str]) -> int:
    """Train a policy on ENV with PPO; prints the reached score and the checkpoint path."""
    parser = _base_parser("puffer train", train_command.__doc__)
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its latest intact checkpoint "
                                                            "(steps, LR schedule, optimiser), or from one "
                                                            "model_*.pt file of it")
    parser.add_argument("--logger", action="append", metavar="NAME",
                        help="send metrics to this logger plugin (repeatable; see logger.names)")
    try:
        pre = _pre_parse(parser, argv)
        base, resume_payload = None, None
        if pre.resume:
            from pufferlib import checkpoint

            resume_payload = checkpoint.load(pre.resume)
            base = resume_payload["config"]
        config, args = parse_config(parser, argv, base)
        if args.logger:
            config["logger"]["names"] = _check_loggers(args.logger)
        return _train(args, config, resume_payload)
    except PufferError as exc:
        return _fail("puffer train", exc)


@contextlib.contextmanager
def _interrupts():
    """SIGINT and SIGTERM raise KeyboardInterrupt inside the block; yields the signals received.

    Only handlers still at their defaults are replaced (an ignored SIGINT stays ignored),
    only in the main thread, and the previous ones come back on exit.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def handler(signum, frame):
        received.append(signum)
        raise KeyboardInterrupt(signal.Signals(signum).name)

    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    previous = {sig: signal.getsignal(sig) for sig in defaults}
    for sig, default in defaults.items():
        if previous[sig] is default:
            signal.signal(sig, handler)
    try:
        yield received
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _save_on_interrupt(trainer: Any, env_id: str, signum: int) -> None:
    """Save what was trained since the last checkpoint and say how to resume (rank 0)."""
    name = signal.Signals(signum).name
    if trainer.rank != 0:
        return
    where = f"at step {trainer.global_step:,} (epoch {trainer.epoch})"
    if trainer.global_step > trainer.saved_step:
        path = trainer.save_checkpoint()
        print(f"puffer train: interrupted by {name} {where}; saved checkpoint {path}", file=sys.stderr)
    elif trainer.last_checkpoint:
        path = trainer.last_checkpoint
        print(f"puffer train: interrupted by {name} {where}; nothing trained since checkpoint {path}",
              file=sys.stderr)
    else:
        print(f"puffer train: interrupted by {name} before any training; no checkpoint written", file=sys.stderr)
        return
    print(f"Resume with: puffer train {shlex.quote(env_id)} --resume {shlex.quote(str(Path(path).parent))}",
          file=sys.stderr)


def _train(args: argparse.Namespace, config: dict, resume_payload: dict | None) -> int:
    from pufferlib import PuffeRL

    rank = int(os.environ.get("RANK", "0"))
    env = make_from_config(args.env_id, config, rank)
    try:
        policy = make_policy(env, config, env_id=args.env_id)
        run_dir = Path(resume_payload["path"]).parent if resume_payload is not None else None
        trainer = PuffeRL(config, env, policy, env_id=args.env_id, run_dir=run_dir)
    except BaseException:
        env.close()
        raise
    score, interrupted = math.nan, 0
    with _interrupts() as received:
        try:
            if args.load_model_path:
                trainer.load_checkpoint(args.load_model_path)
            if resume_payload is not None:
                trainer.load_checkpoint(resume_payload["path"], resume=True)
            while not trainer.done_training():
                trainer.evaluate()
                trainer.train()
                metrics = trainer.mean_and_log()
                score = metrics.get("environment/episode_return", score)
            path = trainer.save_checkpoint()
        except KeyboardInterrupt:
            interrupted = received[0] if received else signal.SIGINT
            _save_on_interrupt(trainer, args.env_id, interrupted)
        finally:
            trainer.close()
    if interrupted:
        return 128 + int(interrupted)
    if trainer.rank == 0:
        print(f"Trained {args.env_id} for {trainer.global_step:,} steps ({trainer.epoch} epochs); "
              f"mean episode return {score:.2f}. Checkpoint: {path}")
    return 0


def eval_command(argv: list[str]) -> int:
    """Run a (trained) policy on ENV and print episode stats; optionally render and save a video."""
    parser = _base_parser("puffer eval", eval_command.__doc__)
    parser.add_argument("--episodes", type=int, default=10, help="episodes to run (default 10)")
    parser.add_argument("--render-mode", choices=["ansi", "rgb_array", "human"], default=None)
    parser.add_argument("--video-path", help="write the rgb_array frames of env 0 to this .gif/.mp4")
    parser.add_argument("--fps", type=int, default=30)
    try:
        config, args = parse_config(parser, argv)
        if args.video_path and args.render_mode not in (None, "rgb_array"):
            raise APIUsageError("--video-path records rgb_array frames; use --render-mode rgb_array (or omit it).")
        from pufferlib.evaluate import run_episodes

        render_mode = "rgb_array" if args.video_path else args.render_mode
        result = run_episodes(args.env_id, config, args.load_model_path, args.episodes, render_mode,
                              args.video_path, args.fps)
    except PufferError as exc:
        return _fail("puffer eval", exc)
    print(f"{args.env_id}: {result['episodes']} episodes, mean return {result['mean_return']:.2f} "
          f"(min {result['min_return']:.2f}, max {result['max_return']:.2f}), "
          f"mean length {result['mean_length']:.1f}" + (f"; video: {args.video_path}" if args.video_path else ""))
    return 0
