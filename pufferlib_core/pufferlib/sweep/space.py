"""A sweep's search space: the swept config keys and their distributions.

Declared in the config tree under `[sweep]`: plain keys are settings (method, metric, goal,
max_runs, ...; checked by `pufferlib.config.validation`) and every table with a
`distribution` key is one swept config key, named by its path below `sweep`:
`[sweep.train.learning_rate]` sweeps `train.learning_rate` (`param_tables`).

Each distribution maps a value to a point of [0, 1] (`normalize`) and back (`unnormalize`),
so that search methods work in the unit cube whatever the keys' scales:

    uniform        float, linear in [min, max]
    int_uniform    int, linear in [min, max], rounded
    uniform_pow2   int, linear in log2, rounded to a power of two (min > 0)
    log_normal     float, linear in log (min > 0): learning rates, coefficients
    logit_normal   float in (0, 1), linear in logit: discount factors, GAE lambda

Contract: `Space.from_tables(tables, config)` raises `APIUsageError` before any trial runs
for a bad space: a swept key holding other swept keys, unknown keys (with close matches),
bounds that are not finite numbers, min > max, a distribution that does not fit the key's
type, log distributions over non-positive ranges, bounds outside the values the config
allows for the key (`pufferlib.config.validation`). `values(x)` and `point(...)` convert
between a point of [0, 1]^d and {dotted key: value}; `tables()` gives the space back as
tables (what a sweep stores) and `changes` lists how two such spaces differ; `apply` sets
values in a copy of a config.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pufferlib.config import get_dotted, load_default, set_dotted
from pufferlib.config.messages import close_matches, short
from pufferlib.config.validation import validate
from pufferlib.errors import APIUsageError

FLOAT_DISTRIBUTIONS = ("uniform", "log_normal", "logit_normal")
INT_DISTRIBUTIONS = ("int_uniform", "uniform_pow2")
DISTRIBUTIONS = FLOAT_DISTRIBUTIONS + INT_DISTRIBUTIONS
PARAM_FIELDS = ("distribution", "min", "max")


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


@dataclass(frozen=True)
class Param:
    """One swept config key (`key` is dotted, e.g. "train.learning_rate")."""

    key: str
    distribution: str
    min: float
    max: float

    def _scale(self, value: float) -> float:
        if self.distribution in ("log_normal",):
            return math.log(value)
        if self.distribution == "uniform_pow2":
            return math.log2(value)
        if self.distribution == "logit_normal":
            return _logit(value)
        return float(value)

    def _unscale(self, z: float) -> float:
        if self.distribution == "log_normal":
            return math.exp(z)
        if self.distribution == "uniform_pow2":
            return 2.0 ** z
        if self.distribution == "logit_normal":
            return 1.0 / (1.0 + math.exp(-z))
        return z

    def normalize(self, value: float) -> float:
        """The point in [0, 1] of a value (values outside [min, max] are clipped)."""
        lo, hi = self._scale(self.min), self._scale(self.max)
        if hi == lo:
            return 0.5
        clipped = min(max(float(value), self.min), self.max)
        return (self._scale(clipped) - lo) / (hi - lo)

    def unnormalize(self, x: float) -> float | int:
        """The value of a point in [0, 1], of the key's type (ints rounded, pow2 to a power of two)."""
        x = min(max(float(x), 0.0), 1.0)
        lo, hi = self._scale(self.min), self._scale(self.max)
        z = lo + x * (hi - lo)
        if self.distribution == "uniform_pow2":
            return int(2 ** round(z))
        value = self._unscale(z)
        if self.distribution == "int_uniform":
            return int(round(value))
        return min(max(value, self.min), self.max)


