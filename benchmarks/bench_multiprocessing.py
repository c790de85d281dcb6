"""The multiprocessing vectorizer against Gymnasium's AsyncVectorEnv, as ratios from one run.

    .venv/bin/python benchmarks/bench_multiprocessing.py [--seconds 1.0] [--rounds 4] [--only cheap,burn]

Each comparison builds both vectorized envs, then times them in alternating rounds
(A, B, A, B, ...) so that load from other processes hits both sides alike, and prints
steps per second of each side and their ratio. The figures (issue 3):

  cheap     CartPole, 2 envs / 2 workers vs AsyncVectorEnv(2)        target >= 3x
  burn      ~100 us of CPU per step, 2 envs / 2 workers vs (2)       target >= 1.2x
  cheap16   CartPole, 16 envs / 2 workers of 8 vs AsyncVectorEnv(16)  target >= 3x
  oversub   CartPole, 8 envs: 4 workers vs 2 workers (2 cores here)   target >= 0.8x
  async     step time 10 us..1 ms at random, log-uniform (waiting, as for a simulator),
            8 envs / 8 workers: batch_size 4 (EnvPool) vs 8 (sync)   target >= 1.3x
  asynccpu  the same with the step time burnt as CPU, 2 envs / 2 workers:
            batch_size 1 vs 2 (for information: bounded by the cores)
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import pufferlib.vector


def cartpole() -> gym.Env:
    return gym.make("CartPole-v1")


def burn(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class BurnEnv(gym.Env):
    """Burns a fixed amount of CPU per step (with `jitter`: 10 us..1 ms, log-uniform at random).

    With `sleep=True` the step waits instead of burning CPU.
    """

    def __init__(self, cost_s: float = 100e-6, jitter: bool = False, sleep: bool = False):
        self.observation_space = gym.spaces.Box(-1, 1, (4,), np.float32)
        self.action_space = gym.spaces.Discrete(2)
        self.cost_s, self.jitter, self.wait = cost_s, jitter, time.sleep if sleep else burn
        self.rng = np.random.default_rng(os.getpid())
        self.t = 0

    def reset(self, seed=None, options=None):
        self.t = 0
        return np.zeros(4, np.float32), {}

    def step(self, action):
        self.t += 1
        self.wait(float(np.exp(self.rng.uniform(np.log(10e-6), np.log(1e-3)))) if self.jitter else self.cost_s)
        return np.full(4, self.t % 2, np.float32), 1.0, False, self.t >= 200, {}


def gym_stepper(creator: Callable, num_envs: int):
    """(steps one batch and returns the env-steps taken, close) for AsyncVectorEnv."""
    env = gym.vector.AsyncVectorEnv([creator] * num_envs)
    env.reset(seed=0)
    actions = np.zeros(num_envs, np.int64)

    def step() -> int:
        env.step(actions)
        return num_envs

    return step, env.close


def puffer_stepper(creator: Callable, num_envs: int, num_workers: int, batch_size: int | None = None,
                   **kwargs):
    """(steps one batch and returns the env-steps taken, close) for our multiprocessing backend."""
    vecenv = pufferlib.vector.make(creator, backend="multiprocessing", num_envs=num_envs,
                                   num_workers=num_workers, batch_size=batch_size, **kwargs)
    vecenv.async_reset(0)
    batch = vecenv.agents_per_batch
    actions = np.zeros(batch, np.int32)

    def step() -> int:
        vecenv.recv()
        vecenv.send(actions)
        return batch

    def close() -> None:
        spin = vecenv._spin
        if spin.waits:
            DIAGNOSIS.append(f"{spin.waits:,} waits for workers, {spin.waited_s / spin.waits * 1e6:.0f} us each on "
                             f"average ({spin.waited_s:.2f} s in all); {spin.spun / spin.waits:.0%} spun, and "
                             f"{spin.paid / max(1, spin.spun):.0%} of those ended within the spin; "
                             f"{spin.probes} probes, {spin.switches} switches, ending "
                             f"{'spinning' if spin.current > 0 else 'asleep'}")
        vecenv.close()

    return step, close


#: What our side's waits for workers looked like in the last comparison (see SpinPolicy).
DIAGNOSIS: list[str] = []


def compare_sides(name: str, a, b, seconds: float, rounds: int, target: float) -> float:
    """Alternate rounds of `a` and `b`; print both rates and the ratio a/b."""
    counts, times = [0, 0], [0.0, 0.0]
    steppers = [a(), b()]
    try:
        for _ in range(rounds):
            for side, (step, _) in enumerate(steppers):
                start = time.perf_counter()
                while time.perf_counter() - start < seconds / rounds:
                    counts[side] += step()
                times[side] += time.perf_counter() - start
    finally:
        for _, close in steppers:
            close()
    rates = [c / t for c, t in zip(counts, times)]
    ratio = rates[0] / rates[1]
    verdict = "ok" if ratio >= target else "BELOW TARGET"
    print(f"{name:<8} {rates[0]:>12,.0f} {rates[1]:>12,.0f} {ratio:>8.2f}x  (target >= {target}x: {verdict})",
          flush=True)
    for side, line in zip(("ours", "baseline"), DIAGNOSIS):  # the baseline has one when it is ours too
        print(f"{'':<8} {side}: {line}", flush=True)
    DIAGNOSIS.clear()
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="measuring time per side and figure")
    parser.add_argument("--rounds", type=int, default=4, help="alternations of the two sides")
    parser.add_argument("--only", default=None, help="comma-separated figures to run (default: all)")
    args = parser.parse_args(argv)
    s, r = args.seconds, args.rounds
    wanted = None if args.only is None else set(args.only.split(","))

    def compare(name: str, a, b, target: float) -> None:
        if wanted is None or name in wanted:
            compare_sides(name, a, b, s, r, target)

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cores: {os.cpu_count()}, load average: {load:.1f}; steps/s of ours, of the baseline, and the ratio\n")
    print(f"{'figure':<8} {'ours':>12} {'baseline':>12} {'ratio':>9}")
    compare("cheap", lambda: puffer_stepper(cartpole, 2, 2), lambda: gym_stepper(cartpole, 2), 3.0)
    compare("burn", lambda: puffer_stepper(BurnEnv, 2, 2), lambda: gym_stepper(BurnEnv, 2), 1.2)
    compare("cheap16", lambda: puffer_stepper(cartpole, 16, 2), lambda: gym_stepper(cartpole, 16), 3.0)
    compare("oversub", lambda: puffer_stepper(cartpole, 8, 4), lambda: puffer_stepper(cartpole, 8, 2), 0.8)
    waits = dict(env_kwargs=dict(jitter=True, sleep=True))
    compare("async", lambda: puffer_stepper(BurnEnv, 8, 8, batch_size=4, **waits),
            lambda: puffer_stepper(BurnEnv, 8, 8, **waits), 1.3)
    burns = dict(env_kwargs=dict(jitter=True))
    compare("asynccpu", lambda: puffer_stepper(BurnEnv, 2, 2, batch_size=1, **burns),
            lambda: puffer_stepper(BurnEnv, 2, 2, **burns), 1.0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
