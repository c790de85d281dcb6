"""`pufferlib.check_env` and `puffer check ENV`: does an environment keep PufferLib's contract?

`check_env(env)` takes an env id, an env class or creator, a Gymnasium/PettingZoo env, a
PufferEnv, or an already vectorized env, and runs each check below on a small serial
vector of it. It returns a `Report`: one `Check` per item with a status (pass, fail,
warn, skip), a detail and, for failures and warnings, a hint that says how to fix it.
`str(report)` is the readable table that `puffer check` prints; `report.ok` is False when
any check failed (`puffer check` then exits with 1). Checks never raise on a broken env:
an exception inside one becomes that check's failure.

Checks: spaces, buffers (shapes and dtypes of the arrays), observations within the space,
action bounds (the lowest and highest actions step), masks, auto-reset (finished agents
keep going), final observations, episode stats in infos, determinism under a seed (needs
an id or a creator: two copies are made), render modes, and stepping speed (reported).
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

from pufferlib.errors import APIUsageError
from pufferlib.protocols import Renderable

if TYPE_CHECKING:
    from pufferlib.protocols import Env, EnvCreator
    from pufferlib.vector.base import VecEnv

PASS, FAIL, WARN, SKIP = "pass", "FAIL", "warn", "skip"


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
        return all(c.status != FAIL for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.status == FAIL]

    def __getitem__(self, name: str) -> Check:
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(f"no check named {name!r}; checks: {', '.join(c.name for c in self.checks)}")

    def __str__(self) -> str:
        lines = [f"puffer check {self.target}"]
        for c in self.checks:
            lines.append(f"  [{c.status:>4}] {c.name:<20} {c.detail}")
            if c.hint and c.status in (FAIL, WARN):
                lines.append(f"  {'':>6} {'':<20} hint: {c.hint}")
        failed = len(self.failures)
        lines.append(f"{'FAILED' if failed else 'OK'}: {len(self.checks) - failed}/{len(self.checks)} checks "
                     f"did not fail" + (f"; {failed} failed" if failed else ""))
        return "\n".join(lines)


def _vectorize(target: str | Env | EnvCreator | VecEnv, num_envs: int, seed: int,
               **kwargs: Any) -> tuple[VecEnv, Callable[..., VecEnv] | None, str]:
    """(vectorized env, a maker of another copy or None, a name for the report); `kwargs` are the env's."""
    import pufferlib

    if isinstance(target, str):
        def maker(**extra: Any) -> VecEnv:
            return pufferlib.make(target, num_envs=num_envs, backend="serial", seed=seed, **{**kwargs, **extra})
        return maker(), maker, target
    from pufferlib.vector.base import VecEnv

    if isinstance(target, VecEnv):
        return target, None, type(target).__name__
    if isinstance(target, type) or (callable(target) and not hasattr(target, "step")):
        def maker(**extra: Any) -> VecEnv:
            creator = functools.partial(target, **kwargs, **extra) if (kwargs or extra) else target
            return pufferlib.emulate(creator, num_envs=num_envs, backend="serial", seed=seed)
        return maker(), maker, getattr(target, "__name__", repr(target))
    return pufferlib.emulate(target, num_envs=1, seed=seed), None, type(target).__name__


def _run(checks: list[Check], name: str, fn: Callable[[], tuple[str, str] | tuple[str, str, str]]) -> None:
    try:
        result = fn()
    except Exception as exc:  # a broken env fails its check; the report goes on
        result = (FAIL, f"raised {type(exc).__name__}: {exc}", "fix the exception above (run the env by hand "
                  "to see the traceback)")
    checks.append(Check(name, *result))


def _sample(space: spaces.Space[object], n: int, rng: np.random.Generator) -> np.ndarray:
    if isinstance(space, spaces.Discrete):
        return rng.integers(space.start, space.start + space.n, (n, 1)).astype(np.int32)
    if isinstance(space, spaces.MultiDiscrete):
        return (space.start + rng.integers(0, space.nvec, (n, *space.nvec.shape))).astype(np.int32)
    assert isinstance(space, spaces.Box), f"unsupported action space {space!r}"  # validated by the env
    low, high = np.broadcast_to(space.low, space.shape), np.broadcast_to(space.high, space.shape)
    low, high = np.where(np.isfinite(low), low, -1), np.where(np.isfinite(high), high, 1)
    return rng.uniform(low, high, (n, *space.shape)).astype(np.float32)


