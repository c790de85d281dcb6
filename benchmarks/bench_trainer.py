"""PuffeRL end-to-end training speed, against Stable-Baselines3 PPO, and where its time goes.

    .venv/bin/python benchmarks/bench_trainer.py [--steps 40960] [--rounds 5] [--squared]
    .venv/bin/python benchmarks/bench_trainer.py --contended | --microbatches

cartpole  Same env (gym CartPole-v1, 8 envs, serial vectorization), same network (SB3's
          MlpPolicy: separate 64-64 tanh actor and critic), same sizes (n_steps 256,
          batch 2048, minibatch 512, 4 epochs), 1 torch thread each. Each round runs SB3,
          PuffeRL and the bare loop back to back, so that load from other processes hits
          them alike; prints median SPS and each ratio per round as median [min, max]
          (target >= 5x).
bare      The least PPO on these sizes must do, as one plain loop: CartPole's own step
          (no wrapper, no vectorizer), acting (one forward of 8 observations and a sample
          per step) and PPO updates (16 minibatches of 512); no storage, no advantages,
          no stats. No PyTorch trainer of this env and network can beat it on this CPU:
          its ratio to SB3 is the ceiling of the cartpole ratio.
profile   PuffeRL at its default config on CartPole: shares of wall time. The trainer's
          own overhead is copy + other (target <= 8%).
squared   (--squared, needs puffer-ocean) ocean-squared with an LSTM-128 policy, 4096
          envs, batch 4096x64, minibatch 32768, and the reference's defaults otherwise
          (update_epochs 1, torch on all cores); the reference library's figure on this
          CPU is 41K SPS (target >= 1.5x).
contended (--contended, needs puffer-ocean) the squared run with train.cpu_threads = 0
          (the thread count chosen by measured speed, microbatches on worker threads), in
          steady state: after `--warmup-epochs` untimed batches (the envs' episodes no longer
          start together, so an LSTM's sequences are cut at most steps), `--contended-epochs`
          batches on the quiet machine, then as many beside one busy process (a Python spin
          loop) in the same run, and the ratio (target >= 0.55x); then the same with torch
          fixed on all cores. Each loaded figure is also given against the quiet speed on one
          thread: beside a process that holds a core, one core is what the run can count on.
microbatches (--microbatches, needs puffer-ocean) steady-state SPS, quiet and beside one
          busy process, of minibatches of 32,768 steps cut into 1, 2, 4 and 8 microbatches
          (train.microbatch_size) on worker threads, for the squared LSTM-128 and for MLPs
          of hidden size 64 and 512: the measurements behind pufferlib.train.gradient's automatic
          count (marked "auto").
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager

import numpy as np
import torch
from torch import nn

import pufferlib
import pufferlib.pytorch
from pufferlib import PuffeRL
from pufferlib.cpu.threads import set_torch_threads
from pufferlib.pytorch import layer_init
from pufferlib.train.dashboard import Dashboard

#: Where the timed runs write their metrics.jsonl; removed at exit.
DATA_DIR = tempfile.TemporaryDirectory(prefix="bench_trainer_")
SIZES = dict(num_envs=8, n_steps=256, minibatch=512, epochs=4)


class SB3LikePolicy(nn.Module):
    """SB3's default MlpPolicy for discrete actions: separate 64-64 tanh actor and critic."""

    def __init__(self, env):
        super().__init__()
        obs, act = env.single_observation_space.shape[0], env.single_action_space.n

        def mlp():
            return nn.Sequential(layer_init(nn.Linear(obs, 64)), nn.Tanh(), layer_init(nn.Linear(64, 64)), nn.Tanh())

        self.pi, self.vf = mlp(), mlp()
        self.actor = layer_init(nn.Linear(64, act), std=0.01)
        self.critic = layer_init(nn.Linear(64, 1), std=1.0)

    def forward(self, obs):
        return self.actor(self.pi(obs)), self.critic(self.vf(obs))


