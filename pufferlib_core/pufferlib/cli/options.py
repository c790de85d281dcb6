"""Options shared by `puffer train`, `puffer eval` and `puffer sweep`: the env id, --config,
--load-model-path, and one dotted flag per key of the config tree (and `--env.KEY`,
`--policy.KEY` and `--eval.env.KEY` flags for keyword arguments the tree does not list yet).

Configuration layers, later wins: `pufferlib/data/default.toml`, the env's default
config (its plugin's EnvSpec), `--config FILE.toml` (a published agent's config.toml too: its
`[published]` table is skipped), then dotted flags generated from the
resulting tree (`--train.learning-rate 3e-4 --vec.num-envs 8 --env.size 11`). The merged
config is validated up front (`pufferlib.config.validation`).
"""

from __future__ import annotations

import argparse

from pufferlib import config as cfglib
from pufferlib.config.validation import validate
from pufferlib.train import trust


def base_parser(prog: str, description: str | None) -> argparse.ArgumentParser:
    """A parser with the env id, --config and --load-model-path."""
    parser = argparse.ArgumentParser(prog=prog, description=description, allow_abbrev=False)
    parser.add_argument("env_id", help="environment id, e.g. gym-CartPole-v1 (see `puffer list`)")
    parser.add_argument("--config", help="a TOML file overlaid on the defaults")
    parser.add_argument("--load-model-path", help="checkpoint file, run folder, 'latest' (the newest "
                                                  "checkpoint of ENV under train.data_dir) or a published agent "
                                                  "(hf://ORG/NAME[@REV], or its folder); for puffer train, "
                                                  "the same as --train.init-from")
    parser.add_argument("--allow-env-mismatch", action="store_true",
                        help="load --load-model-path even when it is a checkpoint of another env (fine-tuning)")
    return parser


def pre_parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The fixed options, before the config flags exist; `--help` waits for them when ENV is given."""
    without_help = [a for a in argv if a not in ("-h", "--help")]
    if len(without_help) == len(argv) or any(not a.startswith("-") for a in without_help):
        return parser.parse_known_args(without_help)[0]
    return parser.parse_known_args(argv)[0]  # `puffer train --help`: the fixed options only


def flag_values(argv: list[str], flag: str) -> list[str]:
    """The values `argv` gives `flag` (`--flag VALUE` or `--flag=VALUE`), before the parser that knows it exists."""
    values = [arg.partition("=")[2] for arg in argv if arg.startswith(flag + "=")]
    return values + [value for arg, value in zip(argv, argv[1:]) if arg == flag]


def parse_config(parser: argparse.ArgumentParser, argv: list[str],
                 base: dict | None = None) -> tuple[dict, argparse.Namespace]:
    """(config, args) from the layers described in the module docstring.

    `base` replaces the default + env layers (used by --resume with the run's config).
    Exits with status 2 and close matches on unknown flags; APIUsageError for bad values.
    """
    pre = pre_parse(parser, argv)
    default = cfglib.load_default()
    if base is None:
        spec_config, spec_kwargs = cfglib.env_config(pre.env_id)
        base = cfglib.merge(default, {"env": spec_kwargs}, spec_config)
    else:  # a run's saved config; sections added since then get their defaults
        base = cfglib.merge(default, base)
    layer = cfglib.load_toml(pre.config) if pre.config else None
    if layer is not None and layer.pop("published", None) is not None:
        # a published agent's config.toml: what it was, not a setting; where to run, log and write stays yours
        layer = trust.drop_user_keys(layer)[0]
        trust.drop_undeclared_env_text(layer, pre.env_id)
    tree = cfglib.merge(base, layer)
    cfglib.check_keys(tree, default)
    dests = cfglib.add_config_flags(parser, tree)
    args, unknown = parser.parse_known_args(argv)
    open_layer, unknown = cfglib.open_section_flags(unknown, tree)
    if unknown:
        parser.error(cfglib.unknown_flag_error(unknown, dests))
    flags = cfglib.merge(open_layer, cfglib.overrides_from_args(args, dests))
    config = cfglib.merge(tree, flags)
    validate(config, default)
    if layer is not None and "class" not in flags.get("policy", {}):  # the file's class is used: it is data
        trust.check_policy_class(config["policy"].get("class", ""), pre.env_id, str(pre.config))
    return config, args
