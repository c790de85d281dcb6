"""The self-play pool's records: the learner's game counts, the snapshots, the ratings, and how
snapshots are drawn and evicted (data and arithmetic only; `pufferlib.train.selfplay` plays the
games, `pufferlib.league` rates a run's pool). The rules they implement are stated in
`pufferlib.train.selfplay`'s docstring.

`read_pool` reads RUN_DIR/pool/pool.json as data from a stranger: the whole file is checked
before any of it is used (every key of the shape `PoolState` has, of its type: counts and steps
whole numbers from 0 to `MAX_COUNT`, ratings numbers within `MAX_RATING` of 0, so that no later
arithmetic overflows; no other keys), and a snapshot's `file` must be a
plain file name of the pool folder of the form `snapshot_<step, 12 digits or more>.pt`, named
once: the pool loads and, on eviction, deletes exactly those files, so a pool.json cannot make
it read or delete anything else. Anything else is a `CheckpointError` naming the file, the key
and the fix.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pufferlib.errors import CheckpointError
from pufferlib.games.scores import Counts, Tally

POOL_DIR = "pool"
POOL_FILE = "pool.json"
#: The name of a snapshot's file in the pool folder (`snapshot_file`).
SNAPSHOT_FILE = re.compile(r"snapshot_\d{12,}\.pt")
SAMPLERS = ("recency", "pfsp")
#: Weight ratio between consecutive snapshots under the "recency" sampler.
RECENCY_DECAY = 0.7
START_ELO = 1000.0


@dataclass
class Snapshot(Counts):
    """One frozen policy of the pool: its file, the step it was taken at, the learner's games
    against it and its rating."""

    file: str
    step: int
    elo: float = START_ELO
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def learner_score(self) -> float:
        """The learner's score against this snapshot, with one win and one loss as a prior."""
        return (self.wins + 0.5 * self.draws + 1) / (self.games + 2)


@dataclass
class PoolState:
    """What pool.json holds."""

    snapshots: list[Snapshot] = field(default_factory=list)
    learner_elo: float = START_ELO
    anchor_elo: dict[str, float] = field(default_factory=dict)
    last_snapshot_step: int = 0
    since_snapshot: Tally = field(default_factory=Tally)


def snapshot_file(step: int) -> str:
    """The file name of the snapshot taken at agent step `step` (it matches `SNAPSHOT_FILE`)."""
    return f"snapshot_{step:012d}.pt"


#: Bounds of pool.json's counts and steps, and of its ratings: Elo ratings stay within a few thousand
#: points of START_ELO, and a gap of 2 * MAX_RATING keeps `elo_update`'s 10 ** (gap / 400) finite.
MAX_COUNT = 2**53
MAX_RATING = 50_000.0
#: What pool.json holds: key -> (type, default; ... when required). `int`: a whole number from 0 to
#: MAX_COUNT; `float`: a rating (within MAX_RATING of 0). A snapshot's `file` is checked against
#: `SNAPSHOT_FILE` too.
_COUNTS: dict[str, tuple[type, Any]] = {"wins": (int, 0), "draws": (int, 0), "losses": (int, 0)}
_POOL_KEYS: dict[str, tuple[type, Any]] = {"snapshots": (list, ...), "learner_elo": (float, ...),
                                           "anchor_elo": (dict, {}), "last_snapshot_step": (int, ...),
                                           "since_snapshot": (dict, ...)}
_SNAPSHOT_KEYS: dict[str, tuple[type, Any]] = {"file": (str, ...), "step": (int, ...), "elo": (float, START_ELO),
                                               **_COUNTS}
_JSON = {str: "string", list: "array", dict: "object"}


