"""`puffer league RUN_DIR`: a round robin among a run's snapshots and anchors, rated (`pufferlib.league`).

RUN_DIR may be `latest` (the run of the newest checkpoint under --data-dir). `--plot` is checked
(matplotlib installed, the file writable) before any game is played.

The table's player names come from RUN_DIR/league.db, a file: they are printed through
`pufferlib._text.printable`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pufferlib.errors import APIUsageError


def league_command(argv: list[str]) -> int:
    """Play N games for every pair of a run's snapshots (and anchors), add them to RUN_DIR/league.db,
    and print Bradley-Terry ratings (Elo scale, 95% intervals) from every game played so far."""
    parser = argparse.ArgumentParser(prog="puffer league", description=league_command.__doc__, allow_abbrev=False)
    parser.add_argument("run_dir", help="a run folder (its self-play pool and newest checkpoint, else its "
                                        "checkpoints), or 'latest': the run of the newest checkpoint under --data-dir")
    parser.add_argument("--data-dir", default=None, help="where 'latest' looks (default: train.data_dir)")
    parser.add_argument("--games", type=int, default=20, help="games per pair this round (default 20; 0: none, "
                                                              "only the table of the games played so far)")
    parser.add_argument("--anchors", default=None,
                        help="built-in players of the run's env to rate beside the snapshots, comma-separated ('' for "
                             "none; default: every built-in player the env declares)")
    parser.add_argument("--max-game-steps", type=int, default=None,
                        help="steps after which a game that has not ended is cut and not recorded (default 10,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", help="draw rating against training step to this PNG")
    args = parser.parse_args(argv)
    if args.games < 0:
        raise APIUsageError(f"--games must be at least 0, got {args.games}.")
    if args.max_game_steps is not None and args.max_game_steps < 1:
        raise APIUsageError(f"--max-game-steps must be at least 1, got {args.max_game_steps}.")
    from pufferlib import league
    from pufferlib._paths import check_writable
    from pufferlib._text import printable
    from pufferlib.games.ratings import fit, rank_correlation
    from pufferlib.train import checkpoint, trust
    from pufferlib.train.evaluation import builtin_players
    from pufferlib.train.metrics import FILE_NAME as METRICS_FILE

    if args.plot:  # before any game: a round can take hours
        from pufferlib.plot import require_matplotlib

        require_matplotlib("puffer league --plot")
        check_writable(args.plot, "the plot")
    run_dir = _run_dir(args.run_dir, args.data_dir)

    env_id = checkpoint.run_env_id(run_dir)
    if env_id is None:
        raise APIUsageError(f"{run_dir}: its metrics.jsonl names no env id; is it a run folder of `puffer train`?")
    trust.check_env_id(env_id, str(run_dir / METRICS_FILE))
    anchors = list(builtin_players(env_id)) if args.anchors is None else [a for a in args.anchors.split(",") if a]
    players = league.players_of(run_dir, env_id, anchors)
    if args.games:
        from pufferlib.match import MAX_GAME_STEPS

        league.play_round(run_dir, env_id, args.games, anchors, args.seed,
                          progress=lambda line: print(f"puffer league: {line}", file=sys.stderr, flush=True),
                          max_game_steps=args.max_game_steps or MAX_GAME_STEPS)
    ratings = fit(league.results(run_dir))
    steps = {p.name: p.step for p in players}
    print(f"{printable(env_id)}: Bradley-Terry ratings (Elo scale, mean 1000, 95% intervals) from every game in "
          f"{run_dir / league.DB_NAME}")
    print(f"{'player':>16}  {'step':>12}  {'rating':>14}  {'games':>6}  {'score':>6}")
    for r in ratings:
        step = steps.get(r.player)
        print(f"{printable(r.player):>16}  {'' if step is None else f'{step:,}':>12}  {r.elo:7.0f} ± {r.ci95:4.0f}  "
              f"{r.games:6d}  {r.score:6.3f}")
    stepped = [(float(step), r.elo) for r in ratings if (step := steps.get(r.player)) is not None]
    rho = rank_correlation([s for s, _ in stepped], [e for _, e in stepped])
    print(f"rank correlation of snapshot step and rating (Spearman): {rho:.2f} over {len(stepped)} snapshots")
    if args.plot:
        from pufferlib.plot import plot_ratings

        plot_ratings([(s, r.elo, r.ci95) for r in ratings if (s := steps.get(r.player)) is not None],
                     {r.player: r.elo for r in ratings if steps.get(r.player) is None}, args.plot,
                     f"{env_id}: league ratings")
        print(f"wrote {args.plot}")
    return 0


def _run_dir(given: str, data_dir: str | None) -> Path:
    """The run folder `given`, or for "latest" the run of the newest checkpoint under `data_dir`."""
    if given == "latest":
        from pufferlib.config import load_default
        from pufferlib.train import checkpoint

        return checkpoint.resolve("latest", data_dir or load_default()["train"]["data_dir"]).parent
    if not Path(given).is_dir():
        raise APIUsageError(f"{given} is not a run folder (pass a run folder of puffer train, or 'latest').")
    return Path(given)
