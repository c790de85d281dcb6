"""bsuite stepping speed: bsuite alone, puffer-bsuite, and upstream PufferLib 3.0's bsuite chain.

    python step_speed.py IMPL [--id deep_sea/0] [--num-envs N] [--seconds S]

IMPL:
- `raw`: bsuite's dm_env environment alone (`bsuite.load`, no wrapper, no logging), one copy;
- `ours`: `pufferlib.make('bsuite-<experiment>', setting=N)`, serial backend;
- `ours-csv`: the same, each copy recorded into bsuite's CSV log as benchmarks/sweep.py does
  (`puffer_bsuite.scoring.Recorder`, into a temporary folder removed at the end);
- `upstream`: run with upstream PufferLib 3.0 and bsuite 0.3.6 (and its gym). The README's
  figures: an overlay over the reference venv (`bash /work/briefs/overlay.sh bsuite-ref
  /work/ref/pufferlib3/venv`, `pip install bsuite==0.3.6 -c <numpy==1.26.4>`) with 3.0's Python
  sources on PYTHONPATH (`PYTHONPATH=<copy of pufferlib-3.0.0's pufferlib/ folder's parent>`).
  3.0's own wrapper (`pufferlib.environments.bsuite.make`) does not import: it needs
  `pufferlib.wrappers` (GymToGymnasium), which 3.0 does not ship. This builds the rest of its
  chain: `bsuite.load_and_record_to_csv` (bsuite's CSV logging, into a temporary folder),
  `bsuite.utils.gym_wrapper.GymFromDMEnv` (old gym API), shimmy's GymV21 compatibility in place of
  the missing GymToGymnasium, 3.0's `GymnasiumPufferEnv` and `pufferlib.vector` (Serial). Its
  episode stopper (which calls `exit(0)` after bsuite's episode count) is left out. Run it from a
  scratch directory: 3.0 makes a `resources` link in the working directory when imported.

Prints one line: IMPL, id, envs, agent steps per second over S seconds of random actions.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import warnings

import numpy as np


def upstream_creator(bsuite_id: str, results_dir: str):
    """Upstream 3.0's bsuite chain, less its missing GymToGymnasium (shimmy's in its place)."""

    def make(buf=None, seed=0):
        import bsuite
        import shimmy
        from bsuite.utils import gym_wrapper

        import pufferlib.emulation

        env = bsuite.load_and_record_to_csv(bsuite_id, results_dir, overwrite=True)
        env = shimmy.GymV21CompatibilityV0(env=gym_wrapper.GymFromDMEnv(env))
        return pufferlib.emulation.GymnasiumPufferEnv(env=env, buf=buf, seed=seed)

    return make


def make(impl: str, bsuite_id: str, num_envs: int, folder: str):
    """A serial vector of `num_envs` copies of `bsuite_id` for `impl`; returns (vecenv, recorders)."""
    experiment, _, setting = bsuite_id.partition("/")
    if impl == "upstream":
        import pufferlib.vector

        return pufferlib.vector.make(upstream_creator(bsuite_id, folder), backend=pufferlib.vector.Serial,
                                     num_envs=num_envs), []
    import pufferlib.vector
    from puffer_bsuite.env import make as make_env
    from puffer_bsuite.scoring import Recorder

    if impl == "ours":
        return pufferlib.make(f"bsuite-{experiment}", num_envs=num_envs, backend="serial", setting=int(setting)), []
    recorder = Recorder(bsuite_id, folder, num_episodes=10 ** 9)

    def creator(**kwargs):
        env = make_env(**kwargs)
        recorder.watch(env)
        return env

    return pufferlib.vector.make(creator, env_kwargs={"experiment": experiment, "setting": int(setting)},
                                 backend="serial", num_envs=num_envs), [recorder]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=["raw", "ours", "ours-csv", "upstream"])
    parser.add_argument("--id", default="deep_sea/0", help="bsuite id (experiment/setting)")
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    steps = 0
    folder = tempfile.mkdtemp(prefix="bsuite-step-speed-")
    try:
        if args.impl == "raw":
            from bsuite import bsuite, sweep

            experiment = args.id.split("/")[0]
            env = bsuite.load(experiment, sweep.SETTINGS[args.id])
            n = env.action_spec().num_values
            env.reset()
            start = time.perf_counter()
            while time.perf_counter() - start < args.seconds:
                for _ in range(100):
                    if env.step(int(rng.integers(n))).last():
                        env.reset()
                steps += 100
        else:
            vecenv, recorders = make(args.impl, args.id, args.num_envs, folder)
            n = int(vecenv.single_action_space.n)
            vecenv.reset(seed=0)
            start = time.perf_counter()
            while time.perf_counter() - start < args.seconds:
                for _ in range(10):
                    vecenv.step(rng.integers(0, n, args.num_envs))
                steps += 10 * args.num_envs
            vecenv.close()
            for recorder in recorders:
                recorder.close()
        rate = steps / (time.perf_counter() - start)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{args.impl} {args.id} envs={args.num_envs} {rate:,.0f} agent steps/s")


if __name__ == "__main__":
    main()
