"""Leagues: a round robin among a run's snapshots and anchors, rated by Bradley-Terry (`puffer league`).

Contract:
- Players: the snapshots of a self-play run (RUN_DIR/pool, `pufferlib.train.selfplay`; its
  pool.json checked by `pufferlib.train.pool.read_pool`) and its newest checkpoint when that is
  newer than every snapshot, or, without a valid pool, its checkpoints (model_*.pt); and
  anchors, built-in players of the env (the names its `builtin_players` declares), which play
  every agent but not each other. A file that cannot be
  read as a checkpoint of the run's env is skipped with a warning.
- `play_round` plays `games` games (`pufferlib.match.play_match`: seats alternating, seeded by
  `seed` and the pair) for every pair of players, and appends each match's counts to
  RUN_DIR/league.db (SQLite): running it again adds games, and the ratings use all of them.
  A round holds the league's lock (RUN_DIR/.league.lock, `pufferlib._locks`) from before it reads
  league.db to its last game: a second round on the same run folder is refused at once (rather
  than waiting, maybe for hours, behind the first), since two at once would play the same seeded
  games and record them twice. The lock is the league's own: a run may train meanwhile.
- league.db is data: every row is checked as it is read (`results`): player names are
  non-empty texts of two different players, counts whole numbers from 0 to `MAX_COUNT`; a file
  that is not such a database, or a row that breaks this, is refused with an APIUsageError naming
  the file, the row and the fix, before a round plays any game.
- The ratings are `pufferlib.games.ratings.fit`'s Bradley-Terry fit of every game in league.db.
"""

from __future__ import annotations

import shlex
import sqlite3
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pufferlib._locks import folder_lock
from pufferlib.agent import Agent, load
from pufferlib.errors import APIUsageError, CheckpointError
from pufferlib.match import MAX_GAME_STEPS, play_match
from pufferlib.train import checkpoint
from pufferlib.train.evaluation import builtin_players
from pufferlib.train.pool import POOL_DIR, POOL_FILE, read_pool

DB_NAME = "league.db"
#: The lock file a league round holds in the run folder (`pufferlib._locks`).
LOCK_NAME = ".league.lock"
#: The most games a row of league.db may count (a round adds `games` per pair; far more is a damaged file).
MAX_COUNT = 10**9

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    a TEXT NOT NULL, b TEXT NOT NULL, wins INTEGER NOT NULL, draws INTEGER NOT NULL,
    losses INTEGER NOT NULL, seed INTEGER NOT NULL, created REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Player:
    """A league player: its name in the table, the file it loads from (None: an anchor) and
    the training step it was taken at (None: an anchor)."""

    name: str
    path: Path | None
    step: int | None


def players_of(run_dir: Path, env_id: str, anchors: Sequence[str] = ()) -> list[Player]:
    """The snapshots of `run_dir` (its pool, else its checkpoints), oldest first, then `anchors`:
    built-in players of `env_id` (its `builtin_players`), APIUsageError for another name."""
    pool = run_dir / POOL_DIR / POOL_FILE
    found: list[Player] = []
    if pool.is_file():
        try:
            found = [Player(f"step {snap.step:,}", run_dir / POOL_DIR / snap.file, snap.step)
                     for snap in read_pool(pool).snapshots]
        except CheckpointError as exc:
            warnings.warn(f"{exc} Using the run's checkpoints.", stacklevel=2)
    checkpoints = sorted(run_dir.glob("model_*.pt"))
    if not found:
        found = _checkpoint_players(checkpoints)
    else:  # the run's newest checkpoint too, when it is newer than every snapshot
        newest = max(snap.step or 0 for snap in found)
        found += [p for p in _checkpoint_players(checkpoints[-1:]) if (p.step or 0) > newest]
    names = builtin_players(env_id) if anchors else {}
    for name in anchors:
        if name not in names:
            raise APIUsageError(f"anchor {name!r} is not a built-in player of {env_id}: "
                                f"{list(names) or 'it has none'}.")
        found.append(Player(name, None, None))
    return found


def _checkpoint_players(files: Sequence[Path]) -> list[Player]:
    """A player per checkpoint file, named by its step; an unreadable file is skipped with a warning."""
    out = []
    for file in files:
        try:
            step = int(checkpoint.load(file)["global_step"])
        except (CheckpointError, APIUsageError) as exc:
            warnings.warn(f"{file}: skipped ({exc})", stacklevel=3)
            continue
        out.append(Player(f"step {step:,}", file, step))
    return out


def _agents(players: list[Player], env_id: str) -> dict[str, Agent | str]:
    """Each player's Agent (or anchor name); unreadable files are skipped with a warning."""
    out: dict[str, Agent | str] = {}
    for player in players:
        if player.path is None:
            out[player.name] = player.name
            continue
        try:
            out[player.name] = load(player.path, env_id)
        except (CheckpointError, APIUsageError) as exc:
            warnings.warn(f"{player.path}: skipped ({exc})", stacklevel=3)
    return out