def time_sb3(steps: int) -> float:
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import Logger

    env = make_vec_env("CartPole-v1", n_envs=SIZES["num_envs"], seed=0)
    model = PPO("MlpPolicy", env, n_steps=SIZES["n_steps"], batch_size=SIZES["minibatch"],
                n_epochs=SIZES["epochs"], device="cpu", seed=0, verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3 would otherwise leave /tmp/SB3-* folders
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    elapsed = time.perf_counter() - start
    env.close()
    return model.num_timesteps / elapsed


def time_bare_ppo(iterations: int) -> float:
    """SPS of a plain loop of the work PPO cannot skip on the cartpole sizes (see `bare` above)."""
    import gymnasium

    n, horizon, minibatch = SIZES["num_envs"], SIZES["n_steps"], SIZES["minibatch"]
    envs = [gymnasium.make("CartPole-v1").unwrapped for _ in range(n)]
    obs = np.stack([env.reset(seed=i)[0] for i, env in enumerate(envs)])
    vecenv = pufferlib.make("gym-CartPole-v1", num_envs=n)
    policy = SB3LikePolicy(vecenv)
    vecenv.close()
    batch = n * horizon
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4, fused=True)
    batch_obs, actions = torch.randn(batch, 4), torch.randint(0, 2, (batch,))
    old_logprob, advantages, returns = torch.full((batch,), -0.69), torch.randn(batch), torch.randn(batch)

    def iteration():
        with torch.inference_mode():
            for _ in range(horizon):
                logits, _ = policy(torch.from_numpy(obs))
                logp = torch.log_softmax(logits, -1)
                action = (logp - torch.empty_like(logp).exponential_().log_()).argmax(-1, keepdim=True)
                logp.gather(-1, action)
                for i, (env, a) in enumerate(zip(envs, action.view(-1).numpy())):
                    obs[i], _, terminated, truncated, _ = env.step(a)
                    if terminated or truncated:
                        obs[i] = env.reset()[0]
        for _ in range(SIZES["epochs"]):
            order = torch.randperm(batch)
            for start in range(0, batch, minibatch):
                idx = order[start:start + minibatch]
                logits, value = policy(batch_obs[idx])
                logprob = torch.log_softmax(logits, -1).gather(-1, actions[idx, None]).squeeze(-1)
                ratio = (logprob - old_logprob[idx]).exp()
                adv = advantages[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                loss = torch.max(-adv * ratio, -adv * ratio.clamp(0.8, 1.2)).mean() \
                    + 0.5 * (value.view(-1) - returns[idx]).square().mean()
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                pufferlib.pytorch.clip_grad_norm_([p.grad for p in policy.parameters()], 0.5)
                optimizer.step()

    iteration()
    start = time.perf_counter()
    for _ in range(iterations):
        iteration()
    return iterations * batch / (time.perf_counter() - start)


def run_puffer(steps: int, policy_fn=None, **train) -> tuple[float, dict]:
    env = pufferlib.make("gym-CartPole-v1", num_envs=SIZES["num_envs"], seed=0)
    policy = policy_fn(env) if policy_fn else None
    trainer = PuffeRL(env=env, policy=policy, device="cpu", total_timesteps=steps, checkpoint_interval=0,
                      data_dir=DATA_DIR.name,
                      dashboard=Dashboard(interval=1e9, rich=False, stream=io.StringIO()), **train)
    return timed_training(trainer)


def timed_training(trainer: PuffeRL) -> tuple[float, dict]:
    """(SPS, last metrics) of training to the end after one untimed warm-up batch; closes the trainer."""
    trainer.evaluate()
    trainer.train()
    trainer.mean_and_log()
    start, first = time.perf_counter(), trainer.global_step
    while not trainer.done_training():
        trainer.evaluate()
        trainer.train()
    metrics = trainer.mean_and_log()
    sps = (trainer.global_step - first) / (time.perf_counter() - start)
    trainer.close()
    return sps, metrics


def spread(values: list[float], fmt: str = "{:.2f}x") -> str:
    """median [min, max] of `values`."""
    ordered = sorted(values)
    return f"{fmt.format(statistics.median(ordered))} [{fmt.format(ordered[0])}, {fmt.format(ordered[-1])}]"


def bench_cartpole(steps: int, rounds: int) -> None:
    same = dict(batch_size=SIZES["num_envs"] * SIZES["n_steps"], minibatch_size=SIZES["minibatch"],
                update_epochs=SIZES["epochs"], learning_rate=3e-4)
    sb3, puffer, bare = [], [], []
    for _ in range(rounds):  # each round runs all three back to back: its ratios are paired
        sb3.append(time_sb3(steps))
        puffer.append(run_puffer(steps, SB3LikePolicy, **same)[0])
        bare.append(time_bare_ppo(max(1, steps // (SIZES["num_envs"] * SIZES["n_steps"]))))
    to_sb3 = [p / s for p, s in zip(puffer, sb3)]
    to_bare = [p / b for p, b in zip(puffer, bare)]
    ceiling = [b / s for b, s in zip(bare, sb3)]
    print(f"cartpole  SB3 PPO {statistics.median(sb3):,.0f} SPS | PuffeRL {statistics.median(puffer):,.0f} SPS "
          f"(medians of {rounds} rounds) | ratio {spread(to_sb3)} (target >= 5x)")
    print(f"bare      env step + acting + PPO updates, nothing else: {statistics.median(bare):,.0f} SPS = "
          f"{spread(ceiling)} SB3, the ceiling of the ratio above | PuffeRL reaches {spread(to_bare, '{:.0%}')} "
          f"of it, per round (target >= 85%)")


def bench_profile(steps: int, rounds: int) -> None:
    runs = [run_puffer(steps) for _ in range(rounds)]
    keys = ("env", "forward", "learn", "copy", "other")
    shares = {k: statistics.median(m[f"performance/{k}"] for _, m in runs) for k in keys}
    overhead = [m["performance/copy"] + m["performance/other"] for _, m in runs]
    text = "  ".join(f"{k} {v:.1%}" for k, v in shares.items())
    print(f"profile   default config, CartPole: {statistics.median(sps for sps, _ in runs):,.0f} SPS | {text} "
          f"(medians of {rounds}) | trainer overhead (copy+other) {spread(overhead, '{:.1%}')} (target <= 8%)")


def squared_trainer(epochs: int, cpu_threads: int, mlp: int = 0, **train) -> PuffeRL:
    """A trainer of ocean-squared for `epochs` batches of 4096 x 64 steps (see `squared` above);
    an LSTM-128 policy, or with `mlp` = N an MLP of hidden size N (then bptt_horizon 1)."""
    from pufferlib import models

    env = pufferlib.make("ocean-squared", num_envs=4096)
    if mlp:
        policy: nn.Module = models.Default(env, hidden_size=mlp)
    else:
        policy = models.LSTMWrapper(env, models.Default(env, hidden_size=128), input_size=128, hidden_size=128)
    batch = 4096 * 64
    return PuffeRL(env=env, policy=policy, device="cpu", batch_size=batch, minibatch_size=32768,
                   bptt_horizon=1 if mlp else 64, update_epochs=1, cpu_threads=cpu_threads, data_dir=DATA_DIR.name,
                   total_timesteps=batch * epochs, checkpoint_interval=0,
                   dashboard=Dashboard(interval=1e9, rich=False, stream=io.StringIO()), **train)


def squared_sps(epochs: int, cpu_threads: int) -> tuple[float, str]:
    """(SPS, time shares) of ocean-squared LSTM training for `epochs` timed batches after one untimed."""
    sps, metrics = timed_training(squared_trainer(epochs + 1, cpu_threads))
    shares = "  ".join(f"{k} {metrics[f'performance/{k}']:.0%}" for k in ("env", "forward", "learn", "copy", "other"))
    return sps, shares


def steady_sps(trainer: PuffeRL, warmup: int, epochs: int) -> tuple[float, float]:
    """(quiet SPS, SPS beside one busy process) of `trainer` over `epochs` batches each, after
    `warmup` untimed ones; closes the trainer."""
    def timed(n: int) -> float:
        start, first = time.perf_counter(), trainer.global_step
        for _ in range(n):
            trainer.evaluate()
            trainer.train()
        return (trainer.global_step - first) / (time.perf_counter() - start)

    try:
        timed(warmup)
        quiet = timed(epochs)
        with busy_process():
            loaded = timed(epochs)
    finally:
        trainer.close()
    return quiet, loaded


def bench_squared(epochs: int) -> None:
    # The reference's defaults for the rest: one pass over each batch, torch on every core
    # (the native env takes under 1% of the time, so both cores go to learning).
    sps, shares = squared_sps(epochs, os.cpu_count() or 1)
    print(f"squared   LSTM-128, 4096 envs: {sps:,.0f} SPS vs reference 41,000 -> {sps / 41000:.2f}x "
          f"(target >= 1.5x) | {shares}")


@contextmanager
def busy_process():
    """One CPU-bound process beside the benchmark (a Python spin loop), stopped on exit."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        yield
    finally:
        spinner.kill()
        spinner.wait()


def bench_contended(warmup: int, epochs: int) -> None:
    cores = os.cpu_count() or 1
    one_core = steady_sps(squared_trainer(warmup + epochs, 1), warmup, epochs)[0]
    for label, threads in (("tuned (cpu_threads 0)", 0), (f"fixed at {cores} threads", cores)):
        quiet, loaded = steady_sps(squared_trainer(warmup + 2 * epochs, threads), warmup, epochs)
        print(f"contended squared, {label}: quiet {quiet:,.0f} SPS | beside one busy process {loaded:,.0f} SPS "
              f"-> {loaded / quiet:.2f}x (target >= 0.55x) | {loaded / one_core:.2f}x the quiet one-thread "
              f"speed ({one_core:,.0f} SPS: what one whole core gives)", flush=True)


def bench_microbatches(warmup: int, epochs: int) -> None:
    from pufferlib.train.gradient import microbatch_count

    for label, mlp in (("LSTM-128", 0), ("MLP-64", 64), ("MLP-512", 512)):
        for count in (1, 2, 4, 8):
            trainer = squared_trainer(warmup + 2 * epochs, 0, mlp=mlp, microbatch_size=32768 // count)
            params = sum(p.numel() for p in trainer.policy.parameters() if p.requires_grad)
            auto = microbatch_count(32768, trainer.segment, 0, params, trainer.device)
            quiet, loaded = steady_sps(trainer, warmup, epochs)
            print(f"microbatches {label:8s} x{count}{' (auto)' if count == auto else '       '}: quiet {quiet:,.0f} "
                  f"SPS | beside one busy process {loaded:,.0f} SPS ({loaded / quiet:.2f}x)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=40960, help="training steps per timed run")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of SB3, PuffeRL and the bare loop back to back")
    parser.add_argument("--squared", action="store_true", help="also run the ocean-squared LSTM benchmark")
    parser.add_argument("--squared-epochs", type=int, default=2)
    parser.add_argument("--contended", action="store_true",
                        help="only the ocean-squared run quiet and beside a busy process (tuned and fixed threads)")
    parser.add_argument("--contended-epochs", type=int, default=4, help="timed batches, quiet and loaded each")
    parser.add_argument("--warmup-epochs", type=int, default=8, help="untimed batches before --contended's and "
                                                                     "--microbatches' timed ones")
    parser.add_argument("--microbatches", action="store_true",
                        help="only the microbatch sweep (1, 2, 4, 8 per minibatch), quiet and beside a busy process")
    args = parser.parse_args()
    set_torch_threads(1)
    if args.contended:
        bench_contended(args.warmup_epochs, args.contended_epochs)
        return
    if args.microbatches:
        bench_microbatches(args.warmup_epochs, args.contended_epochs)
        return
    bench_cartpole(args.steps, args.rounds)
    bench_profile(args.steps, args.rounds)
    if args.squared:
        bench_squared(args.squared_epochs)


if __name__ == "__main__":
    main()
