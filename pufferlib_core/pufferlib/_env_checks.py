"""The checks of `pufferlib.check_env`: one small function per row of its report.

A check takes the `Context` of one env and returns a `Result`: (status, detail) or (status,
detail, hint). An exception it raises is its failure (the runner in `pufferlib.checker`
says so). A check records what later checks read in `ctx.seen` (`Findings`), which holds
plain data only: after a crash, the checks resume in a fresh process with what the
earlier ones saw.

`STEPS` is the report's order: `CHECKS`, then `AFTER_ROLLOUT` (they read what the random
rollout saw, so `due` leaves them out when it failed), then the closing of the env. A new
check is a function here and an entry in one of those lists.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from pufferlib._env_returns import FIT, SIGNATURES, Judgement, Problems, judge, legal_actions, sample
from pufferlib.emulation import GymnasiumPufferEnv, PettingZooPufferEnv
from pufferlib.environment import render_modes
from pufferlib.errors import APIUsageError
from pufferlib.protocols import Renderable

if TYPE_CHECKING:
    from pufferlib.vector.base import Backend

PASS, FAIL, WARN, SKIP = "pass", "FAIL", "warn", "skip"
#: What a check returns: (status, detail) or (status, detail, hint).
Result = tuple[str, str] | tuple[str, str, str]
#: Steps of the env's own reset/step judged by "return values" and "observations".
OWN_STEPS = 8


@dataclass
class Findings:
    """What checks saw that later checks read: plain data, so that it can move to another process."""

    returns: Judgement | None = None  # what the env's own reset() and step() returned (None: not judged)
    ended: int | None = None  # agent episodes that ended in the random rollout (None: it failed)
    stats: list[tuple[float, float]] = field(default_factory=list)  # (episode_return, episode_length) in infos
    final_ok: bool = True  # every final observation of the rollout lay within the observation space
    masks_any: bool = False  # some agent row was live in the rollout
    steps_per_second: float = float("nan")  # agent steps per second of the rollout
    games: int = 0  # games that ended in the rollout (envs of games)
    game_problems: list[str] = field(default_factory=list)  # how the rollout broke the game contract


@dataclass
class Context:
    """What the checks of one env share: the env, its spaces, and what earlier checks saw."""

    vec: Backend
    maker: Callable[..., Backend] | None  # another copy of the env (None: only this one)
    owned: bool  # the checker made `vec`, and closes it
    steps: int
    seed: int
    seen: Findings
    # Read from the vector when the context is made (a vector without them cannot be checked):
    obs_space: Any = field(init=False)  # any space: the spaces check says what the trainer can use
    act_space: Any = field(init=False)
    rows: int = field(init=False)  # agent rows of the vector (num_agents)

    def __post_init__(self) -> None:
        self.obs_space, self.act_space = self.vec.single_observation_space, self.vec.single_action_space
        self.rows = int(self.vec.num_agents)


def _extreme(space: spaces.Space[object], n: int, high: bool) -> np.ndarray:
    """`n` copies of the highest (or lowest) action of `space` (an infinite Box bound as 0)."""
    if isinstance(space, spaces.Discrete):
        return np.full((n, 1), space.start + (space.n - 1 if high else 0), np.int32)
    if isinstance(space, spaces.MultiDiscrete):
        return np.broadcast_to(space.start + (space.nvec - 1 if high else 0), (n, *space.nvec.shape)).astype(np.int32)
    assert isinstance(space, spaces.Box), f"unsupported action space {space!r}"  # validated by the env
    bound = np.broadcast_to(space.high if high else space.low, space.shape)
    return np.broadcast_to(np.where(np.isfinite(bound), bound, 0), (n, *space.shape)).astype(np.float32)


def _number(value: object) -> float:
    """`value` as a float; NaN when it is not a number."""
    try:
        return float(value)  # type: ignore[arg-type]  # anything an info holds; what float() refuses is NaN
    except (TypeError, ValueError):
        return float("nan")


def _own_env(vec: Backend) -> object:
    """The env whose own reset/step are judged: the first env before emulation (a Gymnasium or
    PettingZoo env), an in-place PufferEnv itself, or the vector when its envs are out of reach."""
    envs = getattr(vec, "envs", None)
    if not envs:
        return vec
    env = envs[0]
    return env.env if isinstance(env, (GymnasiumPufferEnv, PettingZooPufferEnv)) else env


def _verdict(problems: Problems, passed: str, hint: str) -> Result:
    """FAIL with the failures, else WARN with the warnings, else PASS saying `passed`."""
    for status, messages in ((FAIL, problems[0]), (WARN, problems[1])):
        if messages:
            more = f" (and {len(messages) - 2} more)" if len(messages) > 2 else ""
            return status, "; ".join(messages[:2]) + more, hint
    return PASS, passed


def _check_spaces(ctx: Context) -> Result:
    """Box observations; Discrete, MultiDiscrete or finite Box actions."""
    obs_space, act_space = ctx.obs_space, ctx.act_space
    problems = []
    if not isinstance(obs_space, spaces.Box):
        problems.append(f"observation space is {type(obs_space).__name__}, expected a (flattened) Box")
    if not isinstance(act_space, (spaces.Discrete, spaces.MultiDiscrete, spaces.Box)):
        problems.append(f"action space is {type(act_space).__name__}")
    if isinstance(act_space, spaces.Box) and not (np.all(np.isfinite(act_space.low))
                                                  and np.all(np.isfinite(act_space.high))):
        problems.append("continuous actions have infinite bounds")
    if problems:
        return FAIL, "; ".join(problems), ("use Box observations and Discrete/MultiDiscrete/finite Box actions "
                                           "(pufferlib.emulate flattens Dict/Tuple spaces)")
    return PASS, f"obs {obs_space.shape} {obs_space.dtype}, actions {act_space}"


def _check_return_values(ctx: Context) -> Result:
    """The env's own reset() and step() return the values of its API, of the right types."""
    judged = ctx.seen.returns = judge(_own_env(ctx.vec), ctx.seed, OWN_STEPS)
    return _verdict(judged.returns, f"reset() and {judged.steps} step()s return what the {judged.style} API says",
                    f"return what the {judged.style} API says: {SIGNATURES[judged.style]}")


