"""Types of the C extension pufferlib.train._kernels (_kernels.c): the trainer's inner loops."""

import numpy as np

def copy_rows(destinations: tuple[np.ndarray | None, ...], sources: tuple[np.ndarray, ...], /) -> int:
    """Copy each source into its destination (None: skip it); the nonzero bytes of the last source."""

def gae(rewards: np.ndarray, values: np.ndarray, terminals: np.ndarray, truncations: np.ndarray,
        bootstrap: np.ndarray, final_values: np.ndarray | None, ratio: np.ndarray | None,
        acting: np.ndarray | None, gamma: float, gae_lambda: float, rho_clip: float, c_clip: float,
        out: np.ndarray, /) -> None:
    """Generalised advantage estimates of (rows, T) float32 rollouts into `out` (see _kernels.c)."""
