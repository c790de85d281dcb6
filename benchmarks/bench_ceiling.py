"""Training speed of an env's shipped config against its ceilings on this machine.

For each env id, with the config `puffer train ENV_ID` would use (built by the CLI's own
`pufferlib.cli.options.parse_config`: default.toml, the plugin's spec config, then any extra
flags given here), one after another in one process run:

env alone  The vectorized env the trainer builds (`make_from_config`, same backend, num_envs,
           workers and env batch), stepped through `async_reset`/`send`/`recv` as the rollout
           steps it, with uniformly random actions (pre-drawn) and no policy, for `--seconds`:
           agent steps per wall second. Then one batch of observations is collected
           (untimed) for the policy measurements below.
acting     The shipped policy (`make_policy` + `normalize.wrap`, as `puffer train` and PuffeRL
           build it) acting through the trainer's `Actor` under `torch.inference_mode` on one
           recv's rows of real observations (the LSTM state kept and reset as the rollout
           does): seconds per row, over `--seconds`.
update     PPO updates as `PuffeRL._update` runs them: the trainer's `Gradient` (microbatches
           and worker threads as it chooses), `clip_grad_norm_`, the optimiser of
           `PuffeRL._make_optimizers`, over the collected batch (random actions, advantages and
           returns; real episode starts for an LSTM) cut into the shipped minibatches, for
           `update_epochs` passes (and longer, until `--seconds`): seconds per sample of the
           batch. The trainer's minibatch gathers, advantages and storage writes are left out.
           Acting and the update are timed at each torch thread count the trainer may use
           (`train.cpu_threads`, or with 0 every count its ThreadTuner tries); the fastest
           count (least acting + update per sample) gives the policy ceiling.
ceilings   policy = 1 / (acting + update per sample); serial = 1 / (1/env + 1/policy): the bound
           where env stepping and the policy take turns on the same cores (as the rollout and
           the update do); min(env, policy) is the bound if they could overlap fully.
training   `puffer train ENV_ID` (a subprocess, the same flags, `--train-steps` agent steps,
           default 6 batches) in a temporary data dir (or `--data-dir`): the median SPS of its
           metrics.jsonl log steps, the first dropped as warm-up (short runs log every epoch).

    python benchmarks/bench_ceiling.py atari-breakout nethack-score procgen-coinrun
    python benchmarks/bench_ceiling.py procgen-coinrun --seconds 3 --train-steps 49152
    python benchmarks/bench_ceiling.py atari-breakout --train.cpu-threads 2   # a variant config

`--train-steps 0` measures the ceilings only. Speeds of other processes on the machine count
against every figure: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

#: Training batches run by default: the first log step is dropped, five remain.
DEFAULT_BATCHES = 6
#: The most seconds a training subprocess may take before it is stopped.
TRAIN_TIMEOUT = 3600


# -- the pure parts: bounds, shares, reading a run's SPS ----------------------------------------
def policy_ceiling(act_s: float, update_s: float) -> float:
    """Samples/s the policy alone allows: 1 / (acting + update seconds per sample)."""
    return 1.0 / (act_s + update_s)


def serial_bound(env_sps: float, policy_sps: float) -> float:
    """Samples/s when the env and the policy take turns: 1 / (1/env + 1/policy)."""
    return 1.0 / (1.0 / env_sps + 1.0 / policy_sps)


def binding(env_sps: float, policy_sps: float) -> tuple[str, float]:
    """("env" or "policy", its share of the serial time per sample): the slower of the two."""
    serial = serial_bound(env_sps, policy_sps)
    return ("env", serial / env_sps) if env_sps < policy_sps else ("policy", serial / policy_sps)


def percent(value: float, bound: float) -> float:
    """`value` as a percentage of `bound`."""
    return 100.0 * value / bound


def training_sps(metrics: Path) -> tuple[float, int]:
    """(median SPS, log steps it is taken over) of a run's metrics.jsonl: the lines with an SPS
    (not the config line, nor the episode stats written at close), the first dropped as
    warm-up; (nan, 0) when none is left."""
    rows = [json.loads(line) for line in metrics.read_text().splitlines() if line.strip()]
    sps = [float(row["SPS"]) for row in rows if isinstance(row.get("SPS"), (int, float))][1:]
    return (statistics.median(sps), len(sps)) if sps else (math.nan, 0)


@dataclass(frozen=True)
class Result:
    """One env's figures: env alone (SPS), acting and update (seconds per sample), training SPS."""

    env_id: str
    env_sps: float
    act_s: float
    update_s: float
    train_sps: float = math.nan
    train_steps: int = 0  # log steps the training figure is a median of

    @property
    def policy_sps(self) -> float:
        return policy_ceiling(self.act_s, self.update_s)

    @property
    def serial_sps(self) -> float:
        return serial_bound(self.env_sps, self.policy_sps)

    def verdict(self) -> str:
        """The line that says which bound holds training back, and how close it comes."""
        name, share = binding(self.env_sps, self.policy_sps)
        parallel = min(self.env_sps, self.policy_sps)
        text = f"bound: {name} ({share:.0%} of the serial time per sample is the {name}'s)"
        if not math.isnan(self.train_sps):
            text += (f"; training at {percent(self.train_sps, self.serial_sps):.0f}% of the serial bound "
                     f"({percent(self.train_sps, parallel):.0f}% of min(env, policy))")
        return text

    def row(self) -> str:
        """A Markdown table row (see `TABLE_HEAD`)."""
        trained = "-" if math.isnan(self.train_sps) else f"{self.train_sps:,.0f}"
        share = "-" if math.isnan(self.train_sps) else f"{percent(self.train_sps, self.serial_sps):.0f}%"
        return (f"| {self.env_id} | {self.env_sps:,.0f} | {self.act_s * 1e3:.4f} | {self.update_s * 1e3:.4f} | "
                f"{self.policy_sps:,.0f} | {self.serial_sps:,.0f} | {trained} | {share} | "
                f"{binding(self.env_sps, self.policy_sps)[0]} |")


