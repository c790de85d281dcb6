"""`pufferlib.check_env` and `puffer check ENV`: does an environment keep PufferLib's contract?

`check_env(env)` takes an env id, an env class or creator, a Gymnasium/PettingZoo env, a
PufferEnv, or an already vectorized env, and runs each check below on a small serial
vector of it. It returns a `Report`: one `Check` per item with a status (pass, fail,
warn, skip), a detail and, for failures and warnings, a hint that says how to fix it.
`str(report)` is the readable table that `puffer check` prints; `report.ok` is False when
any check failed (`puffer check` then exits with 1).

Checks, in report order (`CHECKS`, then `AFTER_ROLLOUT`): spaces, buffers (shapes and
dtypes of the arrays), observations (the reset ones lie within the space), action bounds
(the lowest and highest actions step), auto-reset (a random rollout: finished agents keep
going, rewards stay finite), then, only when that rollout ran, masks, final observations,
episode stats in infos, determinism under a seed (needs an id or a creator: two copies are
made), render modes, and a speed row (agent steps per second of the rollout, reported).

Raises: an env that cannot be created is a failed `make` check, and an exception inside a
check is that check's failure, so `check_env` does not raise on a broken env. Only reading
the spaces and `num_agents` of the vector, before any check, is outside the checks: a
vector without them raises from `check_env`. `report[name]` raises KeyError for a check
the report lacks.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from pufferlib.environment import render_modes
from pufferlib.errors import APIUsageError
from pufferlib.protocols import Renderable

if TYPE_CHECKING:
    from pufferlib.protocols import Env, EnvCreator
    from pufferlib.vector.base import Backend

PASS, FAIL, WARN, SKIP = "pass", "FAIL", "warn", "skip"
#: What a check returns: (status, detail) or (status, detail, hint).
Result = tuple[str, str] | tuple[str, str, str]


@dataclass
class Check:
    """One item of a report."""

    name: str
    status: str
    detail: str = ""
    hint: str = ""


@dataclass
class Report:
    """The result of `check_env`: `ok` unless a check failed; `str()` is the readable table."""

    target: str
    checks: list[Check] = field(default_factory=list)
    steps_per_second: float = float("nan")

    @property
    def ok(self) -> bool:
        """True unless a check failed (warnings and skips do not count)."""
        return all(c.status != FAIL for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        """The checks that failed, in report order."""
        return [c for c in self.checks if c.status == FAIL]

    def __getitem__(self, name: str) -> Check:
        """The check named `name`; KeyError naming the checks there are when none is."""
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(f"no check named {name!r}; checks: {', '.join(c.name for c in self.checks)}")

    def __str__(self) -> str:
        """The table `puffer check` prints: a row per check, its hint under a failure or warning, a total."""
        lines = [f"puffer check {self.target}"]
        for c in self.checks:
            lines.append(f"  [{c.status:>4}] {c.name:<20} {c.detail}")
            if c.hint and c.status in (FAIL, WARN):
                lines.append(f"  {'':>6} {'':<20} hint: {c.hint}")
        failed = len(self.failures)
        lines.append(f"{'FAILED' if failed else 'OK'}: {len(self.checks) - failed}/{len(self.checks)} checks "
                     f"did not fail" + (f"; {failed} failed" if failed else ""))
        return "\n".join(lines)


def _vectorize(target: str | Env | EnvCreator | Backend, num_envs: int, seed: int,
               **kwargs: Any) -> tuple[Backend, Callable[..., Backend] | None, str]:
    """(vectorized env, a maker of another copy or None, a name for the report); `kwargs` are the env's."""
    from pufferlib.registry.make import emulate, make

    if isinstance(target, str):
        def maker(**extra: Any) -> Backend:
            return make(target, num_envs=num_envs, backend="serial", seed=seed, **{**kwargs, **extra})
        return maker(), maker, target
    from pufferlib.vector.base import Backend

    if isinstance(target, Backend):
        return target, None, type(target).__name__
    if isinstance(target, type) or (callable(target) and not hasattr(target, "step")):
        def maker(**extra: Any) -> Backend:
            creator = functools.partial(target, **kwargs, **extra) if (kwargs or extra) else target
            return emulate(creator, num_envs=num_envs, backend="serial", seed=seed)
        return maker(), maker, getattr(target, "__name__", repr(target))
    return emulate(target, num_envs=1, seed=seed), None, type(target).__name__


def _run(checks: list[Check], name: str, fn: Callable[[], Result]) -> None:
    """Append check `name` with what `fn` returns, or a failure naming the exception it raised."""
    try:
        result = fn()
    except Exception as exc:  # a broken env fails its check; the report goes on
        result = (FAIL, f"raised {type(exc).__name__}: {exc}", "fix the exception above (run the env by hand "
                  "to see the traceback)")
    checks.append(Check(name, *result))


