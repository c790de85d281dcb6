"""The `dmc-*` specs: the 28 tasks of dm_control's benchmarking suite (no heavy imports).

Id: `dmc-<domain>-<task>` with dm_control's underscores as hyphens (`dmc-ball-in-cup-catch`); the
suite's own spelling is an alias where it differs (`dmc-ball_in_cup-catch`). Every task here has
1000 control steps per episode and actions in [-1, 1].

Training config (one per id, `CONFIG` with the id's `total_timesteps`): the continuous-control
path that learns the core's `gym-HalfCheetah-v5` (pufferlib/data/envs/gym-HalfCheetah-v5.toml):
`pufferlib.models.ActorCritic` (separate 2x64 tanh actor and critic, Gaussian actions with a
state-independent log-std), running observation normalization and return-based reward scaling,
2048-step batches from 16 serial envs, 10 epochs of 128-step minibatches, learning rate 3e-4,
gamma 0.99, GAE 0.95, clip 0.2. Action repeat 1 (the state-based literature's setting; pixel
agents use 2 to 8). See the README for what it reaches on this CPU.
"""

from __future__ import annotations

from pufferlib import EnvSpec

PACKAGE = "puffer-dmcontrol"
PREFIX = "dmc-"
CREATOR = "puffer_dmcontrol.env:make"
POLICY = "pufferlib.models:ActorCritic"

#: dm_control 1.0.52's `suite.BENCHMARKING`, in its order: (domain, task, what it asks).
TASKS = (
    ("acrobot", "swingup", "swing a two-link underactuated pendulum up and balance it"),
    ("acrobot", "swingup_sparse", "acrobot swing-up, reward only when upright"),
    ("ball_in_cup", "catch", "swing a ball on a string into a cup"),
    ("cartpole", "balance", "keep a pole upright on a cart (starts near upright)"),
    ("cartpole", "balance_sparse", "cart-pole balance, reward only within a band"),
    ("cartpole", "swingup", "swing a pole up from hanging and balance it on a cart"),
    ("cartpole", "swingup_sparse", "cart-pole swing-up, reward only when upright and centred"),
    ("cheetah", "run", "planar cheetah: run forward fast"),
    ("finger", "spin", "spin a hinged body with a two-link finger"),
    ("finger", "turn_easy", "turn a hinged body's tip to a large target"),
    ("finger", "turn_hard", "turn a hinged body's tip to a small target"),
    ("fish", "upright", "keep a swimming fish upright"),
    ("fish", "swim", "swim a fish to a target"),
    ("hopper", "stand", "one-legged hopper: stand up"),
    ("hopper", "hop", "one-legged hopper: hop forward"),
    ("humanoid", "stand", "21-joint humanoid: stand"),
    ("humanoid", "walk", "21-joint humanoid: walk at 1 m/s"),
    ("humanoid", "run", "21-joint humanoid: run at 10 m/s"),
    ("manipulator", "bring_ball", "planar arm: bring a ball to a target"),
    ("pendulum", "swingup", "swing a torque-limited pendulum up, sparse reward"),
    ("point_mass", "easy", "move a point mass to a target"),
    ("reacher", "easy", "two-link arm: reach a large target"),
    ("reacher", "hard", "two-link arm: reach a small target"),
    ("swimmer", "swimmer6", "6-link swimmer: swim to a target"),
    ("swimmer", "swimmer15", "15-link swimmer: swim to a target"),
    ("walker", "stand", "planar walker: stand up"),
    ("walker", "walk", "planar walker: walk at 1 m/s"),
    ("walker", "run", "planar walker: run at 8 m/s"),
)

#: Env defaults of every id (see puffer_dmcontrol.env.DMControlEnv), listed so that each is a config key.
KWARGS = {"action_repeat": 1}

#: The training config of every id; `total_timesteps` per id in `BUDGETS`.
CONFIG: dict = {
    "vec": {"backend": "serial", "num_envs": 16},
    "normalize": {"observations": True, "rewards": True},
    "policy": {"hidden_size": 64},
    "train": {"total_timesteps": 1_000_000, "batch_size": 2048, "minibatch_size": 128, "update_epochs": 10,
              "learning_rate": 3e-4, "gamma": 0.99, "gae_lambda": 0.95, "clip_coef": 0.2,
              "max_grad_norm": 0.5},
}
#: 1M steps, the budget of CleanRL's published PPO runs on these tasks; the humanoids get more (PPO
#: barely moves them at 1M).
BUDGETS = {("humanoid", "stand"): 10_000_000, ("humanoid", "walk"): 10_000_000, ("humanoid", "run"): 10_000_000}


def env_id(domain: str, task: str) -> str:
    """`dmc-<domain>-<task>`, underscores as hyphens."""
    return f"{PREFIX}{domain}-{task}".replace("_", "-")


def config_for(domain: str, task: str) -> dict:
    """A fresh copy of the training config of one task."""
    config = {section: dict(values) for section, values in CONFIG.items()}
    config["train"]["total_timesteps"] = BUDGETS.get((domain, task), config["train"]["total_timesteps"])
    return config


def env_specs() -> list[EnvSpec]:
    """One spec per task of the benchmarking suite."""
    specs = []
    for domain, task, text in TASKS:
        suite_name = f"{PREFIX}{domain}-{task}"
        aliases = (suite_name,) if suite_name != env_id(domain, task) else ()
        specs.append(EnvSpec(id=env_id(domain, task), creator=CREATOR,
                             kwargs={"domain": domain, "task": task, **KWARGS}, policy=POLICY,
                             config=config_for(domain, task), package=PACKAGE,
                             description=f"DeepMind Control {domain} {task}: {text}", aliases=aliases))
    return specs
