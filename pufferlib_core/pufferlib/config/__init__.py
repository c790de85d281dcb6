"""Training configuration: the default TOML, layering, and dotted command-line flags.

A config is a nested dict with the sections of `data/default.toml` (vec, env, policy, rnn,
normalize, logger, train, sweep) plus those that plugins add.

Contract: `load_default()` is the reference every config is checked against; `merge` layers
configs key by key, later wins, without touching its inputs; `load_toml` reads a config file
and `dump_toml` writes one that `load_toml` reads back equal; `get_dotted` / `set_dotted`
are the one way to read or write a key by its dotted name ("train.learning_rate"); every
leaf is a `--section.key-name` flag parsed like its default (`add_config_flags`,
`overrides_from_args`). Values are validated by `pufferlib.config.validation`.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import re
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from pufferlib._compat import tomllib
from pufferlib.config.messages import short
from pufferlib.errors import APIUsageError


def _default_text() -> str:
    return resources.files("pufferlib").joinpath("data/default.toml").read_text()


def core_defaults() -> dict:
    """The core's own defaults (`pufferlib/data/default.toml`), without plugin sections."""
    return tomllib.loads(_default_text())


def load_default() -> dict:
    """The default config: the core's `pufferlib/data/default.toml` plus the sections that
    plugins add through the `pufferlib_config_defaults` hook (e.g. a logger's `[wandb]`).

    Plugin defaults only add: a value for a key that already exists is ignored and reported."""
    from pufferlib.registry.plugins import call_hook, report

    config = core_defaults()
    for plugin, layer in call_hook("pufferlib_config_defaults"):
        for dotted in _add_new_keys(config, layer):
            report(plugin, "pufferlib_config_defaults",
                   f"sets a default for {dotted}, which already exists; ignored (plugin defaults may only "
                   "add new sections and keys; per-env settings go in EnvSpec.config)", key=dotted)
    return config


def _add_new_keys(config: dict, layer: Mapping, where: str = "") -> list[str]:
    """Copy the keys of `layer` absent from `config` into it; the dotted keys it already had."""
    taken = []
    for key, value in layer.items():
        if key not in config:
            config[key] = copy.deepcopy(value)
        elif isinstance(value, Mapping) and isinstance(config[key], dict):
            taken += _add_new_keys(config[key], value, f"{where}{key}.")
        else:
            taken.append(f"{where}{key}")
    return taken


def default_docs() -> dict[str, str]:
    """"section.key" -> the comment documenting it in default.toml (for --help)."""
    docs, section = {}, ""
    for line in _default_text().splitlines():
        header = re.match(r"^\[(\w+)\]", line)
        if header:
            section = header.group(1)
            continue
        entry = re.match(r"^(\w+)\s*=[^#]*#\s*(.+)$", line)
        if entry and section:
            docs[f"{section}.{entry.group(1)}"] = entry.group(2).strip()
    return docs


def dump_toml(config: Mapping) -> str:
    """TOML text of a config (what `load_toml` reads back equal): written by tomli-w, so strings,
    non-finite floats and keys that need quoting come out as TOML has them."""
    import tomli_w

    return tomli_w.dumps(config)


def load_toml(path: str | Path) -> dict:
    """A config file; raises APIUsageError when it is missing or malformed."""
    try:
        with open(path, "rb") as f:
            loaded = tomllib.load(f)
    except FileNotFoundError:
        raise APIUsageError(f"Config file {str(path)!r} does not exist.") from None
    except IsADirectoryError:
        raise APIUsageError(f"Config file {str(path)!r} is a folder; pass a .toml file.") from None
    except OSError as exc:
        raise APIUsageError(f"Config file {str(path)!r} cannot be read: {exc.strerror or exc}.") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise APIUsageError(f"Config file {str(path)!r} is not valid TOML: {exc}") from None
    except RecursionError:  # too deep for the parser itself
        loaded = None
    if loaded is None or _depth(loaded) > MAX_DEPTH:
        raise APIUsageError(f"Config file {str(path)!r} nests its tables or arrays more than {MAX_DEPTH} levels "
                            "deep; a config has sections of keys, a few levels deep.")
    return loaded


