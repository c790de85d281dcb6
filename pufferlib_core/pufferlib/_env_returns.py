"""What an env's own `reset()` and `step()` return, judged against its spaces and its API.

`pufferlib.check_env` also reads the vectorized batch, where emulation has already cast and
copied everything; this module looks before that. `judge(env, seed, steps)` resets `env`
with `seed`, steps it `steps` times with random actions (legal ones where the observation is a
Dict holding an "action_mask", as the trainer samples: `sample_legal`, `legal_actions`; resetting it when an
episode ends, except an in-place PufferEnv, which resets its agents itself) and judges every value that
came back, for the env's API (`style_of`):

    gymnasium   reset -> (obs, info)            step -> (obs, reward, terminated, truncated, info)
    simple      reset -> obs                    step -> (obs, reward, done, info)
    pettingzoo  reset -> ({agent: obs}, {agent: info})    step -> five {agent: value} dicts
    puffer      reset -> (observations, infos)  step -> (observations, rewards, terminals,
                truncations, infos): the env's own arrays, infos a list of dicts (a vector's too)

Severity follows Gymnasium's checkers (`gymnasium.utils.env_checker` and its passive
checker): a problem fails where they raise (a wrong number of values, an info that is not a
dict, a reset observation that does not lie in the space: a dtype that cannot be cast safely,
a wrong shape, values out of bounds) and warns where they only warn (an observation that is
not a numpy array or not of the space's dtype, a step observation outside the space, a reward
that is not a finite number, terminated/truncated that are not bools). Beyond them: what
emulation would write wrongly (`pufferlib.spaces.observation_problems`: a wrong shape,
non-numbers, values that wrap, Dict keys) fails after any call, and the arrays a PufferEnv
returns must hold what its own arrays hold, which are what vectorizers read.

A `Judgement` holds strings only, so that it can travel between processes.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces

from pufferlib.emulation import is_pettingzoo_env
from pufferlib.environment import PufferEnv
from pufferlib.spaces import ObsLayout, iter_leaves, observation_problems

GYMNASIUM, SIMPLE, PETTINGZOO, PUFFER = "gymnasium", "simple", "pettingzoo", "puffer"

#: What reset and step return in each style: the hint of a failed "return values" check.
SIGNATURES = {
    GYMNASIUM: "reset(seed=...) -> (obs, info: dict); step(action) -> (obs, reward: float, terminated: bool, "
               "truncated: bool, info: dict)",
    SIMPLE: "reset() -> obs; step(action) -> (obs, reward: float, done: bool, info: dict)",
    PETTINGZOO: "reset(seed=...) -> ({agent: obs}, {agent: info dict}); step({agent: action}) -> ({agent: obs}, "
                "{agent: reward}, {agent: terminated}, {agent: truncated}, {agent: info dict})",
    PUFFER: "reset(seed=...) -> (self.observations, infos: list of dicts); step(actions) -> (self.observations, "
            "self.rewards, self.terminals, self.truncations, infos: list of dicts)",
}

#: How to fix observations that do not fit the space, per style: the hint of a failed "observations" check.
_RETURN_ARRAYS = ("return numpy arrays of the space's dtype and shape, within its bounds, or widen the observation "
                  "space to what the env returns")
FIT = {GYMNASIUM: _RETURN_ARRAYS, SIMPLE: _RETURN_ARRAYS, PETTINGZOO: _RETURN_ARRAYS,
       PUFFER: "write each agent's observation into its row of self.observations and return that array, with "
               "values within the space's bounds, or widen the observation space to what the env writes"}

#: (failures, warnings): messages of the problems that fail a check and of those that warn.
Problems = tuple[list[str], list[str]]


@dataclass
class Judgement:
    """What `judge` found: per area, the failures and the warnings of the first call that had any."""

    style: str
    steps: int = 0  # step() calls judged
    returns: Problems = field(default_factory=lambda: ([], []))  # the values besides the observations
    observations: Problems = field(default_factory=lambda: ([], []))

    def add(self, call: _Call) -> None:
        """Keep the problems of `call` where no earlier call had problems of their area and severity."""
        for mine, theirs in ((self.returns, call.returns), (self.observations, call.observations)):
            for kept, found in zip(mine, theirs):
                if not kept:
                    kept.extend(found)


class _Call:
    """The problems of one call of reset() or step()."""

    def __init__(self, name: str):
        self.name = name
        self.returns: Problems = ([], [])
        self.observations: Problems = ([], [])


def style_of(env: object) -> str:
    """The API `env` keeps: GYMNASIUM, SIMPLE, PETTINGZOO or PUFFER (an in-place env or a vector)."""
    if isinstance(env, PufferEnv):
        return SIMPLE if env.is_simple_style else PUFFER
    if is_pettingzoo_env(env):
        return PETTINGZOO
    if hasattr(env, "single_observation_space") and hasattr(env, "num_agents"):
        return PUFFER
    return GYMNASIUM


def legal_actions(obs: object, layout: ObsLayout | None) -> np.ndarray | None:
    """The (rows, n) bool `action_mask` of a batch of flat Dict observations that have one (the
    trainer's rule, `pufferlib.pytorch.action_mask`), else None."""
    if layout is None or not layout.structured:
        return None
    rows = np.asarray(obs)
    for leaf in layout.leaves:
        if leaf.path == ("action_mask",):
            return leaf.view(rows, layout.raw).reshape(len(rows), -1).astype(bool)
    return None


def sample(space: spaces.Space[object], n: int, rng: np.random.Generator,
           legal: np.ndarray | None = None) -> np.ndarray:
    """`n` random actions of a flat action space in the batch layout (infinite Box bounds drawn as -1..1).

    `legal` (`legal_actions`, for a Discrete space): each row's action is drawn among its legal ones,
    as the trainer samples (a row with none, a seat not to move, draws among all)."""
    if isinstance(space, spaces.Discrete) and legal is not None and legal.shape == (n, space.n):
        allowed = np.where(legal.any(axis=1, keepdims=True), legal, True)
        return (space.start + (rng.random((n, space.n)) * allowed).argmax(axis=1)).reshape(n, 1).astype(np.int32)
    if isinstance(space, spaces.Discrete):
        return rng.integers(space.start, space.start + space.n, (n, 1)).astype(np.int32)
    if isinstance(space, spaces.MultiDiscrete):
        return (space.start + rng.integers(0, space.nvec, (n, *space.nvec.shape))).astype(np.int32)
    assert isinstance(space, spaces.Box), f"unsupported action space {space!r}"  # validated by the env
    low, high = np.broadcast_to(space.low, space.shape), np.broadcast_to(space.high, space.shape)
    low, high = np.where(np.isfinite(low), low, -1), np.where(np.isfinite(high), high, 1)
    return rng.uniform(low, high, (n, *space.shape)).astype(np.float32)


def sample_legal(space: spaces.Space[Any], obs: object) -> Any:
    """One random action of an env's `space`, drawn among the legal ones where `obs` (the acting
    agent's last observation) is a dict whose "action_mask" allows some of a Discrete space."""
    mask = obs.get("action_mask") if isinstance(obs, dict) else None
    if isinstance(space, spaces.Discrete) and mask is not None and np.shape(mask) == (space.n,) and np.any(mask):
        return space.sample(mask=np.asarray(mask, dtype=np.int8))
    return space.sample()


def judge(env: Any, seed: int, steps: int) -> Judgement:
    """Reset `env` with `seed`, step it `steps` times with random actions, and judge what came back.

    Raises what the env raises. Gymnasium's own warnings about the same values are silenced
    meanwhile: the judgement says it.
    """
    style = style_of(env)
    judgement = Judgement(style)
    drive = {GYMNASIUM: _drive_single, SIMPLE: _drive_single, PETTINGZOO: _drive_pettingzoo, PUFFER: _drive_puffer}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        drive[style](env, seed, steps, judgement)
    return judgement


def _kind(value: object) -> str:
    """What `value` is, for a message: 'None', 'a list', 'a tuple of 3', 'an ndarray'."""
    if value is None:
        return "None"
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name}" + (f" of {len(value)}" if isinstance(value, tuple) else "")


