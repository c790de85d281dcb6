"""Emulation: any Gymnasium or PettingZoo env becomes a PufferEnv.

Observations of any nesting are flattened into one row per agent by
`pufferlib.spaces.ObsLayout` (`env.obs_layout.unflatten(...)` and
`pufferlib.pytorch.unflatten(...)` give the structure back as views); structured
actions are flattened by `pufferlib.spaces.ActionLayout`.

Auto-reset semantics (the same as in-place PufferEnvs): when the wrapped env ends an
episode (terminated or truncated; for PettingZoo, when no agent is left), the same
`step` call resets it. The returned observation is then the first observation of the
next episode, while `rewards`, `terminals` and `truncations` belong to the step that
ended the episode. That step's infos carry the env's own final info dict plus
`episode_return` (sum of rewards; for PettingZoo the mean over agents) and
`episode_length` (steps). Infos of steps that end no episode are not forwarded; for
PettingZoo, an agent's own info dict is forwarded at the step it finishes.
The last observation of an ended episode is kept in `final_observations` (see
`pufferlib.environment`).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Hashable, Iterable, Mapping
from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING, Any, SupportsFloat, TypeAlias, cast

import numpy as np
from gymnasium import spaces

from pufferlib._emulation import GymStep
from pufferlib.environment import Buffers, PufferEnv
from pufferlib.errors import APIUsageError
from pufferlib.spaces import ActionLayout, ObsLayout, observation_problems

if TYPE_CHECKING:
    from pettingzoo import AECEnv, ParallelEnv

    from pufferlib._emulation import StepPair
    from pufferlib.protocols import Env, EnvCreator, GymnasiumEnv, Info

#: A single-agent env that `GymnasiumPufferEnv` wraps: a Gymnasium env or a simple-style PufferEnv.
SingleAgentEnv: TypeAlias = "GymnasiumEnv | PufferEnv"
#: What a Gymnasium `step` returns: (obs, reward, terminated, truncated, info).
StepResult: TypeAlias = "tuple[object, SupportsFloat, bool, bool, Info]"

#: Observations checked against the space per env: the first reset's and the next ones
#: (`pufferlib.spaces.observation_problems`); later ones are written unchecked, at full speed.
OBS_CHECKS = 8
#: Env names already warned about observations outside their bounds (in this process).
_WARNED: set[str] = set()


def _instantiate(env_or_creator: Env | EnvCreator | None, env_args: tuple[object, ...],
                 env_kwargs: dict[str, object] | None) -> Env:
    if callable(env_or_creator) and not _is_env_instance(env_or_creator):
        return env_or_creator(*env_args, **(env_kwargs or {}))
    if env_args or env_kwargs:
        raise APIUsageError("env_args/env_kwargs were given with an env instance; pass a creator instead.")
    return env_or_creator


def _is_env_instance(obj: object) -> bool:
    return not isinstance(obj, type) and (hasattr(obj, "step") and hasattr(obj, "reset"))


class _Emulated(PufferEnv):
    """Shared parts of the emulation wrappers: the layouts, buffer rebinding, observation checks."""

    writes_final_observations = True
    _obs_checks = OBS_CHECKS  # left to do, per env
    env: SingleAgentEnv | ParallelEnv  # the wrapped env (set by the subclass)
    obs_layout: ObsLayout  # set by _setup
    action_layout: ActionLayout

    def _env_name(self) -> str:
        spec = getattr(self.env, "spec", None)
        name = type(getattr(self.env, "unwrapped", self.env)).__name__
        spec_id = getattr(spec, "id", None)
        return f"{name} ({spec_id})" if spec_id else name

    def _check_obs(self, obs: object, agent: Hashable | None = None) -> None:
        """Raise APIUsageError (warn for out-of-bounds values) when `obs` does not fit the space."""
        errors, warns = observation_problems(obs, self.obs_layout.space)
        who = self._env_name() + (f" agent {agent!r}" if agent is not None else "")
        if errors:
            raise APIUsageError(
                f"{who} returned an observation that does not fit its observation_space "
                f"{self.obs_layout.space}: {'; '.join(errors)}. Fix the env's observation or its space.")
        if warns and self._env_name() not in _WARNED:  # once per env name and process, not per copy
            import warnings

            _WARNED.add(self._env_name())
            warnings.warn(f"{who}: observation outside its observation_space {self.obs_layout.space}: "
                          f"{'; '.join(warns)}. (Said once per env.)", stacklevel=4)

    def _setup(self, obs_space: spaces.Space[object], act_space: spaces.Space[object], num_agents: int,
               buf: object) -> None:
        self.obs_layout = ObsLayout(obs_space)
        self.action_layout = ActionLayout(act_space)
        self.single_observation_space = self.obs_layout.flat_space
        self.single_action_space = self.action_layout.flat_space
        self.num_agents = num_agents
        super().__init__(buf)

    def _bind(self, buf: Buffers) -> None:
        super()._bind(buf)
        self._obs_views = [self.obs_layout.leaf_views(row) for row in self.observations]

    def rebind(self, buf: object) -> None:
        """Move this env onto another set of arrays (a vectorizer's batch slice)."""
        self._bind(Buffers.coerce(buf))


class GymnasiumPufferEnv(_Emulated):
    """A single-agent Gymnasium env (or a simple-style PufferEnv) as a PufferEnv.

    `env` is an env instance or a creator called as `env(*env_args, **env_kwargs)`.

    For speed, the outermost layers that `gymnasium.make` adds are peeled off: the
    validation-only `PassiveEnvChecker` and `OrderEnforcing`, and `TimeLimit`, whose
    step limit this class applies itself (same truncation step). Other wrappers run as
    they are. `self.env` stays the env as given (for attributes and `close`).
    """

    env: SingleAgentEnv

    def __init__(self, env: SingleAgentEnv | EnvCreator | None = None, env_args: tuple[object, ...] = (),
                 env_kwargs: dict[str, object] | None = None, buf: object = None, *,
                 env_creator: EnvCreator | None = None):
        self.env = _instantiate(env if env is not None else env_creator, env_args, env_kwargs)
        for attr in ("observation_space", "action_space"):
            if getattr(self.env, attr, None) is None:
                raise APIUsageError(f"{type(self.env).__name__} has no {attr}; set it in __init__.")
        self.render_mode = getattr(self.env, "render_mode", None)
        self._inner: SingleAgentEnv
        if isinstance(self.env, PufferEnv) and self.env.is_simple_style:
            self._inner, self._max_steps = self.env, None
            # Its step(action) -> (obs, reward, done, info), unlike PufferEnv.step (pufferlib.environment).
            self._simple_env_step = cast("Callable[[object], tuple[object, SupportsFloat, bool, Info]]",
                                         self.env.step)
            self._env_step: Callable[[object], StepResult] = self._simple_step
            self._env_reset: Callable[..., tuple[object, Info]] = self._simple_reset
            self._reset_takes_seed = "seed" in inspect.signature(self.env.reset).parameters
        else:
            # Not a simple-style PufferEnv: an env with Gymnasium's API (a gymnasium.Env or alike).
            inner, self._max_steps = _peel_gymnasium_wrappers(cast("GymnasiumEnv", self.env))
            self._inner, self._env_step, self._env_reset = inner, inner.step, inner.reset
        space = self.env.action_space
        if isinstance(space, spaces.Discrete) and space.start == 0:
            # a numpy integer scalar, as gymnasium's vector envs pass (a C call: `actions[0, 0]`)
            self._action: Callable[[np.ndarray], object] = itemgetter((0, 0))
        else:
            self._action = self._unflatten_action
        # After the step's parts: binding the arrays (in _setup) makes the C step from them.
        self._setup(self.env.observation_space, self.env.action_space, 1, buf)

    def _unflatten_action(self, actions: np.ndarray) -> object:
        return self.action_layout.unflatten(actions[0])

    def _simple_step(self, action: object) -> StepResult:
        obs, reward, done, info = self._simple_env_step(action)
        return obs, reward, done, False, info

    def _simple_reset(self, seed: int | None = None) -> tuple[object, Info]:
        obs = self.env.reset(seed=seed) if self._reset_takes_seed and seed is not None else self.env.reset()
        return obs, {}

    def _bind(self, buf: Buffers) -> None:
        super()._bind(buf)
        if self.obs_layout.structured:
            write = partial(self.obs_layout.write, views=self._obs_views[0])
            write_final = partial(self.obs_layout.write, views=self.obs_layout.leaf_views(self.final_observations[0]))
        else:
            write = partial(self.observations[0].__setitem__, Ellipsis)
            write_final = partial(self.final_observations[0].__setitem__, Ellipsis)
        old = getattr(self, "_stepper", None)
        arrays = (self.observations, self.rewards, self.terminals, self.truncations, self.final_observations)
        if not all(a.flags.c_contiguous for a in arrays):
            raise APIUsageError(f"{type(self).__name__} writes into C-contiguous arrays; the observations, rewards, "
                                "terminals, truncations and final_observations given are not all C-contiguous.")
        self._stepper = GymStep(
            self._env_step, self._env_reset, self._action, self._check_obs, write, write_final, arrays,
            self._max_steps, checks=OBS_CHECKS if old is None else old.checks,
            copy_rows=not self.obs_layout.structured, ndarray=np.ndarray)
        if old is not None:
            self._stepper.episode_return, self._stepper.episode_length = old.episode_return, old.episode_length

    def __getstate__(self) -> dict[str, object]:
        """The env without its C step (not picklable); `__setstate__` makes it anew on the copied arrays."""
        state = dict(self.__dict__)
        stepper = state.pop("_stepper")
        state["_step_counters"] = (stepper.episode_return, stepper.episode_length, stepper.checks)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        counters = cast("tuple[float, int, int]", state.pop("_step_counters"))
        self.__dict__.update(state)
        self._bind(Buffers(self.observations, self.rewards, self.terminals, self.truncations, self.masks,
                           self.actions, self.final_observations, self.outcomes))
        self._stepper.episode_return, self._stepper.episode_length, self._stepper.checks = counters

    @property
    def episode_return(self) -> float:
        """The sum of this episode's rewards so far."""
        return self._stepper.episode_return

    @property
    def episode_length(self) -> int:
        """The steps of this episode so far."""
        return self._stepper.episode_length

    def reset(self, seed: int | None = None):
        obs, info = self._env_reset(seed=seed)
        self._stepper.write(obs)  # checked while the first observations are
        self.rewards[0] = 0.0
        self.terminals[0] = False
        self.truncations[0] = False
        self.masks[0] = True
        self._stepper.episode_return, self._stepper.episode_length = 0.0, 0
        return self.observations, [info] if info else []

    def step(self, actions: np.ndarray):
        """Step the env on its action in `actions`; the work is `pufferlib._emulation.GymStep`'s (in C)."""
        return self._stepper(actions)

    def render(self) -> object:
        return self._inner.render()

    def close(self) -> None:
        close = getattr(self.env, "close", None)
        if close is not None:
            close()


def step_pairs(envs: Iterable[PufferEnv]) -> list[StepPair]:
    """(step, actions) for each env, for `pufferlib._emulation.step_group`: an emulated Gymnasium
    env's C step (stepped without a Python call), any other env's `step` method."""
    return [(env._stepper if isinstance(env, GymnasiumPufferEnv) and type(env).step is GymnasiumPufferEnv.step
             else env.step, env.actions) for env in envs]


def _peel_gymnasium_wrappers(env: GymnasiumEnv) -> tuple[GymnasiumEnv, int | None]:
    """Skip the outer TimeLimit/OrderEnforcing/PassiveEnvChecker layers; return (env, step limit)."""
    from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker, TimeLimit

    max_steps = None
    while True:
        if isinstance(env, TimeLimit) and max_steps is None:
            max_steps = env._max_episode_steps
        elif not isinstance(env, (OrderEnforcing, PassiveEnvChecker)):
            return env, max_steps
        env = env.env


class PettingZooPufferEnv(_Emulated):
    """A PettingZoo env (parallel API; AEC envs are converted) as a multi-agent PufferEnv.

    Every agent of `possible_agents` owns a fixed row. `masks` is True for the agents that
    observe and act at this step. Agents that are absent (not yet spawned, or gone) have
    zeroed observations and mask False, and their actions are ignored; on its final step
    an agent reports its reward and terminal/truncation with mask False (they close its
    previous transition). All agents must share one observation and one action space.

    An AEC env whose metadata says `is_parallelizable` is converted by PettingZoo; any other
    (turn-based games) goes through `pufferlib.turn_based.TurnBasedParallelEnv`: each seat
    owns a row, and only the seat to move is unmasked.
    """

    env: ParallelEnv

    def __init__(self, env: ParallelEnv | AECEnv | EnvCreator | None = None, env_args: tuple[object, ...] = (),
                 env_kwargs: dict[str, object] | None = None, buf: object = None, *,
                 env_creator: EnvCreator | None = None):
        env = _instantiate(env if env is not None else env_creator, env_args, env_kwargs)
        self.env = as_parallel(env)
        self.possible_agents = list(self.env.possible_agents)
        if not self.possible_agents:
            raise APIUsageError(f"{type(self.env).__name__} has no possible_agents.")
        obs_space = _shared_space(self.env, self.possible_agents, "observation_space")
        act_space = _shared_space(self.env, self.possible_agents, "action_space")
        self.render_mode = getattr(self.env, "render_mode", None)
        self._slot = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._setup(obs_space, act_space, len(self.possible_agents), buf)
        #: A parallel env of games (`pufferlib.turn_based` sets it) reports each seat's result as the
        #: "outcome" of its final info, written to its `outcomes` row (`pufferlib.environment`).
        self.game_seats = int(getattr(self.env, "game_seats", 0) or 0)
        #: Its built-in players that can take a seat (`pufferlib.turn_based`): the env reads our
        #: `players` rows (one per seat, in possible_agents order) at every step.
        self.builtin_players = dict(getattr(self.env, "builtin_players", None) or {})
        self._returns = np.zeros(self.num_agents, np.float64)
        self._seen = np.zeros(self.num_agents, bool)
        self.episode_length = 0

    def _bind(self, buf: Buffers) -> None:
        super()._bind(buf)
        if getattr(self.env, "builtin_players", None):  # it reads who plays each seat from our rows
            self.env.players = self.players

    def _write_obs(self, obs: dict[Hashable, object]) -> None:
        if self._obs_checks > 0:
            self._obs_checks -= 1
            self._check_agents(obs, "observations")
            for agent, value in obs.items():
                self._check_obs(value, agent)
        self.observations[:] = 0
        self.masks[:] = False
        try:
            for agent, value in obs.items():
                i = self._slot[agent]
                self.obs_layout.write(value, self._obs_views[i])
                self.masks[i] = True
        except KeyError:
            self._check_agents(obs, "observations")
            raise

    def _check_agents(self, per_agent: Mapping[Hashable, object], what: str) -> None:
        """APIUsageError naming the agents of `per_agent` that are not in possible_agents."""
        unknown = [agent for agent in per_agent if agent not in self._slot]
        if unknown:
            raise APIUsageError(
                f"{self._env_name()} returned {what} for agent(s) {unknown[:5]} that are not in its "
                f"possible_agents {self.possible_agents[:10]}; every agent must be listed there.")

    def reset(self, seed: int | None = None):
        obs, infos = self.env.reset(seed=seed)
        self._write_obs(obs)
        self._seen[:] = False
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        self._returns[:] = 0
        self.episode_length = 0
        return self.observations, [i for i in (infos or {}).values() if i]

    def step(self, actions: np.ndarray):
        unflatten = self.action_layout.unflatten
        try:
            action = {agent: unflatten(actions[self._slot[agent]]) for agent in self.env.agents}
        except KeyError:
            self._check_agents(dict.fromkeys(self.env.agents), "env.agents")
            raise
        obs, rewards, terms, truncs, step_infos = self.env.step(action)
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        slot = self._slot
        try:
            for agent, r in rewards.items():
                self.rewards[slot[agent]] = r
            for agent, t in terms.items():
                self.terminals[slot[agent]] = t
            for agent, t in truncs.items():
                self.truncations[slot[agent]] = t
        except KeyError:
            for what, per_agent in (("rewards", rewards), ("terminations", terms), ("truncations", truncs)):
                self._check_agents(per_agent, what)
            raise
        self._returns += self.rewards
        self.episode_length += 1
        for agent in rewards:
            self._seen[slot[agent]] = True
        self._write_obs(obs)
        # A finishing agent acts no more: its reward and terminal close its previous
        # transition, its last observation is kept, and its row is masked until it comes back.
        ended = self.terminals | self.truncations
        infos = []
        if ended.any():
            self.final_observations[ended] = self.observations[ended]
            self.masks &= ~ended
            infos = [info for agent, done in zip(self.possible_agents, ended)
                     if done and (info := (step_infos or {}).get(agent))]  # the finishing agents' own infos
            if self.game_seats:
                for agent in self.possible_agents:
                    if ended[slot[agent]]:
                        outcome = (step_infos or {}).get(agent, {}).get("outcome")
                        self.outcomes[slot[agent]] = np.nan if outcome is None else outcome
        if not self.env.agents:
            infos.append({"episode_return": float(self._returns[self._seen].mean()),
                          "episode_length": self.episode_length})
            obs, _ = self.env.reset()
            self._write_obs(obs)  # the next episode's first observation; its agents act
            self._seen[:] = False
            self._returns[:] = 0
            self.episode_length = 0
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def render(self) -> object:
        return self.env.render()

    def close(self) -> None:
        self.env.close()


def as_parallel(env: Env) -> ParallelEnv:
    """A parallel env as it is; an AEC env converted by PettingZoo if it is parallelizable, else turn by turn."""
    from pettingzoo.utils.env import AECEnv

    if not isinstance(env, AECEnv):
        return env
    if env.metadata.get("is_parallelizable", False):
        from pettingzoo.utils.conversions import aec_to_parallel

        return aec_to_parallel(env)
    from pufferlib.turn_based import TurnBasedParallelEnv

    return TurnBasedParallelEnv(env)


def _shared_space(env: ParallelEnv, agents: list[Hashable], attr: str) -> spaces.Space[object]:
    spaces_by_agent = {agent: getattr(env, attr)(agent) for agent in agents}
    first = spaces_by_agent[agents[0]]
    differ = [a for a, s in spaces_by_agent.items() if s != first]
    if differ:
        raise APIUsageError(
            f"PettingZoo agents must share one {attr.replace('_', ' ')}: agent {agents[0]!r} has "
            f"{first}, but {differ[:5]} differ (e.g. {differ[0]!r}: {spaces_by_agent[differ[0]]}). "
            "Pad them to a common space with a PettingZoo wrapper first.")
    return first


def is_pettingzoo_env(env: object) -> bool:
    """True for PettingZoo parallel or AEC env instances."""
    try:
        from pettingzoo.utils.env import AECEnv, ParallelEnv
    except ImportError:
        return False
    if isinstance(env, (AECEnv, ParallelEnv)):
        return True
    # Wrappers such as aec_to_parallel do not always inherit ParallelEnv.
    return hasattr(env, "possible_agents") and callable(getattr(env, "observation_space", None))


def wrap(env: Env, buf: object = None) -> PufferEnv:
    """Return `env` as an in-place PufferEnv bound to `buf`, wrapping it if needed."""
    if isinstance(env, PufferEnv) and not env.is_simple_style:
        if buf is not None:
            if not isinstance(env, _Emulated):
                raise APIUsageError(f"{type(env).__name__} is already built; pass buf to its constructor.")
            env.rebind(buf)
        return env
    if is_pettingzoo_env(env):
        return PettingZooPufferEnv(env, buf=buf)
    if hasattr(env, "observation_space") and hasattr(env, "step"):
        return GymnasiumPufferEnv(env, buf=buf)
    raise APIUsageError(
        f"Cannot emulate {type(env).__name__}: expected a PufferEnv, a Gymnasium env or a PettingZoo env.")


def creator_from_instance(env: Env) -> EnvCreator:
    """A creator that makes fresh copies of an env instance (from its spec when it has one)."""
    spec = getattr(env, "spec", None)
    if spec is not None and not isinstance(env, PufferEnv):
        import gymnasium

        def make_from_spec(**kwargs: Any) -> GymnasiumEnv:  # passed through to the env
            return gymnasium.make(spec, **kwargs)

        return make_from_spec
    try:
        template = copy.deepcopy(env)
    except Exception as exc:
        raise APIUsageError(
            f"Cannot make copies of this {type(env).__name__} instance ({exc}); pass its class or a "
            "creator (e.g. lambda: MyEnv()) so that every copy gets its own env.") from exc
    return lambda: copy.deepcopy(template)
