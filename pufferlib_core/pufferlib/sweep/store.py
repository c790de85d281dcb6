"""A sweep's state: SWEEP_DIR/sweep.db (`FILE_NAME`), an embedded SQLite database in WAL mode.

Contract: the store is the single source of truth for a sweep's trials (what was suggested,
each trial's status, reports and result) and for what the sweep is (env id, config, search
space); the driver keeps no other copy. Only the driver writes (one connection, one
transaction per change; one driver per folder, see `pufferlib._locks`), so a crash, `kill -9`
or Ctrl-C can lose at most the change in flight, never corrupt the file; readers
(`puffer plot --sweep`, `puffer sweep --resume`) may read while it runs. Opening a file that
is not an intact sweep database (corrupt, truncated, empty, foreign) raises APIUsageError
naming it and the cause, and leaves it as it is. Tables:

    meta     key -> JSON value: env id, the sweep's config, its search space (`space()`)
    trials   one row per trial: suggestion index, parameters, point x, status, score, cost,
             error, run folder, start/end times, and the trial it retries (after an interruption)
    reports  the (step, seconds, score, cost) reports of each trial while it trained

Statuses: running, done, stopped (early), failed (the run ended with an error, divergence
included, or logged no score; see `runner`), timeout, interrupted (the driver died; the
trial is run again under a new row with `retry_of` set).
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from pufferlib.config.messages import short
from pufferlib.errors import APIUsageError
from pufferlib.sweep.space import param_tables

#: The database's name in a sweep folder.
FILE_NAME = "sweep.db"
#: The statuses of trials that count towards `max_runs` (interrupted ones are run again).
FINISHED = ("done", "stopped", "failed", "timeout")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials (
    id INTEGER PRIMARY KEY, idx INTEGER NOT NULL, params TEXT NOT NULL, x TEXT NOT NULL,
    status TEXT NOT NULL, score REAL, cost REAL, error TEXT, run_dir TEXT,
    started REAL, finished REAL, retry_of INTEGER);
CREATE TABLE IF NOT EXISTS reports (
    trial_id INTEGER NOT NULL REFERENCES trials(id), step INTEGER, seconds REAL, score REAL, cost REAL);
CREATE INDEX IF NOT EXISTS reports_trial ON reports(trial_id);
"""


def check_resumable(sweep_dir: str | Path) -> None:
    """Raise APIUsageError unless `sweep_dir` holds an intact sweep database that says what the
    sweep is (what `--resume` needs)."""
    if not (Path(sweep_dir) / FILE_NAME).exists():
        raise APIUsageError(f"--resume {sweep_dir}: no {FILE_NAME} there; is it a folder made by `puffer sweep`?")
    store = Store(sweep_dir, readonly=True)
    try:
        missing = [key for key in ("env_id", "config", "space") if store.meta(key) is None]
    finally:
        store.close()
    if missing:
        raise APIUsageError(f"--resume {sweep_dir}: {store.path} lacks the sweep's {', '.join(missing)} (the sweep "
                            f"stopped while it was being created); start a new sweep with --dir NEW_FOLDER.")


class Store:
    """The SQLite state of one sweep folder (created on first open)."""

    def __init__(self, sweep_dir: str | Path, readonly: bool = False):
        self.path = Path(sweep_dir) / FILE_NAME
        existed = self.path.exists()
        if not readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True) if readonly else \
                sqlite3.connect(self.path, isolation_level=None)
            try:
                if existed:
                    self._check()
                if not readonly:
                    self.db.execute("PRAGMA journal_mode=WAL")
                    self.db.execute("PRAGMA synchronous=FULL")
                    self.db.executescript(_SCHEMA)
            except BaseException:
                self.db.close()
                raise
        except sqlite3.DatabaseError as exc:
            cause = short(" ".join(str(exc).split()))  # one line, however long sqlite's report
            raise APIUsageError(f"{self.path} is not a readable sweep database ({cause}): it may be truncated, "
                                f"corrupt or another file. Start a new sweep in another folder (puffer sweep ENV "
                                f"--dir NEW_FOLDER).") from None
        self.db.row_factory = sqlite3.Row

    def _check(self) -> None:
        """sqlite3.DatabaseError unless the file is an intact database with a sweep's tables."""
        problems = [row[0] for row in self.db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise sqlite3.DatabaseError(f"damaged: {problems[0]}")
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"meta", "trials", "reports"} <= tables:
            raise sqlite3.DatabaseError("it holds no sweep's tables" + ("" if tables else ": it is empty"))

    def _tx(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        with self.db:  # one transaction
            return self.db.execute(sql, args)

    def set_meta(self, key: str, value: Any) -> None:
        """Store a JSON value under `key`."""
        self._tx("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def meta(self, key: str, default: Any = None) -> Any:
        """The JSON value stored under `key`, or `default`."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def space(self) -> dict[str, dict]:
        """The sweep's search space as the driver stored it under meta "space" (`Space.tables()`:
        {dotted key: {distribution, min, max}}). Sweeps of puffer-core 0.1.0 stored only the keys;
        their tables are read from the stored config."""
        space = self.meta("space", {})
        if isinstance(space, list):
            tables = param_tables(self.meta("config", {}).get("sweep", {}))
            return {key: tables[key] for key in space if key in tables}
        return space

    def add_trial(self, idx: int, params: dict, x: list[float], run_dir: str, retry_of: int | None = None) -> int:
        """Record a trial that starts now; returns its id."""
        cur = self._tx("INSERT INTO trials (idx, params, x, status, run_dir, started, retry_of) "
                       "VALUES (?, ?, ?, 'running', ?, ?, ?)",
                       (idx, json.dumps(params), json.dumps(x), run_dir, time.time(), retry_of))
        assert cur.lastrowid is not None  # set by the INSERT
        return int(cur.lastrowid)

    def add_report(self, trial_id: int, step: int, seconds: float, score: float, cost: float) -> None:
        """Record one (score, cost) report of a running trial."""
        self._tx("INSERT INTO reports VALUES (?, ?, ?, ?, ?)", (trial_id, step, seconds, score, cost))

    def finish(self, trial_id: int, status: str, score: float | None, cost: float | None,
               error: str | None = None) -> None:
        """Record how a trial ended."""
        self._tx("UPDATE trials SET status = ?, score = ?, cost = ?, error = ?, finished = ? WHERE id = ?",
                 (status, score, cost, error, time.time(), trial_id))

    def interrupt_running(self) -> list[dict]:
        """Mark the trials left 'running' by a dead driver as interrupted; returns them."""
        rows = self.trials("running")
        for row in rows:
            self.finish(row["id"], "interrupted", None, None, "the sweep stopped while this trial ran")
        return rows

    def trials(self, status: str | None = None) -> list[dict]:
        """Every trial (or those with `status`) as dicts, params and x decoded, in id order."""
        args: tuple[str, ...] = ()
        sql = "SELECT * FROM trials"
        if status:
            sql, args = sql + " WHERE status = ?", (status,)
        out = []
        for row in self.db.execute(sql + " ORDER BY id", args):
            item = dict(row)
            item["params"], item["x"] = json.loads(item["params"]), json.loads(item["x"])
            out.append(item)
        return out

    def reports(self, trial_id: int | None = None) -> list[dict]:
        """The reports of one trial (or of all), in order."""
        if trial_id is None:
            rows = self.db.execute("SELECT * FROM reports ORDER BY rowid")
        else:
            rows = self.db.execute("SELECT * FROM reports WHERE trial_id = ? ORDER BY rowid", (trial_id,))
        return [dict(r) for r in rows]

    def close(self) -> None:
        """Close the connection."""
        self.db.close()
