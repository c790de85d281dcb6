"""`puffer new NAME`: write a pip-installable env plugin package (`pufferlib.scaffold`)."""

from __future__ import annotations

import argparse

from pufferlib.scaffold import template_values, write_package


def new_command(argv: list[str]) -> int:
    """`puffer new NAME [--c | --multiagent] [--dir DIR]`."""
    parser = argparse.ArgumentParser(prog="puffer new", description="Write a pip-installable PufferLib env "
                                     "plugin package: env, policy, training config, tests, README.")
    parser.add_argument("name", help="distribution name, e.g. my-plugin (import name my_plugin)")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--c", action="store_true", help="a C env built against puffer_ocean.get_include()")
    kind.add_argument("--multiagent", action="store_true", help="a cooperative multi-agent env")
    parser.add_argument("--dir", default=".", help="parent folder (default: the current one)")
    parser.add_argument("--force", action="store_true", help="write into an existing non-empty folder")
    args = parser.parse_args(argv)
    variant = "c" if args.c else "multiagent" if args.multiagent else "python"
    root = write_package(args.name, args.dir, variant, args.force)
    values = template_values(args.name, variant)
    print(f"Wrote {root} ({values['env_id']}). Next:\n  cd {root}\n  pip install -e .\n"
          f"  puffer check {values['env_id']}\n  puffer train {values['env_id']}")
    return 0