def _fail_or_warn(call: _Call, area: Problems, message: str, fail: bool) -> None:
    area[0 if fail else 1].append(f"{call.name} {message}")


def _observation(call: _Call, obs: object, space: spaces.Space[object], strict: bool, who: str = "") -> bool:
    """Judge one observation (`who`: ' in row 3', " for agent 'a'"); `strict` (a reset's) fails where a
    step's warns. True when it had no problem."""
    errors, outside = observation_problems(obs, space)
    for error in errors:
        _fail_or_warn(call, call.observations, f"returned an observation{who} that does not fit {space}: {error}",
                      True)
    if errors:
        return False
    found = [f"{_whose(path)} {problem} ({space})" for path, leaf in iter_leaves(space)
             if (problem := _leaf_type(_at(obs, path), leaf)) is not None]
    found += [f"outside {space}: {message}" for message in outside]
    fail = strict and not _contains(space, obs)
    for message in found or ([f"that does not lie in {space}"] if fail else []):
        _fail_or_warn(call, call.observations, f"returned an observation{who} {message}", fail)
    return not found and not fail


def _leaf_type(value: object, leaf: spaces.Space[object]) -> str | None:
    """What is wrong with the type of one leaf value (Gymnasium's passive checks), or None."""
    if isinstance(leaf, spaces.Discrete):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            return f"is {_kind(value)}, where the space expects an int"
        return None
    if not isinstance(value, np.ndarray):
        if isinstance(leaf, spaces.Box) and leaf.shape == ():
            return None  # a scalar Box takes plain numbers
        return f"is {_kind(value)}, where the space expects a numpy array"
    if isinstance(leaf, spaces.Box) and value.dtype != leaf.dtype:
        return f"has dtype {value.dtype}, where the space expects {leaf.dtype}"
    return None


