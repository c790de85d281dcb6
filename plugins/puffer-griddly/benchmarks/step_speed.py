"""Griddly stepping speed: griddly alone, puffer-griddly, and upstream PufferLib 3.0's chain.

Run `raw` and `ours` with this repository's venv (plus griddly==1.6.7), and `upstream` with
upstream 3.0's venv (`/work/shared/reference/build_pufferlib_3.sh DIR`, then
`DIR/venv/bin/pip install griddly==1.6.7`). Upstream 3.0's own griddly wrapper
(`pufferlib.environments.griddly`) does not import (it needs `pufferlib.postprocess` and
`pufferlib.utils`, which 3.0 no longer ships), and its chain makes `gym.make('GDY-Spiders-v0')`
with griddly's registered default, the Sprite2D observer, which segfaults on a machine without
a Vulkan loader (`upstream-sprite` shows it, in a child process). `upstream` is therefore the
rest of that chain with the Vector observer: `gym.make('GDY-Spiders-v0', player_observer_type=
VECTOR, global_observer_type=VECTOR)`, its reset (to fill the spaces, as the wrapper does),
shimmy's GymV21 compatibility, upstream's `GymnasiumPufferEnv` and `pufferlib.vector`; without
its EpisodeStats wrapper and its stdout suppression.

    python step_speed.py IMPL [--num-envs N] [--num-workers W] [--seconds S]

prints one line: IMPL, envs, workers, agent steps per second over S seconds of random actions.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

GAME, GYM_ID, ACTIONS = "spiders", "GDY-Spiders-v0", 5


def upstream_creator(buf=None, seed=0, observer="VECTOR"):
    """Upstream 3.0's griddly chain without its missing modules (EpisodeStats, utils.Suppress)."""
    import gym
    import shimmy
    from griddly import gd

    import pufferlib.emulation

    kind = getattr(gd.ObserverType, observer)
    env = gym.make(GYM_ID, player_observer_type=kind, global_observer_type=kind)
    env.reset()  # populate the observation space, as upstream's make does
    env = shimmy.GymV21CompatibilityV0(env=env)
    return pufferlib.emulation.GymnasiumPufferEnv(env=env, buf=buf, seed=seed)


def make(impl: str, num_envs: int, num_workers: int):
    """A vectorized env of `impl` (serial when num_workers is 1)."""
    if impl == "ours":
        import pufferlib

        backend = "serial" if num_workers == 1 else "multiprocessing"
        kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
        return pufferlib.make(f"griddly-{GAME}", num_envs=num_envs, backend=backend, **kwargs)
    import pufferlib.vector

    backend = pufferlib.vector.Serial if num_workers == 1 else pufferlib.vector.Multiprocessing
    kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
    return pufferlib.vector.make(upstream_creator, backend=backend, num_envs=num_envs, **kwargs)


@contextlib.contextmanager
def scratch_cwd():
    """Run in a temporary folder: upstream 3.0's `import pufferlib` makes a `resources` symlink in the cwd."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            yield
        finally:
            os.chdir(here)


def main() -> None:
    with scratch_cwd():
        run()


def run() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=["raw", "ours", "upstream", "upstream-sprite"])
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if args.impl == "upstream-sprite":
        code = (f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); import step_speed; "
                "step_speed.upstream_creator(observer='SPRITE_2D')")
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        died = f" ({signal.Signals(-result.returncode).name})" if result.returncode < 0 else ""
        print(f"upstream-sprite: exit status {result.returncode}{died}")
        return
    rng = np.random.default_rng(0)
    steps = 0
    if args.impl == "raw":  # griddly's C++ game, no Python wrapper
        from puffer_griddly.env import GriddlyEnv

        env = GriddlyEnv(GAME)
        player, game, action = env._player, env._game, np.zeros((1, 1), np.int32)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            action[0, 0] = rng.integers(ACTIONS)
            if player.step_multi(action, True)[1]:
                game.reset()
            np.asarray(player.observe())
            steps += 1
    else:
        env = make(args.impl, args.num_envs, args.num_workers)
        env.reset(seed=0)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            env.step(rng.integers(0, ACTIONS, args.num_envs))
            steps += args.num_envs
        env.close()
    print(f"{args.impl} envs={args.num_envs} workers={args.num_workers} "
          f"{steps / (time.perf_counter() - start):.0f} agent steps/s")


if __name__ == "__main__":
    main()
