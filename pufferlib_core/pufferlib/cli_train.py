"""`puffer train ENV` and `puffer eval ENV`.

Configuration layers, later wins: `pufferlib/config/default.toml`, the env's default
config (its plugin's EnvSpec), `--config FILE.toml`, then dotted flags generated from the
resulting tree (`--train.learning-rate 3e-4 --vec.num-envs 8 --env.size 11`).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import Any

from pufferlib import config as cfglib
from pufferlib.errors import APIUsageError, PufferError


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
    Exits with status 2 and close matches on unknown flags.
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
    return cfglib.merge(tree, cfglib.overrides_from_args(args, dests)), args


def make_env(env_id: str, config: dict, rank: int = 0, **env_overrides: Any):
    """The vectorized env of a config (`vec` and `env` sections); rank offsets the seeds."""
    import pufferlib

    vec = config["vec"]
    if vec["backend"] == "ray":
        from pufferlib.vector.ray import connect

        connect(config["ray"]["address"] or None)
    return pufferlib.make(env_id, num_envs=vec["num_envs"], num_workers=vec["num_workers"] or None,
                          batch_size=vec["env_batch_size"] or None,
                          backend=None if vec["backend"] == "auto" else vec["backend"],
                          seed=vec["seed"] + rank * vec["num_envs"], **{**config["env"], **env_overrides})


def make_policy(env_id: str, env: Any, config: dict):
    """The env's default policy class (or models.Default), LSTM-wrapped when rnn.enabled."""
    from pufferlib import models, registry

    cls = registry.spec(env_id).load_policy() or models.Default
    policy = cls(env, **config["policy"])
    if config["rnn"]["enabled"]:
        policy = models.LSTMWrapper(env, policy, input_size=getattr(policy, "hidden_size", 128),
                                    hidden_size=config["rnn"]["hidden_size"])
    return policy


def _check_loggers(names: list[str]) -> list[str]:
    """`names` if logger plugins provide them all, else APIUsageError naming what to install."""
    import difflib

    from pufferlib.plugins import plugin_manager

    available = {name for provided in plugin_manager().hook.pufferlib_loggers() for name in provided}
    for name in names:
        if name not in available:
            close = difflib.get_close_matches(name, sorted(available), n=3)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise APIUsageError(f"No logger plugin provides {name!r}.{hint} Installed loggers: "
                                f"{', '.join(sorted(available)) or 'none'} (pip install puffer-loggers).")
    return names


def _fail(prog: str, exc: Exception) -> int:
    print(f"{prog}: error: {exc}", file=sys.stderr)
    return 2


def train_command(argv: list[str]) -> int:
    """Train a policy on ENV with PPO; prints the reached score and the checkpoint path."""
    parser = _base_parser("puffer train", train_command.__doc__)
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its latest checkpoint "
                                                            "(steps, LR schedule, optimiser)")
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


def _train(args: argparse.Namespace, config: dict, resume_payload: dict | None) -> int:
    from pufferlib import PuffeRL

    rank = int(os.environ.get("RANK", "0"))
    env = make_env(args.env_id, config, rank)
    try:
        policy = make_policy(args.env_id, env, config)
        run_dir = Path(args.resume) if args.resume else None
        trainer = PuffeRL(config, env, policy, env_id=args.env_id, run_dir=run_dir)
    except BaseException:
        env.close()
        raise
    if args.load_model_path:
        trainer.load_checkpoint(args.load_model_path)
    if resume_payload is not None:
        trainer.load_checkpoint(resume_payload["path"], resume=True)
    score = math.nan
    try:
        while not trainer.done_training():
            trainer.evaluate()
            trainer.train()
            metrics = trainer.mean_and_log()
            score = metrics.get("environment/episode_return", score)
        path = trainer.save_checkpoint()
    finally:
        trainer.close()
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
