"""dm_control stepping speed: dm_control alone, puffer-dmcontrol, and upstream PufferLib 3.0's wrapper.

One measurement (in the venv that has the implementation):

    python step_speed.py once IMPL --task cartpole-swingup [--num-envs N] [--num-workers W] [--seconds S]

prints one JSON line with the agent steps per second of S seconds of uniform random actions:
`raw` steps `dm_control.suite.load(domain, task)` itself (reset at each episode end), `ours`
`pufferlib.make("dmc-<task>")`, `upstream` upstream 3.0's `pufferlib.environments.dm_control`
wrapper (shimmy's `DmControlCompatibilityV0` under 3.0's `GymnasiumPufferEnv`) through 3.0's
`pufferlib.vector`. Both libraries are named `pufferlib`, so each runs in its own venv.

Side by side (what the README reports):

    python step_speed.py compare --ours-python OURS_VENV/bin/python --upstream-python REF_VENV/bin/python \\
        --task cartpole-swingup --task walker-walk --repeats 3

runs raw, ours and upstream one after another, `--repeats` rounds of each configuration (1 env
serial, 8 envs over 2 workers), interleaved so that the machine's load falls alike on each, from
a scratch directory (upstream 3.0 links `resources` into the working directory when imported),
and prints a Markdown table of min / median / max steps per second.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np


def upstream_creator(domain: str, task: str, buf=None, seed: int = 0):
    """Upstream 3.0's own dm_control creator (`pufferlib.environments.dm_control.environment.make`)."""
    from pufferlib.environments.dm_control import environment

    return environment.make(domain, task_name=task, buf=buf)


def make_vector(impl: str, domain: str, task: str, num_envs: int, num_workers: int):
    """A vectorized env of `impl` (serial when num_workers is 1)."""
    import pufferlib.vector

    if impl == "ours":
        import pufferlib

        env_id = f"dmc-{domain}-{task}".replace("_", "-")
        if num_workers == 1:
            return pufferlib.make(env_id, num_envs=num_envs, backend="serial", seed=0)
        return pufferlib.make(env_id, num_envs=num_envs, num_workers=num_workers, seed=0)
    backend = pufferlib.vector.Serial if num_workers == 1 else pufferlib.vector.Multiprocessing
    kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
    return pufferlib.vector.make(functools.partial(upstream_creator, domain, task), backend=backend,
                                 num_envs=num_envs, **kwargs)


def once(impl: str, task_id: str, num_envs: int, num_workers: int, seconds: float) -> dict:
    """Agent steps per second of `impl` over `seconds` of uniform random actions in [-1, 1]."""
    warnings.filterwarnings("ignore")
    domain, task = task_id.replace("ball-in-cup", "ball_in_cup").replace("point-mass", "point_mass").split("-", 1)
    task = task.replace("-", "_")
    rng = np.random.default_rng(0)
    steps = 0
    if impl == "raw":
        from puffer_dmcontrol.env import import_suite

        env = import_suite().load(domain, task, task_kwargs={"random": 0})
        shape = env.action_spec().shape
        env.reset()
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            if env.step(rng.uniform(-1, 1, shape)).last():
                env.reset()
            steps += 1
    else:
        env = make_vector(impl, domain, task, num_envs, num_workers)
        env.reset(seed=0)
        shape = (num_envs, *env.single_action_space.shape)
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.step(rng.uniform(-1, 1, shape).astype(np.float32))
            steps += num_envs
        env.close()
    return {"impl": impl, "task": task_id, "envs": num_envs, "workers": num_workers,
            "sps": steps / (time.perf_counter() - start)}


def compare(args: argparse.Namespace) -> None:
    """Interleaved rounds of raw / ours / upstream; a Markdown table of min / median / max."""
    layouts = [(1, 1), (8, 2)]
    results: dict[tuple, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="dmc-step-speed-") as scratch:
        for _ in range(args.repeats):
            for task in args.task:
                for envs, workers in layouts:
                    impls = [("raw", args.ours_python)] if (envs, workers) == (1, 1) else []
                    impls += [("ours", args.ours_python)]
                    impls += [("upstream", args.upstream_python)] if args.upstream_python else []
                    for impl, python in impls:
                        cmd = [python, os.path.abspath(__file__), "once", impl, "--task", task, "--num-envs",
                               str(envs), "--num-workers", str(workers), "--seconds", str(args.seconds)]
                        out = subprocess.run(cmd, cwd=scratch, capture_output=True, text=True, timeout=600)
                        if out.returncode != 0:
                            print(f"{impl} {task} {envs}x{workers} failed:\n{out.stderr[-3000:]}", file=sys.stderr)
                            continue
                        row = json.loads(out.stdout.strip().splitlines()[-1])
                        results.setdefault((task, impl, envs, workers), []).append(row["sps"])
                        print(json.dumps(row), file=sys.stderr, flush=True)
    print("| task | what | envs x workers | steps/s: min | median | max | rounds |")
    print("|---|---|---|---:|---:|---:|---:|")
    for (task, impl, envs, workers), values in results.items():
        print(f"| {task} | {impl} | {envs} x {workers} | {min(values):,.0f} | {statistics.median(values):,.0f} | "
              f"{max(values):,.0f} | {len(values)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    one = sub.add_parser("once")
    one.add_argument("impl", choices=["raw", "ours", "upstream"])
    one.add_argument("--task", default="cartpole-swingup")
    one.add_argument("--num-envs", type=int, default=1)
    one.add_argument("--num-workers", type=int, default=1)
    one.add_argument("--seconds", type=float, default=10.0)
    both = sub.add_parser("compare")
    both.add_argument("--ours-python", default=sys.executable)
    both.add_argument("--upstream-python", default=None, help="upstream 3.0's venv python (left out: no upstream rows)")
    both.add_argument("--task", action="append", default=None)
    both.add_argument("--repeats", type=int, default=3)
    both.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args()
    if args.mode == "once":
        print(json.dumps(once(args.impl, args.task, args.num_envs, args.num_workers, args.seconds)))
    else:
        args.task = args.task or ["cartpole-swingup", "walker-walk"]
        compare(args)


if __name__ == "__main__":
    main()
