"""Run by test_craftax_real.py in a subprocess of its own (XLA flags are per process): Craftax-Classic
itself through `pufferlib.make`, then a tiny `puffer train` that reuses the compiled programs.

Prints one line `RESULT <json>` for the test to check. Usage: python -m tests.craftax.real_check DATA_DIR
"""

from __future__ import annotations

import json
import sys

import numpy as np

import pufferlib
from pufferlib.cli import main as puffer
from tests.train_smoke import TINY

N, LIMIT = 4, 3  # TINY trains 4 envs; episodes of 3 steps make ends, truncations and auto-resets certain


def check_steps() -> dict:
    env = pufferlib.make("craftax-classic", num_envs=N, max_timesteps=LIMIT, seed=0)
    try:
        obs, _ = env.reset(seed=0)
        first = obs.copy()
        out: dict = {"shape": list(obs.shape), "dtype": str(obs.dtype),
                     "in_unit_range": bool(obs.min() >= 0 and obs.max() <= 1),
                     "distinct_worlds": len({row.tobytes() for row in obs})}
        ends = []
        for _ in range(LIMIT):
            obs, rewards, terms, truncs, infos = env.step(np.zeros(N, np.int64))  # NOOP: nobody dies in 3 steps
            ends.append([terms.tolist(), truncs.tolist()])
        out["ends"] = ends
        out["infos"] = infos
        final = env.envs[0].final_observations
        out["final_differs_from_first"] = bool(np.any(final != first))
        out["restarted"] = bool(np.all(obs != final, axis=1).sum() == 0 and np.any(obs != final))
        out["next_differs_from_final"] = [bool(np.any(o != f)) for o, f in zip(obs, final)]
        return out
    finally:
        env.close()


def main() -> None:
    result = check_steps()
    code = puffer(["train", "craftax-classic", *TINY, "--env.max-timesteps", str(LIMIT),
                   "--train.data-dir", sys.argv[1]])
    result["train_exit"] = code
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
