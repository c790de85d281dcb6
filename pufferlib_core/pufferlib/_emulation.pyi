"""Types of the C extension pufferlib._emulation (_emulation.c): the per-step work of emulation."""

from collections.abc import Callable

import numpy as np
from typing_extensions import final

from pufferlib.protocols import Info

#: What `step_group` steps: a step callable (a GymStep or an env's `step`) and its actions array.
StepPair = tuple[Callable[[np.ndarray], object], np.ndarray]

@final  # the C type cannot be subclassed
class GymStep:
    """The step of one emulated single-agent env; call it with the env's actions array."""

    episode_return: float
    episode_length: int
    checks: int

    def __init__(self, env_step: Callable[[object], tuple[object, object, object, object, object]],
                 env_reset: Callable[[], tuple[object, object]], action_of: Callable[[np.ndarray], object],
                 check: Callable[[object], None], write: Callable[[object], object],
                 write_final: Callable[[object], object],
                 arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                 max_steps: int | None, checks: int, copy_rows: bool, ndarray: type) -> None: ...
    def __call__(self, actions: np.ndarray, /) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                        list[Info]]: ...
    def write(self, obs: object, /) -> None: ...

def step_group(pairs: list[StepPair], infos: list[Info], /) -> None: ...
def in_range(array: np.ndarray, high: int, /) -> bool | None: ...
