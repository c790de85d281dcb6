"""Run part of the bsuite sweep with the shipped policy and print bsuite's scores beside random play's.

    python benchmarks/sweep.py RESULTS_DIR [--ids memory_len/0 deep_sea/0 ...] [--episodes N]
                               [--seed S] [--max-steps N] [--set train.learning_rate=0.001 ...]

For each bsuite id (experiment/setting, as bsuite's `sweep.SWEEP` names them) it follows bsuite's
protocol twice, each time for the setting's `bsuite_num_episodes` episodes (10,000; 1,000 for the
cartpole, mountain car and discounting chain experiments) or `--episodes`:

- `ppo`: PuffeRL with the id's shipped config (the core's MLP under its LSTM, 16 copies) learns
  online; every episode its copies play counts, in the order they end (bsuite judges what an agent
  does while it learns). Training stops once the episodes are played, or at `--max-steps`.
- `random`: uniformly random actions.

Both write bsuite's own CSV logs (`puffer_bsuite.scoring.Recorder`, bsuite's `csv_logging.Logger`)
into RESULTS_DIR/ppo and RESULTS_DIR/random (which must not hold logs of the same ids yet), and
PuffeRL's metrics.jsonl into RESULTS_DIR/ppo/runs/. The table at the end gives, per experiment,
bsuite's standard score (`bsuite.experiments.<experiment>.analysis.score`, 0 to 1) over the
settings that were run; bsuite's published scores average all of an experiment's settings, so a
subset's score is that subset's. The default subset is the one the README reports.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

#: The README's subset: memory (memory_len), exploration (deep_sea) and credit assignment
#: (umbrella_length) at their settings of lengths 1, 3, 5 and 10 (deep sea: sizes 10 and 12):
#: 640,000 agent steps of training, about 15 minutes of a busy 2-core CPU.
DEFAULT_IDS = ("memory_len/0", "memory_len/2", "memory_len/4", "memory_len/9",
               "deep_sea/0", "deep_sea/1",
               "umbrella_length/0", "umbrella_length/2", "umbrella_length/4", "umbrella_length/9")


def parse_sets(items: list[str]) -> dict:
    """{'train': {'learning_rate': 0.001}} from ['train.learning_rate=0.001'] (values: Python literals)."""
    import ast

    out: dict = defaultdict(dict)
    for item in items:
        key, sep, text = item.partition("=")
        section, dot, name = key.partition(".")
        if not sep or not dot:
            raise SystemExit(f"--set {item!r}: write SECTION.KEY=VALUE, e.g. train.learning_rate=0.001")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        out[section][name] = value
    return dict(out)


def train(bsuite_id: str, folder: Path, episodes: int | None, seed: int, max_steps: int, sets: dict):
    """Train the shipped policy on `bsuite_id` until its episodes are played; returns the recorder."""
    import pufferlib.vector
    from puffer_bsuite import specs
    from puffer_bsuite.env import make
    from puffer_bsuite.scoring import Recorder, parse_bsuite_id
    from pufferlib.config import load_default, merge
    from pufferlib.pufferl import PuffeRL
    from pufferlib.registry import spec
    from pufferlib.train.dashboard import Dashboard
    from pufferlib.train.policy import make_policy

    experiment, setting = parse_bsuite_id(bsuite_id)
    env_id = specs.env_id(experiment)
    env_spec = spec(env_id)
    config = merge(load_default(), {"env": {**env_spec.kwargs, "setting": setting}}, env_spec.config,
                   {"train": {"seed": seed, "total_timesteps": max_steps, "anneal_lr": False,
                              "checkpoint_interval": 0, "device": "cpu"}}, sets)
    recorder = Recorder(bsuite_id, folder, episodes)

    def creator(**kwargs):
        env = make(**kwargs)
        recorder.watch(env)
        return env

    vecenv = pufferlib.vector.make(creator, env_kwargs=config["env"], backend="serial",
                                   num_envs=config["vec"]["num_envs"], seed=seed)
    policy = make_policy(vecenv, config, env_id=env_id)
    safe = bsuite_id.replace("/", "-")
    trainer = PuffeRL(config, vecenv, policy, env_id=env_id, run_dir=folder / "runs" / safe,
                      dashboard=Dashboard(f"{env_id} setting {setting}", 60.0, stream=sys.stderr, rich=False))
    try:
        while not recorder.done and not trainer.done_training():
            trainer.evaluate()
            trainer.train()
            trainer.mean_and_log()
    finally:
        trainer.close()
        recorder.close()
    return recorder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results_dir", type=Path, help="where bsuite's CSV logs go (ppo/ and random/ in it)")
    parser.add_argument("--ids", nargs="+", default=list(DEFAULT_IDS), help="bsuite ids (experiment/setting)")
    parser.add_argument("--episodes", type=int, default=None, help="episodes per setting (default: bsuite's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=2_000_000, help="agent steps at most per setting")
    parser.add_argument("--set", nargs="*", default=[], metavar="SECTION.KEY=VALUE",
                        help="config overrides, e.g. train.learning_rate=0.001 rnn.hidden_size=128")
    parser.add_argument("--skip-random", action="store_true", help="run no random play")
    args = parser.parse_args()
    from puffer_bsuite import scoring

    sets = parse_sets(args.set)
    ids = [f"{e}/{s}" for e, s in map(scoring.parse_bsuite_id, args.ids)]
    agents = ["ppo"] + ([] if args.skip_random else ["random"])
    runs: dict[tuple[str, str], tuple[int, int, float, float]] = {}
    for bsuite_id in ids:
        for agent in agents:
            folder = args.results_dir / agent
            start = time.perf_counter()
            if agent == "ppo":
                rec = train(bsuite_id, folder, args.episodes, args.seed, args.max_steps, sets)
            else:
                rec = scoring.play_random(bsuite_id, folder, args.episodes, seed=args.seed)
            seconds = time.perf_counter() - start
            runs[(agent, bsuite_id)] = (rec.episodes, rec.steps, rec.total_return, seconds)
            print(f"{agent:6s} {bsuite_id:20s} {rec.episodes:6d} episodes {rec.steps:9,d} steps "
                  f"mean return {rec.total_return / max(rec.episodes, 1):8.3f} {seconds:7.1f} s", flush=True)

    frames = {agent: scoring.load(args.results_dir / agent) for agent in agents}
    experiments = list(dict.fromkeys(i.split("/")[0] for i in ids))
    print()
    print(f"| experiment | settings | {' | '.join(f'{a} score' for a in agents)} | ppo steps | ppo seconds |")
    print("|---|---|" + "---:|" * (len(agents) + 2))
    for experiment in experiments:
        mine = [i for i in ids if i.startswith(experiment + "/")]
        scores = []
        for agent in agents:
            df = frames[agent]
            df = df[df.bsuite_id.isin(mine)]
            scores.append(f"{scoring.score(experiment, df):.3f}")
        steps = sum(runs[("ppo", i)][1] for i in mine)
        seconds = sum(runs[("ppo", i)][3] for i in mine)
        print(f"| {experiment} | {', '.join(i.split('/')[1] for i in mine)} | {' | '.join(scores)} | "
              f"{steps:,} | {seconds:.0f} |")


if __name__ == "__main__":
    main()
