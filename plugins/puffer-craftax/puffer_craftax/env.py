"""CraftaxVector: `num_envs` copies of Craftax (JAX) stepped by one jitted, vmapped function.

Contract:
- One CraftaxVector is a native vectorized PufferEnv of `num_envs` agent rows, one per world.
  Observations are Craftax's symbolic ones, float32 in [0, 1] (classic: 1,345 values, full:
  8,268); 17 discrete actions (classic) or 43 (full).
- `step` runs ONE jitted XLA program for all copies: Craftax's own `step_env` under `jax.vmap`,
  then the auto-reset of the copies whose episode ended, inside the same program (see
  "Auto-reset"). Nothing is stepped in a Python loop over copies.
- Ends: `terminals` when the player died (or, in full Craftax, beat the final boss),
  `truncations` when the episode reached `max_timesteps` alive. Craftax itself does not
  tell the two apart (its `done` is either); the program asks Craftax's own `is_terminal`
  once more with an unreachable step limit.
- `final_observations`: in the step that ends an episode, that row's last observation
  (`writes_final_observations`); `observations` then holds the first of the next episode.
- Auto-reset: when any copy ends, the program generates a pool of `reset_pool` fresh worlds
  (not `num_envs`: world generation costs more than many steps) and the k-th ended copy of
  that step takes world `k mod reset_pool`. When more copies end in one step than the pool
  holds, some start on the same world (their later randomness differs: each copy has its own
  key). In steps where nothing ends no world is generated (`lax.cond` outside the vmap).
- Seeds: `reset(seed=s)` makes key `jax.random.PRNGKey(s)`; the same seed and actions give
  the same observations, rewards and ends in any process (JAX's counter-based RNG).
- Copies out of JAX: on a CPU backend `np.asarray` of a result is a view of XLA's buffer (no
  copy); the arrays of this PufferEnv belong to the vectorizer's batch, so each step copies
  the results into them once (observations: num_envs x 4 x obs_size bytes; the README gives
  the cost). Actions go in as one small int32 array.
- Infos: at each step, one dict per episode that ended, in row order: `episode_return`,
  `episode_length`, `achievement_<name>` (1.0 if unlocked in that episode, else 0.0; 22 for
  classic, 67 for full), `achievements` (how many) and `score`, the Crafter score
  (`crafter_score`) over this object's last `score_window` ended episodes.
- Compilation: the first `reset` of a (variant, max_timesteps) compiles the reset program and
  the first `step` of each `num_envs` and `reset_pool` compiles the step program (tens of
  seconds for classic on a CPU, minutes for full: the README gives them). Programs are cached
  per process, so further envs of the same shape reuse them. JAX's persistent cache
  (`JAX_COMPILATION_CACHE_DIR`, the user's choice) makes later processes reuse them too.
- Threads: XLA's CPU client uses a thread pool as large as the machine; this module changes
  no JAX or XLA setting (set `XLA_FLAGS`, e.g. `--xla_cpu_multi_thread_eigen=false
  intra_op_parallelism_threads=1`, before JAX starts to confine it).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium import spaces

import pufferlib
from pufferlib import EpisodeStats
from pufferlib.errors import APIUsageError
from pufferlib.spaces import ActionCheck
from pufferlib.vector.base import check_seed

#: variant -> (module, class of Craftax's env without auto-reset, module of its `Achievement` enum).
VARIANTS = {
    "classic": ("craftax.craftax_classic.envs.craftax_symbolic_env", "CraftaxClassicSymbolicEnvNoAutoReset",
                "craftax.craftax_classic.constants"),
    "full": ("craftax.craftax.envs.craftax_symbolic_env", "CraftaxSymbolicEnvNoAutoReset",
             "craftax.craftax.constants"),
}
#: Keyword arguments of `make` besides `variant`, `num_envs` and `buf` (anything else is refused).
KWARGS = ("max_timesteps", "reset_pool", "score_window")


def crafter_score(success_rates: Iterable[float]) -> float:
    """The Crafter score (Hafner 2021), in percent: exp(mean(ln(1 + s_i))) - 1 over the success
    rates s_i of the achievements, each in percent (0..100). Craftax's papers use it too."""
    rates = [float(s) for s in success_rates]
    if not rates or not all(0.0 <= s <= 100.0 for s in rates):
        raise APIUsageError(f"crafter_score takes one success rate per achievement, in percent (0..100); got {rates}.")
    return math.exp(sum(math.log1p(s) for s in rates) / len(rates)) - 1.0