def _whose(path: tuple[Hashable, ...]) -> str:
    """'that' for the whole observation, "whose ['pos']" for a part of a structured one."""
    return f"whose {''.join(f'[{key!r}]' for key in path)}" if path else "that"


def _at(obs: Any, path: tuple[Hashable, ...]) -> Any:
    for key in path:
        obs = obs[key]
    return obs


def _contains(space: spaces.Space[object], obs: object) -> bool:
    """Whether `obs` lies in `space` as Gymnasium's env checker asks it after a reset."""
    try:
        return bool(space.contains(obs))
    except Exception:  # noqa: BLE001 - a value the space cannot even compare lies outside it
        return False


def _reward(call: _Call, value: object, what: str = "reward") -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        _fail_or_warn(call, call.returns, f"returned {_kind(value)} as the {what}, where a float is expected", False)
    elif not np.isfinite(value):
        _fail_or_warn(call, call.returns, f"returned a {what} of {value}, where a finite number is expected", False)


def _flag(call: _Call, value: object, what: str) -> None:
    if not isinstance(value, (bool, np.bool_)):
        _fail_or_warn(call, call.returns, f"returned {_kind(value)} as {what}, where a bool is expected", False)


def _info(call: _Call, value: object, what: str = "info") -> None:
    if not isinstance(value, dict):
        _fail_or_warn(call, call.returns, f"returned {_kind(value)} as {what}, where a dict is expected", True)


def _tuple(call: _Call, result: object, names: str) -> bool:
    """Whether `result` is a tuple of the values `names` lists ('obs, info'); a failure when not."""
    count = names.count(",") + 1
    if isinstance(result, tuple) and len(result) == count:
        return True
    _fail_or_warn(call, call.returns, f"returned {_kind(result)}, where a tuple ({names}) is expected", True)
    return False


def _ended(*flags: object) -> bool:
    try:
        return any(bool(flag) for flag in flags)
    except Exception:  # noqa: BLE001 - an odd flag (already judged) ends the episode
        return True


