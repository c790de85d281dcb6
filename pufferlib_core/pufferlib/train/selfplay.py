"""Self-play: the learner plays frozen snapshots of itself in a share of the games (`[selfplay]`).

Contract:
- The env is one of competitive games of two or more seats (`game_seats`, see
  `pufferlib.environment`): every seat an agent (e.g. `--env.opponent none`).
- Each game slot (a block of `game_seats` rows), at each game's start, plays a game against an
  anchor with probability `anchor_share` (when `anchors` names any), else against one snapshot
  with probability `opponent_share` once the pool holds a snapshot, else a mirror game (the
  learner on every seat; every row trained). Against a snapshot or an anchor the learner holds
  one seat drawn at random, the opponent every other seat. A snapshot's rows take its actions
  (no gradients, its own LSTM state per row); an anchor is one of the env's built-in players
  (`anchors`: names of its `builtin_players`, each with an optional weight, "scripted:2,random";
  one drawn per game in proportion to the weights), which the env plays itself
  on the rows the trainer marks in the env's `players` input (pufferlib.environment). Opponents'
  rows are masked out of training (weight 0).
- The pool: snapshots of the learner's weights in RUN_DIR/pool (checkpoint files, weights only,
  which `puffer match` and `pufferlib.load` read too, and `pool.json`). The first is taken after the first
  epoch; then one every `snapshot_interval` agent steps, and one as soon as the learner's score
  against the pool since the last snapshot, over at least `min_games` games, passes
  `win_threshold`. At most `pool_size` snapshots: the oldest and the newest always stay, and a
  new one evicts the snapshot whose neighbours are closest in steps (the pool stays spread).
- Opponents are drawn by `sampler`: "recency" (weight 0.7 ** k for the k-th newest) or "pfsp"
  (prioritized fictitious self-play: weight (1 - s) ** 2, s the learner's score against it,
  (wins + draws / 2 + 1) / (games + 2)): harder opponents more often. Each batch draws its
  `opponents_per_batch` opponents first (without replacement, by those weights) and the
  games starting in it draw among them: every snapshot acting is one more forward pass per
  step, so the set is kept small (a game started in an earlier batch finishes against its own).
- Ratings: an online Elo (K = `elo_k`) of the learner, of each snapshot and of each anchor,
  updated after every game against it; a new snapshot starts at the learner's rating, an anchor
  at START_ELO.
- Logged (`stats`): selfplay/score, win_rate, draw_rate, loss_rate against the pool since the
  last log (games without a result are left out), selfplay/games, pool_size and elo; against
  each anchor NAME, selfplay/NAME/score, win_rate, draw_rate, loss_rate, games and elo (the
  anchor's rating). Games against anchors count neither in the pool's scores nor toward a
  snapshot; they move the learner's rating and the anchor's.
- `pool.json` holds the pool, the per-snapshot counts and the ratings: `--resume` (the same run
  folder) continues with them. It is checked whole when it is read (`pufferlib.train.pool.read_pool`:
  types, and snapshot files that are plain `snapshot_<step>.pt` names of the pool folder, the only
  files the pool reads and deletes); one that is not valid is a CheckpointError naming the key and
  the fix. An unreadable snapshot file is skipped with a warning.
- Games are counted (tallies, ratings, the snapshot trigger) when they are settled: at every
  `maybe_snapshot` (once per epoch), `stats` and `close`. Under torchrun every rank plays its own
  games against its own draws (seeded per rank) and settles the games of all ranks, in rank order
  (`all_gather_object` of the results: these three calls are collective there), so the pool, the
  counts and the ratings are the same on every rank. Every rank takes the same snapshots (its
  weights are the same at the same step) and keeps them in memory; rank 0 alone writes the pool's
  files. A resumed run reads RUN_DIR/pool on every rank (a shared folder, as checkpoints need).
"""

from __future__ import annotations

