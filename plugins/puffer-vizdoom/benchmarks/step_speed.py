"""ViZDoom stepping speed: the engine alone, puffer-vizdoom, and upstream PufferLib 3.0's chain.

Run `raw` and `ours` with an environment that has puffer-vizdoom (and vizdoom==1.3.2), and
`upstream` with upstream 3.0's venv plus `pip install vizdoom==1.3.2`, from a scratch directory
(3.0 links `resources` into the working directory when imported). Upstream 3.0's own wrapper
(`pufferlib.environments.vizdoom`) does not import: it needs `pufferlib.utils` and
`pufferlib.postprocess`, which 3.0 does not ship, and `stable_baselines3`. So `upstream` builds
the rest of that wrapper's chain: vizdoom's Gymnasium env (`gym.make('VizdoomBasic-v1')`, whose
Dict observation holds the screen and the game variables), the wrapper's own screen handling
(every second pixel of a 160x120 GRAY8 screen: 60x80x1; the wrapper refuses any other
resolution, set here through the env's config kwargs instead of editing the .cfg as its error
asks), 3.0's `GymnasiumPufferEnv` and `pufferlib.vector`. The Gymnasium env repeats an action
`frame_skip` tics: 1 in upstream's wrapper (`--frameskip` sets it here; 4 in ours).

    python step_speed.py IMPL [--scenario basic] [--num-envs N] [--num-workers W] [--seconds S] [--frameskip K]

prints one line: IMPL, scenario, envs, workers, frameskip, agent steps per second over S
seconds of random actions, and tics (game frames) per second.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

#: Gymnasium ids of vizdoom 1.3.2 for the scenarios compared here.
GYM_IDS = {"basic": "VizdoomBasic-v1", "defend_the_center": "VizdoomDefendCenter-v1",
           "health_gathering": "VizdoomHealthGathering-v1"}


def upstream_creator(scenario: str, frameskip: int, buf=None, seed=0):
    """Upstream 3.0's vizdoom chain without its missing modules (its DoomWrapper's screen handling inline)."""
    import gymnasium as gym
    from vizdoom import gymnasium_wrapper  # noqa: F401 - registers the Vizdoom*-v1 ids

    import pufferlib.emulation

    class DoomScreen(gym.Wrapper):
        """As upstream's DoomWrapper: the screen of the Dict observation, every second pixel."""

        def __init__(self, env):
            super().__init__(env)
            self.observation_space = gym.spaces.Box(0, 255, (60, 80, 1), np.uint8)

        def reset(self, seed=None, options=None):
            obs, _ = self.env.reset(seed=seed, options=options)
            return obs["screen"][::2, ::2], {}

        def step(self, action):
            obs, reward, terminal, truncated, info = self.env.step(action)
            return obs["screen"][::2, ::2], reward, terminal, truncated, info

    env = gym.make(GYM_IDS[scenario], render_mode="rgb_array", frame_skip=frameskip,
                   screen_resolution="RES_160X120", screen_format="GRAY8")
    return pufferlib.emulation.GymnasiumPufferEnv(env=DoomScreen(env.unwrapped), buf=buf, seed=seed)


def make(impl: str, scenario: str, num_envs: int, num_workers: int, frameskip: int):
    """A vectorized env of `impl` (serial when num_workers is 1)."""
    if impl == "ours":
        import pufferlib

        backend = "serial" if num_workers == 1 else "multiprocessing"
        kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
        return pufferlib.make("vizdoom-" + scenario.replace("_", "-"), num_envs=num_envs, backend=backend,
                              frameskip=frameskip, **kwargs)
    import functools

    import pufferlib.vector

    backend = pufferlib.vector.Serial if num_workers == 1 else pufferlib.vector.Multiprocessing
    kwargs = {} if num_workers == 1 else {"num_workers": num_workers}
    creator = functools.partial(upstream_creator, scenario, frameskip)
    return pufferlib.vector.make(creator, backend=backend, num_envs=num_envs, **kwargs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=["raw", "ours", "upstream"])
    parser.add_argument("--scenario", default="basic", choices=sorted(GYM_IDS))
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--frameskip", type=int, default=4)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    steps = 0
    if args.impl == "raw":  # the engine alone: DoomGame at 160x120 GRAY8, the screen read, no resizing
        import os

        import vizdoom as vzd

        game = vzd.DoomGame()
        game.load_config(os.path.join(vzd.scenarios_path, args.scenario + ".cfg"))
        game.set_window_visible(False)
        game.set_screen_resolution(vzd.ScreenResolution.RES_160X120)
        game.set_screen_format(vzd.ScreenFormat.GRAY8)
        game.init()
        game.set_seed(0)
        game.new_episode()
        buttons = game.get_available_buttons_size()
        actions = [[float(i == j) for j in range(buttons)] for i in range(buttons)]
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            game.make_action(actions[int(rng.integers(buttons))], args.frameskip)
            if game.is_episode_finished():
                game.new_episode()
            game.get_state().screen_buffer.sum()
            steps += 1
        game.close()
    else:
        env = make(args.impl, args.scenario, args.num_envs, args.num_workers, args.frameskip)
        n = env.single_action_space.n
        env.reset(seed=0)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            env.step(rng.integers(0, n, args.num_envs))
            steps += args.num_envs
        env.close()
    rate = steps / (time.perf_counter() - start)
    print(f"{args.impl} {args.scenario} envs={args.num_envs} workers={args.num_workers} frameskip={args.frameskip} "
          f"{rate:.0f} agent steps/s {rate * args.frameskip:.0f} tics/s")


if __name__ == "__main__":
    main()