#: The deepest nesting of tables and arrays a config file may have.
MAX_DEPTH = 16


def _depth(value: object) -> int:
    """How deep tables and arrays nest in `value` (0 for a scalar); stops counting past MAX_DEPTH."""
    depth, level = 0, [value]
    while level and depth <= MAX_DEPTH:
        level = [child for item in level if isinstance(item, (dict, list))
                 for child in (item.values() if isinstance(item, dict) else item)]
        depth += 1
    return depth - 1 if not level else depth


def merge(base: Mapping, *layers: Mapping | None) -> dict:
    """A deep copy of `base` with each layer merged in (nested dicts key by key)."""
    out = copy.deepcopy(dict(base))
    for layer in layers:
        for key, value in (layer or {}).items():
            if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
                out[key] = merge(out[key], value)
            else:
                out[key] = copy.deepcopy(value)
    return out


def check_keys(config: Mapping, reference: Mapping, where: str = "",
               open_sections: tuple = ("env", "policy", "sweep", "eval.env")) -> None:
    """Raise APIUsageError for keys of `config` absent from `reference`, with close matches.

    Sections in `open_sections` (dotted names) take any keys (they are keyword arguments of the
    env and the policy, `eval.env` those evaluations set; `sweep` tables name swept keys,
    checked by `pufferlib.sweep`).
    """
    for key, value in config.items():
        name = f"{where}{key}"
        if key not in reference:
            close = difflib.get_close_matches(key, list(reference), n=3)
            hint = f" Did you mean: {', '.join(where + c for c in close)}?" if close else ""
            raise APIUsageError(f"Unknown config key {name!r}.{hint}")
        if isinstance(value, Mapping) and isinstance(reference[key], Mapping) and name not in open_sections:
            check_keys(value, reference[key], f"{name}.", open_sections)


def env_config(env_id: str | None) -> tuple[dict, dict]:
    """(default config layer, default env kwargs) of an env id from its spec."""
    if env_id is None:
        return {}, {}
    from pufferlib import registry

    spec = registry.spec(env_id)
    return dict(spec.config or {}), dict(spec.kwargs or {})


def _parse_value(text: str, default: Any) -> Any:
    """Parse a flag value like its default (bools accept true/false/1/0; None defaults guess).

    Raises only argparse.ArgumentTypeError (a number too large for its type included: its range
    is then `pufferlib.config.validation`'s to check)."""
    if isinstance(default, bool):
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise argparse.ArgumentTypeError(f"expected true or false, got {short(repr(text))}")
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            value = float(text)  # 1e6
            if not value.is_integer():
                raise argparse.ArgumentTypeError(f"expected an integer, got {short(repr(text))}") from None
            return int(value)
    if isinstance(default, float):
        return float(text)
    if isinstance(default, str):
        return text
    if isinstance(default, list):  # a TOML list, or comma-separated words
        try:
            value = tomllib.loads(f"v = {text}")["v"]
            return value if isinstance(value, list) else [value]
        except ValueError:  # not TOML (TOMLDecodeError), or an integer of more digits than Python converts
            return [part.strip() for part in text.split(",") if part.strip()]
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except ValueError:  # as above
        return text


