"""`puffer match ENV A B`: A against B over N games of a competitive game (`pufferlib.match`).

Player names (file names, addresses) are printed through `pufferlib._text.printable`; `--json`
escapes them as JSON does."""

from __future__ import annotations

import argparse
import json
import sys

from pufferlib._text import printable
from pufferlib.errors import APIUsageError


def match_command(argv: list[str]) -> int:
    """Play N games of A against B on ENV, seats alternating; print A's wins, draws, losses and
    score with its 95% interval."""
    parser = argparse.ArgumentParser(prog="puffer match", description=match_command.__doc__, allow_abbrev=False)
    parser.add_argument("env_id", help="an env of competitive games, e.g. ocean-connect4")
    for name in ("a", "b"):
        parser.add_argument(name, help="a checkpoint file, a run folder, 'latest' (the newest checkpoint of ENV), "
                                       "an hf://ORG/NAME[@REV] address or a built-in player of the env (the names its "
                                       "builtin_players declares: Ocean's 'scripted', 'random'; PettingZoo's "
                                       "'random', 'tactical')")
    parser.add_argument("--games", type=int, default=None, help="games to count (default 100)")
    parser.add_argument("--exact", action="store_true",
                        help="B 'random' on a small turn-based PettingZoo game: A's exact probabilities of winning, "
                             "drawing and losing with greedy actions, over every line of random play, each seat")
    parser.add_argument("--seed", type=int, default=0, help="seed of the envs and the sampled actions (default 0)")
    parser.add_argument("--num-envs", type=int, default=None,
                        help="env copies (default: one game slot per game, at most 64)")
    parser.add_argument("--deterministic", action="store_true", help="greedy actions instead of sampled ones")
    parser.add_argument("--max-game-steps", type=int, default=None,
                        help="steps after which a game that has not ended is cut and reported as cut, not scored "
                             "(default 10,000)")
    parser.add_argument("--data-dir", default=None, help="where 'latest' looks (default: train.data_dir)")
    parser.add_argument("--hub.dir", dest="hub_dir", default=None,
                        help="a local hub folder for hf:// players (default: $PUFFER_HUB_DIR, else the Hub)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--video-path", help="record env copy 0's first game to this .gif/.mp4")
    parser.add_argument("--fps", type=int, default=4, help="frames per second of the video (default 4: a move each)")
    args = parser.parse_args(argv)
    from pufferlib.config.validation import device_problem

    problem = device_problem(args.device)
    if problem:
        raise APIUsageError(f"--device {args.device!r} {problem}; use --device cpu.")
    if args.exact:
        return _exact(args)
    args.games = 100 if args.games is None else args.games
    from pufferlib.cli.eval import VIDEO_SUFFIXES

    if args.video_path and not args.video_path.lower().endswith(VIDEO_SUFFIXES):
        raise APIUsageError(f"--video-path {args.video_path!r}: write a {' or '.join(VIDEO_SUFFIXES)} file.")
    if args.fps < 1:
        raise APIUsageError(f"--fps must be at least 1, got {args.fps}.")
    if args.games < 1:
        raise APIUsageError(f"--games must be at least 1, got {args.games}.")
    if args.num_envs is not None and args.num_envs < 1:
        raise APIUsageError(f"--num-envs must be at least 1, got {args.num_envs}.")
    from pufferlib.match import MAX_GAME_STEPS, play_match

    max_game_steps = MAX_GAME_STEPS if args.max_game_steps is None else args.max_game_steps
    if max_game_steps < 1:
        raise APIUsageError(f"--max-game-steps must be at least 1, got {max_game_steps}.")
    result = play_match(args.env_id, args.a, args.b, args.games, seed=args.seed, num_envs=args.num_envs,
                        deterministic=args.deterministic, device=args.device, data_dir=args.data_dir,
                        progress="puffer match", video_path=args.video_path, fps=args.fps, hub_dir=args.hub_dir,
                        max_game_steps=max_game_steps)
    print(json.dumps(result.as_dict()) if args.json else printable(result.summary()))
    if args.video_path:
        print(f"wrote {args.video_path}", file=sys.stderr)
    sys.stdout.flush()
    return 0


def _exact(args: argparse.Namespace) -> int:
    """`--exact`: A's exact result against random play (`pufferlib.match.exact_match`)."""
    if args.b != "random":
        raise APIUsageError(f"--exact plays A against random play: B must be 'random', got {args.b!r}.")
    given = [flag for flag, value in (("--games", args.games), ("--num-envs", args.num_envs),
                                      ("--video-path", args.video_path), ("--max-game-steps", args.max_game_steps))
             if value is not None]
    if given:
        raise APIUsageError(f"--exact walks every line of random play once; drop {', '.join(given)}.")
    from pufferlib.match import exact_match

    result = exact_match(args.env_id, args.a, device=args.device, data_dir=args.data_dir, hub_dir=args.hub_dir)
    print(json.dumps(result.as_dict()) if args.json else printable(result.summary()))
    sys.stdout.flush()
    return 0