TABLE_HEAD = ("| env | env alone (SPS) | acting (ms/sample) | update (ms/sample) | policy ceiling (SPS) | "
              "serial bound (SPS) | training (SPS) | of the serial bound | bound |\n"
              "|---|---|---|---|---|---|---|---|---|")


# -- measuring ----------------------------------------------------------------------------------
def shipped_config(env_id: str, flags: list[str]) -> dict[str, Any]:
    """The config `puffer train ENV_ID FLAGS...` trains with (its own parser and layers)."""
    from pufferlib.cli.options import base_parser, parse_config

    return parse_config(base_parser("bench_ceiling.py", None), [env_id, *flags])[0]


def _sync(device: Any) -> None:
    if device.type == "cuda":
        import torch

        torch.cuda.synchronize(device)


def step_env(env: Any, actions: list[Any], seconds: float) -> float:
    """Agent steps/s of `env` (already async-reset and received once) sending `actions` in turn."""
    rows, n = env.agents_per_batch, 0
    for i in range(10):  # warm-up
        env.send(actions[i % len(actions)])
        env.recv()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.send(actions[n % len(actions)])
        env.recv()
        n += 1
    return n * rows / (time.perf_counter() - start)


def collect(env: Any, actions: list[Any], batch: int) -> tuple[Any, Any, Any, Any]:
    """(observations, actions sent, episode starts) of `batch` agent steps, rows in the order of
    the trainer's storage (each agent row's steps in time order, when every recv() returns all
    rows), and the last recv()'s observations."""
    import numpy as np

    obs, sent, starts = [], [], []
    last = None
    for i in range(-(-batch // env.agents_per_batch)):
        act = actions[i % len(actions)]
        env.send(act)
        last, _, terminals, truncations, *_ = env.recv()
        obs.append(np.array(last, copy=True))
        sent.append(np.array(act, copy=True))
        starts.append(np.asarray(terminals) | np.asarray(truncations))
    out = [np.stack(x) for x in (obs, sent, starts)]  # (steps, rows, ...)
    if env.agents_per_batch == env.num_agents:
        out = [x.swapaxes(0, 1) for x in out]  # (rows, steps, ...)
    out = [np.ascontiguousarray(x.reshape(-1, *x.shape[2:])[:batch]) for x in out]
    assert last is not None
    return out[0], out[1], out[2], np.array(last, copy=True)


def measure(env_id: str, config: dict[str, Any], seconds: float) -> tuple[Result, str]:
    """(env-alone SPS with acting and update per sample at the fastest thread count, a description
    of what was measured: the env, the policy, the sizes, each thread count's figures); see the module doc."""
    import numpy as np

    from pufferlib.agent import AgentSpaces
    from pufferlib.config import load_default
    from pufferlib.pufferl import PuffeRL, _resolve_device, seed_everything
    from pufferlib.registry.make import make_from_config
    from pufferlib.train import normalize
    from pufferlib.train.policy import make_policy

    cfg = config["train"]
    env = make_from_config(env_id, config, 0)
    try:
        seed_everything(cfg)
        policy = normalize.wrap(make_policy(env, config, env_id=env_id), env, config["normalize"], cfg["gamma"])
        segment = cfg["bptt_horizon"] if getattr(policy, "is_recurrent", False) else 1
        PuffeRL._fit_sizes(cfg, load_default()["train"], env.num_agents, segment)  # the trainer's sizes
        spaces = replace(AgentSpaces.of(env), num_agents=env.agents_per_batch)
        space = env.single_action_space
        space.seed(0)
        actions = [np.stack([space.sample() for _ in range(env.agents_per_batch)]) for _ in range(16)]
        env.async_reset()
        env.recv()
        env_sps = step_env(env, actions, seconds)
        obs, sent, starts, step_obs = collect(env, actions, cfg["batch_size"])
        spec_backend = getattr(getattr(env, "spec", None), "backend", None)
        what = (f"{type(env).__name__} vectorizer{f' of a {spec_backend} env' if spec_backend else ''}, "
                f"{env.num_agents} agent rows, {env.agents_per_batch} per recv; "
                f"policy {type(policy).__name__} "
                f"({sum(p.numel() for p in policy.parameters() if p.requires_grad):,} parameters); batch "
                f"{cfg['batch_size']}, minibatch {cfg['minibatch_size']}, {cfg['update_epochs']} epoch(s)")
    finally:
        env.close()
    device = _resolve_device(str(cfg["device"]))
    timings = time_policy(policy, spaces, config, device, step_obs, (obs, sent, starts), seconds)
    best = min(timings, key=lambda n: sum(timings[n]))
    tried = "; ".join(f"{n}: acting {a * 1e3:.4f}, update {u * 1e3:.4f} ms/sample" for n, (a, u) in timings.items())
    what += (f"; device {device}\n  torch threads tried ({tried}): the policy figures below are at {best}, "
             f"the fastest")
    return Result(env_id, env_sps, *timings[best]), what


def time_policy(policy: Any, spaces: Any, config: dict[str, Any], device: Any, step_obs: Any,
                batch: tuple[Any, Any, Any], seconds: float) -> dict[int, tuple[float, float]]:
    """{torch threads: (acting, update) seconds per sample} at each count the trainer may use."""
    import functools
    from contextlib import nullcontext
    from types import SimpleNamespace

    import torch

    import pufferlib.pytorch
    from pufferlib.cpu.cores import usable_cores
    from pufferlib.cpu.threads import candidate_counts, set_torch_threads, torch_threads
    from pufferlib.pufferl import PuffeRL
    from pufferlib.train import ppo
    from pufferlib.train.acting import ALL_ROWS, Actor
    from pufferlib.train.gradient import Gradient, microbatch_count

    cfg = config["train"]
    recurrent = bool(getattr(policy, "is_recurrent", False))
    segment = cfg["bptt_horizon"] if recurrent else 1
    policy = policy.to(device)
    forward_policy = torch.compile(policy) if cfg["compile"] else policy
    optimizers = PuffeRL._make_optimizers(SimpleNamespace(policy=policy, device=device), cfg)  # type: ignore[arg-type]
    params = [p for opt in optimizers for group in opt.param_groups for p in group["params"]]
    autocast = (functools.partial(torch.autocast, device.type, torch.bfloat16)
                if cfg["precision"] == "bfloat16" and device.type == "cuda" else nullcontext)
    actor = Actor(spaces, forward_policy, device)
    count = microbatch_count(cfg["minibatch_size"], segment, cfg["microbatch_size"], sum(p.numel() for p in params),
                             device)
    threads = (cfg["cpu_threads"] or usable_cores()) if device.type == "cpu" and not cfg["compile"] else 1
    loss = ppo.LossConfig(cfg["clip_coef"], cfg["vf_coef"], cfg["vf_clip_coef"], cfg["ent_coef"], cfg["norm_adv"])
    gradient = Gradient(policy, forward_policy, recurrent, actor.action_mask, actor.nvec, loss, params, autocast,
                        count, threads)

    obs, sent, starts = batch
    segments = cfg["batch_size"] // segment
    gen = torch.Generator().manual_seed(0)
    act_dtype = torch.float32 if actor.box else torch.int64
    tensors = [torch.from_numpy(obs).view(segments, segment, *obs.shape[1:]).to(device),
               torch.from_numpy(sent).to(act_dtype).reshape(segments, segment, *((len(actor.nvec),) if actor.nvec
                                                                                 else sent.shape[1:])).to(device)]
    if recurrent:
        hidden = torch.zeros(segments, actor.h.shape[1], device=device)
        tensors += [hidden, hidden.clone(), torch.from_numpy(starts).view(segments, segment).to(device)]
    fields = [torch.full((segments, segment), -1.0), *(torch.randn(segments, segment, generator=gen) for _ in range(3))]
    fields = [f.to(device) for f in fields]
    per = cfg["minibatch_size"] // segment
    minibatches = segments // per

    def update(i: int) -> None:
        part = slice(i * per, (i + 1) * per)
        gradient(tuple(f[part] for f in fields), tuple(t[part] for t in tensors), None)
        pufferlib.pytorch.clip_grad_norm_([p.grad for p in params if p.grad is not None], cfg["max_grad_norm"])
        for opt in optimizers:
            opt.step()

    rows = step_obs.shape[0]
    step_t = torch.from_numpy(step_obs).to(device)
    no_starts = torch.zeros(rows, dtype=torch.bool, device=device)

    def act(_: int) -> None:
        state = actor.state(ALL_ROWS, no_starts)
        action, _, _, new_state = actor.act(step_t, state)
        actor.keep_state(ALL_ROWS, new_state)
        actor.to_env(action)

    if device.type != "cpu":
        counts = [torch.get_num_threads()]
    else:
        counts = [cfg["cpu_threads"]] if cfg["cpu_threads"] > 0 else candidate_counts(usable_cores())
    timings = {}
    try:
        for n in counts:
            set_torch_threads(n)
            policy.eval()
            with torch.inference_mode():
                act_s = timed(act, 5, 0, seconds, device) / rows
            policy.train()
            with torch_threads(1) if gradient.workers is not None else nullcontext():
                per_step = timed(update, 1, minibatches * cfg["update_epochs"], seconds, device, minibatches)
            timings[n] = (act_s, per_step / cfg["minibatch_size"] * cfg["update_epochs"])
    finally:
        gradient.close()
    return timings


def timed(fn: Any, warmup: int, at_least: int, seconds: float, device: Any, cycle: int = 1) -> float:
    """Mean seconds per call of `fn(i % cycle)` after `warmup` untimed calls, over at least
    `at_least` calls and at least `seconds`."""
    for i in range(warmup):
        fn(i % cycle)
    _sync(device)
    n, start = 0, time.perf_counter()
    while n < at_least or time.perf_counter() - start < seconds:
        fn(n % cycle)
        n += 1
    _sync(device)
    return (time.perf_counter() - start) / n


def train(env_id: str, steps: int, flags: list[str], data_dir: Path) -> tuple[float, int]:
    """(median SPS, log steps) of `puffer train ENV_ID FLAGS` for `steps` agent steps (see `training_sps`)."""
    argv = [sys.executable, "-m", "pufferlib", "train", env_id, *flags, "--train.data-dir", str(data_dir),
            "--train.total-timesteps", str(steps)]
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=TRAIN_TIMEOUT)
    if done.returncode:
        raise RuntimeError(f"{' '.join(argv)} exited with {done.returncode}:\n{done.stderr[-3000:]}")
    runs = sorted(data_dir.glob("*/metrics.jsonl"), key=lambda p: p.stat().st_mtime)
    if not runs:
        raise RuntimeError(f"{' '.join(argv)} wrote no metrics.jsonl under {data_dir}")
    return training_sps(runs[-1])


def machine() -> str:
    """CPU model and core counts, torch version and its thread count, date and load average."""
    import torch

    from pufferlib.cpu.cores import usable_cores

    model = platform_cpu()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{model}, {os.cpu_count()} cores ({usable_cores()} usable) | torch {torch.__version__}, "
            f"{torch.get_num_threads()} intra-op threads at start | {time.strftime('%Y-%m-%d %H:%M %Z')} | "
            f"load average {load}")