def _sample(space: spaces.Space[object], n: int, rng: np.random.Generator) -> np.ndarray:
    """`n` random actions of `space` in the batch layout (infinite Box bounds drawn as -1..1)."""
    if isinstance(space, spaces.Discrete):
        return rng.integers(space.start, space.start + space.n, (n, 1)).astype(np.int32)
    if isinstance(space, spaces.MultiDiscrete):
        return (space.start + rng.integers(0, space.nvec, (n, *space.nvec.shape))).astype(np.int32)
    assert isinstance(space, spaces.Box), f"unsupported action space {space!r}"  # validated by the env
    low, high = np.broadcast_to(space.low, space.shape), np.broadcast_to(space.high, space.shape)
    low, high = np.where(np.isfinite(low), low, -1), np.where(np.isfinite(high), high, 1)
    return rng.uniform(low, high, (n, *space.shape)).astype(np.float32)


def _extreme(space: spaces.Space[object], n: int, high: bool) -> np.ndarray:
    """`n` copies of the highest (or lowest) action of `space` (an infinite Box bound as 0)."""
    if isinstance(space, spaces.Discrete):
        return np.full((n, 1), space.start + (space.n - 1 if high else 0), np.int32)
    if isinstance(space, spaces.MultiDiscrete):
        return np.broadcast_to(space.start + (space.nvec - 1 if high else 0), (n, *space.nvec.shape)).astype(np.int32)
    assert isinstance(space, spaces.Box), f"unsupported action space {space!r}"  # validated by the env
    bound = np.broadcast_to(space.high if high else space.low, space.shape)
    return np.broadcast_to(np.where(np.isfinite(bound), bound, 0), (n, *space.shape)).astype(np.float32)


def check_env(env: str | Env | EnvCreator | Backend, num_envs: int = 2, steps: int = 512, seed: int = 0,
              **env_kwargs: Any) -> Report:
    """Run the contract checks on `env` (see the module docstring); returns a `Report`.

    `env`: an id, an env, an env class or creator, or a vectorized env; `env_kwargs` go to the env.
    """
    try:
        vec, maker, name = _vectorize(env, num_envs, seed, **env_kwargs)
    except Exception as exc:
        report = Report(str(env))
        report.checks.append(Check("make", FAIL, f"raised {type(exc).__name__}: {exc}",
                                   "the env could not be created: check its id, creator and arguments"))
        return report
    report = Report(name)
    try:
        _check_vector(report, vec, maker, steps, seed)
    finally:
        if maker is not None:
            vec.close()
    return report


@dataclass
class _Context:
    """What the checks of one env share: the env, its spaces, and what earlier checks saw."""

    report: Report
    vec: Backend
    maker: Callable[..., Backend] | None  # another copy of the env (None: only this one)
    steps: int
    seed: int
    obs_space: Any  # any space, read once before the checks: the spaces check says what the trainer can use
    act_space: Any
    rows: int  # agent rows of the vector (num_agents)
    reset_obs: np.ndarray | None = None  # the observations of the first reset
    ended: int | None = None  # agent episodes that ended in the random rollout (None: it failed)
    infos: list[dict[str, Any]] = field(default_factory=list)  # the info dicts the rollout returned
    final_ok: bool = True  # every final observation of the rollout lay within the observation space
    masks_any: bool = False  # some agent row was live in the rollout


def _check_spaces(ctx: _Context) -> Result:
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


def _check_buffers(ctx: _Context) -> Result:
    """The batch arrays after a reset: present, with the right shapes and dtypes; infos a list."""
    vec, rows, obs_space = ctx.vec, ctx.rows, ctx.obs_space
    obs, infos = vec.reset(seed=ctx.seed)
    ctx.reset_obs = np.array(obs)
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


def _check_observations(ctx: _Context) -> Result:
    """The reset observations lie within the observation space."""
    if ctx.reset_obs is None:
        return SKIP, "reset failed"
    bad = ~np.array([ctx.obs_space.contains(row) for row in ctx.reset_obs])
    if bad.any():
        return FAIL, f"reset observation of row {int(np.argmax(bad))} lies outside {ctx.obs_space}", \
            "widen the observation space's low/high or clip what the env writes"
    return PASS, "reset observations lie within the observation space"


def _check_action_bounds(ctx: _Context) -> Result:
    """The lowest and the highest actions step."""
    for high in (False, True):
        ctx.vec.step(_extreme(ctx.act_space, ctx.rows, high))
    return PASS, "the lowest and the highest actions step without error"


