"""The gradient of the PPO loss over one minibatch, as the sum of its microbatches' gradients.

A `Gradient`, called on a minibatch, sets every parameter's `.grad` to the gradient of the
minibatch's PPO loss and returns its statistics. The minibatch (the optimiser's batch) is cut into
`count` microbatches of whole segments. Advantages are normalised over the whole minibatch
first, and each microbatch's loss is its sums over the minibatch's count of present steps
(`ppo.ppo_loss(total=...)`), so the microbatches' losses, gradients and statistics add up
to the minibatch's.

With `threads` = 1 the microbatches run in turn on the calling thread, `backward()`
accumulating into `.grad`. With more, they run on min(count, threads) `threads.WorkerThreads`
of threads // that many torch intra-op threads each, through `torch.autograd.grad`, and the
calling thread adds their gradients in microbatch order: the same sums in the same order as
one thread's, whichever worker finished first (bit for bit at one intra-op thread per worker;
a test holds it). With one microbatch this is the plain update of the whole minibatch.

Why: on a CPU, torch's intra-op threads meet at a barrier in every operation, which stalls
whenever another process holds a core (see `pufferlib.cpu.threads`); whole microbatches on
worker threads share the cores dynamically, and a microbatch's activations stay in the
caches where a large minibatch's do not. `microbatch_count` says how many: the user's
`train.microbatch_size` when set, else, on a CPU, as many as keep each microbatch above
`MICROBATCH_STEPS` steps, `MICROBATCH_SEGMENTS` segments and `MICROBATCH_WORK`
parameter-steps, at most `MAX_MICROBATCHES` (a minibatch of a few thousand steps stays
whole); on a GPU, one.

Worker threads run the policy's forward concurrently: a policy whose training forward
changes its own state, or draws random numbers (dropout), is not reproducible with them
(set train.cpu_threads = 1, or train.microbatch_size = train.minibatch_size).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from contextlib import AbstractContextManager
from typing import cast

import torch

import pufferlib.pytorch
from pufferlib.cpu.threads import WorkerThreads
from pufferlib.errors import APIUsageError
from pufferlib.protocols import RecurrentPolicy
from pufferlib.train import ppo

# The automatic count, on a CPU, keeps every microbatch at least this large (chosen with
# benchmarks/bench_trainer.py --microbatches): smaller ones spend a visible share of their time on
# per-operation costs, and an LSTM's on the pieces between episode starts, which a microbatch of
# few rows has as many of as one of many rows.
#: Agent steps.
MICROBATCH_STEPS = 4096
#: Segments (bptt_horizon steps of one agent).
MICROBATCH_SEGMENTS = 128
#: Trainable parameters x agent steps.
MICROBATCH_WORK = 1 << 26
#: The most microbatches the automatic count cuts a minibatch into.
MAX_MICROBATCHES = 8

#: One microbatch's arguments of `Gradient._loss`: (loss fields, tensors, weights, total).
Microbatch = tuple[tuple[torch.Tensor, ...], tuple[torch.Tensor, ...], torch.Tensor | None, torch.Tensor | int | None]
#: One microbatch's (gradients, stats, new log-probabilities) as a worker returns them.
Result = tuple[Sequence[torch.Tensor | None], dict[str, torch.Tensor], torch.Tensor]


def microbatch_count(minibatch_size: int, segment: int, microbatch_size: int, parameters: int,
                     device: torch.device) -> int:
    """How many microbatches each minibatch of `minibatch_size` agent steps (whole segments of
    `segment` steps) is cut into, for a policy of `parameters` trainable parameters: see the
    module doc. `microbatch_size` > 0 is the user's choice, checked here."""
    segments = minibatch_size // segment
    if microbatch_size > 0:
        if minibatch_size % microbatch_size or microbatch_size % segment:
            within = f" and be a multiple of bptt_horizon={segment}" if segment > 1 else ""
            fits = [n * segment for n in range(1, segments + 1) if segments % n == 0]
            raise APIUsageError(f"microbatch_size={microbatch_size} must divide minibatch_size={minibatch_size}"
                                f"{within}: use one of {', '.join(map(str, fits[-8:]))}, or 0 to choose "
                                "it automatically.")
        return minibatch_size // microbatch_size
    if device.type != "cpu":
        return 1
    smallest = max(MICROBATCH_STEPS, MICROBATCH_SEGMENTS * segment, -(-MICROBATCH_WORK // max(1, parameters)))
    want = max(1, min(MAX_MICROBATCHES, minibatch_size // smallest))
    return max(n for n in range(1, want + 1) if segments % n == 0)  # equal microbatches


class Gradient:
    """Computes a minibatch's gradient into `.grad` (see module doc).

    `policy` and `forward_policy` (the module acting calls, e.g. compiled) as the trainer
    holds them; `action_mask` and `nvec` as the rollout gives them; `params` the optimised
    parameters; `autocast` a context factory for the forward pass; `threads` > 1 runs the
    microbatches on that many worker threads (when there are several microbatches).
    """

    def __init__(self, policy: torch.nn.Module, forward_policy: torch.nn.Module, recurrent: bool,
                 action_mask: Callable[[torch.Tensor], torch.Tensor | None], nvec: Sequence[int] | None,
                 loss_config: ppo.LossConfig, params: list[torch.Tensor],
                 autocast: Callable[[], AbstractContextManager[object]], count: int, threads: int):
        self.policy, self.forward_policy, self.recurrent = policy, forward_policy, recurrent
        self.action_mask, self.nvec, self.loss_config = action_mask, nvec, loss_config
        self.params, self.autocast, self.count = params, autocast, count
        workers = min(count, threads)
        self.workers = WorkerThreads(workers, threads // workers) if workers > 1 else None

    def __call__(self, fields: Sequence[torch.Tensor], tensors: Sequence[torch.Tensor],
                 weights: torch.Tensor | None) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        """Set each parameter's `.grad` to the gradient of the minibatch's loss.

        `fields`: the minibatch's (logprob, value, advantage, return) per step, each
        (segments, segment); `tensors`: its observations, actions and, for an LSTM, starting
        (h, c) and episode starts; `weights`: the loss's per-step weights, or None when every
        step counts once. Returns the `ppo.LOSS_STATS` (0-d tensors) and the new
        log-probabilities (detached, (segments, segment))."""
        for param in self.params:  # optimizer.zero_grad(set_to_none=True) without its profiler context
            param.grad = None
        micro: list[Microbatch]
        if self.count == 1:  # the whole minibatch: ppo_loss normalises and averages it itself
            micro = [(tuple(fields), tuple(tensors), weights, None)]
        else:
            old_logprob, old_value, advantages, returns = fields
            if self.loss_config.norm_adv:
                advantages = ppo.normalize_advantages(advantages, weights)
            total = advantages.numel() if weights is None else (weights > 0).sum().clamp(min=1)
            parts = [x.chunk(self.count) for x in (old_logprob, old_value, advantages, returns, *tensors)]
            weight_parts = [None] * self.count if weights is None else weights.chunk(self.count)
            micro = [(part[:4], part[4:], w, total) for part, w in zip(zip(*parts), weight_parts)]
        results = self._threaded(micro) if self.workers is not None else self._serial(micro)
        if len(results) == 1:
            return results[0]
        stats = {key: sum((s[key] for s, _ in results[1:]), results[0][0][key]) for key in results[0][0]}
        return stats, torch.cat([logprob for _, logprob in results])

    def _serial(self, micro: list[Microbatch]) -> list[tuple[dict[str, torch.Tensor], torch.Tensor]]:
        """(stats, new log-probabilities) of the microbatches, run in turn on this thread,
        `backward()` adding their gradients into `.grad`."""
        results = []
        for args in micro:
            loss, stats, new_logprob = self._loss(*args)
            loss.backward()
            results.append((stats, new_logprob))
        return results

    def _threaded(self, micro: list[Microbatch]) -> list[tuple[dict[str, torch.Tensor], torch.Tensor]]:
        """(stats, new log-probabilities) of the microbatches, run on the workers; their gradients
        are added here, in microbatch order, as they come, and set as `.grad`."""
        assert self.workers is not None
        futures: list[Future[Result]] = [self.workers.submit(self._gradient, *args) for args in micro]
        results = []
        total: list[torch.Tensor | None] = [None] * len(self.params)
        try:
            for future in futures:
                grads, stats, new_logprob = future.result()
                total = [a if b is None else b if a is None else a + b for a, b in zip(total, grads)]
                results.append((stats, new_logprob))
        except BaseException:  # a microbatch failed, or Ctrl-C: none is left running
            for future in futures:
                future.cancel()
            wait(futures)
            raise
        for param, grad in zip(self.params, total):
            param.grad = grad
        return results

    def _gradient(self, fields: tuple[torch.Tensor, ...], tensors: tuple[torch.Tensor, ...],
                  weights: torch.Tensor | None, total: torch.Tensor | int | None) -> Result:
        """One microbatch's (gradients of the params, stats, new log-probabilities), on a worker."""
        loss, stats, new_logprob = self._loss(fields, tensors, weights, total)
        return torch.autograd.grad(loss, self.params, allow_unused=True), stats, new_logprob

    def _loss(self, fields: tuple[torch.Tensor, ...], tensors: tuple[torch.Tensor, ...],
              weights: torch.Tensor | None, total: torch.Tensor | int | None,
              ) -> tuple[torch.Tensor, dict[str, torch.Tensor], torch.Tensor]:
        """(loss, stats, detached new log-probabilities) of segments: the policy's forward pass and
        `ppo.ppo_loss` (`total`: see there)."""
        obs, actions, *lstm = tensors
        mb, length = obs.shape[:2]
        flat_obs = obs.reshape(mb * length, *obs.shape[2:])
        with self.autocast():
            if self.recurrent:
                state_h, state_c, starts = lstm
                policy = cast(RecurrentPolicy, self.policy)  # is_recurrent: it has forward_sequence
                logits, value = policy.forward_sequence(obs, (state_h, state_c), starts)
            else:
                logits, value = self.forward_policy(flat_obs)[:2]
            flat_actions = actions.reshape(mb * length, *actions.shape[2:])
            _, new_logprob, entropy = pufferlib.pytorch.sample_logits(logits, flat_actions, self.nvec,
                                                                       self.action_mask(flat_obs))
            assert entropy is not None  # sample_logits computes it by default
        new_logprob = new_logprob.float().view(mb, length)
        old_logprob, old_value, advantages, returns = fields
        loss, stats = ppo.ppo_loss(new_logprob, entropy.float().view(mb, length), value.float().view(mb, length),
                                   old_logprob, old_value, advantages, returns, weights, self.loss_config, total)
        return loss, stats, new_logprob.detach()

    def close(self) -> None:
        """Stop the worker threads, if any."""
        if self.workers is not None:
            self.workers.shutdown()