def read_pool(path: Path) -> PoolState:
    """The pool.json at `path`, checked whole as the module docstring says; CheckpointError naming
    the file, the key and the fix otherwise."""
    fix = f"fix that entry, or move {path} away to start a new pool"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(f"{path}: not a readable self-play pool ({type(exc).__name__}: {exc}); "
                              f"{fix}.") from None
    top = _checked(raw, "the file", _POOL_KEYS, path, fix)
    snapshots: list[Snapshot] = []
    for i, entry in enumerate(top["snapshots"]):
        snap = Snapshot(**_checked(entry, f"snapshots[{i}]", _SNAPSHOT_KEYS, path, fix))
        if not SNAPSHOT_FILE.fullmatch(snap.file):
            raise CheckpointError(f"{path}: snapshots[{i}].file = {_show(snap.file)} is not the name of a snapshot "
                                  f"file in the pool folder (snapshot_<step>.pt); {fix}.")
        if any(other.file == snap.file for other in snapshots):
            raise CheckpointError(f"{path}: snapshots[{i}].file = {_show(snap.file)} is named by an earlier "
                                  f"snapshot too; {fix}.")
        snapshots.append(snap)
    anchors = _checked(top["anchor_elo"], "anchor_elo", {name: (float, ...) for name in top["anchor_elo"]}, path, fix)
    return PoolState(snapshots, float(top["learner_elo"]), {name: float(elo) for name, elo in anchors.items()},
                     top["last_snapshot_step"], Tally(**_checked(top["since_snapshot"], "since_snapshot", _COUNTS,
                                                                 path, fix)))


def _checked(entry: Any, where: str, keys: dict[str, tuple[type, Any]], path: Path, fix: str) -> dict[str, Any]:
    """The values of `keys` in the JSON object `entry` (defaults filled in), each of its type;
    CheckpointError naming `path`, the key (`where`.key) and `fix` otherwise."""
    if not isinstance(entry, dict):
        raise CheckpointError(f"{path}: {where} is {_show(entry)}, not a JSON object; {fix}.")
    unknown = [key for key in entry if key not in keys]
    if unknown:
        raise CheckpointError(f"{path}: {where} has the key {_show(unknown[0])}, which a self-play pool does not "
                              f"have (it has {', '.join(keys)}); {fix}.")
    out: dict[str, Any] = {}
    for key, (kind, default) in keys.items():
        name = key if where == "the file" else f"{where}.{key}"
        value = entry.get(key, default)
        if value is ...:
            raise CheckpointError(f"{path}: {name} is missing; {fix}.")
        if kind is int and not (type(value) is int and 0 <= value <= MAX_COUNT):
            raise CheckpointError(f"{path}: {name} = {_show(value)} is not a whole number from 0 to 2**53; {fix}.")
        if kind is float and not (type(value) in (int, float) and abs(value) <= MAX_RATING):  # NaN fails too
            raise CheckpointError(f"{path}: {name} = {_show(value)} is not a rating (a number from "
                                  f"{-MAX_RATING:,.0f} to {MAX_RATING:,.0f}); {fix}.")
        if kind in (str, list, dict) and not isinstance(value, kind):
            raise CheckpointError(f"{path}: {name} = {_show(value)} is not a JSON {_JSON[kind]}; {fix}.")
        out[key] = value
    return out


def _show(value: Any) -> str:
    """`value` for an error message: its repr (control characters escaped), cut short."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def sampling_weights(snapshots: list[Snapshot], sampler: str) -> np.ndarray:
    """The probability of drawing each snapshot (oldest first) under `sampler` (module docstring)."""
    if sampler == "recency":
        weights = RECENCY_DECAY ** np.arange(len(snapshots) - 1, -1, -1, dtype=np.float64)
    else:
        weights = np.array([(1.0 - s.learner_score()) ** 2 for s in snapshots], np.float64)
    return weights / weights.sum()


def eviction_index(steps: list[int]) -> int:
    """Which snapshot to drop from a pool of `steps` (oldest first, at least 3): never the oldest or
    the newest; the one whose neighbours are closest in steps (the earlier one on ties)."""
    gaps = [steps[i + 1] - steps[i - 1] for i in range(1, len(steps) - 1)]
    return 1 + int(np.argmin(gaps))