def _drive_single(env: Any, seed: int, steps: int, judgement: Judgement) -> None:
    """A Gymnasium env or a simple-style PufferEnv: one agent, one observation per call."""
    simple = judgement.style == SIMPLE
    obs_space, act_space = env.observation_space, env.action_space
    act_space.seed(seed)
    takes_seed = not simple or "seed" in inspect.signature(env.reset).parameters

    def reset(seed: int | None) -> object:
        call = _Call("reset()")
        result = env.reset(seed=seed) if takes_seed else env.reset()
        obs = result if simple else None
        if simple:
            _observation(call, result, obs_space, strict=True)
        elif _tuple(call, result, "obs, info"):
            obs = result[0]
            _observation(call, obs, obs_space, strict=True)
            _info(call, result[1])
        judgement.add(call)
        return obs

    obs = reset(seed)
    for i in range(1, steps + 1):
        call = _Call(f"step() {i}")
        result = env.step(sample_legal(act_space, obs))
        judgement.steps = i
        if not _tuple(call, result, "obs, reward, done, info" if simple else
                      "obs, reward, terminated, truncated, info"):
            judgement.add(call)
            return
        obs, reward, *flags, info = result
        _observation(call, obs, obs_space, strict=False)
        _reward(call, reward)
        for name, flag in zip(("done",) if simple else ("terminated", "truncated"), flags):
            _flag(call, flag, name)
        _info(call, info)
        judgement.add(call)
        if _ended(*flags):
            obs = reset(None)


def _drive_pettingzoo(env: Any, seed: int, steps: int, judgement: Judgement) -> None:
    """A PettingZoo parallel env: one value per live agent in each dict."""
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    known = set(env.possible_agents)

    def per_agent(call: _Call, value: object, what: str) -> dict[Hashable, Any]:
        if not isinstance(value, dict):
            _fail_or_warn(call, call.returns, f"returned {_kind(value)} as {what}, where a dict "
                                              "{agent: value} is expected", True)
            return {}
        unknown = [agent for agent in value if agent not in known]
        if unknown:
            _fail_or_warn(call, call.returns, f"returned {what} of {unknown[:3]}, which are not in "
                                              "possible_agents", True)
        return {agent: v for agent, v in value.items() if agent in known}

    def observations_and_infos(call: _Call, obs: object, infos: object, strict: bool) -> None:
        for agent, value in per_agent(call, obs, "observations").items():
            if not _observation(call, value, env.observation_space(agent), strict, f" for agent {agent!r}"):
                break  # one agent's problems say it
        for agent, info in per_agent(call, infos, "infos").items():
            _info(call, info, f"the info of agent {agent!r}")

    def reset(seed: int | None) -> object:
        call = _Call("reset()")
        result = env.reset(seed=seed)
        if _tuple(call, result, "observations, infos"):
            observations_and_infos(call, result[0], result[1], strict=True)
        judgement.add(call)
        return result[0] if isinstance(result, tuple) and result else None

    obs = reset(seed)
    for i in range(1, steps + 1):
        call = _Call(f"step() {i}")
        last = obs if isinstance(obs, dict) else {}
        result = env.step({agent: sample_legal(env.action_space(agent), last.get(agent)) for agent in env.agents})
        judgement.steps = i
        if not _tuple(call, result, "observations, rewards, terminations, truncations, infos"):
            judgement.add(call)
            return
        obs, rewards, terminations, truncations, infos = result
        observations_and_infos(call, obs, infos, strict=False)
        for agent, reward in per_agent(call, rewards, "rewards").items():
            _reward(call, reward, f"reward of agent {agent!r}")
        for what, flags in (("terminations", terminations), ("truncations", truncations)):
            for agent, flag in per_agent(call, flags, what).items():
                _flag(call, flag, f"the {what[:-1]} of agent {agent!r}")
        judgement.add(call)
        if not env.agents:
            obs = reset(None)


