"""A complete PufferLib training script to copy and adapt.

    python scripts/train_template.py --env gym-CartPole-v1 --total-timesteps 100000
    python scripts/train_template.py --env ocean-squared --logger wandb --wandb-project demo   # puffer-loggers[wandb]
    python scripts/train_template.py --resume experiments/RUN_DIR            # continue a run
    torchrun --nproc_per_node=2 scripts/train_template.py --env gym-CartPole-v1   # one process per GPU/CPU rank

What it shows, in order: command-line arguments; environment creation (one env per rank,
seeds offset by rank); a policy (`Policy` below, or `--policy default` for models.Default);
logger integration (the wandb/neptune/tensorboard plugins of puffer-loggers, named in the
config's `logger.names`); the training loop with periodic checkpoints and resuming; and
multi-GPU data parallelism: under `torchrun`, PuffeRL joins the process group itself
(NCCL on CUDA, gloo on CPU), averages gradients across ranks, and only rank 0 logs and saves.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

import numpy as np
import torch
from torch import nn

import pufferlib
from pufferlib import PuffeRL
from pufferlib.pytorch import layer_init
from pufferlib.train import checkpoint
from pufferlib.train.policy import make_policy


class Policy(nn.Module):
    """A two-layer MLP; PufferLib builds it as Policy(env, hidden_size=...) from the [policy] config.

    encode_observations/decode_actions let `--rnn` put an LSTM between them (models.LSTMWrapper).
    """

    def __init__(self, env, hidden_size: int = 64):
        super().__init__()
        self.hidden_size = hidden_size
        obs_size = int(np.prod(env.single_observation_space.shape))
        self.encoder = nn.Sequential(layer_init(nn.Linear(obs_size, hidden_size)), nn.Tanh(),
                                     layer_init(nn.Linear(hidden_size, hidden_size)), nn.Tanh())
        self.actor = layer_init(nn.Linear(hidden_size, int(env.single_action_space.n)), std=0.01)
        self.critic = layer_init(nn.Linear(hidden_size, 1), std=1.0)

    def encode_observations(self, obs: torch.Tensor) -> torch.Tensor:
        return self.encoder(obs.reshape(obs.shape[0], -1).float())

    def decode_actions(self, hidden: torch.Tensor):
        return self.actor(hidden), self.critic(hidden)

    def forward(self, obs: torch.Tensor):
        return self.decode_actions(self.encode_observations(obs))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="gym-CartPole-v1", help="env id (see `puffer list`)")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=0, help="> 1: multiprocessing vectorization")
    parser.add_argument("--total-timesteps", type=int, default=200_000)
    parser.add_argument("--learning-rate", type=float, default=3e-3)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--minibatch-size", type=int, default=256)
    parser.add_argument("--hidden-size", type=int, default=64)
    parser.add_argument("--policy", choices=["template", "default"], default="template",
                        help="this file's Policy, or the env's default policy")
    parser.add_argument("--rnn", action="store_true", help="wrap the policy in an LSTM")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1 (under torchrun: cuda -> cuda:LOCAL_RANK)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default="experiments", help="where run folders go")
    parser.add_argument("--checkpoint-interval", type=int, default=20, help="epochs between checkpoints")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue from the run's latest checkpoint")
    parser.add_argument("--logger", choices=["none", "wandb", "neptune", "tensorboard"], default="none")
    parser.add_argument("--wandb-project", default="pufferlib")
    parser.add_argument("--neptune-project", default="")
    return parser.parse_args(argv)


def build_config(args: argparse.Namespace) -> dict:
    """The trainer config: any section of pufferlib/data/default.toml may be set here."""
    config = {
        "policy": {"hidden_size": args.hidden_size},
        "rnn": {"enabled": args.rnn, "hidden_size": args.hidden_size},
        "logger": {"names": [] if args.logger == "none" else [args.logger]},
        "train": {"device": args.device, "seed": args.seed, "total_timesteps": args.total_timesteps,
                  "learning_rate": args.learning_rate, "batch_size": args.batch_size,
                  "minibatch_size": args.minibatch_size, "data_dir": args.data_dir,
                  "checkpoint_interval": 0},  # this script saves itself, below
    }
    if args.logger == "wandb":
        config["wandb"] = {"project": args.wandb_project}
    elif args.logger == "neptune":
        config["neptune"] = {"project": args.neptune_project}
    return config


def main(argv: list[str] | None = None) -> float:
    args = parse_args(argv)
    rank = int(os.environ.get("RANK", "0"))  # set by torchrun; 0 otherwise
    config = build_config(args)
    resume = checkpoint.load(args.resume) if args.resume else None

    # One env per rank, seeded apart so ranks see different episodes.
    env = pufferlib.make(args.env, num_envs=args.num_envs, num_workers=args.num_workers or None,
                         seed=args.seed + rank * args.num_envs)
    policy = make_policy(env, config, policy=Policy if args.policy == "template" else None, env_id=args.env)
    trainer = PuffeRL(config, env, policy, env_id=args.env, run_dir=Path(args.resume) if args.resume else None)
    if resume is not None:
        trainer.load_checkpoint(resume["path"], resume=True)

    score = math.nan
    try:
        while not trainer.done_training():
            trainer.evaluate()                  # collect batch_size agent steps
            trainer.train()                     # PPO epochs over them
            metrics = trainer.mean_and_log()    # dashboard, metrics.jsonl, logger plugins
            score = metrics.get("environment/episode_return", score)
            if args.checkpoint_interval and trainer.epoch % args.checkpoint_interval == 0:
                trainer.save_checkpoint()       # rank 0 only; written atomically
        path = trainer.save_checkpoint()
    finally:
        trainer.close()
    if trainer.rank == 0:
        print(f"score {score:.2f} after {trainer.global_step} steps; checkpoint {path}")
    return score


if __name__ == "__main__":
    main()
