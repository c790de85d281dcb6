"""Evaluation: a policy plays N episodes; mean, std, a 95% interval and N come back.

The one implementation behind `puffer eval`, `pufferlib.load(...).evaluate()` and the
evaluation during training (`[eval]`). Its rule, the literature's:

- Every env copy (every agent row) plays, and the episodes counted are the first N *to
  start*, in the order (step they started, agent row). The evaluation runs until each of
  them has ended, however long it is. Keeping the first N episodes *to end* instead would
  favour short ones (in most games the failed ones), the bias this rule removes.
- An episode of a row starts when the row is active (its mask is set) and has no episode
  running; it ends when the row's terminal or truncation flag is set, and its return is the
  sum of the rewards the row received meanwhile (also while the row was masked: a seat of a
  turn-based game is paid on the other seat's move).
- With a seed, the env is reset with it and actions are sampled from a torch generator
  seeded with it: the same policy gives the same numbers on every run. `deterministic`
  takes the greedy action (the most likely choice, or the mean of a continuous action).
- The 95% interval is Student's t interval of the mean over the N returns.
- An env of games (`game_seats`, see `pufferlib.environment`) also gives each counted
  episode's outcome (1 win, 0.5 draw, 0 loss): the result adds the score and the win, draw
  and loss rates over the episodes that have one (e.g. against `--env.opponent scripted`).

What env an evaluation of a trained agent plays (`puffer eval`, the card of `puffer push`): the
one its run's evaluations during training played. `eval_base` gives the settings: the env's
defaults, the run's `[env]`, its `[eval] env` over them, its `[eval] opponent`; the user's own
layers (`--config`, flags) go over those, so `--env.*` flags win. `with_opponent` picks the
built-in player the agent is scored against: `--opponent`, else `[eval] opponent`; an agent that
would hold every seat of its games (a self-play run's env) has none to play but itself, where it
scores about one half, which says nothing: that is refused, naming the built-in players to pass.

The env must step all its rows at once (`batch_size == num_envs`, the synchronous case). The
steps are those of `pufferlib.train.loop.play_steps`, the play loop matches and replays share:
`evaluate` plays a torch policy, `evaluate_players` any player with `predict` (a loaded Agent).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from pufferlib.config import env_config, load_default, merge
from pufferlib.errors import APIUsageError
from pufferlib.games.scores import Tally
from pufferlib.protocols import Batch, VecEnv
from pufferlib.train.acting import Actor
from pufferlib.train.loop import ActorPredictor, Predictor, play_steps

#: Vectorized steps an evaluation takes at most before it gives up waiting for episodes to end.
MAX_STEPS = 1_000_000

# Student's t quantile t(0.975, df) for df = 1..30; beyond, its Cornish-Fisher expansion.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with `df` degrees of freedom (two-sided 95%)."""
    if df < 1:
        return math.nan
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