def _extreme(space: spaces.Space[object], n: int, high: bool) -> np.ndarray:
    if isinstance(space, spaces.Discrete):
        return np.full((n, 1), space.start + (space.n - 1 if high else 0), np.int32)
    if isinstance(space, spaces.MultiDiscrete):
        return np.broadcast_to(space.start + (space.nvec - 1 if high else 0), (n, *space.nvec.shape)).astype(np.int32)
    assert isinstance(space, spaces.Box), f"unsupported action space {space!r}"  # validated by the env
    bound = np.broadcast_to(space.high if high else space.low, space.shape)
    return np.broadcast_to(np.where(np.isfinite(bound), bound, 0), (n, *space.shape)).astype(np.float32)


def render_modes(env: object) -> list[str] | None:
    """The render modes an env (or the env under a vector/emulation wrapper) declares, or None.

    Any object: the chain of wrappers (`driver_env`, `env`, ...) and where the modes are
    declared differ between Gymnasium, PettingZoo and PufferEnvs, so each link is probed.
    """
    seen = set()
    while env is not None and id(env) not in seen:
        seen.add(id(env))
        modes = getattr(env, "metadata", None)
        if isinstance(modes, dict) and modes.get("render_modes"):
            return [str(m) for m in modes["render_modes"]]
        declared = getattr(env, "render_modes", None)
        if declared:
            return [str(m) for m in declared if m]
        env = next((getattr(env, a) for a in ("driver_env", "env", "_inner", "unwrapped")
                    if getattr(env, a, None) is not None and getattr(env, a) is not env), None)
    return None


