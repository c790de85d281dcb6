"""PuffeRL: PPO (+LSTM) over a vectorized env, with GAE, masks, async envs and checkpoints.

    trainer = PuffeRL(env=vecenv, policy=policy, device='cpu', learning_rate=3e-4, batch_size=2048)
    while not trainer.done_training():
        trainer.evaluate()      # collect batch_size agent steps
        trainer.train()         # update_epochs passes of minibatch updates
        trainer.mean_and_log()  # aggregated stats -> dashboard and logger hooks
    trainer.close()

Every hyperparameter is documented in `pufferlib/data/default.toml`. The rollout lives
in (agent rows, time) tensors; see `pufferlib.train.ppo` for the conventions.
"""

from __future__ import annotations

import functools
import math
import os
import time
import uuid
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, ExitStack, nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import torch

import pufferlib.pytorch
from pufferlib._locks import folder_lock
from pufferlib._paths import check_writable
from pufferlib.config import check_keys, load_default, merge
from pufferlib.config.validation import validate
from pufferlib.cpu.cores import usable_cores
from pufferlib.cpu.threads import OtherLoad, ThreadTuner, candidate_counts, set_torch_threads, torch_threads
from pufferlib.errors import APIUsageError, CheckpointError, NonFiniteError
from pufferlib.protocols import VecEnv
from pufferlib.registry.plugins import check_loggers
from pufferlib.train import checkpoint, normalize, optimizers, ppo, selfplay, trust
from pufferlib.train.dashboard import Dashboard
from pufferlib.train.eval_during_training import BEST_NAME, TrainingEval
from pufferlib.train.eval_during_training import enabled as eval_enabled
from pufferlib.train.exploitability import Exploitability
from pufferlib.train.gradient import Gradient, microbatch_count
from pufferlib.train.log_steps import LogSteps, all_reduce_mean
from pufferlib.train.metrics import MetricsFile
from pufferlib.train.rollout import Rollout
from pufferlib.train.selfplay import SelfPlay
from pufferlib.train.storage import RolloutStorage

#: A minibatch as `PuffeRL._minibatches` hands it out: (segment indices, importance weights or
#: None, the per-step float fields, the observations, actions and LSTM tensors).
Minibatch = tuple[torch.Tensor, torch.Tensor | None, tuple[torch.Tensor, ...], tuple[torch.Tensor, ...]]

#: The most bytes of minibatches (observations, actions, per-step floats) gathered at once.
GATHER_BYTES = 32 << 20


def _resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise APIUsageError(f"device={device!r} but CUDA is not available here; use device='cpu' or 'auto'.")
    return torch.device(device)


def _init_distributed(device: torch.device) -> tuple[int, int, torch.device, bool]:
    """(rank, world size, device, whether we created the process group) under torchrun
    (WORLD_SIZE > 1); (0, 1, device, False) otherwise."""
    import torch.distributed as dist

    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return 0, 1, device, False
    created = not dist.is_initialized()
    if created:
        dist.init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
    if device.type == "cuda":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    return dist.get_rank(), dist.get_world_size(), device, created


def seed_everything(train_config: Mapping[str, Any]) -> None:
    """Seed torch and numpy with `train.seed` (+ the torchrun rank); cuDNN deterministic when
    `train.torch_deterministic`. Called before a policy is built, so that its initial weights
    follow the seed too."""
    rank = int(os.environ.get("RANK", "0"))
    torch.manual_seed(train_config["seed"] + rank)
    np.random.seed(train_config["seed"] + rank)
    if train_config["torch_deterministic"]:
        torch.backends.cudnn.deterministic = True