def platform_cpu() -> str:
    """The CPU's model name from /proc/cpuinfo, else platform.processor()."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or "unknown CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("env_ids", nargs="+", metavar="ENV_ID")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="seconds of env stepping, of acting, and at least of updates, per thread count")
    parser.add_argument("--train-steps", type=int, default=None,
                        help=f"agent steps of the training run (default {DEFAULT_BATCHES} batches; 0: no training)")
    parser.add_argument("--data-dir", default=None, help="keep the training runs under DIR (default: a temp dir)")
    args, flags = parser.parse_known_args()
    print(f"bench_ceiling: {machine()}")
    print("method: env alone = the trainer's vectorized env with random actions; acting = Actor.act on one recv's "
          "rows; update = Gradient + clip + optimiser over the batch's minibatches x update_epochs; policy = "
          "1/(acting+update); serial = 1/(1/env+1/policy); training = median SPS of puffer train's log steps, "
          "first dropped (see the module doc)", flush=True)
    results = []
    for env_id in args.env_ids:
        config = shipped_config(env_id, flags)
        result, what = measure(env_id, config, args.seconds)
        batch = config["train"]["batch_size"]
        steps = DEFAULT_BATCHES * batch if args.train_steps is None else args.train_steps
        print(f"\n{env_id}: {what}")
        print(f"  env alone       {result.env_sps:12,.0f} SPS")
        print(f"  acting          {result.act_s * 1e3:12.4f} ms/sample")
        print(f"  update          {result.update_s * 1e3:12.4f} ms/sample")
        print(f"  policy ceiling  {result.policy_sps:12,.0f} SPS")
        print(f"  serial bound    {result.serial_sps:12,.0f} SPS  (1 / (1/env + 1/policy))", flush=True)
        if steps > 0:
            with tempfile.TemporaryDirectory(prefix="bench_ceiling_") as tmp:
                root = Path(args.data_dir) / env_id if args.data_dir else Path(tmp)
                sps, logged = train(env_id, steps, flags, root)
            result = replace(result, train_sps=sps, train_steps=logged)
            print(f"  training        {sps:12,.0f} SPS  (median of {logged} log step(s) of a {steps:,}-step run, "
                  f"the first dropped)")
        print(f"  {result.verdict()}", flush=True)
        results.append(result)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nload average at the end: {load}\n{TABLE_HEAD}")
    for result in results:
        print(result.row())


if __name__ == "__main__":
    main()
