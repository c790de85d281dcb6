"""The `bsuite-<experiment>` specs (no heavy imports: bsuite loads when an env is made).

One id per experiment of bsuite 0.3.6 (Osband et al. 2020, "Behaviour Suite for Reinforcement
Learning"), named as bsuite names it (`bsuite-memory_len`, `bsuite-deep_sea`, ...). The setting
of the experiment's sweep is the env kwarg `setting` (an index into
`bsuite.experiments.<experiment>.sweep.SETTINGS`; bsuite's id `memory_len/3` is
`bsuite-memory_len` with `setting=3`). The MNIST experiments are left out: bsuite downloads the
dataset from the network into /tmp/mnist when one is made (see the README).
"""

from __future__ import annotations

from pufferlib import EnvSpec

PACKAGE = "puffer-bsuite"
PREFIX = "bsuite-"
CREATOR = "puffer_bsuite.env:make"
#: The core's MLP, wrapped in the core's LSTM by each config's `rnn.enabled` (bsuite's memory
#: experiments need one, and one policy for every id keeps the sweep's scores comparable).
POLICY = "pufferlib.models:Default"

#: experiment -> (settings in its sweep, bsuite's tags, what it tests). Checked against
#: `bsuite.sweep` by the tests; the order is bsuite's.
EXPERIMENTS: dict[str, tuple[int, tuple[str, ...], str]] = {
    "bandit": (20, ("basic",), "an 11-armed bandit: learn the best arm"),
    "bandit_noise": (20, ("noise",), "the bandit with Gaussian reward noise"),
    "bandit_scale": (20, ("scale",), "the bandit with rewards scaled by 0.001 to 1000"),
    "cartpole": (20, ("basic", "credit_assignment", "generalization"), "balance a pole for 1000 steps"),
    "cartpole_noise": (20, ("noise", "generalization"), "cartpole with Gaussian reward noise"),
    "cartpole_scale": (20, ("scale", "generalization"), "cartpole with scaled rewards"),
    "cartpole_swingup": (20, ("exploration", "generalization"), "swing a hanging pole up, a cost to move"),
    "catch": (20, ("basic", "credit_assignment"), "catch a falling ball on a 10 x 5 grid"),
    "catch_noise": (20, ("noise", "credit_assignment"), "catch with Gaussian reward noise"),
    "catch_scale": (20, ("scale", "credit_assignment"), "catch with scaled rewards"),
    "deep_sea": (21, ("exploration",), "reach the far corner of an N x N grid against a small cost"),
    "deep_sea_stochastic": (21, ("exploration", "noise"), "deep sea with noisy rewards and moves"),
    "discounting_chain": (20, ("credit_assignment",), "pick the chain whose reward comes after 1-100 steps"),
    "memory_len": (23, ("memory",), "recall a bit seen 1 to 100 steps earlier"),
    "memory_size": (17, ("memory",), "recall one of 1 to 40 bits seen at the start"),
    "mountain_car": (20, ("basic", "generalization"), "drive an underpowered car up a hill"),
    "mountain_car_noise": (20, ("noise", "generalization"), "mountain car with Gaussian reward noise"),
    "mountain_car_scale": (20, ("scale", "generalization"), "mountain car with scaled rewards"),
    "umbrella_distract": (23, ("credit_assignment", "noise"), "umbrella chain with 0-100 distracting rewards"),
    "umbrella_length": (23, ("credit_assignment", "noise"), "the first action decides a reward 1-100 steps later"),
}

#: Experiments bsuite 0.3.6 has that no id is made for, and why.
LEFT_OUT = {
    "mnist": "downloads MNIST from storage.googleapis.com into /tmp/mnist when made",
    "mnist_noise": "downloads MNIST from storage.googleapis.com into /tmp/mnist when made",
    "mnist_scale": "downloads MNIST from storage.googleapis.com into /tmp/mnist when made",
}

#: The training config of every id: the core's MLP (64 units) under a 64-unit LSTM, 16 copies
#: stepped in this process (a bsuite step costs microseconds; worker processes would cost more
#: than they save), batches of 1024 steps in minibatches of 256, 4 epochs, LSTM segments of 32
#: steps (an 11-step memory_len/9 episode then mostly fits in one). bsuite scores what an agent
#: does during its first 10,000 episodes (1,000 for cartpole, mountain car and the discounting
#: chain), so updates come often. Of the three configs tried on memory_len/9 and
#: umbrella_length/9 (one seed each, see the README), only this one scored 1 on both.
#: `benchmarks/sweep.py` trains until bsuite's episodes are played, whatever the steps;
#: `total_timesteps` is what `puffer train` runs.
CONFIG: dict = {
    "vec": {"num_envs": 16, "num_workers": 0},
    "policy": {"hidden_size": 64},
    "rnn": {"enabled": True, "hidden_size": 64},
    "train": {"total_timesteps": 200_000, "batch_size": 1024, "minibatch_size": 256, "bptt_horizon": 32,
              "update_epochs": 4, "learning_rate": 0.003, "gamma": 0.99, "gae_lambda": 0.95,
              "ent_coef": 0.01},
}


def env_id(experiment: str) -> str:
    """The id of a bsuite experiment: `bsuite-<experiment>`."""
    return f"{PREFIX}{experiment}"


def env_specs() -> list[EnvSpec]:
    """One spec per bsuite experiment; the setting is the kwarg `setting` (0 by default)."""
    return [EnvSpec(id=env_id(name), creator=CREATOR, kwargs={"experiment": name, "setting": 0},
                    policy=POLICY, config={k: dict(v) for k, v in CONFIG.items()}, package=PACKAGE,
                    description=f"bsuite {name} ({count} settings; {', '.join(tags)}): {text}")
            for name, (count, tags, text) in EXPERIMENTS.items()]