@dataclass
class EvalResult:
    """The returns and lengths of the episodes counted, and what the evaluation was.

    `env_stats` are the means of the numeric stats the env reported in its infos while the
    evaluation ran (e.g. Ocean's `score`), over episodes: an info that says how many episodes it
    averages (`n`, as Ocean's do) weighs that many, and `n` comes back as their total; the stats
    an env holds but has not reported when the evaluation ends (`pending_infos`; Ocean's envs
    report every `log_interval` steps) are collected then, or the episodes of the last steps,
    often the longest, counted ones, would be missing. The env aggregates them over every episode
    that ended, counted or not, so they are shown beside the rule's numbers, not in place of
    them: while the evaluation waits for its longest counted episodes, the other rows end more
    short ones, which these over-represent. For games, the share of the counted games won, those
    cut short without a result included, is `win_share`.
    """

    returns: list[float]
    lengths: list[int]
    deterministic: bool
    seed: int | None
    steps: int = 0
    seconds: float = 0.0
    env_stats: dict[str, float] = field(default_factory=dict)
    outcomes: list[float] = field(default_factory=list)  # games only: each counted episode's (NaN: none)
    opponent: str | None = None  # the built-in player the agent was scored against (`with_opponent`)

    @property
    def episodes(self) -> int:
        return len(self.returns)

    @property
    def mean(self) -> float:
        return float(np.mean(self.returns)) if self.returns else math.nan

    @property
    def std(self) -> float:
        """Sample standard deviation of the returns (ddof=1; 0 for one episode)."""
        return float(np.std(self.returns, ddof=1)) if len(self.returns) > 1 else 0.0

    @property
    def ci95(self) -> float:
        """Half-width of the 95% t interval of the mean return (nan for one episode)."""
        n = len(self.returns)
        return t_quantile_975(n - 1) * self.std / math.sqrt(n) if n > 1 else math.nan

    @property
    def mean_length(self) -> float:
        return float(np.mean(self.lengths)) if self.lengths else math.nan

    def summary(self) -> str:
        """One line: mean ± 95% interval, std, N, length, and how it was measured."""
        interval = f" ± {self.ci95:.2f} (95% t interval)" if self.episodes > 1 else ""
        how = "greedy actions" if self.deterministic else "sampled actions"
        seed = f", seed {self.seed}" if self.seed is not None else ", unseeded"
        tally = Tally.of(self.outcomes)
        cut = sum(1 for o in self.outcomes if math.isnan(o))
        record = (f"; score {tally.score:.3f} ({tally.wins} wins, {tally.draws} draws, {tally.losses} losses"
                  + (f", {cut} without a result" if cut else "") + ")" if tally.games else "")
        against = f"; against the env's built-in player {self.opponent!r}" if self.opponent else ""
        return (f"mean return {self.mean:.2f}{interval}, std {self.std:.2f}, over {self.episodes} episodes "
                f"(the first {self.episodes} to start; {how}{seed}); mean length {self.mean_length:.1f}{record}"
                f"{against}")

    def as_dict(self) -> dict[str, float]:
        """The figures as flat numbers (what eval during training logs as `eval/<key>`)."""
        out = {"episode_return": self.mean, "episode_return_std": self.std, "episode_return_ci95": self.ci95,
               "episodes": float(self.episodes), "episode_length": self.mean_length}
        tally = Tally.of(self.outcomes)
        out.update(tally.metrics(""))
        if self.outcomes:  # over every counted game, those cut short without a result included
            out.update({"win_share": tally.wins / len(self.outcomes),
                        "no_result_rate": 1 - tally.games / len(self.outcomes)})
        out.update({f"env/{k}": v for k, v in self.env_stats.items()})
        return out


class EpisodeBook:
    """Per-row episode accounting of the module's rule: which episodes started when, their
    returns and lengths, and whether the first `episodes` to start have all ended."""

    def __init__(self, rows: int, episodes: int):
        if episodes < 1:
            raise APIUsageError(f"episodes must be at least 1, got {episodes}.")
        self.episodes = episodes
        self.start = np.full(rows, -1, dtype=np.int64)  # step the running episode started; -1: none
        self.ret = np.zeros(rows, dtype=np.float64)
        self.length = np.zeros(rows, dtype=np.int64)
        self.ended: list[tuple[int, int, float, int, float]] = []  # (start step, row, return, length, outcome)

    def record(self, t: int, rewards: np.ndarray, done: np.ndarray, active: np.ndarray,
               outcomes: np.ndarray | None = None) -> None:
        """Account for the results of step `t`: rewards and done flags per row, which rows are
        active for the next action (where a new episode can start), and for an env of games the
        rows' `outcomes` (read where an episode ends)."""
        running = self.start >= 0
        self.ret[running] += rewards[running]
        self.length[running] += 1
        finished = np.flatnonzero(running & done)
        for row in finished:
            outcome = math.nan if outcomes is None else float(outcomes[row])
            self.ended.append((int(self.start[row]), int(row), float(self.ret[row]), int(self.length[row]), outcome))
        self.start[finished] = -1
        starting = (self.start < 0) & active
        self.start[starting] = t
        self.ret[starting] = 0.0
        self.length[starting] = 0

    def complete(self) -> bool:
        """True once the first `episodes` episodes to start have all ended."""
        if len(self.ended) < self.episodes:
            return False
        last = sorted(e[:2] for e in self.ended)[self.episodes - 1]
        running = np.flatnonzero(self.start >= 0)
        if not len(running):
            return True
        first_running = min(zip(self.start[running].tolist(), running.tolist()))
        return first_running > last

    def counted(self) -> tuple[list[float], list[int], list[float]]:
        """(returns, lengths, outcomes) of the first `episodes` episodes to start, in that order."""
        chosen = sorted(self.ended)[:self.episodes]
        return [e[2] for e in chosen], [e[3] for e in chosen], [e[4] for e in chosen]