def param_tables(sweep: Mapping, prefix: str = "") -> dict[str, dict]:
    """{dotted key: {distribution, min, max}} of the swept keys declared in a `[sweep]` table
    (every nested table with a `distribution`; `prefix` is the path walked so far)."""
    params: dict[str, dict] = {}
    for name, value in sweep.items():
        if isinstance(value, Mapping) and "distribution" in value:
            params[prefix + name] = dict(value)
        elif isinstance(value, Mapping):
            params.update(param_tables(value, f"{prefix}{name}."))
    return params


def _lookup(config: Mapping, dotted: str) -> Any:
    """The value of a swept key; APIUsageError with the closest keys when the config lacks it."""
    try:
        return get_dotted(config, dotted)
    except KeyError as missing:
        walked, _, part = str(missing.args[0]).rpartition(".")
        node = get_dotted(config, walked) if walked else config
        prefix = f"{walked}." if walked else ""
        options = [prefix + k for k in node] if isinstance(node, Mapping) else []
        close = close_matches(prefix + part, options)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        where = f"[sweep.{short(dotted)}] sweeps {short(repr(dotted))}"
        raise APIUsageError(f"{where}, which is not a key of the config.{hint} Swept keys must exist in the config "
                            f"(see `puffer train ENV --help`).") from None


def check_nesting(tables: Mapping[str, Mapping]) -> None:
    """APIUsageError when a swept key holds other swept keys: a table of its own with a
    distribution ([sweep.a.b] inside [sweep.a]) or another dotted key below it ("a" and "a.b")."""
    for key, table in tables.items():
        inner = [f"{key}.{name}" for name, value in table.items()
                 if isinstance(value, Mapping) and "distribution" in value]
        inner += [other for other in tables if other.startswith(key + ".")]
        if inner:
            held = ", ".join(f"[sweep.{k}]" for k in sorted(inner))
            raise APIUsageError(f"[sweep.{short(key)}] is a swept key (it has a distribution) but holds the swept "
                                f"key(s) {short(held)}: a swept key is one number. Remove its distribution, "
                                f"min and max (a config layer below may declare the tables it holds), or sweep "
                                f"only the keys inside it.")


def _check_allowed(where: str, name: str, key: str, bound: float, defaults: Mapping) -> None:
    """APIUsageError when a bound of a swept key is a value the config does not allow for the key
    (`pufferlib.config.validation` against the `defaults`: its type and its range, e.g.
    train.gamma in [0, 1])."""
    probe: dict = {}
    set_dotted(probe, key, bound)
    try:
        validate(probe, defaults, docs={})
    except APIUsageError as exc:
        why = str(exc).removeprefix("invalid config: ").rstrip(".")
        raise APIUsageError(f"{where} {name}: {why}; narrow the range to values {short(key)} may take.") from None