def default_reset_pool(num_envs: int) -> int:
    """Fresh worlds generated in a step where some copy ends: num_envs / 32, at least 4 (at most num_envs)."""
    return min(num_envs, max(4, num_envs // 32))


class Program:
    """The jitted reset and step of one Craftax variant and step limit, for any number of copies.

    `env` is any object with Craftax's interface (`reset_env`, `step_env`, `is_terminal`,
    `default_params`, `action_space`, `observation_space`); `achievement_names` lists its
    achievements in the order of `state.achievements`.
    """

    def __init__(self, env: Any, achievement_names: tuple[str, ...], max_timesteps: int | None = None):
        import jax
        import jax.numpy as jnp

        self.env, self.achievement_names = env, achievement_names
        params = env.default_params
        if max_timesteps is not None:
            params = params.replace(max_timesteps=max_timesteps)
        self.params = params
        # Craftax's own end test with a step limit it never reaches: true when the player died (or won).
        self._unreachable = params.replace(max_timesteps=int(jnp.iinfo(jnp.int32).max))
        self.obs_size = int(np.prod(env.observation_space(params).shape))
        self.num_actions = int(env.action_space(params).n)
        self.reset = jax.jit(self._reset, static_argnums=1)
        self.step = jax.jit(self._step, static_argnums=3, donate_argnums=1)

    def _reset(self, key: Any, n: int) -> tuple[Any, Any]:
        """`n` new worlds from `key`: (observations (n, obs_size), states).

        Leaves come out strongly typed: Craftax builds some from Python ints (weakly typed in JAX,
        e.g. `player_direction`), which its step turns into int32; a weakly typed first state
        would make the second step compile the step program a second time."""
        import jax

        obs, state = jax.vmap(self.env.reset_env, in_axes=(0, None))(jax.random.split(key, n), self.params)
        return obs, jax.tree.map(lambda x: jax.lax.convert_element_type(x, x.dtype), state)

    def _step(self, key: Any, state: Any, actions: Any, pool: int) -> tuple[Any, ...]:
        """One step of every copy, then the auto-reset of the copies that ended (module doc).

        Returns (next key, states, observations before any reset, pool observations, pool slot
        of each row, rewards, done, truncated, achievements of each row before any reset)."""
        import jax
        import jax.numpy as jnp

        n = actions.shape[0]
        key, k_step, k_pool = jax.random.split(key, 3)
        obs, state, reward, done, _ = jax.vmap(self.env.step_env, in_axes=(0, 0, 0, None))(
            jax.random.split(k_step, n), state, actions, self.params)
        died = jax.vmap(self.env.is_terminal, in_axes=(0, None))(state, self._unreachable)
        truncated = done & ~died
        achievements = state.achievements
        slot = (jnp.cumsum(done) - 1) % pool

        def refill(state: Any) -> tuple[Any, Any]:
            pool_obs, pool_state = self._reset(k_pool, pool)

            def take(fresh: Any, old: Any) -> Any:
                return jnp.where(done.reshape((n,) + (1,) * (old.ndim - 1)), fresh[slot], old)

            return jax.tree.map(take, pool_state, state), pool_obs

        def keep(state: Any) -> tuple[Any, Any]:
            return state, jnp.zeros((pool, obs.shape[1]), obs.dtype)

        state, pool_obs = jax.lax.cond(done.any(), refill, keep, state)
        return key, state, obs, pool_obs, slot, reward, done, truncated, achievements


_PROGRAMS: dict[tuple[str, int | None], Program] = {}


def program(variant: str, max_timesteps: int | None = None) -> Program:
    """The cached `Program` of a Craftax variant ("classic" or "full") and step limit (imports craftax)."""
    if variant not in VARIANTS:
        raise APIUsageError(f"variant must be one of {sorted(VARIANTS)}, got {variant!r}.")
    cache_key = (variant, max_timesteps)
    if cache_key not in _PROGRAMS:
        import importlib

        module, cls, constants = VARIANTS[variant]
        try:
            env = getattr(importlib.import_module(module), cls)()
            names = tuple(a.name.lower() for a in importlib.import_module(constants).Achievement)
        except ModuleNotFoundError as exc:
            raise APIUsageError(
                f"puffer-craftax needs craftax 1.6.1 and a CPU jax ({exc.name} is missing): "
                "pip install jax==0.10.2 jaxlib==0.10.2 && pip install --no-deps craftax==1.6.1 flax==0.12.8 "
                "(see the plugin's requirements-nodeps.txt)") from exc
        _PROGRAMS[cache_key] = Program(env, names, max_timesteps)
    return _PROGRAMS[cache_key]


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise APIUsageError(f"{name} must be an int >= {low}, got {value!r}.")
    return int(value)


class CraftaxVector(pufferlib.PufferEnv):
    """`num_envs` Craftax worlds of `variant` ("classic" or "full"), stepped together (module doc).

    `max_timesteps`: steps before an episode is truncated (None: Craftax's own, 10,000 classic,
    100,000 full). `reset_pool`: fresh worlds generated in a step where some copy ends (0 or
    None: `default_reset_pool(num_envs)`). `score_window`: ended episodes the logged `score` covers.
    """

    writes_final_observations = True

    def __init__(self, variant: str = "classic", num_envs: int = 1, buf: Any = None,
                 max_timesteps: int | None = None, reset_pool: int | None = None, score_window: int = 100,
                 _program: Program | None = None):
        num_envs = _check_int("num_envs", num_envs, 1)
        if max_timesteps is not None:
            max_timesteps = _check_int("max_timesteps", max_timesteps, 1)
        self.reset_pool = default_reset_pool(num_envs) if reset_pool in (None, 0) else \
            _check_int("reset_pool", reset_pool, 1)
        if self.reset_pool > num_envs:
            raise APIUsageError(f"reset_pool={reset_pool} is more than num_envs={num_envs}: at most num_envs "
                                "copies can end in one step.")
        score_window = _check_int("score_window", score_window, 1)
        self.variant = variant
        self._program = program(variant, max_timesteps) if _program is None else _program
        p = self._program
        self.achievement_names = p.achievement_names
        self.single_observation_space = spaces.Box(0.0, 1.0, (p.obs_size,), np.float32)
        self.single_action_space = spaces.Discrete(p.num_actions)
        self.num_agents = num_envs
        super().__init__(buf)
        self._stats = EpisodeStats(num_envs)
        self._history: deque[np.ndarray] = deque(maxlen=score_window)
        self._check_actions = ActionCheck(self.single_action_space, "CraftaxVector").check
        self._key: Any = None
        self._state: Any = None
        self._closed = False

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[dict]]:
        """New worlds in every copy from key `PRNGKey(seed)` (None: fresh entropy)."""
        import jax

        if self._closed:
            raise APIUsageError("This CraftaxVector is closed; create a new one.")
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        key, reset_key = jax.random.split(jax.random.PRNGKey(seed % 2 ** 32))
        obs, self._state = self._program.reset(reset_key, self.num_agents)
        self._key = key
        self.observations[:] = np.asarray(obs)
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        self._stats.reset()
        return self.observations, []

    def step(self, actions: np.ndarray) -> tuple:
        """Step every copy in one jitted call; ended copies start new worlds (module doc)."""
        if self._state is None:
            raise APIUsageError("This CraftaxVector is closed; create a new one." if self._closed
                                else "Call reset() before step().")
        if actions is not self.actions:
            self.actions[:] = self._check_actions(actions, self.actions.shape)
        else:
            self.actions[:] = self._check_actions(self.actions, self.actions.shape)
        (self._key, self._state, obs, pool_obs, slot, reward, done, truncated,
         achievements) = self._program.step(self._key, self._state, self.actions[:, 0], self.reset_pool)
        done = np.asarray(done)
        self.observations[:] = np.asarray(obs)
        self.rewards[:] = np.asarray(reward)
        truncated = np.asarray(truncated)
        np.logical_and(done, ~truncated, out=self.terminals)
        self.truncations[:] = truncated
        if not done.any():
            self._stats.step(self.rewards, done)
            return self.observations, self.rewards, self.terminals, self.truncations, []
        ended = np.flatnonzero(done)
        self.final_observations[ended] = self.observations[ended]
        self.observations[ended] = np.asarray(pool_obs)[np.asarray(slot)[ended]]
        infos = self._stats.step(self.rewards, done)
        unlocked = np.asarray(achievements)[ended]
        for info, row in zip(infos, unlocked):
            self._history.append(row)
            info.update({f"achievement_{name}": float(u) for name, u in zip(self.achievement_names, row)})
            info["achievements"] = float(row.sum())
            info["score"] = crafter_score(100.0 * np.mean(self._history, axis=0))
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def close(self) -> None:
        """Drop the JAX state; every later call raises APIUsageError. Safe to call again."""
        self._closed = True
        self._state = None


def make(variant: str = "classic", num_envs: int = 1, buf: Any = None, **kwargs: Any) -> CraftaxVector:
    """Creator of the `craftax-*` ids: a `CraftaxVector`; keyword arguments other than
    `KWARGS` are refused with the list of those accepted."""
    unknown = sorted(set(kwargs) - set(KWARGS))
    if unknown:
        raise APIUsageError(f"craftax envs take no {', '.join(map(repr, unknown))}; their keyword arguments are "
                            f"{', '.join(KWARGS)} (and num_envs).")
    return CraftaxVector(variant, num_envs=num_envs, buf=buf, **kwargs)
