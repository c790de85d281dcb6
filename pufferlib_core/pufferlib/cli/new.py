"""`puffer new NAME`: write a pip-installable env plugin package (`pufferlib.scaffold`).

A malformed or taken name, a file or folder in the way and a folder that cannot be written
are `APIUsageError`s: one line and exit status 2 (see `pufferlib.cli`).
"""

from __future__ import annotations

import argparse

from pufferlib.scaffold import template_values, write_package


def new_command(argv: list[str]) -> int:
    """`puffer new NAME [--c | --multiagent] [--prefix PREFIX] [--dir DIR] [--force]`."""
    parser = argparse.ArgumentParser(prog="puffer new", description="Write a pip-installable PufferLib env "
                                     "plugin package: env, policy, training config, tests, README.")
    parser.add_argument("name", help="distribution name, e.g. my-plugin (import name my_plugin); "
                                     "names already installed, importable or first-party are refused")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--c", action="store_true",
                      help="a C env (PufferLib's C env framework is copied from puffer-ocean into the package)")
    kind.add_argument("--multiagent", action="store_true", help="a cooperative multi-agent env")
    parser.add_argument("--prefix", help="env-id prefix owned by the plugin (default: the import name and '-', "
                                         "e.g. my_plugin-, for ids such as my_plugin-walk)")
    parser.add_argument("--dir", default=".", help="parent folder (default: the current one)")
    parser.add_argument("--force", action="store_true", help="write into an existing non-empty folder")
    args = parser.parse_args(argv)
    variant = "c" if args.c else "multiagent" if args.multiagent else "python"
    root = write_package(args.name, args.dir, variant, args.force, args.prefix)
    env_id = template_values(args.name, variant, args.prefix)["env_id"]
    rebuild = "   # compiles the C env; after editing it: python setup.py build_ext --inplace" if args.c else ""
    print(f"Wrote {root} ({env_id}). Next:\n  cd {root}\n  pip install -e .{rebuild}\n"
          f"  puffer check {env_id}\n  puffer train {env_id}")
    return 0
