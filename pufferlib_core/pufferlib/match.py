"""Matches between two players of a game: `puffer match ENV A B --games N`, `play_match`.

The env must be one of competitive games (`game_seats`, see `pufferlib.environment`).
A player is an `Agent` (`pufferlib.load` of a checkpoint file, a run folder or "latest"), or
the name of one of the env's built-in players: the names the env declares in `builtin_players`
(Ocean's games "scripted", "random"; turn-based PettingZoo games "random", "tactical"), which it
also takes as its `opponent` argument. The core knows no name of its own.

The games are played by `pufferlib.train.loop.play_steps`, the play loop of evaluation and replays,
with the agents as its players. The rule, so that the numbers mean the same on every run:
- Two agents: the env is made with every seat an agent (`opponent="none"`). Each game slot
  (a block of `game_seats` rows) plays games one after another; in its j-th game, A holds seat
  `(slot + j) % seats` and B every other seat, so A plays each seat equally often. Both agents
  act on every row (each keeps its own LSTM state per row); each row takes the action of the
  player holding it.
- An agent against a built-in player that can take a seat (the env's `builtin_players` with
  every seat an agent): as between two agents, seats alternating the same way, the built-in
  player playing B's seats (the env's `players` input). Otherwise the env is made with
  `opponent=<name>`: the agent holds every row and the env plays the other side (and chooses
  who starts).
- N games are split evenly over the slots, and each slot counts its first games to that
  quota, in the order they started: short games are not favoured. Games are seeded (`seed`).
- `video_path`: env copy 0's first game (slot 0's, seats as above) is recorded to that GIF or
  video file (the env renders `rgb_array` frames; an env starts a new game in the step that
  ends one, so the last frame is the position before the deciding move).
- A's result per game is the env's outcome of A's seat (1 win, 0.5 draw, 0 loss); a game the
  env ends without a result (NaN: cut short by a step limit) is counted apart and not scored.
  A's score is the mean result, with a 95% Wilson interval.
- A game that runs `max_game_steps` steps (default `MAX_GAME_STEPS`) without ending is cut: the
  env would go on with it, so its slot plays no more, and the games the slot had still to count
  (that one included) are reported as `cut`, not scored. A match never outlasts its games' limit.

`exact_match` (`puffer match ENV A random --exact`) replaces sampled games by exact probabilities:
A greedy against random play on each seat of a small turn-based PettingZoo game, every line of the
random moves walked once (`pufferlib.games.exact`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pufferlib import registry
from pufferlib._paths import check_writable
from pufferlib.agent import Agent, load
from pufferlib.errors import APIUsageError
from pufferlib.games.exact import MAX_EXACT_POSITIONS, ExactResult, exact_against_random
from pufferlib.games.scores import Counts, outcome_kind
from pufferlib.protocols import Batch, VecEnv
from pufferlib.train import published
from pufferlib.train.evaluation import builtin_players
from pufferlib.train.loop import play_steps
from pufferlib.train.playback import write_video

#: The most game slots a match plays at once (more copies than games would waste steps).
MAX_SLOTS = 64
#: Steps a game of a match may run before it is cut (`play_match`'s `max_game_steps`).
MAX_GAME_STEPS = 10_000


@dataclass(frozen=True)
class MatchResult(Counts):
    """A's games against B: counts, `games` (those with a result), `score` and its 95% interval;
    `cut`: the games not played to an end because a game ran `max_game_steps` steps (module docstring)."""

    a: str
    b: str
    env_id: str
    wins: int
    draws: int
    losses: int
    no_result: int
    games_by_seat: tuple[int, ...]
    cut: int = 0
    max_game_steps: int = MAX_GAME_STEPS

    def summary(self) -> str:
        """One line: A against B, W/D/L, the score and its interval, and how it was measured."""
        low, high = self.interval()
        extra = f"; {self.no_result} without a result, not scored" if self.no_result else ""
        if self.cut:
            extra += (f"; {self.cut} cut, not scored: a game ran {self.max_game_steps:,} steps without ending "
                      "(max_game_steps), and its slot played no more")
        seats = ", ".join(f"seat {i}: {n}" for i, n in enumerate(self.games_by_seat))
        return (f"{self.a} vs {self.b} on {self.env_id}: {self.wins} wins, {self.draws} draws, {self.losses} losses "
                f"in {self.games} games ({seats}{extra}); score {self.score:.3f}, 95% interval "
                f"[{low:.3f}, {high:.3f}] (Wilson)")

    def as_dict(self) -> dict[str, Any]:
        """The counts, games, score (None without games) and interval, for JSON."""
        low, high = self.interval()
        return {**asdict(self), "games_by_seat": list(self.games_by_seat), "games": self.games,
                "score": self.score if self.games else None, "ci95": [low, high]}


def player_name(player: Agent | str) -> str:
    """How a player is named in results: a built-in name, or its checkpoint file."""
    if isinstance(player, str):
        return player
    return Path(player.checkpoint).name if player.checkpoint else "untrained policy"


def resolve(player: Agent | str, env_id: str, device: str = "cpu", data_dir: str | Path | None = None,
            hub_dir: str | Path | None = None) -> Agent | str:
    """An Agent, the name of one of `env_id`'s built-in players (kept; the env's `builtin_players`,
    `pufferlib.train.evaluation.builtin_players`), or the agent of a checkpoint, run folder, "latest"
    or `hf://` address (`hub_dir`: a local hub)."""
    if isinstance(player, Agent):
        return player
    if player != "latest" and not published.is_address(player):
        names = builtin_players(env_id)
        if player in names:
            return player
        if not Path(player).exists():
            raise APIUsageError(f"player {player!r} is neither a checkpoint file, a run folder, 'latest', an hf:// "
                                f"address nor a built-in player of {env_id} ({', '.join(names) or 'it has none'}).")
    return load(player, env_id, device=device, data_dir=data_dir, hub_dir=hub_dir)


def play_match(env_id: str, a: Agent | str, b: Agent | str, games: int = 100, *, seed: int = 0,
               num_envs: int | None = None, deterministic: bool = False, device: str = "cpu",
               data_dir: str | Path | None = None, progress: str | None = None,
               video_path: str | None = None, fps: int = 4, hub_dir: str | Path | None = None,
               max_game_steps: int = MAX_GAME_STEPS) -> MatchResult:
    """Play `games` games of A against B on `env_id` (see the module docstring for the rule).

    `a`, `b`: Agents, checkpoint sources (`pufferlib.load`) or names of the env's built-in players
    (at most one; `resolve`).
    `num_envs`: env copies (default: enough game slots for the games, at most `MAX_SLOTS`).
    `deterministic`: greedy actions instead of sampled ones. `progress`: a label to print a
    line to stderr every few seconds. `video_path`: record the first game of env copy 0 there
    (`fps` frames per second). `hub_dir`: the local hub of `hf://` players. `max_game_steps`:
    the steps after which a game that has not ended is cut.
    """
    for name, value in (("games", games), ("max_game_steps", max_game_steps)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise APIUsageError(f"{name} must be an int >= 1, got {value!r}.")
    for player in (a, b):
        if isinstance(player, str) and not player:
            raise APIUsageError("a player must be a checkpoint file, a run folder, 'latest', an hf:// address or "
                                "one of the env's built-in players, got ''.")
    first, second = resolve(a, env_id, device, data_dir, hub_dir), resolve(b, env_id, device, data_dir, hub_dir)
    if isinstance(first, str) and isinstance(second, str):
        raise APIUsageError(f"{a!r} against {b!r}: a match needs at least one agent (a checkpoint, a run folder "
                            "or 'latest'); built-in players are the env's own.")
    flipped = isinstance(first, str)
    agent, other = (second, first) if flipped else (first, second)
    assert isinstance(agent, Agent)  # only `other` may be built in
    result = _play(env_id, agent, other, games, seed, num_envs, deterministic, progress, video_path, fps,
                   max_game_steps)
    if flipped:  # report from A's side: the built-in player's
        result = MatchResult(player_name(a), player_name(b), env_id, result.losses, result.draws, result.wins,
                             result.no_result, result.games_by_seat, result.cut, result.max_game_steps)
    return result


def _seats_builtin(agent: Agent, name: str) -> bool:
    """Whether the agent's env, made with every seat an agent (`opponent="none"`), lets the built-in
    player `name` take a seat."""
    try:
        env = agent.make_env(1, opponent="none")
    except APIUsageError:  # an env without opponent="none"
        return False
    try:
        return env.game_seats >= 2 and name in (getattr(env, "builtin_players", None) or {})
    finally:
        env.close()


def _opponent(agent: Agent, other: Agent | str, seats: int, players: Mapping[str, int]) -> dict[str, str]:
    """The `opponent` argument the match's env needs, given the `game_seats` and `builtin_players` of
    the agent's own env: none where every seat is an agent already and `other` is an agent or a
    built-in player that takes a seat (so an env without the argument, a plugin's PettingZoo AEC game,
    is made as it is); else "none" (every seat an agent) or the built-in player's name."""
    if seats >= 2 and (not isinstance(other, str) or other in players):
        return {}
    if not isinstance(other, str) or _seats_builtin(agent, other):
        return {"opponent": "none"}
    return {"opponent": other}


