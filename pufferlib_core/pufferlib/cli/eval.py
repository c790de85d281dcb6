"""`puffer eval ENV`: evaluate a (trained) policy, the rule of `pufferlib.train.evaluation`;
optionally render it or record a video of env 0."""

from __future__ import annotations

import argparse
import json
import sys

from pufferlib.cli.options import base_parser, parse_config
from pufferlib.config import env_config, load_default, merge
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
    return parser


def eval_command(argv: list[str]) -> int:
    """Evaluate a (trained) policy on ENV: mean return, std, 95% interval over N episodes.

    The env is made as the checkpoint's run made it (its `[env]` section: e.g. a game's opponent
    or its legal actions in the observation), unless flags say otherwise; without a checkpoint,
    or one of another env, from the usual config layers."""
    config, args = parse_config(_parser(), argv)
    if args.episodes < 1:
        raise APIUsageError(f"--episodes must be at least 1, got {args.episodes}.")
    if args.fps < 1:
        raise APIUsageError(f"--fps must be at least 1, got {args.fps}.")
    if args.video_path and args.render_mode not in (None, "rgb_array"):
        raise APIUsageError("--video-path records rgb_array frames; use --render-mode rgb_array (or omit it).")
    if args.video_path and not args.video_path.lower().endswith(VIDEO_SUFFIXES):
        raise APIUsageError(f"--video-path {args.video_path!r}: write a {' or '.join(VIDEO_SUFFIXES)} file.")
    from pufferlib.agent import build
    from pufferlib.cpu.threads import set_torch_threads
    from pufferlib.train import checkpoint
    from pufferlib.train.evaluation import eval_env_config
    from pufferlib.train.playback import Recorder, make_render_env, write_video
    from pufferlib.train.trust import own_code

    if args.video_path:
        checkpoint.check_writable(args.video_path, "the video")
    payload = None
    if args.load_model_path:
        payload = checkpoint.load(args.load_model_path, config["train"]["data_dir"], env_id=args.env_id,
                                  allow_env_mismatch=args.allow_env_mismatch, hub_dir=config["hub"]["dir"],
                                  vouched=own_code(config))
        print(f"puffer eval: loaded {checkpoint.describe(payload)}", file=sys.stderr)
        trained_env = payload["config"].get("env") if payload.get("env_id") == args.env_id else None
        if trained_env:  # the checkpoint's env settings in place of the env's defaults; --env.* flags still win
            spec_config, spec_kwargs = env_config(args.env_id)
            config, args = parse_config(_parser(), argv, base=merge(load_default(), {"env": spec_kwargs}, spec_config,
                                                                   {"env": trained_env}))
    if config["train"]["cpu_threads"] > 0:
        set_torch_threads(config["train"]["cpu_threads"])
    render_mode = "rgb_array" if args.video_path else args.render_mode
    config = eval_env_config(config)
    env = make_render_env(args.env_id, config, render_mode)
    try:
        agent = build(args.env_id, config, payload, env)
        recorder = Recorder(env, render_mode)
        result = agent.evaluate(env, args.episodes, deterministic=args.deterministic, seed=config["vec"]["seed"],
                                on_step=recorder, progress="puffer eval")
    finally:
        env.close()
    if args.video_path:
        write_video(recorder.frames, args.video_path, args.fps)
    if args.json:
        print(json.dumps({"env_id": args.env_id, "checkpoint": payload and payload["path"], **result.as_dict(),
                          "deterministic": result.deterministic, "seed": result.seed}))
    else:
        print(f"{args.env_id}: {result.summary()}" + (f"; video: {args.video_path}" if args.video_path else ""))
    return 0
