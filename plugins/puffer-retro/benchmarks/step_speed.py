"""stable-retro stepping speed: the emulator alone, puffer-retro, and upstream PufferLib 3.0's chain.

Run `raw` and `ours` with an environment that has puffer-retro (and stable-retro==1.0.1), and
`upstream` with upstream 3.0's venv plus `pip install stable-retro==1.0.1`, from a scratch
directory (3.0 links `resources` into the working directory when imported). Upstream 3.0's own
wrapper (`pufferlib.environments.stable_retro`) does not import: `AttributeError: module
'pufferlib.emulation' has no attribute 'Postprocessor'` (it also calls `pufferlib.utils`, which
3.0 does not ship, and stable-baselines3's Atari wrappers). So `upstream` builds the rest of
that wrapper's chain: `stable_retro.make(game, render_mode=None)` (the wrapper's call leaves
retro's default render_mode "human", which opens a window: `NoSuchDisplayException` here),
stable-baselines3's MaxAndSkipEnv(skip=4) (re-stated below: the action repeated 4 frames,
rewards summed, the last two frames max-pooled) and ClipRewardEnv (the reward's sign),
Gymnasium's ResizeObservation(84, 84), GrayscaleObservation and FrameStackObservation(4), 3.0's
`GymnasiumPufferEnv` and `pufferlib.vector`. The wrapper keeps retro's default actions, FILTERED
MultiBinary(12), which 3.0's emulation turns into MultiDiscrete([12]) whose step cannot read any
action (`ValueError: Changing the dtype to a subarray type is only supported if the total itemsize
is unchanged`, in `pufferlib.emulation.nativize`): so this chain makes the game with retro's
`Actions.DISCRETE` (Discrete(126), every button combination), and the actions are drawn from it.
3.0's vectorizers cannot host it: both `Serial` and
`Multiprocessing` make a `driver_env` from the first creator and keep it open, then make the envs
(Serial: the first one again in the same process; Multiprocessing: forked workers that inherit
the open emulator), and every one of them fails with stable-retro's `RuntimeError: Cannot create
multiple emulator instances per process`. So `upstream-env` steps 3.0's `GymnasiumPufferEnv`
of that chain directly, with no vectorizer (one env). Ours take Discrete(18) pad actions.

    python step_speed.py IMPL [--num-envs N] [--num-workers W] [--seconds S]

prints one line: IMPL, envs, workers, agent steps per second over S seconds of random actions,
and emulator frames per second (4 per agent step).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

GAME = "Airstriker-Genesis-v0"
FRAMESKIP = 4


def upstream_creator(buf=None, seed=0):
    """Upstream 3.0's stable_retro chain without its missing modules (SB3's MaxAndSkip and ClipReward inline)."""
    import gymnasium as gym
    import stable_retro

    import pufferlib.emulation

    class MaxAndSkip(gym.Wrapper):
        """As stable-baselines3's MaxAndSkipEnv: repeat the action `skip` frames, max-pool the last two."""

        def __init__(self, env, skip=FRAMESKIP):
            super().__init__(env)
            self.skip = skip
            self.frames = np.zeros((2, *env.observation_space.shape), env.observation_space.dtype)

        def step(self, action):
            total, terminated, truncated, info = 0.0, False, False, {}
            for i in range(self.skip):
                obs, reward, terminated, truncated, info = self.env.step(action)
                if i == self.skip - 2:
                    self.frames[0] = obs
                if i == self.skip - 1:
                    self.frames[1] = obs
                total += float(reward)
                if terminated or truncated:
                    break
            return self.frames.max(axis=0), total, terminated, truncated, info

    class ClipReward(gym.RewardWrapper):
        """As stable-baselines3's ClipRewardEnv: the reward's sign."""

        def reward(self, reward):
            return np.sign(float(reward))

    env = stable_retro.make(GAME, render_mode=None, use_restricted_actions=stable_retro.Actions.DISCRETE)
    env = gym.wrappers.RecordEpisodeStatistics(env)
    env = ClipReward(MaxAndSkip(env))
    env = gym.wrappers.ResizeObservation(env, (84, 84))
    env = gym.wrappers.GrayscaleObservation(env)
    env = gym.wrappers.FrameStackObservation(env, 4)
    return pufferlib.emulation.GymnasiumPufferEnv(env=env, buf=buf, seed=seed)


def make(impl: str, num_envs: int, num_workers: int):
    """A vectorized env of `impl` (serial when num_workers is 1)."""
    if impl == "ours":
        import pufferlib

        if num_workers == 1:
            return pufferlib.make("retro-airstriker-genesis", num_envs=num_envs, backend="serial")
        return pufferlib.make("retro-airstriker-genesis", num_envs=num_envs, backend="multiprocessing",
                              num_workers=num_workers)
    import pufferlib.vector

    if num_workers == 1:
        return pufferlib.vector.make(upstream_creator, backend=pufferlib.vector.Serial, num_envs=num_envs)
    return pufferlib.vector.make(upstream_creator, backend=pufferlib.vector.Multiprocessing, num_envs=num_envs,
                                 num_workers=num_workers, overwork=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=["raw", "ours", "upstream", "upstream-env"])
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    steps = 0
    if args.impl == "raw":  # the emulator alone: 4 frames, RAM and reward read each frame, the last screen read
        import stable_retro

        env = stable_retro.make(GAME, render_mode=None)
        env.reset(seed=0)
        em, data = env.em, env.data
        masks = rng.integers(0, 2, (64, len(env.buttons))).astype(np.uint8)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            em.set_button_mask(masks[steps % 64], 0)
            for _ in range(FRAMESKIP):
                em.step()
                data.update_ram()
                data.current_reward()
                done = data.is_done()
            em.get_screen()
            steps += 1
            if done:
                env.reset()
        env.close()
    elif args.impl == "upstream-env":  # 3.0's emulated env alone (its vectorizers cannot host stable-retro)
        env = upstream_creator()
        space = env.single_action_space
        env.reset(seed=0)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            env.step(rng.integers(0, space.n, 1))
            steps += 1
        env.close()
    else:
        env = make(args.impl, args.num_envs, args.num_workers)
        space = env.single_action_space
        env.reset(seed=0)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            if hasattr(space, "n"):
                actions = rng.integers(0, space.n, args.num_envs)
            else:
                actions = rng.integers(0, 2, (args.num_envs, *space.shape))
            env.step(actions)
            steps += args.num_envs
        env.close()
    rate = steps / (time.perf_counter() - start)
    print(f"{args.impl} envs={args.num_envs} workers={args.num_workers} {rate:.0f} agent steps/s "
          f"{rate * FRAMESKIP:.0f} frames/s")


if __name__ == "__main__":
    main()
