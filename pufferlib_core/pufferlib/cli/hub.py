"""`puffer push SOURCE REPO_ID` and `puffer pull REPO_ID`: share trained agents (`pufferlib.hub`).

What they print from the files (env ids, a card's score, commands) passes through
`pufferlib._text.printable`: a file cannot send escape sequences to the terminal."""

from __future__ import annotations

import argparse
import sys

HUB_DIR_HELP = ("a local hub folder used instead of the Hugging Face Hub (default: $PUFFER_HUB_DIR, else the Hub; "
                "the token for the Hub comes from HF_TOKEN or `huggingface-cli login`)")


def push_command(argv: list[str]) -> int:
    """Publish a trained agent: weights (safetensors), config, a model card with its evaluation, a replay."""
    parser = argparse.ArgumentParser(prog="puffer push", description=push_command.__doc__, allow_abbrev=False)
    parser.add_argument("source", help="a checkpoint file, a run folder, 'latest' or an hf:// address")
    parser.add_argument("repo_id", help="where to publish it: ORG/NAME")
    parser.add_argument("--episodes", type=int, default=10,
                        help="episodes of the card's evaluation (`puffer eval`'s rule; default 10)")
    parser.add_argument("--no-replay", action="store_true", help="do not record a replay of an episode")
    parser.add_argument("--opponent", metavar="NAME",
                        help="a game: score the agent against this built-in player of the env (default: the run's "
                             "eval.opponent; needed for an agent that holds every seat, as self-play trains it)")
    parser.add_argument("--private", action="store_true", help="create the Hub repo private")
    parser.add_argument("--commit-message", default=None)
    parser.add_argument("--data-dir", default=None, help="where 'latest' looks (default: train.data_dir)")
    parser.add_argument("--hub.dir", dest="hub_dir", default=None, help=HUB_DIR_HELP)
    args = parser.parse_args(argv)
    from pufferlib._text import printable
    from pufferlib.hub import push

    exported, where = push(args.source, args.repo_id, episodes=args.episodes, data_dir=args.data_dir,
                           hub_dir=args.hub_dir, private=args.private, replay=not args.no_replay,
                           commit_message=args.commit_message, opponent=args.opponent)
    print(f"puffer push: {printable(exported.env_id)}: {exported.result.summary()}")
    print(f"published {', '.join(exported.files)} to {printable(where)}")
    print(f"load it with: pufferlib.load('hf://{args.repo_id}'); reproduce the evaluation with: "
          f"{printable(exported.eval_command)}")
    sys.stdout.flush()
    return 0


def pull_command(argv: list[str]) -> int:
    """Download a published agent into the Hugging Face cache (or find it in a local hub) and check it."""
    parser = argparse.ArgumentParser(prog="puffer pull", description=pull_command.__doc__, allow_abbrev=False)
    parser.add_argument("repo_id", help="ORG/NAME, or ORG/NAME@REVISION (a branch, tag or commit)")
    parser.add_argument("--hub.dir", dest="hub_dir", default=None, help=HUB_DIR_HELP)
    args = parser.parse_args(argv)
    from pufferlib._text import printable
    from pufferlib.hub import card_score, pull
    from pufferlib.train.published import SCHEME, parse_address

    repo_id, revision = parse_address(args.repo_id.removeprefix(SCHEME))
    folder, metadata = pull(repo_id, revision=revision, hub_dir=args.hub_dir)
    score = card_score(metadata)
    print(printable(folder) + (f"\ncard's mean_reward: {printable(score)}" if score else ""))
    print(f"load it with: pufferlib.load('hf://{args.repo_id.removeprefix(SCHEME)}')")
    return 0