def play_round(run_dir: Path, env_id: str, games: int, anchors: Sequence[str] = (), seed: int = 0,
               progress: Callable[[str], object] | None = None, max_game_steps: int = MAX_GAME_STEPS) -> int:
    """Play `games` games for every pair of the run's players (anchors do not play each other)
    and add them to RUN_DIR/league.db, holding the league's lock; returns the matches played. A game
    that runs `max_game_steps` steps without ending is cut and not recorded (`play_match`)."""
    with folder_lock(run_dir, f"a league round ({DB_NAME})", LOCK_NAME):
        results(run_dir)  # a damaged league.db is refused before any game is played
        return _play_round(run_dir, env_id, games, anchors, seed, progress, max_game_steps)


def _play_round(run_dir: Path, env_id: str, games: int, anchors: Sequence[str], seed: int,
                progress: Callable[[str], object] | None, max_game_steps: int) -> int:
    players = players_of(run_dir, env_id, anchors)
    agents = _agents(players, env_id)
    if sum(1 for a in agents.values() if not isinstance(a, str)) < 1 or len(agents) < 2:
        raise APIUsageError(f"{run_dir}: a league needs two players, one of them an agent (a snapshot or a "
                            f"checkpoint), and has {len(agents)}: {list(agents)}. Train longer (self-play takes "
                            "snapshots in RUN_DIR/pool) or add anchors (--anchors with built-in players of the env).")
    names = list(agents)
    played = 0
    with _open(run_dir) as db:
        rounds = db.execute("SELECT COUNT(DISTINCT seed) FROM matches").fetchone()[0]
        for i, a in enumerate(names):
            for j in range(i + 1, len(names)):
                b = names[j]
                if isinstance(agents[a], str) and isinstance(agents[b], str):
                    continue  # two built-in players: the env plays neither against the other
                result = play_match(env_id, agents[a], agents[b], games, seed=seed + rounds * 7919 + played,
                                    max_game_steps=max_game_steps)
                db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (a, b, result.wins, result.draws, result.losses, seed + rounds, time.time()))
                db.commit()
                played += 1
                if progress is not None:
                    cut = (f" ({result.cut} cut at {result.max_game_steps:,} steps, not recorded)" if result.cut
                           else "")
                    progress(f"{a} vs {b}: {result.wins}-{result.draws}-{result.losses}{cut}")
    return played


class _open:
    """league.db of a run folder, created with its schema; a context manager that closes it.
    APIUsageError when the file is not a database."""

    def __init__(self, run_dir: Path):
        self.path = run_dir / DB_NAME
        self.db = sqlite3.connect(self.path)
        try:
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise _unreadable(self.path, exc) from None

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, *exc: object) -> None:
        self.db.close()


def _unreadable(path: Path, exc: sqlite3.Error) -> APIUsageError:
    cause = " ".join(str(exc).split())
    return APIUsageError(f"{path} is not a readable league database ({cause}): it may be truncated, corrupt or "
                         "another file. Move it away to start a new league (the run's checkpoints stay as they are).")


def results(run_dir: Path) -> list[tuple[str, str, int, int, int]]:
    """Every match of RUN_DIR/league.db: (a, b, wins, draws, losses) of A, each row checked
    (module docstring)."""
    if not (run_dir / DB_NAME).is_file():
        return []
    with _open(run_dir) as db:
        try:
            rows = db.execute("SELECT rowid, a, b, wins, draws, losses FROM matches").fetchall()
        except sqlite3.DatabaseError as exc:
            raise _unreadable(run_dir / DB_NAME, exc) from None
    return [_checked(run_dir / DB_NAME, *row) for row in rows]


def _checked(path: Path, rowid: int, a: object, b: object, wins: object, draws: object,
             losses: object) -> tuple[str, str, int, int, int]:
    """The row (a, b, wins, draws, losses) of league.db, or APIUsageError naming what is wrong with it."""
    fix = (f"Delete the row (sqlite3 {shlex.quote(str(path))} 'DELETE FROM matches WHERE rowid = {rowid}') or move "
           "the file away to start a new league.")
    for column, name in (("a", a), ("b", b)):
        if not isinstance(name, str) or not name:
            raise APIUsageError(f"{path}: row {rowid} of its matches has {column} = {name!r}, not a player's name. "
                                + fix)
    if a == b:
        raise APIUsageError(f"{path}: row {rowid} of its matches pairs {a!r} with itself. " + fix)
    for column, count in (("wins", wins), ("draws", draws), ("losses", losses)):
        if not isinstance(count, int) or not 0 <= count <= MAX_COUNT:
            raise APIUsageError(f"{path}: row {rowid} of its matches has {column} = {count!r}, not a count of games "
                                f"(a whole number from 0 to {MAX_COUNT:,}). " + fix)
    return a, b, wins, draws, losses  # type: ignore[return-value]  # checked just above


__all__ = ["Player", "play_round", "players_of", "results"]
