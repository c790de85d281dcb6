"""Stepping speed of microRTS games against RandomBiasedAI, random legal actions: agent steps per second.

    python benchmarks/step_speed.py IMPL [--games 12] [--seconds 15]

IMPL:
  ours-serial   pufferlib.make('microrts-vs-randombiased', num_envs=1, backend='serial', num_games=G)
  ours-mp       the same with num_envs=2, num_workers=2 (2 x G games in 2 worker processes)
  gym-microrts  gym-microrts 0.6.0's own MicroRTSGridModeVecEnv (G games; needs `gym`, e.g. in
                upstream PufferLib 3.0's venv, whose own microrts wrapper does not import)
  gym-microrts-shm  its MicroRTSGridModeSharedMemVecEnv (the Java client puffer-microrts drives)

Every impl steps 16x16 basesWorkers16x16 games (2000 steps at most, the paper's reward weights)
with the same sampler: each cell's components drawn uniformly among their legal choices.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

CELL_NVEC = (6, 4, 4, 4, 4, 7, 49)
BOUNDS = np.cumsum((0, *CELL_NVEC))


def legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(rows, cells, 78) masks -> (rows, cells * 7) actions, uniform among each component's legal choices."""
    scores = rng.random(mask.shape, np.float32) + mask
    return np.stack([scores[..., a:b].argmax(-1) for a, b in zip(BOUNDS, BOUNDS[1:])], -1).reshape(len(mask), -1)


def ours(games: int, workers: int, seconds: float) -> float:
    import pufferlib

    kwargs = dict(num_envs=1, backend="serial") if workers == 0 else dict(num_envs=2, num_workers=2)
    env = pufferlib.make("microrts-vs-randombiased", num_games=games, **kwargs)
    rng = np.random.default_rng(0)
    try:
        obs, _ = env.reset(seed=0)

        leaf = next(leaf for leaf in env.obs_layout.leaves if leaf.path == ("action_mask",))

        def mask_of(o: np.ndarray) -> np.ndarray:  # the "action_mask" leaf of the flat rows
            return o[:, leaf.offset:leaf.offset + leaf.length].reshape(len(o), -1, sum(CELL_NVEC))

        for _ in range(20):  # warm-up: JIT of the JVM
            obs = env.step(legal_actions(mask_of(obs), rng))[0]
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            obs = env.step(legal_actions(mask_of(obs), rng))[0]
            steps += len(obs)
        return steps / (time.perf_counter() - start)
    finally:
        env.close()


def gym_microrts(games: int, seconds: float, shared: bool) -> float:
    from gym_microrts import microrts_ai
    from gym_microrts.envs import vec_env

    cls = vec_env.MicroRTSGridModeSharedMemVecEnv if shared else vec_env.MicroRTSGridModeVecEnv
    env = cls(num_selfplay_envs=0, num_bot_envs=games, max_steps=2000, ai2s=[microrts_ai.randomBiasedAI] * games,
              map_paths=["maps/16x16/basesWorkers16x16.xml"],
              reward_weight=np.array([10.0, 1.0, 1.0, 0.2, 1.0, 4.0]))
    rng = np.random.default_rng(0)
    env.reset()
    for _ in range(20):
        env.step(legal_actions(np.asarray(env.get_action_mask()).reshape(games, -1, 78), rng))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.step(legal_actions(np.asarray(env.get_action_mask()).reshape(games, -1, 78), rng))
        steps += games
    rate = steps / (time.perf_counter() - start)
    env.vec_client.close()  # not env.close(): it shuts the JVM down
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("impl", choices=["ours-serial", "ours-mp", "gym-microrts", "gym-microrts-shm"])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    if args.impl.startswith("ours"):
        rate = ours(args.games, 0 if args.impl == "ours-serial" else 2, args.seconds)
    else:
        rate = gym_microrts(args.games, args.seconds, args.impl.endswith("shm"))
    print(f"{args.impl}: {rate:,.0f} agent steps/s ({args.games} games per env, {args.seconds:.0f} s)")


if __name__ == "__main__":
    main()