def _check_observations(ctx: Context) -> Result:
    """The observations the env's own reset() and step() returned fit the observation space."""
    judged = ctx.seen.returns
    if judged is None:
        return SKIP, "reset() or step() raised (see return values)"
    return _verdict(judged.observations, f"the observations of reset() and {judged.steps} step()s fit the "
                                         "observation space", FIT[judged.style])


def _check_buffers(ctx: Context) -> Result:
    """The batch arrays after a reset: present, with the right shapes and dtypes; infos a list."""
    vec, rows, obs_space = ctx.vec, ctx.rows, ctx.obs_space
    obs, infos = vec.reset(seed=ctx.seed)
    want: dict[str, tuple[tuple[int, ...], npt.DTypeLike]] = {
        "observations": ((rows, *obs_space.shape), obs_space.dtype), "rewards": ((rows,), np.float32),
        "terminals": ((rows,), np.bool_), "truncations": ((rows,), np.bool_), "masks": ((rows,), np.bool_)}
    problems = []
    arrays: dict[str, np.ndarray | None] = {"observations": obs}
    arrays.update({k: getattr(vec, k, None) for k in ("rewards", "terminals", "truncations", "masks")})
    for key, (shape, dtype) in want.items():
        arr = arrays[key]
        if arr is None:
            problems.append(f"{key} missing")
        elif tuple(arr.shape) != shape or arr.dtype != np.dtype(dtype):
            problems.append(f"{key} is {tuple(arr.shape)} {arr.dtype}, expected {shape} {np.dtype(dtype)}")
    if not isinstance(infos, list):
        problems.append(f"reset() infos is {type(infos).__name__}, expected a list of dicts")
    if problems:
        return FAIL, "; ".join(problems), ("a PufferEnv sets its spaces and num_agents before "
                                           "super().__init__(buf) and writes into self.observations etc.")
    return PASS, f"{rows} agent rows, arrays of the right shapes and dtypes"


def _check_action_bounds(ctx: Context) -> Result:
    """The lowest and the highest actions step."""
    for high in (False, True):
        ctx.vec.step(_extreme(ctx.act_space, ctx.rows, high))
    return PASS, "the lowest and the highest actions step without error"