def _make_env(agent: Agent, other: Agent | str, games: int, num_envs: int | None, render: bool) -> VecEnv:
    """The env of the match: every seat an agent, or the built-in player `other` on the other side
    (rendering `rgb_array` frames when `render`)."""
    probe = agent.make_env(1)
    seats, players = getattr(probe, "game_seats", 0), getattr(probe, "builtin_players", None) or {}
    probe.close()
    if not seats:
        raise APIUsageError(f"{agent.env_id} declares no games (game_seats = 0): a match needs an env of "
                            "competitive games (see pufferlib.environment).")
    overrides: dict[str, Any] = {**_opponent(agent, other, seats, players),
                                 **({"render_mode": "rgb_array"} if render else {})}
    opponent = overrides.get("opponent", "none")
    try:
        env = agent.make_env(1, **overrides)
    except APIUsageError as exc:
        raise APIUsageError(f"{agent.env_id} cannot be played with opponent={opponent!r} (the built-in players that "
                            f"take a seat of it: {sorted(players)}): {exc}") from None
    seats = env.game_seats
    if opponent == "none" and seats < 2:
        env.close()
        raise APIUsageError(f"{agent.env_id} with opponent='none' has {seats} seat(s) per game: two agents need "
                            "a game of two or more seats.")
    copies = num_envs or max(1, min(games, MAX_SLOTS) * seats // env.num_agents)  # env: one copy
    if copies > 1:
        env.close()
        env = agent.make_env(copies, **overrides)
    return env


def _play(env_id: str, agent: Agent, other: Agent | str, games: int, seed: int, num_envs: int | None,
          deterministic: bool, progress: str | None, video_path: str | None, fps: int,
          max_game_steps: int) -> MatchResult:
    if not isinstance(other, str) and other.spaces != agent.spaces:
        raise APIUsageError(f"{player_name(agent)} and {player_name(other)} were trained for different spaces "
                            f"({agent.spaces.single_observation_space} -> {agent.spaces.single_action_space} against "
                            f"{other.spaces.single_observation_space} -> {other.spaces.single_action_space}).")
    if video_path:
        check_writable(video_path, "the video")
    env = _make_env(agent, other, games, num_envs, bool(video_path))
    frames: list[np.ndarray] | None = [] if video_path else None
    with torch.random.fork_rng(devices=[]):  # sampled actions are seeded; the caller's RNG state stays
        torch.manual_seed(seed)
        try:
            result = _count(env, env_id, agent, other, games, seed, deterministic, progress, frames, max_game_steps)
        finally:
            env.close()
    if video_path and frames is not None:
        write_video(frames, video_path, fps)
    return result


def _count(env: VecEnv, env_id: str, agent: Agent, other: Agent | str, games: int, seed: int,
           deterministic: bool, progress: str | None, frames: list[np.ndarray] | None,
           max_game_steps: int) -> MatchResult:
    """Step `env` until every game slot has played its quota of games, or has a game cut at
    `max_game_steps`; count A's results. With `frames`, env copy 0's frames of its first game are
    appended to it."""
    seats = env.game_seats
    rows = env.num_agents
    slots = rows // seats
    quota = np.full(slots, games // slots) + (np.arange(slots) < games % slots)
    counted = np.zeros(slots, np.int64)
    played = np.zeros(slots, np.int64)  # games started per slot: A's seat is (slot + played) % seats
    length = np.zeros(slots, np.int64)  # steps of each slot's game so far
    cut = np.zeros(slots, bool)  # slots whose game ran max_game_steps steps: they count no more
    totals = {"wins": 0, "draws": 0, "losses": 0, "no_result": 0}
    by_seat = np.zeros(seats, np.int64)
    slot_of_row, seat_of_row = np.arange(rows) // seats, np.arange(rows) % seats
    players: list[Agent] = [agent] if isinstance(other, str) else [agent, other]
    # a built-in player in B's seats (_make_env made every seat an agent): the env plays them
    builtin = env.builtin_players[other] if isinstance(other, str) and seats > 1 else 0
    a_seat = np.zeros(slots, np.int64)  # A's seat in each slot's game under way
    if env.agents_per_batch != rows:
        raise APIUsageError(f"a match steps every row at once; this env serves {env.agents_per_batch} of {rows} rows "
                            "per batch (vec.env_batch_size).")

    def holders() -> np.ndarray:
        """Per row, 0 where A holds it, else 1 (B, or the built-in player the env is told of)."""
        a_seat[:] = (np.arange(slots) + played) % seats
        b_rows = seat_of_row != a_seat[slot_of_row]
        if builtin:  # changes only where a game just ended (`played` moved on)
            env.players[:] = np.where(b_rows, builtin, 0)
        return b_rows.astype(np.int64)

    def step(t: int, batch: Batch) -> bool:
        if t:
            starts = np.asarray(batch[2]) | np.asarray(batch[3])
            ended = np.flatnonzero(starts[seat_of_row == 0] if seats > 1 else starts)
            length[:] += 1
            length[ended] = 0
            for slot in ended:
                if counted[slot] < quota[slot] and not cut[slot]:
                    seat = int(a_seat[slot])
                    totals[outcome_kind(float(env.outcomes[slot * seats + seat]), env_id)] += 1
                    by_seat[seat] += 1
                    counted[slot] += 1
                played[slot] += 1
        if frames is not None and (not t or (played[0] == 0 and not cut[0])):  # slot 0's first game, move by move
            frames.append(np.asarray(env.render()))  # type: ignore[attr-defined]  # made with render_mode
        cut[:] |= length >= max_game_steps
        return not ((counted < quota) & ~cut).any()

    def line(t: int) -> str:
        cut_line = f", {int((quota - counted)[cut].sum())} cut" if cut.any() else ""
        return f"{progress}: {int(counted.sum())}/{games} games{cut_line}"

    play_steps(env, players, step, seed=seed, deterministic=deterministic, holders=holders,
               progress=line if progress else None)
    return MatchResult(player_name(agent), player_name(other), env_id, totals["wins"], totals["draws"],
                       totals["losses"], totals["no_result"], tuple(int(n) for n in by_seat),
                       int((quota - counted)[cut].sum()), max_game_steps)


def exact_match(env_id: str, a: Agent | str, *, device: str = "cpu", data_dir: str | Path | None = None,
                hub_dir: str | Path | None = None, max_positions: int | None = None) -> ExactResult:
    """A's exact probabilities of winning, drawing and losing against random play on each seat of a
    turn-based PettingZoo game (`pufferlib.games.exact.exact_against_random`):
    A plays greedily, every line of the random player's moves is walked once, weighted by its
    probability. For small games without chance (tictactoe: a few hundred games a seat); a bigger game
    (more than `max_positions` moves to walk, default `games.exact.MAX_EXACT_POSITIONS`) raises
    APIUsageError naming the env id, before the walk when an estimate from a few random lines says so.
    `a`: as `play_match`'s."""
    from pufferlib.emulation import as_parallel
    from pufferlib.turn_based import TurnBasedParallelEnv

    agent = resolve(a, env_id, device, data_dir, hub_dir)
    if not isinstance(agent, Agent):
        raise APIUsageError(f"exact play needs an agent (a checkpoint, a run folder or 'latest'), got {a!r}.")
    spec = registry.spec(agent.env_id or env_id)
    # the env as the emulation holds it: a turn-based AEC env becomes a TurnBasedParallelEnv
    env = as_parallel(spec.load_creator()(**{**spec.kwargs, **agent.config.get("env", {}), "opponent": "none"}))
    try:
        if not isinstance(env, TurnBasedParallelEnv):
            raise APIUsageError(f"{spec.id} is not a turn-based PettingZoo game: exact play against random play walks "
                                "the lines of such a game only. Play a match of N games instead.")
        return ExactResult(player_name(agent), spec.id, {
            str(seat): exact_against_random(env.aec, functools.partial(agent.act, deterministic=True), seat,
                                            max_positions=max_positions or MAX_EXACT_POSITIONS, name=spec.id)
            for seat in env.seats})
    finally:
        env.close()


__all__ = ["ExactResult", "MatchResult", "exact_match", "play_match", "player_name", "resolve"]
