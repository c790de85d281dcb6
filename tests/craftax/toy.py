"""A tiny JAX game with Craftax's env interface, so that CraftaxVector's batching, auto-reset,
ends and infos are tested in well under a second of compilation (Craftax's own step takes
tens of seconds to compile on a CPU: tests/craftax/test_craftax_real.py covers it, once).

`jax_single_threaded()` starts JAX's CPU backend on one thread (XLA_FLAGS set only while it
starts, then restored), so that tests never spread XLA's thread pool over every core.

The game: a world is a position in [0, 1000) drawn from the reset key; actions 0 stay,
1 move +1, 2 die (terminal), 3 unlock achievement `position % 3`; episodes time out after
`max_timesteps` steps. Observation: (position / 1000, timestep / 100, 3 achievement flags).
Reward: 1 per achievement unlocked first in the episode, plus 0.001 * a uniform draw of the
step key (so that each copy's key shows in its rewards).
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

THREAD_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def jax_single_threaded():
    """Import jax with its CPU backend started on one thread; returns the jax module."""
    if "jax" in sys.modules:
        import jax

        return jax
    saved = {k: os.environ.get(k) for k in ("XLA_FLAGS", "JAX_PLATFORMS")}
    os.environ["XLA_FLAGS"] = f"{saved['XLA_FLAGS'] or ''} {THREAD_FLAGS}".strip()
    os.environ["JAX_PLATFORMS"] = "cpu"
    try:
        import jax

        jax.devices()  # the backend reads XLA_FLAGS now, once
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return jax


jax = jax_single_threaded()
import jax.numpy as jnp  # noqa: E402
from flax import struct  # noqa: E402

NAMES = ("collect_a", "collect_b", "collect_c")


@struct.dataclass
class ToyParams:
    max_timesteps: int = 5


@struct.dataclass
class ToyState:
    position: jnp.ndarray
    health: jnp.ndarray
    timestep: jnp.ndarray
    achievements: jnp.ndarray


class ToyCraftax:
    """Craftax's interface (`reset_env`, `step_env`, `is_terminal`, spaces) on the toy game."""

    @property
    def default_params(self) -> ToyParams:
        return ToyParams()

    def action_space(self, params=None):
        return SimpleNamespace(n=4)

    def observation_space(self, params):
        return SimpleNamespace(shape=(5,))

    def get_obs(self, state: ToyState):
        return jnp.concatenate([jnp.stack([state.position / 1000.0, state.timestep / 100.0]),
                                state.achievements.astype(jnp.float32)]).astype(jnp.float32)

    def reset_env(self, key, params):
        state = ToyState(position=jax.random.randint(key, (), 0, 1000), health=jnp.int32(1),
                         timestep=0, achievements=jnp.zeros(3, bool))  # a Python int, as Craftax has some
        return self.get_obs(state), state

    def is_terminal(self, state, params):
        return (state.timestep >= params.max_timesteps) | (state.health <= 0)

    def step_env(self, key, state, action, params):
        unlock = (action == 3) & (jnp.arange(3) == state.position % 3) & ~state.achievements
        achievements = state.achievements | unlock
        state = state.replace(position=state.position + (action == 1), health=jnp.where(action == 2, 0, state.health),
                              timestep=state.timestep + jnp.int32(1), achievements=achievements)
        reward = unlock.sum().astype(jnp.float32) + 0.001 * jax.random.uniform(key)
        done = self.is_terminal(state, params)
        return self.get_obs(state), state, reward, done, {}