def _check_auto_reset(ctx: Context) -> Result:
    """Random play for `steps` steps (legal actions where the observation holds an action mask):
    finished agents keep going; records what later checks read."""
    vec, rows, obs_space, seen = ctx.vec, ctx.rows, ctx.obs_space, ctx.seen
    rng = np.random.default_rng(ctx.seed)
    obs, _ = vec.reset(seed=ctx.seed)
    ended, stats, final_ok, masks_any = 0, [], True, False
    start = time.perf_counter()
    for _ in range(ctx.steps):
        actions = sample(ctx.act_space, rows, rng, legal_actions(obs, vec.obs_layout))
        obs, rewards, terminals, truncations, infos = vec.step(actions)
        masks_any |= bool(vec.masks.any())
        done = np.asarray(terminals) | np.asarray(truncations)
        ended += int(done.sum())
        stats += [(_number(i["episode_return"]), _number(i.get("episode_length")))
                  for i in infos if isinstance(i, dict) and "episode_return" in i]
        if done.any() and vec.writes_final_observations and vec.final_observations is not None:
            final_ok &= all(obs_space.contains(row) for row in vec.final_observations[done])
        if not np.isfinite(rewards).all():
            raise APIUsageError("a reward is NaN or infinite")
        if vec.game_seats and done.any():
            seen.games += _judge_games(vec.game_seats, done, vec.outcomes, seen.game_problems)
    seen.steps_per_second = ctx.steps * rows / max(time.perf_counter() - start, 1e-9)
    seen.ended, seen.stats, seen.final_ok, seen.masks_any = ended, stats, final_ok, masks_any
    return PASS, f"{ctx.steps} random steps, {ended} agent episodes ended"


def _judge_games(seats: int, done: np.ndarray, outcomes: np.ndarray, problems: list[str]) -> int:
    """Judge one step of an env of games against `pufferlib.environment`'s contract: the rows of a
    game end together, with outcomes 1, 0.5, 0 or NaN (a two-seat game's adding up to 1).
    Appends what is wrong to `problems` (the first few); returns the games that ended."""
    by_game = done.reshape(-1, seats)
    ended = by_game.all(axis=1)
    for g in np.flatnonzero(by_game.any(axis=1) & ~ended)[:1]:
        problems.append(f"game {g} (rows {g * seats}..{g * seats + seats - 1}): rows "
                        f"{[g * seats + i for i in np.flatnonzero(by_game[g])]} ended without the others")
    for g in np.flatnonzero(ended):
        result = outcomes[g * seats:(g + 1) * seats]
        if not all(np.isnan(o) or o in (0.0, 0.5, 1.0) for o in result):
            problems.append(f"game {g}: outcomes {result.tolist()} are not 1, 0.5, 0 or NaN")
        elif seats == 2 and not np.isnan(result).any() and result.sum() != 1.0:
            problems.append(f"game {g}: outcomes {result.tolist()} of a two-seat game do not add up to 1 "
                            "(a win and a loss, or two draws)")
    del problems[3:]
    return int(ended.sum())


def _check_games(ctx: Context) -> Result:
    """An env of games (`game_seats`) ends a game's rows together, with outcomes in the contract."""
    seats = ctx.vec.game_seats
    if not seats:
        return SKIP, "not an env of games (game_seats = 0)"
    if ctx.seen.game_problems:
        return FAIL, "; ".join(ctx.seen.game_problems), \
            ("end every row of a game in one step and write each row's outcomes (1 win, 0.5 draw, 0 loss, "
             "NaN: no result) in that step; see pufferlib.environment")
    if not ctx.seen.games:
        return WARN, f"no game ended in {ctx.steps} steps", "run more steps (--steps) or shorten games"
    return PASS, f"{ctx.seen.games} games of {seats} seat(s) ended with their outcomes"


def _check_masks(ctx: Context) -> Result:
    """Some agent rows are live in the rollout."""
    if not ctx.seen.masks_any:
        return FAIL, "every agent row was masked out", "set self.masks[i] = True for the agents that act"
    return PASS, "agent rows are live (masks)"


def _check_final(ctx: Context) -> Result:
    """Final observations are kept, and lie within the observation space."""
    if not ctx.vec.writes_final_observations:
        return WARN, "the env does not keep final observations", ("set writes_final_observations = True and "
                                                                  "copy the last obs into final_observations")
    if not ctx.seen.ended:
        return SKIP, "no episode ended"
    if not ctx.seen.final_ok:
        return FAIL, "a final observation lies outside the observation space", \
            "copy the agent's last observation into final_observations before resetting it"
    return PASS, "final observations kept and within the observation space"


def _check_stats(ctx: Context) -> Result:
    """Ended episodes report a finite episode_return and an episode_length in their infos."""
    if not ctx.seen.ended:
        return WARN, f"no episode ended in {ctx.steps} steps", "run more steps (--steps) or shorten episodes"
    stats = ctx.seen.stats
    if not stats:
        return FAIL, "episodes ended but no info carried episode_return", \
            ("return infos with episode_return and episode_length when an episode ends (an env that reports "
             "mean stats every N steps, as Ocean's do every log_interval, needs --steps above N)")
    if not np.isfinite(np.array(stats, np.float64)).all():
        return FAIL, "episode stats without a finite episode_return and an episode_length", \
            "report both as numbers"
    return PASS, f"{len(stats)} infos with episode_return/episode_length"