def check_env(env: str | Env | EnvCreator | VecEnv, num_envs: int = 2, steps: int = 512, seed: int = 0,
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


def _check_vector(report: Report, vec: VecEnv, maker: Callable[..., VecEnv] | None, steps: int, seed: int) -> None:
    checks = report.checks
    obs_space, act_space = vec.single_observation_space, vec.single_action_space
    rows = int(vec.num_agents)
    state: dict[str, Any] = {}

    def check_spaces():
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
    _run(checks, "spaces", check_spaces)

    def check_buffers():
        obs, infos = vec.reset(seed=seed)
        state["obs"] = np.array(obs)
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
    _run(checks, "buffers", check_buffers)

    def check_bounds():
        if "obs" not in state:
            return SKIP, "reset failed"
        bad = ~np.array([obs_space.contains(row) for row in state["obs"]])
        if bad.any():
            return FAIL, f"reset observation of row {int(np.argmax(bad))} lies outside {obs_space}", \
                "widen the observation space's low/high or clip what the env writes"
        return PASS, "reset observations lie within the observation space"
    _run(checks, "observations", check_bounds)

    def check_actions():
        for high in (False, True):
            vec.step(_extreme(act_space, rows, high))
        return PASS, "the lowest and the highest actions step without error"
    _run(checks, "action bounds", check_actions)

    def rollout():
        rng = np.random.default_rng(seed)
        vec.reset(seed=seed)
        ended, infos_seen, final_ok, masks_any = 0, [], True, False
        start = time.perf_counter()
        for _ in range(steps):
            obs, rewards, terminals, truncations, infos = vec.step(_sample(act_space, rows, rng))
            masks_any |= bool(vec.masks.any())
            done = np.asarray(terminals) | np.asarray(truncations)
            ended += int(done.sum())
            infos_seen += [i for i in infos if isinstance(i, dict)]
            if done.any() and vec.writes_final_observations and vec.final_observations is not None:
                final = vec.final_observations[done]
                final_ok &= all(obs_space.contains(row) for row in final)
            if not np.isfinite(rewards).all():
                raise APIUsageError("a reward is NaN or infinite")
        report.steps_per_second = steps * rows / max(time.perf_counter() - start, 1e-9)
        state.update(ended=ended, infos=infos_seen, final_ok=final_ok, masks_any=masks_any)
        return PASS, f"{steps} random steps, {ended} agent episodes ended"
    _run(checks, "auto-reset", rollout)
    if "ended" not in state:
        return

    def check_masks():
        if not state["masks_any"]:
            return FAIL, "every agent row was masked out", "set self.masks[i] = True for the agents that act"
        return PASS, "agent rows are live (masks)"
    _run(checks, "masks", check_masks)

    def check_final():
        if not vec.writes_final_observations:
            return WARN, "the env does not keep final observations", ("set writes_final_observations = True and "
                                                                      "copy the last obs into final_observations")
        if not state["ended"]:
            return SKIP, "no episode ended"
        if not state["final_ok"]:
            return FAIL, "a final observation lies outside the observation space", \
                "copy the agent's last observation into final_observations before resetting it"
        return PASS, "final observations kept and within the observation space"
    _run(checks, "final observations", check_final)

    def check_stats():
        if not state["ended"]:
            return WARN, f"no episode ended in {steps} steps", "run more steps (--steps) or shorten episodes"
        stats = [i for i in state["infos"] if "episode_return" in i]
        if not stats:
            return FAIL, "episodes ended but no info carried episode_return", \
                ("return infos with episode_return and episode_length when an episode ends (an env that reports "
                 "mean stats every N steps, as Ocean's do every log_interval, needs --steps above N)")
        lengths = [i.get("episode_length") for i in stats]
        if any(not np.isfinite(float(i["episode_return"])) for i in stats) or None in lengths:
            return FAIL, "episode stats without a finite episode_return and an episode_length", \
                "report both as numbers"
        return PASS, f"{len(stats)} infos with episode_return/episode_length"
    _run(checks, "episode stats", check_stats)

    def check_determinism():
        if maker is None:
            return SKIP, "needs an id or a creator to make two copies"
        runs = []
        for _ in range(2):
            other = maker()
            try:
                rng = np.random.default_rng(seed + 1)
                obs, _ = other.reset(seed=seed)
                trace = [np.array(obs)]
                for _ in range(min(steps, 64)):
                    step = other.step(_sample(act_space, rows, rng))
                    trace += [np.array(step[0]), np.array(step[1])]
                runs.append(trace)
            finally:
                other.close()
        if not all(np.array_equal(a, b) for a, b in zip(*runs)):
            return FAIL, "two copies reset with the same seed diverged", \
                "draw all randomness from a generator seeded in reset(seed=...)"
        return PASS, "same seed, same actions: same observations and rewards"
    _run(checks, "determinism", check_determinism)

    def check_render():
        modes = render_modes(vec)
        if not modes:
            return WARN, "no render modes declared", "declare metadata = {'render_modes': ['ansi', 'rgb_array']}"
        if maker is None:
            return SKIP, f"declares {modes}; needs an id or a creator to try them"
        tried = []
        for mode in [m for m in modes if m in ("ansi", "rgb_array")]:
            try:
                other = maker(render_mode=mode)
            except TypeError as exc:
                if "render_mode" not in str(exc):
                    raise
                return WARN, f"declares {modes}, but the creator takes no render_mode", \
                    "give the creator a render_mode=None parameter and pass it to the env"
            try:
                other.reset(seed=seed)
                assert isinstance(other, Renderable)  # maker builds the serial backend, which renders env 0
                frame = other.render()
            finally:
                other.close()
            if mode == "ansi" and not isinstance(frame, str):
                return FAIL, f"render() in ansi mode returned {type(frame).__name__}", "return a str"
            if mode == "rgb_array" and not (isinstance(frame, np.ndarray) and frame.ndim == 3
                                            and frame.shape[2] == 3 and frame.dtype == np.uint8):
                return FAIL, f"render() in rgb_array mode returned {getattr(frame, 'shape', type(frame))}", \
                    "return an (height, width, 3) uint8 array"
            tried.append(mode)
        return PASS, f"declares {modes}; rendered {', '.join(tried) or 'none of ansi/rgb_array'}"
    _run(checks, "render modes", check_render)

    checks.append(Check("speed", PASS, f"{report.steps_per_second:,.0f} agent steps/s (random actions, serial)"))