import copy
import json
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pufferlib.errors import APIUsageError, CheckpointError
from pufferlib.games.ratings import elo_update
from pufferlib.games.scores import Tally
from pufferlib.protocols import VecEnv
from pufferlib.train import checkpoint, trust
from pufferlib.train.acting import Actor
from pufferlib.train.pool import (
    POOL_DIR,
    POOL_FILE,
    SAMPLERS,
    START_ELO,
    PoolState,
    Snapshot,
    eviction_index,
    read_pool,
    sampling_weights,
    snapshot_file,
)

#: The largest weight of an anchor in `selfplay.anchors` (weights are relative: a bound keeps their sum finite).
MAX_ANCHOR_WEIGHT = 1e6


def parse_anchors(config: Mapping[str, Any]) -> dict[str, float]:
    """`selfplay.anchors` as {name: weight}: "scripted:2,random" -> {"scripted": 2.0, "random": 1.0}
    (a game against an anchor draws it with probability weight / sum of weights; 1 by default).
    APIUsageError for a weight that is not a number in (0, MAX_ANCHOR_WEIGHT] or a name given twice."""
    anchors: dict[str, float] = {}
    for entry in str(config.get("anchors", "") or "").split(","):
        name, _, weight = (part.strip() for part in entry.partition(":"))
        if not name:
            continue
        try:
            value = float(weight) if weight else 1.0
        except ValueError:
            value = float("nan")
        if not 0 < value <= MAX_ANCHOR_WEIGHT:  # NaN fails too
            raise APIUsageError(f"selfplay.anchors: {entry.strip()!r} needs a positive weight of at most "
                                f"{MAX_ANCHOR_WEIGHT:g} after ':' (weights are relative, e.g. scripted:2,random).")
        if name in anchors:
            raise APIUsageError(f"selfplay.anchors names {name!r} twice: give it one weight (e.g. {name}:2).")
        anchors[name] = value
    return anchors


def anchor_names(config: Mapping[str, Any]) -> list[str]:
    """The names in `selfplay.anchors` ("scripted:2,random" -> ["scripted", "random"])."""
    return list(parse_anchors(config))


def check(env: VecEnv, config: Mapping[str, Any]) -> int:
    """The env's seats per game; APIUsageError when self-play cannot run on it (before a trainer
    acquires anything)."""
    seats = int(getattr(env, "game_seats", 0) or 0)
    if seats < 2:
        raise APIUsageError(
            f"[selfplay] needs an env of games whose seats are all agents (game_seats >= 2), but this env has "
            f"game_seats = {seats}" + (": pass --env.opponent none" if seats == 1 else
                                       " (see pufferlib.environment's game contract)") + ".")
    anchors = anchor_names(config)
    builtin = dict(getattr(env, "builtin_players", None) or {})
    unknown = [name for name in anchors if name not in builtin]
    if unknown:
        raise APIUsageError(f"selfplay.anchors names {unknown}, but this env's built-in players that can take a seat "
                            f"are {sorted(builtin) or 'none'} (`builtin_players`, see pufferlib.environment).")
    if anchors and getattr(env, "transport", None) == "object_store":
        raise APIUsageError("selfplay.anchors needs the env's `players` input, which the Ray backend's object-store "
                            "transport does not carry: use the serial or multiprocessing backend.")
    if config["sampler"] not in SAMPLERS:
        raise APIUsageError(f"selfplay.sampler = {config['sampler']!r} must be one of {list(SAMPLERS)}.")
    return seats


def _by_slot(rows: np.ndarray, seats: int) -> np.ndarray:
    """`rows` (one entry per agent row) as a (games, seats) view: writing to it writes `rows`."""
    view = rows.reshape(-1, seats)
    assert np.may_share_memory(view, rows), "a (games, seats) view of the rows needs them evenly strided"
    return view


