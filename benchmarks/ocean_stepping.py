"""How fast a vectorized env steps: the one timing rule of `bench_ocean.py`, for ours and the reference.

`agent_steps_per_second(env, seconds)` steps `env` with 64 pre-drawn batches of uniformly random
actions (cycled) after 10 warm-up steps, and returns agent-steps per second: per wall second and
per CPU second of this process (`time.process_time`, which other jobs on the machine disturb far
less). It needs only numpy and an env with `single_action_space`, `actions`, `num_agents`,
`reset` and `step`, so the same code times PufferLib 3.0's Ocean classes under that library's
own interpreter:

    REFERENCE_PYTHON ocean_stepping.py MODULE CLASS KWARGS_JSON SECONDS

prints one JSON object {"wall": ..., "cpu": ..., "agents": ...}. `bench_ocean.py
--reference-python` runs it that way, in a temporary working folder (PufferLib 3.0 creates a
`resources` link in the folder it is imported from).
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from typing import Any

import numpy as np


def random_actions(env: Any, batches: int = 64, seed: int = 0) -> np.ndarray:
    """`batches` pre-drawn action batches for every agent of `env`, in the dtype of its action buffer."""
    rng = np.random.default_rng(seed)
    space = env.single_action_space
    shape = (batches, *env.actions.shape)
    if hasattr(space, "n"):
        drawn = rng.integers(0, space.n, shape)
    elif hasattr(space, "nvec"):
        drawn = rng.integers(0, space.nvec, shape)
    else:
        drawn = rng.uniform(-1, 1, shape)
    return drawn.astype(env.actions.dtype)


def agent_steps_per_second(env: Any, seconds: float) -> tuple[float, float]:
    """(agent-steps per wall second, per CPU second of this process) over about `seconds` of CPU time."""
    actions = random_actions(env)
    env.reset(seed=0)
    for i in range(10):
        env.step(actions[i])
    steps, wall, cpu = 0, time.perf_counter(), time.process_time()
    while True:
        for batch in actions:
            env.step(batch)
        steps += len(actions)
        cpu_elapsed = time.process_time() - cpu
        if cpu_elapsed >= seconds:
            wall_elapsed = time.perf_counter() - wall
            return steps * env.num_agents / wall_elapsed, steps * env.num_agents / cpu_elapsed


def main() -> None:
    module, cls, kwargs, seconds = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), float(sys.argv[4])
    env = getattr(importlib.import_module(module), cls)(**kwargs)
    try:
        wall, cpu = agent_steps_per_second(env, seconds)
        print(json.dumps({"wall": wall, "cpu": cpu, "agents": int(env.num_agents)}))
    finally:
        env.close()


if __name__ == "__main__":
    main()
