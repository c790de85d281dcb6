"""The `puffer` command line. Each subcommand lives in its own module of this package,
imported on use; nothing outside the package imports it.

`main` is the one place that turns errors into messages and exit statuses: a
`PufferError` prints `puffer COMMAND: error: ...` (through `pufferlib._text.printable`: a
message may quote a file), and exits with 2 when the input was wrong
(bad arguments, config, ids, files) or 1 when a run failed (a worker died, training
diverged); Ctrl-C exits with 130; a closed output pipe (`puffer list | head`) ends the
command quietly with 1.
"""

from __future__ import annotations

import importlib
import os
import sys

from pufferlib._text import printable
from pufferlib.errors import NonFiniteError, OutputError, PufferError, WorkerError
from pufferlib.train.trust import TRUST_FLAG, trusting

EXIT_USAGE = 2          # the input was wrong: arguments, config, ids, files (as argparse's errors)
EXIT_RUN_FAILED = 1     # the run itself failed
EXIT_INTERRUPTED = 130  # Ctrl-C
#: PufferErrors that mean a run failed rather than that its input was wrong.
RUN_FAILURES = (NonFiniteError, OutputError, WorkerError)

#: subcommand -> ("module:function", one-line help). The function takes argv (list[str])
#: after the subcommand and returns an exit code.
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("pufferlib.cli.envs:list_command", "list environment ids per plugin"),
    "plugins": ("pufferlib.cli.envs:plugins_command", "list installed plugins and versions"),
    "rollout": ("pufferlib.cli.envs:rollout_command",
                "step an env with random actions and print steps per second"),
    "train": ("pufferlib.cli.train:train_command", "train a policy with PPO (PuffeRL)"),
    "eval": ("pufferlib.cli.eval:eval_command", "run a trained policy: episode stats, rendering, video"),
    "match": ("pufferlib.cli.match:match_command",
              "play two players of a game against each other: wins, draws, losses, score with its interval"),
    "league": ("pufferlib.cli.league:league_command",
               "rate a run's snapshots and anchors: a round robin, Bradley-Terry ratings, league.db"),
    "play": ("pufferlib.cli.play:play_command",
             "play a turn-based game in the terminal against an agent, a built-in player or a person"),
    "push": ("pufferlib.cli.hub:push_command",
             "publish a trained agent (safetensors, config, model card, replay) to the Hugging Face Hub or a folder"),
    "pull": ("pufferlib.cli.hub:pull_command", "download a published agent (hf://ORG/NAME) and check it"),
    "sweep": ("pufferlib.cli.sweep:sweep_command", "search hyperparameters (Protein or random) over trials"),
    "plot": ("pufferlib.cli.plot:plot_command", "draw learning curves of run directories to a PNG"),
    "bench": ("pufferlib.cli.bench:bench_command", "time vectorization settings for an env, print the best"),
    "check": ("pufferlib.cli.check:check_command", "check that an env keeps the PufferEnv contract (report + hints)"),
    "new": ("pufferlib.cli.new:new_command", "write a pip-installable env plugin package (--c, --multiagent)"),
}

#: Commands that load files (checkpoints, published agents, config files, a sweep's database):
#: `--trust-code` anywhere in their arguments lets those files name code (`pufferlib.train.trust`).
LOADERS = ("train", "eval", "match", "league", "play", "push", "pull", "sweep")


def main(argv: list[str] | None = None) -> int:
    """Entry point of `puffer` (and `python -m pufferlib`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    name, rest = (argv[0], argv[1:]) if argv else ("--help", [])
    if name not in COMMANDS and name not in ("-h", "--help"):
        import difflib

        close = difflib.get_close_matches(name, list(COMMANDS), n=3)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        print(f"puffer: unknown command {name!r}.{hint} Commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    try:
        if name in ("-h", "--help"):
            print("usage: puffer COMMAND [options]\n\ncommands:")
            for command, (_, help_text) in COMMANDS.items():
                print(f"  {command:<10} {help_text}")
            print(f"\n`puffer COMMAND --help` describes a command's options. Files are data: a checkpoint, a "
                  "published agent, a config file or a sweep's database may not name code to import; "
                  f"{TRUST_FLAG} (on {', '.join(LOADERS)}) accepts the code a file names, for files you trust.",
                  flush=True)
            return 0
        module, _, func = COMMANDS[name][0].partition(":")
        command = getattr(importlib.import_module(module), func)
        if name in LOADERS and TRUST_FLAG in rest:
            with trusting():
                return int(command([a for a in rest if a != TRUST_FLAG]) or 0)
        return int(command(rest) or 0)
    except PufferError as exc:  # the message says what to fix; a traceback would only hide it
        print(f"puffer {name}: error: {printable(exc, newlines=True)}", file=sys.stderr)  # text from files inside
        return EXIT_RUN_FAILED if isinstance(exc, RUN_FAILURES) else EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of the output left (`puffer list | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes it
        return EXIT_RUN_FAILED