class SelfPlay:
    """The pool, the opponents' actions and the game bookkeeping of one self-play run.

    `env`: the vectorized env of games; `policy`: the learner (snapshots copy it); `config`: the
    `[selfplay]` section; `run_dir`: the run folder (a resumed run's pool is read there);
    `claim()`: the run folder, claimed for writing (made on first use); `meta`: what each snapshot
    file holds besides the weights (the run's config and env id: a snapshot is a checkpoint that
    `puffer match` and `pufferlib.load` read); `seed`: the draws; `rank`, `world_size`: this
    process's place under torchrun (module docstring).
    """

    def __init__(self, env: VecEnv, policy: torch.nn.Module, config: Mapping[str, Any], run_dir: Path,
                 claim: Callable[[], Path], device: torch.device, meta: Mapping[str, Any],
                 seed: int | None = None, rank: int = 0, world_size: int = 1):
        seats = check(env, config)
        self.rank, self.world_size = rank, world_size
        self.env, self.policy, self.config, self.device = env, policy, dict(config), device
        self._share = float(config["opponent_share"])
        self._run_dir, self._claim, self._meta = run_dir, claim, dict(meta)
        self.seats, self.rows = seats, env.num_agents
        self.slots = self.rows // seats
        self.rng = np.random.default_rng(None if seed is None else seed + rank)
        self.state = PoolState()
        self._loaded: dict[str, tuple[torch.nn.Module, Actor]] = {}  # snapshot file -> policy, actor
        self._weights: dict[str, dict[str, torch.Tensor]] = {}  # snapshot file -> weights, for the pool's snapshots
        # Games ended since they were last settled: (snapshot file or anchor name, is an anchor, result).
        self._unsettled: list[tuple[str, bool, float]] = []
        # Opponents are named by a number that stays theirs (an eviction shifts the pool's indices
        # while games against the evicted snapshot are still in flight): `files[number]`.
        self.files: list[str] = []
        self.opponent = np.full(self.slots, -1, np.int64)  # per slot: -1 none, else its snapshot's number
        self.anchor = np.full(self.slots, -1, np.int64)  # per slot: -1 none, else its anchor's index in `anchors`
        weights = parse_anchors(config)
        self.anchors = list(weights)
        self._anchor_codes = np.array([env.builtin_players[name] for name in self.anchors] if self.anchors else [0],
                                      np.int8)
        self._anchor_share = float(config.get("anchor_share", 0.0)) if self.anchors else 0.0
        self._anchor_cdf = np.cumsum(list(weights.values()) or [1.0])  # which anchor a game draws
        self.anchor_logged = {name: Tally() for name in self.anchors}
        self.learner_seat = np.zeros(self.slots, np.int64)
        self.learner_rows = np.ones(self.rows, bool)  # rows the learner holds (trained)
        self.snapshot_rows = np.zeros(self.rows, bool)  # rows a snapshot holds (it acts on them)
        self._learner_by_slot = _by_slot(self.learner_rows, seats)  # (games, seats) views of the two
        self._snapshot_by_slot = _by_slot(self.snapshot_rows, seats)
        self.starts = np.ones(self.rows, bool)  # rows whose game starts at the next action
        self.logged = Tally()
        self.active = np.zeros(0, np.int64)  # the opponents' numbers that this batch's new games draw from
        self._held: tuple[np.ndarray, np.ndarray] | None = None  # see `held`
        self._active_cdf = np.ones(1)  # cumulative draw weights of `active`
        self._seat_range = np.arange(seats)
        self._seat_of_row = np.arange(self.rows) % seats
        self._slot_of_row = np.arange(self.rows) // seats
        self._restore()
        self.begin_batch()
        self._start_games(np.arange(self.slots))

    # -- the pool ------------------------------------------------------------------------
    @property
    def pool_dir(self) -> Path:
        """RUN_DIR/pool, where the snapshots and pool.json are (reading it claims no folder)."""
        return self._run_dir / POOL_DIR

    def _restore(self) -> None:
        """Read pool.json of the run folder when it has one (a resumed run): CheckpointError when it is
        not a valid pool (`pool.read_pool`); its snapshots whose files cannot be read are dropped."""
        path = self.pool_dir / POOL_FILE
        if not path.exists():
            return
        self.state = read_pool(path)
        self.state.snapshots = [snap for snap in self.state.snapshots if self._policy_of(snap.file) is not None]

    def _save_state(self) -> None:
        if self.rank != 0:
            return
        self._claim()
        self.pool_dir.mkdir(parents=True, exist_ok=True)
        raw = {"snapshots": [asdict(s) for s in self.state.snapshots], "learner_elo": self.state.learner_elo,
               "anchor_elo": self.state.anchor_elo, "last_snapshot_step": self.state.last_snapshot_step,
               "since_snapshot": asdict(self.state.since_snapshot)}
        tmp = self.pool_dir / (POOL_FILE + ".tmp")
        tmp.write_text(json.dumps(raw, indent=1))
        tmp.replace(self.pool_dir / POOL_FILE)

    def snapshot(self, step: int) -> Snapshot:
        """Add the learner's current weights to the pool (evicting one past `pool_size`); rank 0 writes
        its file."""
        snap = Snapshot(snapshot_file(step), step, elo=self.state.learner_elo)
        weights = {k: v.detach().cpu().clone() for k, v in self.policy.state_dict().items()}
        self._weights[snap.file] = weights
        if self.rank == 0:
            self._claim()
            self.pool_dir.mkdir(parents=True, exist_ok=True)
            checkpoint.save(self.pool_dir / snap.file, {"policy": checkpoint.policy_state(weights),
                                                        "optimizers": [], "global_step": step, "epoch": 0,
                                                        **self._meta})
        snaps = self.state.snapshots
        snaps.append(snap)
        while len(snaps) > max(2, int(self.config["pool_size"])):
            dropped = snaps.pop(eviction_index([s.step for s in snaps]))
            self._weights.pop(dropped.file, None)  # games in flight keep its loaded policy
            if self.rank == 0:
                (self.pool_dir / dropped.file).unlink(missing_ok=True)
        self.state.last_snapshot_step, self.state.since_snapshot = step, Tally()
        self._save_state()
        return snap

    def maybe_snapshot(self, step: int) -> Snapshot | None:
        """Settle the games played (collective under torchrun); take a snapshot when one is due at agent
        step `step` (module docstring); else None."""
        self._settle()
        since = self.state.since_snapshot
        if not self.state.snapshots:
            return self.snapshot(step)
        interval = int(self.config["snapshot_interval"])
        if interval > 0 and step - self.state.last_snapshot_step >= interval:
            return self.snapshot(step)
        if since.games >= int(self.config["min_games"]) and since.score > float(self.config["win_threshold"]):
            return self.snapshot(step)
        return None

    def _policy_of(self, file: str) -> tuple[torch.nn.Module, Actor] | None:
        """The frozen policy of snapshot `file` and its actor (loaded once); None when it is unreadable."""
        if file not in self._loaded:
            path = self.pool_dir / file
            try:
                frozen = copy.deepcopy(self.policy)
                if file in self._weights:
                    frozen.load_state_dict(self._weights[file])
                else:
                    own = trust.own_code(self._meta.get("config"), self._meta.get("env_id"))
                    checkpoint.load_policy(frozen, checkpoint.load(path, map_location=self.device, vouched=own))
            except (CheckpointError, APIUsageError, OSError) as exc:
                warnings.warn(f"{path}: not a snapshot of this policy ({type(exc).__name__}: {exc}); skipped",
                              stacklevel=3)
                return None
            frozen.eval().requires_grad_(False)
            self._loaded[file] = (frozen, Actor(self.env, frozen, self.device))
        return self._loaded[file]

    # -- games ---------------------------------------------------------------------------
    def _number(self, snap: Snapshot) -> int:
        """The number that names `snap` as an opponent (see `files`)."""
        if snap.file not in self.files:
            self.files.append(snap.file)
        return self.files.index(snap.file)

    def begin_batch(self) -> None:
        """Draw the opponents of the games that start in the next batch (module docstring), and
        drop the loaded policies that neither the pool nor a game in flight needs any more."""
        snaps = self.state.snapshots
        count = min(len(snaps), int(self.config["opponents_per_batch"]))
        if count:
            weights = sampling_weights(snaps, self.config["sampler"])
            picked = self.rng.choice(len(snaps), count, replace=False, p=weights)
            self.active = np.array([self._number(snaps[i]) for i in picked], np.int64)
            self._active_cdf = np.cumsum(sampling_weights([snaps[i] for i in picked], self.config["sampler"]))
        needed = {self.files[n] for n in (*self.active, *self.opponent[self.opponent >= 0])}
        for file in [f for f in self._loaded if f not in needed]:
            del self._loaded[file]

    def _start_games(self, slots: np.ndarray) -> None:
        """Draw who plays the next game of each of `slots` (an anchor, a snapshot or a mirror game) and
        the learner's seat; hand the anchors' rows to the env (its `players`) and the rest back."""
        if not len(slots):
            return
        # One draw per game and purpose (this runs at every step where games end): whether
        # against a snapshot, which one, whether against an anchor, which one, the learner's seat.
        versus, pick, anchored, which, seat = self.rng.random((5, len(slots)))
        anchored = anchored < self._anchor_share
        versus = (versus < self._share) & ~anchored if len(self.active) else np.zeros(len(slots), bool)
        opponents = np.full(len(slots), -1, np.int64)
        if versus.any():
            picks = np.minimum(np.searchsorted(self._active_cdf, pick[versus] * self._active_cdf[-1], "right"),
                               len(self.active) - 1)
            opponents[versus] = self.active[picks]
        self.opponent[slots] = opponents
        drawn = np.minimum(np.searchsorted(self._anchor_cdf, which * self._anchor_cdf[-1], "right"),
                           len(self._anchor_cdf) - 1)
        self.anchor[slots] = np.where(anchored, drawn, -1)
        self.learner_seat[slots] = seat = (seat * self.seats).astype(np.int64)
        # Per game (slot) and seat: the row slot * seats + seat of the (slots, seats) views.
        learner = (self._seat_range == seat[:, None]) | ((opponents < 0) & ~anchored)[:, None]
        self._learner_by_slot[slots] = learner
        self._snapshot_by_slot[slots] = ~learner & (opponents >= 0)[:, None]
        if self.anchors:  # the env plays the anchor's rows from its next step on
            codes = self._anchor_codes[np.maximum(self.anchor[slots], 0)]
            _by_slot(self.env.players, self.seats)[slots] = np.where(~learner & anchored[:, None], codes[:, None], 0)
        self._held = None  # who holds which row changed: `held` recomputes it

    def held(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows that snapshots hold, the opponent number of each), recomputed after games start."""
        if self._held is None:
            rows = np.flatnonzero(self.snapshot_rows)
            self._held = rows, self.opponent[self._slot_of_row[rows]]
        return self._held

    def observe(self, ids: np.ndarray | None, terminals: np.ndarray, truncations: np.ndarray) -> None:
        """After a recv() of rows `ids` (None: all, in order): count the games that ended against a
        snapshot or an anchor (outcome of the learner's seat) and draw the next games of their slots."""
        if ids is None:  # every row, in order (a game's rows end together: its seat 0 says it)
            np.logical_or(terminals, truncations, out=self.starts)
            if not self.starts.any():
                return
            slots = np.flatnonzero(self.starts[::self.seats])
        else:
            done = np.asarray(terminals) | np.asarray(truncations)
            rows = np.asarray(ids)
            self.starts[rows] = done
            if not done.any():
                return
            slots = self._slot_of_row[rows[done & (self._seat_of_row[rows] == 0)]]
        for slot in slots[(self.opponent[slots] >= 0) | (self.anchor[slots] >= 0)].tolist():
            result = float(self.env.outcomes[slot * self.seats + self.learner_seat[slot]])
            if math.isnan(result):  # no result: not counted
                continue
            if self.anchor[slot] >= 0:
                self._unsettled.append((self.anchors[self.anchor[slot]], True, result))
            else:
                self._unsettled.append((self.files[self.opponent[slot]], False, result))
        self._start_games(slots)

    def _settle(self) -> None:
        """Count the games ended since the last call (of every rank under torchrun, in rank order):
        the tallies, the snapshots' counts and the ratings."""
        games, self._unsettled = self._unsettled, []
        if self.world_size > 1:
            import torch.distributed as dist

            gathered: list = [None] * self.world_size
            dist.all_gather_object(gathered, games)
            games = [game for ranks_games in gathered for game in ranks_games]
        pool = {snap.file: snap for snap in self.state.snapshots}
        k = float(self.config["elo_k"])
        for name, is_anchor, result in games:
            if is_anchor:
                self.anchor_logged[name].add(result)
                self.state.learner_elo, self.state.anchor_elo[name] = elo_update(
                    self.state.learner_elo, self.state.anchor_elo.get(name, START_ELO), result, k)
                continue
            self.logged.add(result)
            self.state.since_snapshot.add(result)
            snap = pool.get(name)
            if snap is not None:  # not evicted while the game went on
                snap.add(result)
                self.state.learner_elo, snap.elo = elo_update(self.state.learner_elo, snap.elo, result, k)

    def act_opponents(self, obs: np.ndarray, ids: np.ndarray | None, send: np.ndarray) -> None:
        """Write the snapshots' actions into `send` for the rows of `obs` (rows `ids`, None: all)
        that snapshots hold (a feed-forward snapshot's only where the env's masks say its seat
        moves). Runs inside the rollout's inference mode."""
        held_rows, numbers = self.held()
        if not len(held_rows):
            return
        if ids is None:  # every row, in order: positions are rows
            positions = held_rows
        else:
            positions = np.flatnonzero(self.snapshot_rows[ids])
            if not len(positions):
                return
            numbers = self.opponent[self._slot_of_row[np.asarray(ids)[positions]]]
            held_rows = np.asarray(ids)[positions]
        waiting = ~self.env.masks[held_rows]  # seats not to move: their actions are ignored
        for number in dict.fromkeys(numbers.tolist()):  # the opponents acting, each once
            loaded = self._policy_of(self.files[number])
            if loaded is None:
                continue
            actor = loaded[1]
            # A feed-forward snapshot skips the waiting seats; a recurrent one steps them too, as
            # the learner's state steps on every row.
            pick = (numbers == number) if actor.recurrent else (numbers == number) & ~waiting
            if not pick.any():
                continue
            pos, rows = positions[pick], held_rows[pick]
            index = torch.from_numpy(rows).to(self.device)
            state = actor.state(index, torch.from_numpy(self.starts[rows]).to(self.device)) if actor.recurrent else None
            action, new_state = actor.choose(torch.from_numpy(obs[pos]).to(self.device), state, rows=index)
            if actor.recurrent:
                actor.keep_state(index, new_state)
            send[pos] = actor.to_env(action)

    def train_masks(self, masks: np.ndarray, ids: np.ndarray | None) -> np.ndarray:
        """`masks` with the rows that snapshots and anchors hold masked out (not trained on)."""
        return masks & (self.learner_rows if ids is None else self.learner_rows[np.asarray(ids)])

    def stats(self) -> dict[str, float]:
        """selfplay/* metrics since the last call (module docstring), after settling the games
        (collective under torchrun); the counts start over."""
        self._settle()
        tally, self.logged = self.logged, Tally()
        out = {"selfplay/games": float(tally.games), "selfplay/pool_size": float(len(self.state.snapshots)),
               "selfplay/elo": self.state.learner_elo}
        out.update(tally.metrics("selfplay/"))
        for name, against in self.anchor_logged.items():
            out[f"selfplay/{name}/games"] = float(against.games)
            out[f"selfplay/{name}/elo"] = self.state.anchor_elo.get(name, START_ELO)
            out.update(against.metrics(f"selfplay/{name}/"))
        self.anchor_logged = {name: Tally() for name in self.anchors}
        return out

    def close(self) -> None:
        """Settle the last games (collective under torchrun); rank 0 writes pool.json (the counts and
        ratings since the last snapshot)."""
        self._settle()
        if self.state.snapshots or self.state.anchor_elo:
            self._save_state()
