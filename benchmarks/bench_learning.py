"""Learning table: what each shipped config reaches, over seeds, beside random play.

For each env id, trains `puffer train ID` with its shipped config for `--seeds` seeds (in
subprocesses, one at a time, logging every epoch), reads the mean episode return of the last
epoch that ended episodes and the SPS from each run's metrics.jsonl, times each `puffer train` (wall
seconds from start to exit, median over seeds), plays random actions
until 10 infos report it, and prints one Markdown row:

    | env | budget (steps) | return: median [min, max] over seeds | random play | SPS | wall time | reference |

    python benchmarks/bench_learning.py gym-Pendulum-v1 gym-Acrobot-v1 --seeds 3
    python benchmarks/bench_learning.py ocean-target --metric score --seeds 1   # Ocean's README table
    python benchmarks/bench_learning.py ocean-squared --steps 2000000   # another budget
    python benchmarks/bench_learning.py ocean-go --metric score --seeds 2 --first-seed 2   # seeds 2, 3

Each run's score and SPS also go to stderr as it ends, so seeds run apart can be combined.

`--metric` is the info key to report (`episode_return`, or an env's own such as Ocean's `score`).
Other flags (after the env ids) go to `puffer train` unchanged, to measure a variant of the
shipped config; `--data-dir DIR` keeps the runs (checkpoints, metrics.jsonl) instead of a temp dir:

    python benchmarks/bench_learning.py gym-Hopper-v5 --seeds 1 --train.minibatch-size 128

A row is a regression check: a changed config or trainer shows as a changed score.

`--against NAME` scores a game's runs by matches instead: after each run, its last checkpoint
plays `--games` games (seats alternating, `pufferlib.match.play_match`) against the env's
built-in player NAME (`scripted`, `random`), and the row reports the match score (wins + draws
/ 2) / games; the random-play column is then the score against NAME of an untrained policy
of the runs' config (its near-uniform choice among legal moves). This is how runs trained by self-play are scored:

    python benchmarks/bench_learning.py ocean-hex --against scripted --env.opponent none --selfplay.enabled true
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: published or stated references, with their source
REFERENCES = {
    "gym-Pendulum-v1": "about -200 (tuned PPO; rl-baselines3-zoo PPO)",
    "gym-MountainCarContinuous-v0": "90, Gymnasium's reward threshold, reached by RL Zoo's tuned PPO with gSDE in 20k "
                                    "steps (huggingface.co/sb3/ppo-MountainCarContinuous-v0)",
    "gym-HalfCheetah-v5": "1,400-1,900 at 1M on v4 (CleanRL ppo_continuous_action); 5,836 +- 172 at 1M on v3 "
                          "(RL Zoo's tuned PPO, deterministic eval: huggingface.co/sb3/ppo-HalfCheetah-v3)",
    "gym-Hopper-v5": "2,410 +- 10 at 1M on v3 (RL Zoo's tuned PPO, deterministic eval: "
                     "huggingface.co/sb3/ppo-Hopper-v3); target >= 1,500",
    "gym-Walker2d-v5": "3,572 +- 808 at 1M on v3 (RL Zoo PPO, deterministic eval: huggingface.co/sb3/ppo-Walker2d-v3)",
    "gym-CartPole-v1": "500 (the maximum)",
}


def train_run(env_id: str, seed: int, steps: int | None, data_dir: Path, metric: str,
              overrides: list[str] = ()) -> tuple[float, float, Path, float]:
    """(the info `metric`'s mean over the last epoch that reported it, mean SPS of the run's epochs,
    the run folder, the wall seconds of `puffer train` from start to exit) of one run
    (`overrides`: more `puffer train` flags)."""
    # One log step per epoch: the last one then holds the last epoch's episodes, however fast the
    # machine (with timed log steps, a short run's last step averaged over most of its training).
    argv = [sys.executable, "-m", "pufferlib", "train", env_id, "--train.seed", str(seed), "--vec.seed",
            str(seed * 1000), "--train.data-dir", str(data_dir), "--train.log-interval", "0"]
    if steps:
        argv += ["--train.total-timesteps", str(steps)]
    argv += list(overrides)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    metrics = sorted(data_dir.glob("*/metrics.jsonl"), key=lambda p: p.stat().st_mtime)[-1]
    rows = [json.loads(line) for line in metrics.read_text().splitlines()[1:] if line.strip()]
    returns = [r[f"environment/{metric}"] for r in rows if f"environment/{metric}" in r]
    sps = [r["SPS"] for r in rows if "SPS" in r]
    return ((returns[-1] if returns else float("nan")), (statistics.mean(sps) if sps else float("nan")),
            metrics.parent, seconds)


def match_score(env_id: str, player: object, against: str, games: int, seed: int) -> float:
    """The match score of `player` (a run folder or an Agent) against the built-in player `against`
    over `games` games, seats alternating (printed to stderr with its interval)."""
    from pufferlib.match import play_match

    result = play_match(env_id, player, against, games, seed=seed)
    print(f"  {result.summary()}", file=sys.stderr, flush=True)
    return result.score


def untrained_score(env_id: str, against: str, games: int, run_dir: Path) -> float:
    """An untrained policy of the config the run `run_dir` trained with (its env arguments and policy,
    from its metrics.jsonl header) against `against` (`match_score`)."""
    from pufferlib.agent import build

    header = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[0])
    return match_score(env_id, build(env_id, header["config"]), against, games, 0)


def random_play(env_id: str, metric: str, reports: int = 10) -> float:
    """Mean of the info `metric` over the first `reports` infos that carry it, acting uniformly at
    random: among the legal actions where the env's observation has an "action_mask" (Discrete)."""
    import torch

    import pufferlib
    from pufferlib.pytorch import action_mask

    env = pufferlib.make(env_id, num_envs=1, seed=0)
    returns: list[float] = []
    rng = np.random.default_rng(0)
    try:
        obs, _ = env.reset(seed=0)
        space = env.single_action_space
        space.seed(0)  # the same random play on every run
        while len(returns) < reports:
            actions = np.stack([space.sample() for _ in range(env.num_agents)])
            masks = action_mask(torch.from_numpy(np.asarray(obs)), getattr(env, "obs_layout", None))
            if masks is not None:
                for row, legal in enumerate(masks.numpy()):
                    if legal.any():
                        actions[row] = rng.choice(np.flatnonzero(legal))
            obs, _, _, _, infos = env.step(actions)
            returns += [float(i[metric]) for i in infos if metric in i]
    finally:
        env.close()
    return float(np.mean(returns[:reports]))


