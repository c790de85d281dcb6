"""`puffer eval ENV`: evaluate a (trained) policy, the rule of `pufferlib.train.evaluation`;
optionally render it or record a video of env 0."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from pufferlib.cli.options import base_parser, parse_config
from pufferlib.errors import APIUsageError

#: The files --video-path writes (imageio's GIF writer, or ffmpeg's).
VIDEO_SUFFIXES = (".gif", ".mp4", ".webm", ".avi", ".mov")


def _parser() -> argparse.ArgumentParser:
    parser = base_parser("puffer eval", eval_command.__doc__)
    parser.add_argument("--episodes", type=int, default=10,
                        help="episodes to count: the first N to start, each played to its end (default 10)")
    parser.add_argument("--deterministic", action="store_true",
                        help="greedy actions (the most likely choice, or the mean of a continuous action) "
                             "instead of sampled ones")
    parser.add_argument("--render-mode", choices=["ansi", "rgb_array", "human"], default=None)
    parser.add_argument("--video-path", help="write the rgb_array frames of env 0 to this .gif/.mp4")
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--opponent", metavar="NAME",
                        help="a game: score the agent against this built-in player of the env (default: the run's "
                             "eval.opponent; needed for an agent that holds every seat, as self-play trains it)")
    return parser


def eval_command(argv: list[str]) -> int:
    """Evaluate a (trained) policy on ENV: mean return, std, 95% interval over N episodes.

    The env is made as the checkpoint's run made the env of its evaluations (its `[env]` section,
    e.g. a game's legal actions in the observation, with its `[eval] env` over it, and its
    `[eval] opponent`), unless flags say otherwise; without a checkpoint, or one of another env,
    from the usual config layers (`pufferlib.train.evaluation.eval_base`)."""
    config, args = parse_config(_parser(), argv)
    if args.episodes < 1:
        raise APIUsageError(f"--episodes must be at least 1, got {args.episodes}.")
    if args.fps < 1:
        raise APIUsageError(f"--fps must be at least 1, got {args.fps}.")
    if args.video_path and args.render_mode not in (None, "rgb_array"):
        raise APIUsageError("--video-path records rgb_array frames; use --render-mode rgb_array (or omit it).")
    if args.video_path and not args.video_path.lower().endswith(VIDEO_SUFFIXES):
        raise APIUsageError(f"--video-path {args.video_path!r}: write a {' or '.join(VIDEO_SUFFIXES)} file.")
    from pufferlib._paths import check_writable
    from pufferlib.agent import build
    from pufferlib.cpu.threads import set_torch_threads
    from pufferlib.train import checkpoint
    from pufferlib.train.evaluation import eval_base, eval_env_config, with_opponent
    from pufferlib.train.playback import Recorder, make_render_env, write_video
    from pufferlib.train.trust import own_code

    if args.video_path:
        check_writable(args.video_path, "the video")
    payload, trained = None, None
    if args.load_model_path:
        payload = checkpoint.load(args.load_model_path, config["train"]["data_dir"], env_id=args.env_id,
                                  allow_env_mismatch=args.allow_env_mismatch, hub_dir=config["hub"]["dir"],
                                  vouched=own_code(config))
        print(f"puffer eval: loaded {checkpoint.describe(payload)}", file=sys.stderr)
        trained = payload["config"] if payload.get("env_id") == args.env_id else None
    config, args = parse_config(_parser(), argv, base=eval_base(args.env_id, trained))  # the user's layers on top
    if config["train"]["cpu_threads"] > 0:
        set_torch_threads(config["train"]["cpu_threads"])
    render_mode = "rgb_array" if args.video_path else args.render_mode
    config, opponent = with_opponent(args.env_id, eval_env_config(config), args.opponent)
    env = make_render_env(args.env_id, config, render_mode)
    try:
        agent = build(args.env_id, config, payload, env)
        recorder = Recorder(env, render_mode)
        result = replace(agent.evaluate(env, args.episodes, deterministic=args.deterministic,
                                        seed=config["vec"]["seed"], on_step=recorder, progress="puffer eval"),
                         opponent=opponent)
    finally:
        env.close()
    if args.video_path:
        write_video(recorder.frames, args.video_path, args.fps)
    if args.json:
        print(json.dumps({"env_id": args.env_id, "checkpoint": payload and payload["path"], **result.as_dict(),
                          "deterministic": result.deterministic, "seed": result.seed, "opponent": opponent}))
    else:
        print(f"{args.env_id}: {result.summary()}" + (f"; video: {args.video_path}" if args.video_path else ""))
    return 0