class Space:
    """The swept keys of a config; `values(x)` / `point(config)` convert between configs and [0, 1]^d."""

    def __init__(self, params: list[Param]):
        self.params = params

    @classmethod
    def from_tables(cls, tables: Mapping[str, Mapping], config: Mapping) -> Space:
        """Build and check the space of `param_tables(...)` against a full config."""
        check_nesting(tables)
        defaults = load_default()
        params = []
        for key, table in sorted(tables.items()):
            where = f"[sweep.{short(key)}]"
            extra = set(table) - set(PARAM_FIELDS)
            if extra:
                raise APIUsageError(f"{where} has unknown field(s) {short(', '.join(sorted(extra)))}; "
                                    f"a swept key takes {', '.join(PARAM_FIELDS)}.")
            dist = table.get("distribution")
            if dist not in DISTRIBUTIONS:
                close = close_matches(str(dist), DISTRIBUTIONS, n=2)
                hint = f" Did you mean: {', '.join(close)}?" if close else ""
                raise APIUsageError(f"{where} distribution = {short(repr(dist))} is unknown.{hint} "
                                    f"Choose one of {', '.join(DISTRIBUTIONS)}.")
            if "min" not in table or "max" not in table:
                raise APIUsageError(f"{where} needs both min and max.")
            lo, hi = table["min"], table["max"]
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (lo, hi)):
                raise APIUsageError(f"{where} min and max must be finite numbers (got {short(repr(lo))}, "
                                    f"{short(repr(hi))}).")
            if lo > hi:
                raise APIUsageError(f"{where} min = {lo} is greater than max = {hi}; swap them.")
            default = _lookup(config, key)
            if isinstance(default, bool) or not isinstance(default, (int, float)):
                raise APIUsageError(f"{where}: {short(key)} is a {type(default).__name__} "
                                    f"({short(repr(default))}); only numeric keys can be swept.")
            if isinstance(default, int) and dist not in INT_DISTRIBUTIONS:
                raise APIUsageError(f"{where}: {short(key)} is an integer; use distribution int_uniform or "
                                    f"uniform_pow2 (not {dist}).")
            if isinstance(default, float) and dist in INT_DISTRIBUTIONS:
                raise APIUsageError(f"{where}: {short(key)} is a float; use distribution "
                                    f"{', '.join(FLOAT_DISTRIBUTIONS)} (not {dist}).")
            if dist in ("log_normal", "uniform_pow2") and lo <= 0:
                raise APIUsageError(f"{where}: {dist} works in log space and needs min > 0 (got min = {lo}).")
            if dist == "logit_normal" and not (0 < lo and hi < 1):
                raise APIUsageError(f"{where}: logit_normal needs 0 < min and max < 1 (got [{lo}, {hi}]); "
                                    f"use log_normal or uniform for other ranges.")
            for name, bound in (("min", lo), ("max", hi)):
                _check_allowed(where, name, key, bound, defaults)
            params.append(Param(key, dist, float(lo), float(hi)))
        if not params:
            raise APIUsageError("The sweep has no swept keys: declare at least one table such as\n"
                                "[sweep.train.learning_rate]\ndistribution = \"log_normal\"\nmin = 1e-4\nmax = 1e-1")
        return cls(params)

    @property
    def dim(self) -> int:
        """Number of swept keys."""
        return len(self.params)

    @property
    def keys(self) -> list[str]:
        """The dotted swept keys, in the order of the coordinates."""
        return [p.key for p in self.params]

    def tables(self) -> dict[str, dict]:
        """The space as {dotted key: {distribution, min, max}}: what a sweep stores, what
        `from_tables` reads back."""
        return {p.key: {"distribution": p.distribution, "min": p.min, "max": p.max} for p in self.params}

    def values(self, x: list[float]) -> dict[str, float | int]:
        """{dotted key: value} of a point of [0, 1]^d."""
        return {p.key: p.unnormalize(v) for p, v in zip(self.params, x)}

    def point(self, values: Mapping[str, Any]) -> list[float]:
        """The point in [0, 1]^d of {dotted key: value} (or of a full nested config)."""
        out = []
        for p in self.params:
            value = values[p.key] if p.key in values else _lookup(values, p.key)
            out.append(p.normalize(value))
        return out


def changes(old: Mapping[str, Mapping], new: Mapping[str, Mapping]) -> list[str]:
    """How the space `new` differs from `old` (both as `Space.tables()`), one phrase per change
    in key order, e.g. "train.gamma added", "train.learning_rate max 0.03 -> 0.1"; [] if alike."""
    out = []
    for key in sorted(set(old) | set(new)):
        if key not in new:
            out.append(f"{short(key)} removed")
        elif key not in old:
            out.append(f"{short(key)} added")
        else:
            out += [f"{short(key)} {field} {short(str(old[key].get(field)))} -> {short(str(new[key].get(field)))}"
                    for field in PARAM_FIELDS if old[key].get(field) != new[key].get(field)]
    return out


def apply(config: Mapping, values: Mapping[str, Any]) -> dict:
    """A copy of a nested config with dotted keys set to values."""
    from pufferlib.config import merge

    out = merge(config)
    for dotted, value in values.items():
        set_dotted(out, dotted, value)
    return out