def _check_auto_reset(ctx: _Context) -> Result:
    """Random play for `steps` steps: finished agents keep going; records what later checks read."""
    vec, rows, obs_space = ctx.vec, ctx.rows, ctx.obs_space
    rng = np.random.default_rng(ctx.seed)
    vec.reset(seed=ctx.seed)
    ended, infos_seen, final_ok, masks_any = 0, [], True, False
    start = time.perf_counter()
    for _ in range(ctx.steps):
        obs, rewards, terminals, truncations, infos = vec.step(_sample(ctx.act_space, rows, rng))
        masks_any |= bool(vec.masks.any())
        done = np.asarray(terminals) | np.asarray(truncations)
        ended += int(done.sum())
        infos_seen += [i for i in infos if isinstance(i, dict)]
        if done.any() and vec.writes_final_observations and vec.final_observations is not None:
            final_ok &= all(obs_space.contains(row) for row in vec.final_observations[done])
        if not np.isfinite(rewards).all():
            raise APIUsageError("a reward is NaN or infinite")
    ctx.report.steps_per_second = ctx.steps * rows / max(time.perf_counter() - start, 1e-9)
    ctx.ended, ctx.infos, ctx.final_ok, ctx.masks_any = ended, infos_seen, final_ok, masks_any
    return PASS, f"{ctx.steps} random steps, {ended} agent episodes ended"


def _check_masks(ctx: _Context) -> Result:
    """Some agent rows are live in the rollout."""
    if not ctx.masks_any:
        return FAIL, "every agent row was masked out", "set self.masks[i] = True for the agents that act"
    return PASS, "agent rows are live (masks)"


def _check_final(ctx: _Context) -> Result:
    """Final observations are kept, and lie within the observation space."""
    if not ctx.vec.writes_final_observations:
        return WARN, "the env does not keep final observations", ("set writes_final_observations = True and "
                                                                  "copy the last obs into final_observations")
    if not ctx.ended:
        return SKIP, "no episode ended"
    if not ctx.final_ok:
        return FAIL, "a final observation lies outside the observation space", \
            "copy the agent's last observation into final_observations before resetting it"
    return PASS, "final observations kept and within the observation space"


def _check_stats(ctx: _Context) -> Result:
    """Ended episodes report a finite episode_return and an episode_length in their infos."""
    if not ctx.ended:
        return WARN, f"no episode ended in {ctx.steps} steps", "run more steps (--steps) or shorten episodes"
    stats = [i for i in ctx.infos if "episode_return" in i]
    if not stats:
        return FAIL, "episodes ended but no info carried episode_return", \
            ("return infos with episode_return and episode_length when an episode ends (an env that reports "
             "mean stats every N steps, as Ocean's do every log_interval, needs --steps above N)")
    lengths = [i.get("episode_length") for i in stats]
    if any(not np.isfinite(float(i["episode_return"])) for i in stats) or None in lengths:
        return FAIL, "episode stats without a finite episode_return and an episode_length", \
            "report both as numbers"
    return PASS, f"{len(stats)} infos with episode_return/episode_length"


def _check_determinism(ctx: _Context) -> Result:
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
                step = other.step(_sample(ctx.act_space, ctx.rows, rng))
                trace += [np.array(step[0]), np.array(step[1])]
            runs.append(trace)
        finally:
            other.close()
    if not all(np.array_equal(a, b) for a, b in zip(*runs)):
        return FAIL, "two copies reset with the same seed diverged", \
            "draw all randomness from a generator seeded in reset(seed=...)"
    return PASS, "same seed, same actions: same observations and rewards"


def _check_render(ctx: _Context) -> Result:
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
            other.close()
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


#: The checks in order, as (name in the report, check): those up to the random rollout
#: ("auto-reset"), then those that read what it saw, which run only when it worked.
CHECKS: list[tuple[str, Callable[[_Context], Result]]] = [
    ("spaces", _check_spaces), ("buffers", _check_buffers), ("observations", _check_observations),
    ("action bounds", _check_action_bounds), ("auto-reset", _check_auto_reset),
]
AFTER_ROLLOUT: list[tuple[str, Callable[[_Context], Result]]] = [
    ("masks", _check_masks), ("final observations", _check_final), ("episode stats", _check_stats),
    ("determinism", _check_determinism), ("render modes", _check_render),
]


def _check_vector(report: Report, vec: Backend, maker: Callable[..., Backend] | None, steps: int, seed: int) -> None:
    """Run `CHECKS` on `vec` into `report`, then, only when the rollout ran, `AFTER_ROLLOUT` and the speed row."""
    ctx = _Context(report, vec, maker, steps, seed, vec.single_observation_space, vec.single_action_space,
                   int(vec.num_agents))
    for name, check in CHECKS:
        _run(report.checks, name, functools.partial(check, ctx))
    if ctx.ended is None:
        return
    for name, check in AFTER_ROLLOUT:
        _run(report.checks, name, functools.partial(check, ctx))
    report.checks.append(Check("speed", PASS, f"{report.steps_per_second:,.0f} agent steps/s (random actions, serial)"))