def _check_determinism(ctx: Context) -> Result:
    """Two copies reset with one seed and given the same actions step alike."""
    if ctx.maker is None:
        return SKIP, "needs an id or a creator to make two copies"
    runs = []
    for _ in range(2):
        other = ctx.maker()
        try:
            rng = np.random.default_rng(ctx.seed + 1)
            obs, _ = other.reset(seed=ctx.seed)
            trace = [np.array(obs)]
            for _ in range(min(ctx.steps, 64)):
                step = other.step(sample(ctx.act_space, ctx.rows, rng, legal_actions(obs, other.obs_layout)))
                obs = step[0]
                trace += [np.array(obs), np.array(step[1])]
            runs.append(trace)
        finally:
            _close_quietly(other)
    if not all(np.array_equal(a, b) for a, b in zip(*runs)):
        return FAIL, "two copies reset with the same seed diverged", \
            "draw all randomness from a generator seeded in reset(seed=...)"
    return PASS, "same seed, same actions: same observations and rewards"


def _check_render(ctx: Context) -> Result:
    """The declared render modes: ansi renders a str, rgb_array an (h, w, 3) uint8 frame."""
    modes = render_modes(ctx.vec)
    if not modes:
        return WARN, "no render modes declared", "declare metadata = {'render_modes': ['ansi', 'rgb_array']}"
    if ctx.maker is None:
        return SKIP, f"declares {modes}; needs an id or a creator to try them"
    tried = []
    for mode in [m for m in modes if m in ("ansi", "rgb_array")]:
        try:
            other = ctx.maker(render_mode=mode)
        except TypeError as exc:
            if "render_mode" not in str(exc):
                raise
            return WARN, f"declares {modes}, but the creator takes no render_mode", \
                "give the creator a render_mode=None parameter and pass it to the env"
        try:
            other.reset(seed=ctx.seed)
            assert isinstance(other, Renderable)  # maker builds the serial backend, which renders env 0
            frame = other.render()
        finally:
            _close_quietly(other)
        problem = _frame_problem(mode, frame)
        if problem is not None:
            return problem
        tried.append(mode)
    return PASS, f"declares {modes}; rendered {', '.join(tried) or 'none of ansi/rgb_array'}"


def _frame_problem(mode: str, frame: object) -> Result | None:
    """The failure of a frame rendered in `mode`, or None when it is what the mode promises."""
    if mode == "ansi" and not isinstance(frame, str):
        return FAIL, f"render() in ansi mode returned {type(frame).__name__}", "return a str"
    if mode == "rgb_array" and not (isinstance(frame, np.ndarray) and frame.ndim == 3
                                    and frame.shape[2] == 3 and frame.dtype == np.uint8):
        return FAIL, f"render() in rgb_array mode returned {getattr(frame, 'shape', type(frame))}", \
            "return an (height, width, 3) uint8 array"
    return None


def _close_quietly(vec: Backend) -> None:
    """Close a copy made by a check; what close() raises is the close check's to report, on the env itself."""
    with contextlib.suppress(Exception):
        vec.close()


def _check_speed(ctx: Context) -> Result:
    """Agent steps per second of the random rollout (reported, never judged)."""
    return PASS, f"{ctx.seen.steps_per_second:,.0f} agent steps/s (random actions, serial)"


def _check_close(ctx: Context) -> Result:
    """close() returns, for an env the checker made (a vector or an env instance given stays open)."""
    if not ctx.owned:
        return SKIP, "the env given is the caller's to close"
    ctx.vec.close()
    return PASS, "close() returned"


#: The checks in order, as (name in the report, check): those up to the random rollout
#: ("auto-reset"), then those that read what it saw (`due` only when it worked), then closing.
CHECKS: list[tuple[str, Callable[[Context], Result]]] = [
    ("spaces", _check_spaces), ("return values", _check_return_values), ("observations", _check_observations),
    ("buffers", _check_buffers), ("action bounds", _check_action_bounds), ("auto-reset", _check_auto_reset),
]
AFTER_ROLLOUT: list[tuple[str, Callable[[Context], Result]]] = [
    ("masks", _check_masks), ("final observations", _check_final), ("episode stats", _check_stats),
    ("games", _check_games),
    ("determinism", _check_determinism), ("render modes", _check_render), ("speed", _check_speed),
]
STEPS = [*CHECKS, *AFTER_ROLLOUT, ("close", _check_close)]


def due(index: int, seen: Findings) -> bool:
    """Whether `STEPS[index]` runs, given what the checks before it saw."""
    return not (len(CHECKS) <= index < len(CHECKS) + len(AFTER_ROLLOUT)) or seen.ended is not None
