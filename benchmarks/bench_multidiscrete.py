"""MultiDiscrete sampling and scoring: the core's `sample_logits` (sub-actions gathered by size,
one log_softmax per size) beside a plain head-by-head loop (one log_softmax per sub-action, as
the core scored them before, without its padding of narrow heads), timed alternately in this
process on the same logits and masks.

    python benchmarks/bench_multidiscrete.py [--rounds 5] [--threads 1]

Each case: sample (no grad), then score the sampled actions with backward, as a PPO minibatch
does. Prints min/median/max seconds of each over the rounds and the ratio of the medians
(loop / core), and the largest log-prob gap between the two (float rounding only).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from pufferlib.pytorch import sample_logits

#: name -> (nvec, batch rows, share of sub-actions with every choice masked)
CASES = {
    "2 sub-actions [3, 3]": ([3, 3], 8192, 0.0),
    "2 sub-actions [2, 5]": ([2, 5], 8192, 0.0),
    "6 sub-actions of 3": ([3] * 6, 4096, 0.0),
    "MicroRTS 8x8 (448 sub-actions)": ([6, 4, 4, 4, 4, 7, 49] * 64, 256, 0.9),
    "MicroRTS 16x16 (1792 sub-actions)": ([6, 4, 4, 4, 4, 7, 49] * 256, 64, 0.97),
}


def head_by_head(logits: torch.Tensor, action: torch.Tensor | None, nvec: list[int], mask: torch.Tensor):
    """The baseline: one masked log_softmax per sub-action (log-prob, entropy, actions)."""
    logprob, entropy, chosen = 0.0, 0.0, []
    for i, (part, allowed) in enumerate(zip(torch.split(logits, nvec, -1), torch.split(mask, nvec, -1))):
        logp = torch.log_softmax(part.masked_fill(~allowed, torch.finfo(part.dtype).min), -1)
        if action is None:
            noise = torch.rand_like(logp).clamp_(min=torch.finfo(logp.dtype).tiny).log_().neg_().log_()
            index = (logp - noise).argmax(-1, keepdim=True)
        else:
            index = action[:, i:i + 1].long()
        chosen.append(index.squeeze(-1))
        logprob = logprob + logp.gather(-1, index).squeeze(-1)
        entropy = entropy - (logp.exp() * logp).sum(-1)
    return torch.stack(chosen, -1), logprob, entropy


def core(logits: torch.Tensor, action: torch.Tensor | None, nvec: list[int], mask: torch.Tensor):
    action, logprob, entropy = sample_logits(logits, action, nvec=nvec, action_mask=mask)
    return action, logprob, entropy


def one_round(fn, logits: torch.Tensor, nvec: list[int], mask: torch.Tensor) -> float:
    """Seconds to sample without grad, then score with backward."""
    start = time.perf_counter()
    with torch.no_grad():
        action, _, _ = fn(logits, None, nvec, mask)
    _, logprob, entropy = fn(logits, action, nvec, mask)
    (logprob.sum() + 0.01 * entropy.sum()).backward()
    logits.grad = None
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {args.threads} thread(s), {args.rounds} alternating rounds")
    for name, (nvec, rows, empty) in CASES.items():
        logits = torch.randn(rows, sum(nvec), requires_grad=True)
        mask = torch.rand(rows, sum(nvec)) < 0.7
        cut = int(len(nvec) * empty)
        mask[:, :sum(nvec[:cut])] = False  # sub-actions with no allowed choice (cells without a unit)
        for fn in (head_by_head, core):  # warm-up (and the core's cached column indices)
            one_round(fn, logits, nvec, mask)
        times: dict[str, list[float]] = {"loop": [], "core": []}
        for _ in range(args.rounds):
            times["loop"].append(one_round(head_by_head, logits, nvec, mask))
            times["core"].append(one_round(core, logits, nvec, mask))
        with torch.no_grad():
            action = core(logits, None, nvec, mask)[0]
            gap = (core(logits, action, nvec, mask)[1] - head_by_head(logits, action, nvec, mask)[1]).abs().max()
        loop, ours = statistics.median(times["loop"]), statistics.median(times["core"])
        print(f"{name}, {rows} rows: head by head {min(times['loop']) * 1e3:.2f}/{loop * 1e3:.2f}/"
              f"{max(times['loop']) * 1e3:.2f} ms, core {min(times['core']) * 1e3:.2f}/{ours * 1e3:.2f}/"
              f"{max(times['core']) * 1e3:.2f} ms (min/median/max): {loop / ours:.2f}x; log-prob gap {gap:.2g}")


if __name__ == "__main__":
    main()