def _drive_puffer(env: Any, seed: int, steps: int, judgement: Judgement) -> None:
    """An in-place PufferEnv (or a vector): its own arrays, one row per agent; it resets its agents itself."""
    rng = np.random.default_rng(seed)
    judgement.add(_judge_puffer(_Call("reset()"), env, env.reset(seed=seed), reset=True))
    layout = getattr(env, "obs_layout", None)
    for i in range(1, steps + 1):
        actions = sample(env.single_action_space, env.num_agents, rng, legal_actions(env.observations, layout))
        own = getattr(env, "actions", None)
        if isinstance(own, np.ndarray) and own.shape == actions.shape:
            own[...] = actions  # as vectorizers do: an env may read its actions array
            actions = own
        judgement.steps = i
        judgement.add(_judge_puffer(_Call(f"step() {i}"), env, env.step(actions), reset=False))


#: The arrays an in-place env's step returns after its observations, with their dtypes.
_STEP_ARRAYS = (("rewards", np.float32), ("terminals", np.bool_), ("truncations", np.bool_))


def _judge_puffer(call: _Call, env: Any, result: object, reset: bool) -> _Call:
    """Judge what an in-place env's reset (`reset`) or step returned; `call` with the problems found."""
    if not _tuple(call, result, "observations, infos" if reset else
                  "observations, rewards, terminals, truncations, infos"):
        return call
    assert isinstance(result, tuple)  # _tuple said so
    rows, space = env.num_agents, env.single_observation_space
    obs = _array(call, call.observations, env, "observations", result[0], (rows, *space.shape), space.dtype)
    if obs is not None:
        masks = getattr(env, "masks", None)
        live = np.flatnonzero(masks) if isinstance(masks, np.ndarray) and masks.shape == (rows,) else range(rows)
        for row in live:
            if not _observation(call, obs[row], space, reset, f" in row {row}"):
                break  # one row's problems say it
    for (name, dtype), value in zip(_STEP_ARRAYS, result[1:-1]):
        values = _array(call, call.returns, env, name, value, (rows,), dtype)
        if values is not None and values.dtype != dtype:
            _fail_or_warn(call, call.returns, f"returned {name} of dtype {values.dtype}, where "
                                              f"{np.dtype(dtype)} is expected", False)
        if name == "rewards" and values is not None and values.dtype.kind in "fiub" \
                and not np.isfinite(values).all():
            _fail_or_warn(call, call.returns, "returned a reward that is NaN or infinite", False)
    infos = result[-1]
    if not isinstance(infos, list) or not all(isinstance(info, dict) for info in infos):
        got = _kind(infos) if not isinstance(infos, list) else \
            f"a list holding {_kind(next(i for i in infos if not isinstance(i, dict)))}"
        _fail_or_warn(call, call.returns, f"returned {got} as infos, where a list of dicts is expected", True)
    return call


def _array(call: _Call, area: Problems, env: Any, name: str, value: object, shape: tuple[int, ...],
           dtype: Any) -> np.ndarray | None:
    """`value` as an array when it has `shape`, else None; judges its type, shape and that it holds
    what the env's own array `name` holds."""
    if not isinstance(value, np.ndarray):
        _fail_or_warn(call, area, f"returned {_kind(value)} as {name}, where the env's {name} array is expected",
                      False)
        try:
            value = np.asarray(value, dtype=dtype)
        except (TypeError, ValueError) as exc:
            _fail_or_warn(call, area, f"returned {name} that cannot be read as {np.dtype(dtype)} ({exc})", True)
            return None
    if value.shape != shape:
        _fail_or_warn(call, area, f"returned {name} of shape {value.shape}, where {shape} (num_agents rows) "
                                  "is expected", True)
        return None
    own = getattr(env, name, None)
    if isinstance(own, np.ndarray) and own.shape == shape and not np.array_equal(
            value, own, equal_nan=value.dtype.kind in "fc" and own.dtype.kind in "fc"):
        _fail_or_warn(call, area, f"returned {name} that differ from self.{name}, the array vectorizers read",
                      True)
    return value