class PuffeRL:
    """The PPO trainer. `PuffeRL(config, env, policy)` or `PuffeRL(env=..., policy=..., **train_keys)`.

    `config`: a full config (sections vec/env/policy/rnn/train, as in default.toml) or just
    the train keys; keyword arguments override its train keys. `policy`: a torch Module
    whose `forward(obs)` returns `(logits, value)`, or a `models.LSTMWrapper`; None builds
    `models.Default` (wrapped in an LSTM when `rnn.enabled`). `env_id` is recorded in
    checkpoints. `train()` writes a checkpoint every `checkpoint_interval` epochs (0: never)
    to `run_dir` (default: `data_dir/<env_id>_<time>_<id>`, created on first write);
    `save_checkpoint()` writes one on demand. Under torchrun each rank trains on its own env, gradients are averaged
    across ranks, and rank 0 logs and saves. `train.init_from` (a checkpoint, run folder, "latest"
    or `hf://` address) gives the policy its starting weights (`initialized_from` says which);
    `allow_env_mismatch` lets them come from another env's checkpoint.
    """

    def __init__(self, config: Mapping | None = None, env: VecEnv | None = None,
                 policy: torch.nn.Module | None = None, *, env_id: str | None = None,
                 run_dir: str | Path | None = None, dashboard: Dashboard | None = None,
                 allow_env_mismatch: bool = False, **train_overrides: object):
        if env is None:
            raise APIUsageError("PuffeRL needs a vectorized env: PuffeRL(env=pufferlib.make('gym-CartPole-v1'), ...)")
        default = load_default()
        given = self._given_config(config, train_overrides, default)
        self.config = merge(default, given)
        validate(self.config, default)
        check_loggers(self.config["logger"]["names"])
        cfg = self.config["train"]
        self.env, self.env_id = env, env_id or (env.spec.id if env.spec is not None else None)
        self.evaluator = TrainingEval(self.env_id, self.config) if eval_enabled(self.config["eval"]) else None

        # Everything that can be checked is checked before anything is acquired (the process
        # group, the device, the env's reset): a bad config leaves nothing behind.
        device = _resolve_device(str(cfg["device"]))
        self.thread_tuner: ThreadTuner | None = None  # cpu_threads = 0: chosen by measured speed
        if device.type == "cpu" and cfg["cpu_threads"] > 0:
            set_torch_threads(cfg["cpu_threads"])
        elif device.type == "cpu":
            self.thread_tuner = ThreadTuner(candidate_counts(usable_cores()), others=OtherLoad())
        if self.config["selfplay"]["enabled"]:
            selfplay.check(env, self.config["selfplay"])
        initial = (checkpoint.load(cfg["init_from"], cfg["data_dir"], env_id=self.env_id,
                                   allow_env_mismatch=allow_env_mismatch, hub_dir=self.config["hub"]["dir"],
                                   vouched=trust.own_code(self.config, self.env_id))
                   if cfg["init_from"] else None)
        seed_everything(cfg)
        policy = self._trainable_policy(policy, set(given.get("policy", {})), env, cfg)
        microbatches = self._check_batch_sizes(cfg, default["train"], env, policy, device)

        self.rank, self.world_size, self.device, self._owns_group = _init_distributed(device)
        self._place_policy(policy, cfg)
        if initial is not None:
            checkpoint.load_policy(self.policy, initial)
        self.initialized_from = checkpoint.describe(initial) if initial is not None else None
        self._init_run_state(run_dir, dashboard, cfg)
        self.selfplay: SelfPlay | None = None
        if self.config["selfplay"]["enabled"]:
            self.selfplay = SelfPlay(env, self.policy, self.config["selfplay"], self.run_dir, self._claim_run_dir,
                                     self.device, {"config": self.config, "env_id": self.env_id}, cfg["seed"],
                                     self.rank, self.world_size)
        # The env keeps the seed it was made with (`puffer train` offsets it per rank).
        self.rollout = Rollout(env, self.forward_policy, self.device, cfg["batch_size"], self.segment,
                               self.recurrent, self.selfplay)
        self.loss_config = ppo.LossConfig(cfg["clip_coef"], cfg["vf_coef"], cfg["vf_clip_coef"], cfg["ent_coef"],
                                          cfg["norm_adv"])
        # Minibatches cut into microbatches, on worker threads on a CPU (pufferlib.train.gradient).
        threads = (cfg["cpu_threads"] or usable_cores()) if self.device.type == "cpu" and not cfg["compile"] else 1
        self.gradient = Gradient(self.policy, self.forward_policy, self.recurrent, self.rollout.actor.action_mask,
                                 self.rollout.nvec, self.loss_config, self._params, self._autocast, microbatches,
                                 threads)
        self.exploitability = Exploitability.of(env)  # games small enough to solve exactly
        self._hook("pufferlib_train_start", trainer=self)

    # -- construction helpers ------------------------------------------------------------
    @staticmethod
    def _given_config(config: Mapping | None, train_overrides: Mapping[str, object], default: dict) -> dict:
        """The caller's config (a full one, or a flat mapping of train keys) with the keyword
        overrides applied; APIUsageError naming any unknown key."""
        given = dict(config or {})
        if not any(k in default for k in given):  # a flat mapping of train keys
            given = {"train": given}
        given = merge(given, {"train": dict(train_overrides)})
        check_keys(given, default)
        return given

    def _trainable_policy(self, policy: torch.nn.Module | None, explicit: set[str], env: VecEnv,
                          cfg: Mapping[str, Any]) -> torch.nn.Module:
        """`policy` (or the env's default, built with the `[policy]` keys given in `explicit`),
        checked and wrapped by the observation/reward normalisation the config asks for."""
        if policy is None:
            policy = self._default_policy(explicit)
        from pufferlib.train.policy import ensure_trainable

        ensure_trainable(policy)
        policy = normalize.wrap(policy, env, self.config["normalize"], cfg["gamma"])
        self.recurrent = bool(getattr(policy, "is_recurrent", False))
        self.segment = cfg["bptt_horizon"] if self.recurrent else 1
        return policy

    def _check_batch_sizes(self, cfg: dict, default: Mapping[str, Any], env: VecEnv, policy: torch.nn.Module,
                           device: torch.device) -> int:
        """Fit and check batch, minibatch and segment sizes (APIUsageError naming the misfit);
        returns the number of microbatches per minibatch."""
        self._fit_sizes(cfg, default, env.num_agents, self.segment)
        RolloutStorage.check_sizes(env.num_agents, cfg["batch_size"], self.segment)
        if cfg["minibatch_size"] > cfg["batch_size"] or cfg["batch_size"] % cfg["minibatch_size"]:
            raise APIUsageError(f"minibatch_size={cfg['minibatch_size']} must divide batch_size={cfg['batch_size']}.")
        if cfg["minibatch_size"] % self.segment:
            raise APIUsageError(f"minibatch_size={cfg['minibatch_size']} must be a multiple of "
                                f"bptt_horizon={self.segment} for recurrent policies.")
        return microbatch_count(cfg["minibatch_size"], self.segment, cfg["microbatch_size"],
                                sum(p.numel() for p in policy.parameters() if p.requires_grad), device)

    def _place_policy(self, policy: torch.nn.Module, cfg: Mapping[str, Any]) -> None:
        """Move the policy to the device (rank 0's weights on every rank), compile it if asked,
        and make its optimisers and the autocast context."""
        self.policy = policy.to(self.device)
        if self.world_size > 1:
            import torch.distributed as dist

            for param in self.policy.state_dict().values():
                dist.broadcast(param, src=0)
        self.forward_policy: torch.nn.Module = self.policy
        if cfg["compile"]:
            compiled = torch.compile(self.policy)
            assert isinstance(compiled, torch.nn.Module)  # compiling a Module gives an OptimizedModule
            self.forward_policy = compiled
        self.autocast = cfg["precision"] == "bfloat16" and self.device.type == "cuda"
        self.optimizers = self._make_optimizers(cfg)
        # What every gradient step touches, looked up once (a walk over the modules and a
        # disabled autocast context cost more than a small policy's arithmetic).
        self._params = [p for opt in self.optimizers for group in opt.param_groups for p in group["params"]]
        self._autocast: Callable[[], AbstractContextManager[object]] = (
            functools.partial(torch.autocast, self.device.type, torch.bfloat16) if self.autocast else nullcontext)

    def _init_run_state(self, run_dir: str | Path | None, dashboard: Dashboard | None,
                        cfg: Mapping[str, Any]) -> None:
        """The counters, logs and run folder of a fresh run."""
        self.global_step, self.epoch = 0, 0
        # Where checkpoints, metrics.jsonl (and logger plugins' files) go; created on first use.
        self.run_dir = Path(run_dir) if run_dir else self._default_run_dir()
        self._run_lock: ExitStack | None = None  # held while this trainer writes run_dir
        if self.rank == 0:
            check_writable(self.run_dir, "the run folder")
        if run_dir and self.rank == 0:  # a given folder (a resumed run's) is claimed before any work
            self._claim_run_dir()
        self._resumed_step: int | None = None  # the step of the checkpoint this run resumed from
        self.log_steps = LogSteps(cfg["log_interval"], cfg["log_interval_steps"] or self.total_timesteps // 100,
                                  lambda: MetricsFile(self._claim_run_dir(), self.config, self.env_id,
                                                      self._resumed_step),
                                  lambda step, metrics: self._hook("pufferlib_train_log", trainer=self, step=step,
                                                                   metrics=metrics))
        self.last_checkpoint: str | None = None
        self.diverged: str | None = None  # why training stopped on non-finite values (no saves after that)
        self.saved_step = 0  # global_step of the last checkpoint written or resumed from
        self.losses: dict[str, float] = {}
        self.last_metrics: dict[str, float] = {}  # the last log step's metrics (see mean_and_log)
        self._eval_metrics: dict[str, float] = {}  # eval/* of an evaluation not yet in mean_and_log()
        self.profile: dict[str, float] = defaultdict(float)
        self.dashboard = dashboard if dashboard is not None else Dashboard(
            f"PuffeRL {self.env_id or ''}".strip(), cfg["log_interval"])
        self._log_time, self._log_step = time.perf_counter(), 0

    def _claim_run_dir(self) -> Path:
        """run_dir, locked for this trainer (`pufferlib._locks`) from its first write to close():
        a second writer of the same run folder gets an APIUsageError instead of mixing files."""
        if self._run_lock is None:
            stack = ExitStack()
            stack.enter_context(folder_lock(self.run_dir, "a training run"))
            self._run_lock = stack
        return self.run_dir

    def _default_policy(self, explicit: set[str]) -> torch.nn.Module:
        from pufferlib.train.policy import make_policy

        return make_policy(self.env, self.config, env_id=self.env_id, explicit=explicit)

    @staticmethod
    def _fit_sizes(cfg: dict, default: Mapping, rows: int, segment: int) -> None:
        """Adapt the *default* batch and minibatch sizes to the env's agent rows (in place).

        The default batch_size is rounded up to whole `segment`-step rows of every agent,
        and the default minibatch_size to a quarter (or half, or all) of that batch.
        Values set by the user are kept and checked as given.
        """
        if cfg["batch_size"] == default["batch_size"] and cfg["batch_size"] % (rows * segment):
            horizon = -(-cfg["batch_size"] // rows)
            cfg["batch_size"] = rows * -(-horizon // segment) * segment
        batch, minibatch = cfg["batch_size"], cfg["minibatch_size"]
        if minibatch == default["minibatch_size"] and (batch % minibatch or minibatch % segment):
            splits = next(n for n in (4, 2, 1) if (batch // segment) % n == 0)
            cfg["minibatch_size"] = batch // splits

    def _make_optimizers(self, cfg: Mapping) -> list[torch.optim.Optimizer]:
        params = [p for p in self.policy.parameters() if p.requires_grad]
        adam = dict(lr=cfg["learning_rate"], betas=(cfg["adam_beta1"], cfg["adam_beta2"]), eps=cfg["adam_eps"],
                    fused=self.device.type in ("cpu", "cuda"))  # one kernel for all parameters
        if cfg["optimizer"] == "adam":
            return [optimizers.Adam(params, **adam)]
        if cfg["optimizer"] == "muon":
            if optimizers.Muon is None:
                raise APIUsageError("optimizer='muon' needs a torch with torch.optim.Muon (2.9+); use 'adam'.")
            matrices = [p for p in params if p.dim() == 2]
            rest = [p for p in params if p.dim() != 2]
            return [optimizers.Muon(matrices, lr=cfg["learning_rate"]), optimizers.Adam(rest, **adam)]
        raise APIUsageError(f"Unknown optimizer {cfg['optimizer']!r}; choose 'adam' or 'muon'.")

    def _hook(self, name: str, **kwargs: object) -> None:
        if self.rank != 0:
            return
        from pufferlib.registry.plugins import call_hook

        call_hook(name, **kwargs)  # a plugin that raises is reported and skipped; the run goes on

    # -- the loop ------------------------------------------------------------------------
    @property
    def total_timesteps(self) -> int:
        """Agent steps to train for, summed over ranks."""
        return int(self.config["train"]["total_timesteps"])

    def done_training(self) -> bool:
        """True once `global_step` reached `total_timesteps`."""
        return self.global_step >= self.total_timesteps

    def evaluate(self) -> dict[str, list]:
        """Collect one batch of `batch_size` agent steps per rank; returns the numeric env infos
        gathered since the last `mean_and_log()` (lists per key)."""
        self.policy.eval()
        # Acting on too many threads beside new load is slowest of all: the tuner looks at every step.
        infos = self.rollout.collect(self.profile, self.thread_tuner.follow_load if self.thread_tuner else None)
        self.global_step += self.rollout.batch_size * self.world_size
        return infos

    def learning_rate(self) -> float:
        """The current (annealed) learning rate."""
        cfg = self.config["train"]
        if not cfg["anneal_lr"]:
            return cfg["learning_rate"]
        frac = max(0.0, 1.0 - self.global_step / max(1, self.total_timesteps))
        return cfg["learning_rate"] * (cfg["min_lr_ratio"] + (1 - cfg["min_lr_ratio"]) * frac)

    def train(self) -> dict[str, float]:
        """Update the policy on the collected batch; returns the mean losses."""
        cfg, data = self.config["train"], self.rollout.storage
        if data.steps_collected == 0:
            raise APIUsageError("train() needs a batch: call evaluate() first.")
        # While worker threads compute the gradients, this thread's own intra-op threads would
        # spin beside them on the same cores.
        with torch_threads(1) if self.gradient.workers is not None else nullcontext():
            self._train_batch(cfg, data)
        self.epoch += 1
        if self.selfplay is not None:
            self.selfplay.maybe_snapshot(self.global_step)
        if self.thread_tuner is not None:
            self.thread_tuner.step(data.batch_size)
        if cfg["checkpoint_interval"] > 0 and self.epoch % cfg["checkpoint_interval"] == 0:
            self.save_checkpoint()
        if self.evaluator is not None and self.rank == 0 and self.evaluator.due(self.epoch, self.global_step):
            self._evaluate_policy()
        return self.losses

    def _evaluate_policy(self) -> None:
        """An evaluation of `[eval]` (pufferlib.train.eval_during_training): logged as eval/* by the
        next mean_and_log(); a new best mean return is saved as RUN_DIR/best.pt."""
        assert self.evaluator is not None
        start = time.perf_counter()
        result = self.evaluator.run(self.policy, self.epoch, self.global_step, self._claim_run_dir(), self.device)
        figures = result.as_dict()
        self._eval_metrics = {f"eval/{key}": value for key, value in figures.items()}
        if result.mean > self.evaluator.best:
            self.evaluator.best = result.mean
            self.save_checkpoint(BEST_NAME, extra={"eval": figures})
        self.profile["eval"] += time.perf_counter() - start

    def _train_batch(self, cfg: Mapping, data: RolloutStorage) -> None:
        """`update_epochs` passes of minibatch updates over the collected batch; sets `self.losses`."""
        self.policy.train()
        lr = self.learning_rate()
        for opt in self.optimizers:
            for group in opt.param_groups:
                group["lr"] = lr
        vtrace = cfg["vtrace_rho_clip"] > 0
        ratio = torch.ones_like(data.values) if vtrace else None
        beta = cfg["prio_beta0"] + (1 - cfg["prio_beta0"]) * min(1.0, self.global_step / max(1, self.total_timesteps))
        per_minibatch = cfg["minibatch_size"] // self.segment
        # Every step present with weight 1 (no padded agents, no prioritised sampling): the loss
        # takes plain means.
        uniform = cfg["prio_alpha"] == 0 and bool((data.weights == 1).all())
        stats: list[dict[str, torch.Tensor]] = []
        # What a minibatch gathers per segment besides the packed floats (observations, actions,
        # and for an LSTM its starting state and the episode starts).
        per_segment = [data.segments(data.obs), data.segments(data.actions)]
        if self.recurrent:
            per_segment += [data.state_h, data.state_c, data.segments(data.starts)]
        # Uniform sampling draws every epoch's order up front: consecutive draws are cheap, one
        # after an update (its caches cold) costs ten times as much on a small batch.
        orders = ([ppo.minibatch_segments(data.num_segments, per_minibatch)[0] for _ in range(cfg["update_epochs"])]
                  if cfg["prio_alpha"] <= 0 else None)
        # Without V-trace nothing a minibatch gathers changes between uniform epochs: their
        # orders make one sequence, gathered as consecutive minibatches (fewer, larger gathers).
        passes = cfg["update_epochs"]
        if orders is not None and not vtrace:
            orders, passes = [torch.cat(orders)], 1
        for i in range(passes):  # an epoch each, or all of them in one
            if i == 0 or vtrace:  # V-trace advantages follow the policy's new ratios
                advantages = self._advantages(ratio)
                returns = advantages + data.values
                # The per-step floats a minibatch needs, packed so that one gather fetches them all.
                packed = data.segments(torch.stack([data.logprobs, data.values, advantages, returns, data.weights],
                                                   -1))
                priorities = data.segments(advantages.abs()).sum(1) if cfg["prio_alpha"] > 0 else None
            order, importance = (orders[i], None) if orders else ppo.minibatch_segments(
                data.num_segments, per_minibatch, priorities, cfg["prio_alpha"], beta)
            for idx, weights, fields, tensors in self._minibatches(order, importance, per_minibatch, packed,
                                                                   per_segment):
                if uniform:
                    loss_weights = None
                else:  # padded agents weigh 0, prioritised segments their importance weights
                    loss_weights = fields[4] if weights is None else fields[4] * weights.view(-1, 1)
                step_stats, new_logprob = self._update(fields, tensors, loss_weights, cfg)
                if ratio is not None:
                    data.segments(ratio)[idx] = (new_logprob - fields[0]).exp()
                stats.append(step_stats)
        # One stack for the whole batch's statistics (a stack per minibatch costs more than the maths).
        self.losses = dict(zip(ppo.LOSS_STATS, torch.stack([s[k] for s in stats for k in ppo.LOSS_STATS]).view(
            len(stats), len(ppo.LOSS_STATS)).mean(0).tolist()))
        if not all(math.isfinite(v) for v in self.losses.values()):  # the floats just read: no extra sync
            self.diverged = self._non_finite_source()
            raise NonFiniteError(self.diverged)
        self.losses["explained_variance"] = ppo.explained_variance(data.values.flatten(), returns.flatten())
        self.losses["learning_rate"] = lr
        if isinstance(self.policy, normalize.NormalizedPolicy):  # for the next batch, never during one
            self.policy.update(data.obs, data.rewards, data.terminals | data.truncations, data.weights)

    def _minibatches(self, order: torch.Tensor, weights: torch.Tensor | None, size: int, packed: torch.Tensor,
                     tensors: list[torch.Tensor]) -> Iterator[Minibatch]:
        """(segment indices, importance weights, the packed per-step floats unbound into their
        fields, each of `tensors`) at the indices of each minibatch of `size` segments, in `order`
        (see `ppo.minibatch_segments`).

        Consecutive minibatches are gathered together, as many as fit in `GATHER_BYTES`, and
        split into minibatches: a small batch takes a few calls per tensor (for all its epochs
        when `order` holds them all) instead of a few per minibatch (on a small batch each call
        costs more than its arithmetic; figures in the CHANGELOG)."""
        count = len(order) // size
        segment_bytes = sum(x[0].numel() * x.element_size() for x in (packed, *tensors))
        group = max(1, GATHER_BYTES // max(1, segment_bytes * size))
        order = order.to(self.device)
        weights = None if weights is None else weights.to(self.device)
        for first in range(0, count, group):
            span = slice(first * size, min(count, first + group) * size)
            indices = order[span]
            # One tuple per minibatch, of the fields and of the tensors (zip transposes the splits).
            fields = list(zip(*(field.split(size) for field in packed.index_select(0, indices).unbind(-1))))
            gathered = list(zip(*(x.index_select(0, indices).split(size) for x in tensors)))
            parts = indices.split(size)
            weight_parts = None if weights is None else weights[span].split(size)
            for j, idx in enumerate(parts):
                yield idx, None if weight_parts is None else weight_parts[j], fields[j], gathered[j]

    def _non_finite_source(self) -> str:
        """Where the non-finite loss of this batch came from: the first bad step of the env's
        observations or rewards, the policy's outputs during collection, or the update itself."""
        data = self.rollout.storage
        start = self.global_step - data.batch_size * self.world_size
        losses = ", ".join(f"{k}={v:.4g}" for k, v in self.losses.items())
        for name, tensor, fix in (
                ("observations", data.obs, "the env returned NaN or inf observations; fix the env (e.g. a "
                                          "division by zero) or clip its observations"),
                ("rewards", data.rewards, "the env returned NaN or inf rewards; fix the env or clip its rewards"),
                ("value estimates", data.values, "the policy's outputs were non-finite while collecting: its "
                                                 "weights diverged"),
                ("log-probabilities", data.logprobs, "the policy's outputs were non-finite while collecting: "
                                                     "its weights diverged")):
            if not tensor.is_floating_point():
                continue
            bad = ~torch.isfinite(tensor.reshape(tensor.shape[0], tensor.shape[1], -1)).all(-1)
            if bool(bad.any()):
                rows, steps = bad.nonzero(as_tuple=True)
                first = int(steps.argmin())
                return (f"Non-finite {name} at step {int(steps[first])} of agent row {int(rows[first])} in the "
                        f"batch collected from global step {start:,} (epoch {self.epoch + 1}): {fix}. Training "
                        f"stopped; nothing was saved from this state (losses: {losses}).")
        return (f"Non-finite loss at epoch {self.epoch + 1} (global step {self.global_step:,}) with finite "
                f"observations and rewards: the update diverged ({losses}). Lower train.learning_rate or "
                "train.max_grad_norm, or check the policy. Training stopped; nothing was saved from this state.")

    def _advantages(self, ratio: torch.Tensor | None) -> torch.Tensor:
        cfg, data = self.config["train"], self.rollout.storage
        scale = self.policy.reward_scale() if isinstance(self.policy, normalize.NormalizedPolicy) else 1.0
        rewards = data.rewards * scale if scale != 1.0 else data.rewards
        return ppo.compute_advantages(rewards, data.values, data.terminals, data.truncations,
                                      data.bootstrap, cfg["gamma"], cfg["gae_lambda"], ratio,
                                      cfg["vtrace_rho_clip"], cfg["vtrace_c_clip"], data.final_values,
                                      data.weights)

    def _update(self, fields: tuple[torch.Tensor, ...], tensors: tuple[torch.Tensor, ...], weights: torch.Tensor | None,
                cfg: Mapping) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        """One gradient step on a minibatch of segments: `fields` are their (logprob, value,
        advantage, return, mask weight) per step, `tensors` their observations, actions and, for
        an LSTM, starting (h, c) and episode starts; `weights` are the loss's per-step weights,
        or None when every step counts once. Returns the `ppo.LOSS_STATS` (0-d tensors) and the
        new log-probabilities (detached)."""
        start = time.perf_counter()
        stats, new_logprob = self.gradient(fields[:4], tensors, weights)
        grads = [p.grad for p in self._params if p.grad is not None]
        if self.world_size > 1:
            self._average_gradients(grads)
        pufferlib.pytorch.clip_grad_norm_(grads, cfg["max_grad_norm"])
        for opt in self.optimizers:
            opt.step()
        self.profile["learn"] += time.perf_counter() - start
        return stats, new_logprob

    def _average_gradients(self, grads: list[torch.Tensor]) -> None:
        import torch.distributed as dist

        flat = torch.cat([g.flatten() for g in grads])
        dist.all_reduce(flat)
        flat /= self.world_size
        offset = 0
        for g in grads:
            g.copy_(flat[offset:offset + g.numel()].view_as(g))
            offset += g.numel()

    # -- logging and checkpoints ---------------------------------------------------------
    def mean_and_log(self) -> dict[str, float]:
        """Aggregate the stats since the last call, show them, call the log hooks, return them.

        Keys: SPS, global_step, epoch, `environment/<info key>` (means of the env infos,
        e.g. episode_return), `losses/<name>`, and `performance/<key>`, shares of wall time:
        env (vecenv recv/send), forward (rollout inference and sampling), learn (training
        forward, backward, optimiser step), copy (rollout storage writes, host/device
        transfers), other (the rest: advantages, minibatch gathers, logging).
        """
        now = time.perf_counter()
        elapsed = max(now - self._log_time, 1e-9)
        metrics: dict[str, float] = {"SPS": (self.global_step - self._log_step) / elapsed,
                                   "global_step": self.global_step, "epoch": self.epoch}
        for key, values in self.rollout.pop_infos().items():
            metrics[f"environment/{key}"] = float(np.mean(values))
        metrics.update({f"losses/{k}": v for k, v in self.losses.items()})
        metrics.update(self._eval_metrics)
        self._eval_metrics = {}
        if self.selfplay is not None:
            metrics.update(self.selfplay.stats())
        if self.exploitability is not None:
            metrics.update(self.exploitability.stats(self.policy, self.device))
        accounted = sum(self.profile.values())
        for key in ("env", "forward", "learn", "copy", *(("eval",) if "eval" in self.profile else ())):
            metrics[f"performance/{key}"] = self.profile[key] / elapsed
        metrics["performance/other"] = max(0.0, elapsed - accounted) / elapsed
        if self.world_size > 1:
            metrics = all_reduce_mean(metrics, self.world_size, self.device)
        self.profile.clear()
        self._log_time, self._log_step = now, self.global_step
        self.last_metrics = metrics
        if self.rank == 0:
            self.dashboard.update(metrics, self.total_timesteps)
            self.log_steps.add(metrics, self.global_step)  # written to metrics.jsonl when due (train.log_steps)
        return metrics

    @property
    def logged_metrics(self) -> dict[str, float]:
        """The last log step written: metrics.jsonl's last line (after close(), the run's last)."""
        return self.log_steps.last

    def _flush_episode_stats(self) -> None:
        """Log the episode statistics the envs still hold (`pending_infos`) and those gathered since
        the last `mean_and_log()`: the end of a run must not lose the episodes of its last steps."""
        pending = getattr(self.env, "pending_infos", None)
        if callable(pending):
            self.rollout.add_infos(pending())
        stats = {f"environment/{key}": float(np.mean(values)) for key, values in self.rollout.pop_infos().items()}
        if stats:
            row = {"global_step": self.global_step, "epoch": self.epoch, **stats}
            self.last_metrics = {**self.last_metrics, **row}
            self.log_steps.keep(row)  # close() writes it with the results not yet logged

    def _default_run_dir(self) -> Path:
        name = f"{(self.env_id or 'run').replace('/', '_')}_{time.strftime('%Y%m%d-%H%M%S')}_{uuid.uuid4().hex[:6]}"
        return Path(self.config["train"]["data_dir"]) / name

    def save_checkpoint(self, name: str | None = None, extra: Mapping[str, Any] | None = None) -> str | None:
        """Write model, optimiser, progress, config and env id to `run_dir/model_<epoch>.pt` (rank 0).

        `name`: another file name in run_dir (e.g. the best evaluated checkpoint, BEST_NAME), which
        is not the run's latest checkpoint for resuming; `extra`: more plain data to store."""
        if self.rank != 0:
            return None
        if self.diverged is not None:
            raise NonFiniteError(f"Not saving a checkpoint of diverged weights. {self.diverged}")
        if not checkpoint.all_finite(self.policy.state_dict().values()):
            self.diverged = "the policy's weights hold NaN or inf values."
            raise NonFiniteError(f"Not saving a checkpoint: {self.diverged} Lower train.learning_rate or check "
                                 f"the env's observations and rewards (last good checkpoint: "
                                 f"{self.last_checkpoint or 'none this run'}).")
        path = self._claim_run_dir() / (name or f"model_{self.epoch:06d}.pt")
        payload = {"policy": checkpoint.policy_state(self.policy.state_dict()),
                   "optimizers": [opt.state_dict() for opt in self.optimizers],
                   "global_step": self.global_step, "epoch": self.epoch,
                   "config": self.config, "env_id": self.env_id, **(extra or {})}
        checkpoint.save(path, payload)
        if name is None:
            self.last_checkpoint, self.saved_step = str(path), self.global_step
        self._hook("pufferlib_checkpoint", trainer=self, path=str(path))
        return str(path)

    def load_checkpoint(self, path: str | Path, resume: bool = False, allow_env_mismatch: bool = False,
                        ) -> dict[str, Any]:
        """Load a checkpoint's weights; with `resume`, also its optimiser state and progress.

        "latest" is the newest checkpoint of this trainer's env; a checkpoint of another env
        is refused unless `allow_env_mismatch` (fine-tuning; never when resuming)."""
        payload = checkpoint.load(path, self.config["train"]["data_dir"], map_location=self.device,
                                  env_id=None if resume else self.env_id, allow_env_mismatch=allow_env_mismatch,
                                  hub_dir=self.config["hub"]["dir"], vouched=trust.own_code(self.config, self.env_id))
        if resume and payload.get("env_id") and self.env_id and payload["env_id"] != self.env_id:
            raise APIUsageError(f"{payload['path']} is a run of {payload['env_id']!r}, not {self.env_id!r}; resume "
                                "it with that env, or start a new run with --load-model-path to fine-tune.")
        checkpoint.load_policy(self.policy, payload)
        if resume:
            try:
                for opt, state in zip(self.optimizers, payload["optimizers"], strict=True):
                    opt.load_state_dict(state)
            except (ValueError, KeyError, TypeError) as exc:
                raise CheckpointError(
                    f"{payload['path']}: its optimiser state does not fit this run ({exc}); resume with the "
                    f"run's own settings (optimizer {payload['config']['train'].get('optimizer')!r}), or start "
                    "a new run with --load-model-path to keep only the weights.") from None
            self.global_step, self.epoch = payload["global_step"], payload["epoch"]
            self.saved_step, self.last_checkpoint = self.global_step, payload["path"]
            self._log_step = self._resumed_step = self.global_step
            self._restore_best_eval()
        return payload

    def _restore_best_eval(self) -> None:
        """On resume, the best evaluation so far is the one of the run's best.pt (if any)."""
        best = self.run_dir / BEST_NAME
        if self.evaluator is None or not best.is_file():
            return
        try:
            payload = checkpoint.load(best, vouched=trust.own_code(self.config, self.env_id))
            self.evaluator.best = float(payload["eval"]["episode_return"])
        except (CheckpointError, KeyError, TypeError, ValueError) as exc:
            warnings.warn(f"{best}: its evaluation could not be read ({exc}); the next evaluation replaces it.",
                          stacklevel=2)

    def close(self) -> dict[str, float]:
        """Log the episode statistics still pending, write the last log step, stop the dashboard,
        call the end hook, close the env (and the process group this trainer created under
        torchrun); returns the last metrics. `logged_metrics` is then metrics.jsonl's last line."""
        if self.rank == 0:
            self._flush_episode_stats()
        metrics = self.last_metrics
        if self.rank == 0 and metrics:
            self.dashboard.update(metrics, self.total_timesteps, final=True)
        self.dashboard.close()
        if self.rank == 0:
            self.log_steps.write(self.global_step)
        self.log_steps.close()
        if self.selfplay is not None:
            self.selfplay.close()
        if self._run_lock is not None:
            self._run_lock.close()
            self._run_lock = None
        self._hook("pufferlib_train_end", trainer=self, metrics=metrics)
        self.gradient.close()
        if self.evaluator is not None:
            self.evaluator.close()
        self.env.close()
        if self._owns_group:  # every rank arrives before the group goes (gloo aborts otherwise)
            import torch.distributed as dist

            dist.barrier()
            dist.destroy_process_group()
            self._owns_group = False
        return metrics