def budget(env_id: str, steps: int | None) -> int:
    """The run's total_timesteps: `steps`, else the env's shipped config, else the core default."""
    from pufferlib import config

    if steps:
        return steps
    spec_config, _ = config.env_config(env_id)
    return int(config.merge(config.load_default(), spec_config)["train"]["total_timesteps"])


def stop_on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM ends the benchmark as Ctrl-C does: the running `puffer train` is killed and the temp dir removed."""
    raise SystemExit(128 + signum)


def main() -> None:
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("env_ids", nargs="+")
    parser.add_argument("--seeds", type=int, default=3, help="how many seeds (default 3)")
    parser.add_argument("--first-seed", type=int, default=1,
                        help="seeds run are FIRST_SEED .. FIRST_SEED + SEEDS - 1 (default 1)")
    parser.add_argument("--steps", type=int, default=None, help="override total_timesteps")
    parser.add_argument("--metric", default="episode_return", help="info key to report (default episode_return)")
    parser.add_argument("--data-dir", default=None, help="keep the runs under DIR/ENV/SEED (default: a temp dir)")
    parser.add_argument("--against", default=None, help="score each run by a match against this built-in player")
    parser.add_argument("--games", type=int, default=1000, help="games of each --against match (default 1000)")
    args, overrides = parser.parse_known_args()
    scored = f"match score against {args.against}" if args.against else args.metric
    baseline = "untrained policy" if args.against else "random play"
    print(f"| env | budget (steps) | {scored}: median [min, max] | seeds | {baseline} | SPS | wall time | reference |")
    print("|---|---|---|---|---|---|---|---|")
    for env_id in args.env_ids:
        with (contextlib.nullcontext(Path(args.data_dir) / env_id) if args.data_dir
              else tempfile.TemporaryDirectory()) as runs_dir:
            root = Path(runs_dir)
            results = []
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                score, rate, run_dir, seconds = train_run(env_id, seed, args.steps, root / str(seed), args.metric,
                                                          overrides)
                if args.against:
                    score = match_score(env_id, str(run_dir), args.against, args.games, seed)
                results.append((score, rate, seconds))
                print(f"{env_id} seed {seed}: {scored} {score:.4g}, {rate:,.0f} SPS, {seconds:.0f} s", file=sys.stderr,
                      flush=True)
            baseline_score = (untrained_score(env_id, args.against, args.games, run_dir) if args.against
                              else random_play(env_id, args.metric))
        scores = [r[0] for r in results]
        sps = statistics.median(r[1] for r in results)
        wall = statistics.median(r[2] for r in results)
        print(f"| {env_id} | {budget(env_id, args.steps):,} | {number(statistics.median(scores))} "
              f"[{number(min(scores))}, {number(max(scores))}] | {len(scores)} | "
              f"{number(baseline_score)} | "
              f"{sps:,.0f} | {wall:,.0f} s | "
              f"{REFERENCES.get(env_id, '')} |", flush=True)


def number(x: float) -> str:
    """A score for the table: one decimal from 10 up (1,904.0), three significant digits below (0.853, 1.00)."""
    return f"{x:,.1f}" if abs(x) >= 10 else f"{x:#.3g}"


if __name__ == "__main__":
    main()
