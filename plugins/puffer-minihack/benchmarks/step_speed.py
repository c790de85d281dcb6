"""MiniHack stepping speed: minihack alone, puffer-minihack, and upstream PufferLib 3.0's chain.

Run `raw` and `ours` with this repository's venv (plus nle 1.3.0 and minihack 1.0.2), and
`upstream` with upstream 3.0's venv plus `pip install --no-deps nle==1.3.0 minihack==1.0.2
"setuptools<81"`. Upstream 3.0's own wrapper (`pufferlib.environments.minihack.make`) does not
run: it calls `gym.make(name)` of gym 0.23, but minihack 1.0.2 registers its tasks with
Gymnasium only (`gym.error.NameNotFound: Environment MiniHack-Room-5x5 doesn't exist.`).
`upstream` runs the rest of its chain: `gymnasium.make` with the wrapper's observation keys
(minihack's 10 default keys plus tty_chars, tty_colors, tty_cursor), its `MinihackWrapper`,
upstream's `GymnasiumPufferEnv` and `pufferlib.vector` (shimmy's GymV21 adapter is left out:
the env is a Gymnasium one already). `--keys upstream` gives `ours` the same 13 keys.

    python step_speed.py IMPL [--task NAME] [--num-envs N] [--num-workers W] [--seconds S] [--keys K]

prints one line: IMPL, keys, envs, workers, agent steps per second over S seconds of random actions.
Run `upstream` from a scratch directory: upstream 3.0 links its `resources` folder into the
working directory when it is imported.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

OURS = ("glyphs", "glyphs_crop", "blstats")
UPSTREAM = ("glyphs", "chars", "colors", "specials", "glyphs_crop", "chars_crop", "colors_crop", "specials_crop",
            "blstats", "message", "tty_chars", "tty_colors", "tty_cursor")


def upstream_creator(task: str, keys: tuple[str, ...], buf=None, seed=0):
    """Upstream 3.0's minihack chain from `gymnasium.make` on (its `gym.make` finds no MiniHack id)."""
    import gymnasium
    import minihack  # noqa: F401 - registers the MiniHack ids with Gymnasium

    import pufferlib.emulation
    from pufferlib.environments.minihack.environment import MinihackWrapper

    env = MinihackWrapper(gymnasium.make(task, observation_keys=list(keys)))
    return pufferlib.emulation.GymnasiumPufferEnv(env=env, buf=buf, seed=seed)


def make(impl: str, task: str, keys: tuple[str, ...], num_envs: int, num_workers: int):
    """A vectorized env of `impl` (serial when num_workers is 1)."""
    if impl == "ours":
        import pufferlib
        from puffer_minihack.specs import task_name

        backend = "serial" if num_workers == 1 else "multiprocessing"
        kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
        return pufferlib.make("minihack-" + task_name(task), num_envs=num_envs, backend=backend,
                              observation_keys=keys, **kwargs)
    import functools

    import pufferlib.vector

    backend = pufferlib.vector.Serial if num_workers == 1 else pufferlib.vector.Multiprocessing
    kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
    return pufferlib.vector.make(functools.partial(upstream_creator, task, keys), backend=backend,
                                 num_envs=num_envs, **kwargs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=["raw", "ours", "upstream"])
    parser.add_argument("--task", default="MiniHack-Room-5x5-v0")
    parser.add_argument("--keys", choices=["ours", "upstream"], default=None,
                        help="observation keys (default: the impl's own)")
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    keys = {"ours": OURS, "upstream": UPSTREAM}[args.keys or ("upstream" if args.impl == "upstream" else "ours")]
    rng = np.random.default_rng(0)
    steps = 0
    if args.impl == "raw":
        import gymnasium

        from puffer_minihack.env import import_minihack

        import_minihack()
        env = gymnasium.make(args.task, observation_keys=keys, disable_env_checker=True)
        env.reset(seed=0)
        actions = int(env.action_space.n)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            _, _, term, trunc, _ = env.step(int(rng.integers(actions)))
            if term or trunc:
                env.reset()
            steps += 1
    else:
        env = make(args.impl, args.task, keys, args.num_envs, args.num_workers)
        env.reset(seed=0)
        actions = int(env.single_action_space.n)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            env.step(rng.integers(0, actions, args.num_envs))
            steps += args.num_envs
        env.close()
    print(f"{args.impl} keys={len(keys)} envs={args.num_envs} workers={args.num_workers} "
          f"{steps / (time.perf_counter() - start):.0f} agent steps/s")


if __name__ == "__main__":
    main()
