"""`puffer eval ENV`: run a (trained) policy, print episode stats, render, write a video."""

from __future__ import annotations

from pufferlib.cli.options import base_parser, parse_config
from pufferlib.errors import APIUsageError


def eval_command(argv: list[str]) -> int:
    """Run a (trained) policy on ENV and print episode stats; optionally render and save a video."""
    parser = base_parser("puffer eval", eval_command.__doc__)
    parser.add_argument("--episodes", type=int, default=10, help="episodes to run (default 10)")
    parser.add_argument("--render-mode", choices=["ansi", "rgb_array", "human"], default=None)
    parser.add_argument("--video-path", help="write the rgb_array frames of env 0 to this .gif/.mp4")
    parser.add_argument("--fps", type=int, default=30)
    config, args = parse_config(parser, argv)
    if args.video_path and args.render_mode not in (None, "rgb_array"):
        raise APIUsageError("--video-path records rgb_array frames; use --render-mode rgb_array (or omit it).")
    from pufferlib.train.playback import run_episodes

    render_mode = "rgb_array" if args.video_path else args.render_mode
    result = run_episodes(args.env_id, config, args.load_model_path, args.episodes, render_mode,
                          args.video_path, args.fps)
    print(f"{args.env_id}: {result['episodes']} episodes, mean return {result['mean_return']:.2f} "
          f"(min {result['min_return']:.2f}, max {result['max_return']:.2f}), "
          f"mean length {result['mean_length']:.1f}" + (f"; video: {args.video_path}" if args.video_path else ""))
    return 0
