"""`puffer train ENV`: PPO with the config layers of `pufferlib.cli.options`.

`puffer train` saves a checkpoint when interrupted (Ctrl-C or SIGTERM; its handler is
installed for the run only) and prints the command that resumes the run; it exits with
128 + the signal's number. Non-finite training values stop it (status 1) and nothing is saved.
`--selfplay.enabled true` on an env whose default built-in opponent holds a seat (Ocean's games)
sets `--env.opponent none` itself and says so; an opponent given explicitly is refused by self-play.
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
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pufferlib.cli.options import base_parser, flag_values, parse_config, pre_parse
from pufferlib.errors import APIUsageError
from pufferlib.registry.make import make_from_config
from pufferlib.registry.plugins import check_loggers
from pufferlib.train import checkpoint, published
from pufferlib.train.dashboard import selfplay_scores
from pufferlib.train.policy import make_policy

if TYPE_CHECKING:
    from pufferlib.pufferl import PuffeRL
    from pufferlib.vector.base import Backend


def train_command(argv: list[str]) -> int:
    """Train a policy on ENV with PPO; prints the reached score and the checkpoint path."""
    parser = base_parser("puffer train", train_command.__doc__)
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its latest intact checkpoint "
                                                            "(steps, LR schedule, optimiser), or from one "
                                                            "model_*.pt file of it")
    parser.add_argument("--logger", action="append", metavar="NAME",
                        help="send metrics to this logger plugin (repeatable; see logger.names)")
    pre = pre_parse(parser, argv)
    base, resume_payload = None, None
    if pre.resume:
        if published.is_address(pre.resume):
            raise APIUsageError(f"--resume {pre.resume}: a published agent holds weights only (no optimiser state "
                                f"or progress); start a new run from it with --train.init-from {pre.resume}.")
        resume_payload = checkpoint.load(pre.resume, vouched=(pre.env_id, *flag_values(argv, "--policy.class")))
        base = resume_payload["config"]
        if resume_payload["dropped"]:
            print(f"puffer train: --resume keeps the run's training settings; where to run, log and write is yours "
                  f"(flags or defaults), not the checkpoint's: {', '.join(resume_payload['dropped'])} "
                  "left at their defaults", file=sys.stderr)
    config, args = parse_config(parser, argv, base)
    if resume_payload is not None:  # before the env is made or anything is written
        _check_resume(resume_payload, config["train"]["total_timesteps"])
    if args.load_model_path:  # the older spelling of train.init_from
        config["train"]["init_from"] = args.load_model_path
    elif resume_payload is not None:  # a resumed run starts from its own checkpoint
        config["train"]["init_from"] = ""
    # Logger names from a config file get the check that --logger names get.
    config["logger"]["names"] = check_loggers(args.logger or config["logger"]["names"])
    return _train(args, config, resume_payload)


@contextlib.contextmanager
def _interrupts() -> Iterator[list[int]]:
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


def _save_on_interrupt(trainer: PuffeRL, env_id: str, signum: int) -> None:
    """Save what was trained since the last checkpoint and say how to resume (rank 0)."""
    name = signal.Signals(signum).name
    if trainer.rank != 0:
        return
    where = f"at step {trainer.global_step:,} (epoch {trainer.epoch})"
    if trainer.global_step > trainer.saved_step:
        path = trainer.save_checkpoint()
        assert path is not None  # rank 0 (checked above) writes one
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


def _check_resume(payload: dict, total_timesteps: int) -> None:
    """APIUsageError unless `total_timesteps` exceeds the agent steps the checkpoint `payload` has
    trained: resuming it would train nothing and rewrite its checkpoint under the new config."""
    done = int(payload["global_step"])
    if total_timesteps <= done:
        raise APIUsageError(f"{payload['path']} has trained {done:,} steps already: to resume it, "
                            f"--train.total-timesteps must exceed that, and is {total_timesteps:,}. Nothing was "
                            "written.")


def _resumed_run_dir(payload: dict, given: str) -> Path | None:
    """The run folder a resumed run continues in: the checkpoint's own, unless the user named a
    checkpoint file older than the folder's newest. Continuing there would overwrite the later
    checkpoints with a new lineage (and a later --resume would pick an old one): that run branches
    into a new folder instead (None: the default one), as the message says."""
    path = Path(payload["path"])
    newest = checkpoint.resolve(path.parent)
    if not Path(given).is_file() or newest.resolve() == path.resolve():
        return path.parent
    print(f"puffer train: {path.name} is not the newest checkpoint of {path.parent} ({newest.name} is): the "
          "resumed run continues in a new run folder, and that run's later checkpoints stay as they are "
          f"(--resume {path.parent} continues from {newest.name} instead)", file=sys.stderr)
    return None


def _train(args: argparse.Namespace, config: dict, resume_payload: dict | None) -> int:
    from pufferlib import PuffeRL
    from pufferlib.pufferl import seed_everything

    rank = int(os.environ.get("RANK", "0"))
    env = _every_seat_for_selfplay(args.env_id, config, make_from_config(args.env_id, config, rank), rank)
    try:
        seed_everything(config["train"])  # before the policy's initial weights are drawn
        policy = make_policy(env, config, env_id=args.env_id)
        run_dir = _resumed_run_dir(resume_payload, args.resume) if resume_payload is not None else None
        trainer = PuffeRL(config, env, policy, env_id=args.env_id, run_dir=run_dir,
                          allow_env_mismatch=args.allow_env_mismatch)
    except BaseException:
        env.close()
        raise
    interrupted = 0
    with _interrupts() as received:
        try:
            if trainer.initialized_from:
                print(f"puffer train: starting from {trainer.initialized_from}", file=sys.stderr)
            if resume_payload is not None:
                trainer.load_checkpoint(resume_payload["path"], resume=True)
            while not trainer.done_training():
                trainer.evaluate()
                trainer.train()
                trainer.mean_and_log()
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
              f"{_final_scores(trainer.logged_metrics, trainer.last_metrics)}. Checkpoint: {path}")
    return 0


def _every_seat_for_selfplay(env_id: str, config: dict, env: Backend, rank: int) -> Backend:
    """`env`, or, for self-play on an env whose default built-in opponent holds a seat of each game
    (`game_seats` 1, and no `opponent` in [env]), the env made again with every seat an agent
    (`opponent = "none"`, recorded in the config and said once). An opponent the user set stays,
    and self-play refuses it (`pufferlib.train.selfplay.check`)."""
    if not config["selfplay"]["enabled"] or getattr(env, "game_seats", 0) != 1 or "opponent" in config["env"]:
        return env
    env.close()
    config["env"]["opponent"] = "none"
    print(f"puffer train: self-play holds every seat of {env_id}'s games: --env.opponent none (its default "
          "built-in opponent held one)", file=sys.stderr)
    return make_from_config(env_id, config, rank)


def _final_scores(logged: dict[str, float], last: dict[str, float]) -> str:
    """The episode return and score of the last log step (`logged`: what metrics.jsonl's last line
    says); with self-play, its scores against the pool and each anchor of the last log (`last`, the
    trainer's `last_metrics`: the end-of-run line of episode stats holds none) instead of the score,
    which is the learner's against itself in mirror games."""
    text = f"mean episode return {logged.get('environment/episode_return', math.nan):.2f}"
    against = selfplay_scores(last)
    if against:
        text += ", self-play " + ", ".join(against)
    elif "environment/score" in logged:
        text += f", score {logged['environment/score']:.2f}"
    return text + " (last log step)"