def _leaves(tree: Mapping, prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for key, value in tree.items():
        if isinstance(value, Mapping):
            out += _leaves(value, f"{prefix}{key}.")
        else:
            out.append((f"{prefix}{key}", value))
    return out


def _flag_parser(default: Any) -> Callable[[str], Any]:
    """The argparse `type` of a flag whose default is `default`."""
    return lambda text: _parse_value(text, default)


def add_config_flags(parser: argparse.ArgumentParser, config: Mapping) -> dict[str, str]:
    """Add one `--section.key-name VALUE` flag per leaf of `config`; returns dest -> dotted key."""
    dests = {}
    docs = default_docs()
    group = parser.add_argument_group("config (generated from the config tree)")
    for dotted, default in _leaves(config):
        flag = "--" + dotted.replace("_", "-")
        dest = "cfg__" + dotted.replace(".", "__")
        group.add_argument(flag, dest=dest, default=argparse.SUPPRESS, metavar=type(default).__name__.upper(),
                           type=_flag_parser(default),
                           help=f"{docs.get(dotted, '')} (default: {default})".strip().replace("%", "%%"))
        dests[dest] = dotted
    return dests


def get_dotted(config: Mapping, dotted: str) -> Any:
    """`config["a"]["b"]` for the dotted key "a.b"; KeyError naming the first missing part
    ("a" or "a.b") when the config has no such key."""
    node: Any = config
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(".".join(parts[:i + 1]))
        node = node[part]
    return node


def set_dotted(config: dict, dotted: str, value: Any) -> dict:
    """Set `config["a"]["b"] = value` for the dotted key "a.b", creating missing tables; returns `config`."""
    node = config
    *path, last = dotted.split(".")
    for part in path:
        node = node.setdefault(part, {})
    node[last] = value
    return config


def overrides_from_args(args: argparse.Namespace, dests: Mapping[str, str]) -> dict:
    """The nested config layer of the dotted flags given on the command line."""
    out: dict = {}
    for dest, dotted in dests.items():
        if hasattr(args, dest):
            set_dotted(out, dotted, getattr(args, dest))
    return out


#: Sections whose keys are keyword arguments (of the env, of the policy class, of the env of every
#: evaluation): a flag may name a key the config tree does not hold yet, e.g. `--policy.num-layers 3`
#: for a class that takes it.
OPEN_FLAG_SECTIONS = ("env", "policy", "eval.env")


def open_section_flags(unknown: list[str], tree: Mapping) -> tuple[dict, list[str]]:
    """(the config layer of `--env.KEY VALUE` / `--policy.KEY VALUE` / `--eval.env.KEY VALUE` flags
    among `unknown`, the flags left unknown). Values are read as TOML literals (42, 0.5, true, "text",
    [1, 2]), else as text; the env or policy class then checks the keys it accepts. A key close to one
    `tree` already has in that section (a typo) stays unknown, so that its error names the close match."""
    layer: dict = {}
    rest: list[str] = []
    items = iter(unknown)
    for item in items:
        name, has_value, value = item.partition("=")
        dotted = name[2:] if name.startswith("--") else ""
        section = next((s for s in OPEN_FLAG_SECTIONS if dotted.startswith(s + ".")), "")
        key = dotted[len(section) + 1:].replace("-", "_")
        try:
            known = list(get_dotted(tree, section) or {}) if section else []
        except KeyError:
            known = []
        if (not section or not key or "." in key
                or difflib.get_close_matches(key, known, n=1, cutoff=0.8)):
            rest.append(item)
            continue
        if not has_value:
            following = next(items, None)
            if following is None or following.startswith("--"):
                rest += [item] if following is None else [item, following]
                continue
            value = following
        set_dotted(layer, f"{section}.{key}", _parse_value(value, None))
    return layer, rest


def unknown_flag_error(unknown: list[str], dests: Mapping[str, str]) -> str:
    """The error message of unrecognised flags, with the closest known ones."""
    known = ["--" + d.replace("_", "-") for d in dests.values()]
    lines = []
    for flag in (u for u in unknown if u.startswith("--")):
        name = flag.split("=", 1)[0]
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        lines.append(f"unknown flag {name}" + (f"; did you mean {', '.join(close)}?" if close else ""))
    if not lines:
        lines.append(f"unexpected arguments: {' '.join(unknown)}")
    return "\n".join(lines)
