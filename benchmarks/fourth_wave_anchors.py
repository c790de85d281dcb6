"""Anchors of ocean-tactical, ocean-robocode and ocean-rocket_lander: what random play and the
scripted players score, the figures their README rows stand beside.

For each env and seed, `--copies` copies step `--steps` times from `reset(seed=SEED)`; the row
gives the env's logged stats over the episodes finished, median [min, max] over the seeds:
- rocket_lander: uniformly random actions, and a scripted lander (`scripted_lander`: lean against
  the drift, hold a sink rate that shrinks near the ground; the observation only);
- tactical and robocode: the agent's seat played by random play (tactical: a random legal
  destination) against each built-in opponent ("scripted", "random"), and the scripted player
  against random play (both seats built-in players, `opponent` "none": the share of games the
  scripted seat wins, read from the outcomes).

    python benchmarks/fourth_wave_anchors.py [--seeds 3] [--copies 256] [--steps 3000]
"""

from __future__ import annotations

import argparse

import numpy as np
from anchors import spread

from puffer_ocean import envs
from puffer_ocean.rocket_lander import scripted_lander


def random_actions(env, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniformly random actions; a random legal one where the observation leads with them."""
    space = env.single_action_space
    if getattr(env, "legal_actions", False):
        legal = obs[:, :space.n] > 0
        return (rng.random(legal.shape) * legal).argmax(1).astype(np.int32)
    if hasattr(space, "nvec"):
        return np.stack([rng.integers(0, n, env.num_agents) for n in space.nvec], 1).astype(np.int32)
    return rng.integers(0, space.n, env.num_agents).astype(np.int32)


def play(cls, seed: int, copies: int, steps: int, player: str, **kwargs) -> dict:
    """The logged stats of `player` ("random" or "scripted_lander") over `steps` steps."""
    env = cls(num_envs=copies, log_interval=10**9, **kwargs)
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            actions = scripted_lander(obs) if player == "scripted_lander" else random_actions(env, obs, rng)
            obs, *_ = env.step(actions)
        return env.log() or {}
    finally:
        env.close()


def seat_share(cls, seed: int, copies: int, steps: int) -> dict:
    """The share of games won (draws half) by the scripted player seated against random play."""
    env = cls(num_envs=copies, opponent="none")
    try:
        env.players[:] = np.tile([1, 2], copies)  # seat 0 scripted, seat 1 random
        env.reset(seed=seed)
        outcomes: list[float] = []
        actions = np.zeros((env.num_agents, *env.single_action_space.shape), np.int32)
        for _ in range(steps):
            _, _, term, _, _ = env.step(actions)
            outcomes += env.outcomes[0::2][term[0::2]].tolist()
        return {"score": float(np.mean(outcomes)), "n": len(outcomes)} if outcomes else {}
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--copies", type=int, default=256)
    parser.add_argument("--steps", type=int, default=3000)
    args = parser.parse_args()
    seeds = range(1, args.seeds + 1)
    cases = [
        ("rocket_lander", "random play", lambda s: play(envs.RocketLander, s, args.copies, args.steps, "random")),
        ("rocket_lander", "scripted lander",
         lambda s: play(envs.RocketLander, s, args.copies, args.steps, "scripted_lander")),
    ]
    for name, cls in (("tactical", envs.Tactical), ("robocode", envs.Robocode)):
        for opponent in ("scripted", "random"):
            cases.append((name, f"random play against the {opponent} opponent",
                          lambda s, cls=cls, o=opponent: play(cls, s, args.copies, args.steps, "random", opponent=o)))
        cases.append((name, "the scripted player against random play (seats)",
                      lambda s, cls=cls: seat_share(cls, s, args.copies, args.steps)))
    print(f"{args.copies} copies x {args.steps} steps per seed, seeds 1-{args.seeds}; median [min, max] over seeds")
    print("| env | player | score | other stats | episodes per seed |")
    print("|---|---|---|---|---|")
    for name, player, run in cases:
        logs = [run(seed) for seed in seeds]
        if not all(logs):  # a seed whose steps ended no episode has no figures: say so, not a KeyError
            print(f"| {name} | {player} | no episode ended in {args.steps:,} steps of seed(s) "
                  f"{[s for s, log in zip(seeds, logs) if not log]}: raise --steps | - | - |", flush=True)
            continue
        keys = [k for k in logs[0] if k not in ("score", "n", "episode_return", "episode_length")]
        others = ", ".join(f"{k} {spread([log[k] for log in logs])}" for k in keys)
        print(f"| {name} | {player} | {spread([log['score'] for log in logs])} | {others or '-'} | "
              f"{spread([log['n'] for log in logs])} |", flush=True)


if __name__ == "__main__":
    main()
