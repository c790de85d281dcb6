"""Types of the C extension pufferlib._ppo (_ppo.c): the PPO maths' loop over time."""

import numpy as np

def reverse_scan(delta: np.ndarray, chain: np.ndarray, out: np.ndarray, /) -> None: ...