def eval_env_config(config: Mapping[str, Any], num_envs: int | None = None) -> dict[str, Any]:
    """`config` as evaluation makes its env: `[eval] env` over `[env]` (a training aid turned off,
    e.g. tower_climb's starts along the solution), every copy stepped at once (no async batch), and
    `num_envs` copies when given, with the backend's default workers and no worker timeout (a native
    env then steps them in this process, which takes no timeout)."""
    vec = {"env_batch_size": 0, **({"num_envs": num_envs, "num_workers": 0, "timeout": 0.0} if num_envs else {})}
    return merge(config, {"vec": vec, "env": config.get("eval", {}).get("env") or {}})


def eval_base(env_id: str, trained: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The config an evaluation on `env_id` starts from, before the user's own layers (see the
    module docstring): the defaults and the env's config, with, for an agent trained with the
    config `trained` (a checkpoint's), that run's `[env]` and `[eval] env` and `opponent`. Its
    `[eval] env` is set over `[env]` here and left empty, so that `--env.*` flags on top win
    (`eval_env_config` then sets only what the user's layers put in `[eval] env`); a whole number
    there replacing a float keeps the float type, which `--env.*` flags are parsed by."""
    spec_config, spec_kwargs = env_config(env_id)
    run = {}
    if trained is not None:
        run_eval = trained.get("eval") or {}
        run = {"env": trained.get("env") or {}, "eval": {k: run_eval[k] for k in ("env", "opponent") if k in run_eval}}
    config = merge(load_default(), {"env": spec_kwargs}, spec_config, run)
    env = config["env"]
    for key, value in config["eval"].pop("env").items():  # tower_climb: start_on_solution 0 over 0.8
        widen = isinstance(env.get(key), float) and isinstance(value, int) and not isinstance(value, bool)
        env[key] = float(value) if widen else value
    config["eval"]["env"] = {}
    return config


def _game_of(env_id: str, config: Mapping[str, Any]) -> tuple[int, dict[str, int]]:
    """(`game_seats`, `builtin_players`) of one copy of `env_id`'s evaluation env under `config`."""
    from pufferlib.registry.make import make_from_config

    env = make_from_config(env_id, eval_env_config(config, 1))
    try:
        return int(getattr(env, "game_seats", 0) or 0), dict(getattr(env, "builtin_players", None) or {})
    finally:
        env.close()


def builtin_players(env_id: str, config: Mapping[str, Any] | None = None) -> dict[str, int]:
    """The names and codes of `env_id`'s built-in players that take a seat of its games (its
    `builtin_players`, read from one copy made with every seat an agent, `opponent="none"`, or as
    it is where it takes no such argument) under `config` (default `eval_base(env_id)`). The env
    owns these names: the core knows none of its own."""
    config = eval_base(env_id) if config is None else config
    try:
        return _game_of(env_id, merge(config, {"env": {"opponent": "none"}}))[1]
    except APIUsageError:  # an env without opponent="none"
        return _game_of(env_id, config)[1]


def with_opponent(env_id: str, config: Mapping[str, Any], opponent: str | None = None
                  ) -> tuple[dict[str, Any], str | None]:
    """(`config` with `[env] opponent` set to the built-in player an evaluation scores the agent
    against, that player): `opponent`, else `[eval] opponent`, one of the env's `builtin_players`;
    (`config`, None) when neither is set and the agent does not hold every seat of its games.
    APIUsageError for a name the env does not have, and for an agent that would play only itself
    (module docstring)."""
    key = "--opponent" if opponent else "eval.opponent"
    name = opponent or config["eval"]["opponent"] or None
    if name is None:
        seats, players = _game_of(env_id, config)
        if seats < 2:
            return dict(config), None
        choices = (f"pass --opponent NAME to score it against one of the env's built-in players: {sorted(players)}"
                   if players else "the env has no built-in player to score it against: play a match against "
                   "another agent (puffer match)")
        raise APIUsageError(f"{env_id}: this agent holds every seat of the games it is evaluated on (as a self-play "
                            f"run trains it), so it would play itself and score about one half, which says nothing; "
                            f"{choices}.")
    players = builtin_players(env_id, config)
    if name not in players:
        raise APIUsageError(f"{key} {name!r}: {env_id}'s built-in players are {sorted(players) or 'none'} (its "
                            "`builtin_players`); name one of them.")
    return merge(config, {"env": {"opponent": name}}), name


def _env_stats(infos: list[dict[str, float]]) -> dict[str, float]:
    """The mean of each numeric key over `infos`, each weighted by the episodes it averages (its
    `n`, else 1); `n` itself summed (`EvalResult.env_stats`)."""
    keys = dict.fromkeys(k for info in infos for k, v in info.items()
                         if isinstance(v, (int, float, np.number)) and not isinstance(v, bool))

    def weight(info: dict[str, float]) -> float:
        n = info.get("n", 1)
        return float(n) if isinstance(n, (int, float, np.number)) and not isinstance(n, bool) and n > 0 else 1.0

    stats = {}
    for k in keys:
        rows = [(float(info[k]), weight(info)) for info in infos if k in info]
        if k == "n":
            stats[k] = float(sum(value for value, _ in rows))
        else:
            stats[k] = sum(value * w for value, w in rows) / sum(w for _, w in rows)
    return stats


@torch.no_grad()
def evaluate(env: VecEnv, policy: torch.nn.Module, episodes: int, *, deterministic: bool = False,
             seed: int | None = 0, on_step: Callable[[], object] | None = None, max_steps: int = MAX_STEPS,
             progress: str | None = None, device: torch.device | str = "cpu") -> EvalResult:
    """Play `policy` (on `device`) on `env` until the first `episodes` episodes to start have ended.

    `on_step` is called after every vectorized step (rendering, recording). `progress`: a
    label; a line goes to stderr every `PROGRESS_SECONDS` seconds of a long evaluation.
    """
    device = torch.device(device)
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):  # the caller's state stays
        if seed is not None:
            torch.manual_seed(seed)
        return evaluate_players(env, [ActorPredictor(Actor(env, policy, device))], episodes,
                                deterministic=deterministic, seed=seed, on_step=on_step, max_steps=max_steps,
                                progress=progress)


def evaluate_players(env: VecEnv, players: Sequence[Predictor], episodes: int, *, deterministic: bool = False,
                     seed: int | None = 0, on_step: Callable[[], object] | None = None, max_steps: int = MAX_STEPS,
                     progress: str | None = None, holders: Callable[[], np.ndarray] | None = None) -> EvalResult:
    """`evaluate` of `Predictor`s (`pufferlib.train.loop.play_steps`: player 0 on every row, or the
    rows `holders()` gives each), their sampled actions drawn from torch's global generator."""
    rows, book = env.num_agents, EpisodeBook(env.num_agents, episodes)
    games = bool(getattr(env, "game_seats", 0))
    started = time.perf_counter()
    infos: list[dict[str, float]] = []

    def step(t: int, batch: Batch) -> bool:
        _, rewards, terminals, truncations, step_infos, ids, masks = batch
        if len(ids) != rows:
            raise APIUsageError(f"Evaluation steps every env copy at once, but recv() returned {len(ids)} of {rows} "
                                "agent rows: make the env without an async batch size (vec.env_batch_size 0).")
        if t and on_step is not None:
            on_step()
        infos.extend(i for i in step_infos if isinstance(i, dict))
        done = np.asarray(terminals) | np.asarray(truncations)
        book.record(t, np.asarray(rewards, dtype=np.float64), done, np.asarray(masks, dtype=bool),
                    env.outcomes if games else None)
        return book.complete()

    def line(t: int) -> str:
        return (f"{progress}: {len(book.ended)} episodes ended ({episodes} to count), {t:,} steps, "
                f"{time.perf_counter() - started:.0f} s")

    t = play_steps(env, players, step, seed=seed, deterministic=deterministic, holders=holders,
                   max_steps=max_steps, progress=line if progress else None)
    if t is None:
        raise APIUsageError(f"Only {len(book.ended)} episodes ended in {max_steps:,} steps of {rows} agent rows, "
                            f"and {episodes} were asked for: does the env end its episodes (terminal or truncation "
                            "flags)?")
    pending = getattr(env, "pending_infos", None)  # the stats the env holds since its last report
    if callable(pending):
        infos.extend(i for i in pending() if isinstance(i, dict))
    returns, lengths, outcomes = book.counted()
    return EvalResult(returns, lengths, deterministic, seed, t, time.perf_counter() - started, _env_stats(infos),
                      outcomes if games else [])
