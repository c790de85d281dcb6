"""The search space of a CLI sweep: which swept-key tables of the config layers apply.

Config layers as in `puffer train` (default.toml < the env's config < --config FILE <
dotted flags such as --sweep.max-runs 40). Contract of `resolve_space`: the search space is
the swept-key tables of the highest layer that declares any (a --config file with its own
`[sweep.train.gamma]` tables replaces the env's and the core's default space; their
settings still apply, and flags still change the chosen tables); an unknown `sweep.*`
setting or a bad space raises APIUsageError before any trial runs. A resumed sweep's keys
stand in for the env's and the core's layers (a --config file with its own space still
replaces them, and the driver then refuses the changed space).
"""

from __future__ import annotations

from pufferlib import config as cfglib
from pufferlib.config.messages import close_matches, short
from pufferlib.errors import APIUsageError
from pufferlib.sweep.space import Space, param_tables


def _nest(tables: dict[str, dict]) -> dict:
    """The tables of dotted keys ("train.learning_rate": {...}) as nested ones."""
    out: dict = {}
    for dotted, table in tables.items():
        cfglib.set_dotted(out, dotted, dict(table))
    return out


def _settings(sweep: dict) -> dict:
    return {k: v for k, v in sweep.items() if not isinstance(v, dict)}


def resolve_space(env_id: str, config: dict, config_file: str | None,
                  keys: list[str] | None = None) -> tuple[dict, Space]:
    """(config whose [sweep] holds only the chosen space, Space), checked against the config.

    `keys`: the swept keys of a sweep being resumed (None for a new sweep)."""
    known = _settings(cfglib.load_default()["sweep"])
    for key in _settings(config.get("sweep", {})):
        if key not in known:
            close = close_matches(key, list(known))
            hint = f" Did you mean: {', '.join('sweep.' + c for c in close)}?" if close else ""
            raise APIUsageError(f"Unknown sweep setting 'sweep.{short(key)}'.{hint} A swept key is a table with "
                                f"a distribution, e.g. [sweep.train.learning_rate].")
    merged = param_tables(config.get("sweep", {}))
    declared = list(param_tables(cfglib.load_toml(config_file).get("sweep", {}))) if config_file else []
    if declared:
        keys = declared
    elif keys is None:
        layers = [cfglib.env_config(env_id)[0], cfglib.load_default()]
        keys = next((list(param_tables(layer.get("sweep", {}))) for layer in layers
                     if param_tables(layer.get("sweep", {}))), [])
    chosen = {k: merged[k] for k in keys}
    space = Space.from_tables(chosen, config)
    config = dict(config)
    config["sweep"] = {**_settings(config["sweep"]), **_nest(chosen)}
    return config, space
