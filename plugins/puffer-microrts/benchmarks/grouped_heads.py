"""MultiDiscrete heads grouped by size: the change to `pufferlib.pytorch.sample_logits` that GridNet needs.

    python benchmarks/grouped_heads.py check            # same log-probs and entropies as the core; timings
    python benchmarks/grouped_heads.py train ARGS...    # `puffer train ARGS...` with the grouped sampler

The core scores a MultiDiscrete action one head at a time (a Python loop over `nvec`): a
microRTS action has 1792 heads (256 cells x 7 components), so that loop, not the env or the
network, sets the speed of acting and training. Heads of one size can be scored together:
gather their columns into a (batch, heads, size) tensor, mask, log-softmax, sample or gather,
once per distinct size (4 for microRTS: 4, 6, 7 and 49 choices). Same distribution, same
log-probabilities and entropies (up to float rounding); the draws of the random actions differ.

`train` replaces `pufferlib.pytorch.sample_logits` by `grouped_sample_logits` in this process
(the trainer calls it through the module) and runs the `puffer` CLI: a measurement of the
proposed core change, not something puffer-microrts does when installed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from functools import lru_cache

import torch

import pufferlib.pytorch

_CORE_SAMPLE_LOGITS = pufferlib.pytorch.sample_logits


@lru_cache(maxsize=16)
def _groups(nvec: tuple[int, ...]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """For each distinct head size s: (indices of the heads of size s, (heads, s) columns of the logits)."""
    with torch.inference_mode(False):  # the first call may come from acting; training reuses these
        offsets = torch.cumsum(torch.tensor((0, *nvec[:-1])), 0)
        sizes = torch.tensor(nvec)
        groups = []
        for size in sorted(set(nvec)):
            heads = torch.nonzero(sizes == size).squeeze(1)
            groups.append((heads, offsets[heads].unsqueeze(1) + torch.arange(size)))
    return groups


def grouped_sample_logits(logits, action=None, nvec: Sequence[int] | None = None, action_mask=None,
                          entropy: bool = True):
    """`pufferlib.pytorch.sample_logits`, with a single logits tensor's MultiDiscrete heads scored by size."""
    if not isinstance(logits, torch.Tensor) or nvec is None or len(nvec) < 2:
        return _CORE_SAMPLE_LOGITS(logits, action, nvec, action_mask, entropy)
    batch = logits.shape[0]
    chosen = torch.empty(batch, len(nvec), dtype=torch.long, device=logits.device) if action is None else None
    logprob = logits.new_zeros(batch)
    total_entropy = logits.new_zeros(batch) if entropy else None
    lowest = torch.finfo(logits.dtype).min
    for heads, columns in _groups(tuple(int(n) for n in nvec)):
        heads, columns = heads.to(logits.device), columns.to(logits.device)
        part = logits[:, columns]
        if action_mask is not None:
            part = part.masked_fill(~action_mask[:, columns].bool(), lowest)
        logp = torch.log_softmax(part, dim=-1)
        if action is None:
            noise = torch.rand_like(logp).clamp_(min=torch.finfo(logp.dtype).tiny).log_().neg_().log_()
            index = (logp - noise).argmax(-1)
            chosen[:, heads] = index
        else:
            index = action[:, heads].long()
        logprob = logprob + logp.gather(-1, index.unsqueeze(-1)).squeeze(-1).sum(-1)
        if entropy:
            total_entropy = total_entropy - (logp.exp() * logp).sum((-1, -2))
    return (chosen if action is None else action), logprob, total_entropy


def _per_head_reference(logits, actions, nvec, mask):
    """Log-probs and entropies head by head with a plain log_softmax (what both must equal)."""
    logprob, ent, start = logits.new_zeros(len(logits)), logits.new_zeros(len(logits)), 0
    for k, n in enumerate(nvec):
        logp = torch.log_softmax(logits[:, start:start + n].masked_fill(~mask[:, start:start + n],
                                                                       torch.finfo(logits.dtype).min), -1)
        logprob += logp.gather(-1, actions[:, k:k + 1]).squeeze(-1)
        ent -= (logp.exp() * logp).sum(-1)
        start += n
    return logprob, ent


def check() -> None:
    """Timings of the core's sampler and the grouped one, and their log-probs against the reference."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    nvec = [6, 4, 4, 4, 4, 7, 49] * 256
    for batch in (24, 1024):
        logits = torch.randn(batch, sum(nvec), requires_grad=True)
        mask = torch.rand(batch, sum(nvec)) > 0.3
        mask[:, :78 * 250] = False  # cells without units: every choice masked (most cells of a microRTS map)
        times = {}
        for name, fn in (("core", _CORE_SAMPLE_LOGITS), ("grouped", grouped_sample_logits)):
            start = time.perf_counter()
            actions, _, _ = fn(logits, None, nvec, mask)
            sampled = time.perf_counter() - start
            start = time.perf_counter()
            _, logprob, ent = fn(logits, actions, nvec, mask)
            (logprob.sum() + ent.sum()).backward()
            times[name] = (sampled, time.perf_counter() - start)
        with torch.no_grad():
            actions = grouped_sample_logits(logits, None, nvec, mask)[0]
            ref_lp, ref_ent = _per_head_reference(logits, actions, nvec, mask)
            gaps = {}
            for name, fn in (("core", _CORE_SAMPLE_LOGITS), ("grouped", grouped_sample_logits)):
                _, lp, ent = fn(logits, actions, nvec, mask)
                gaps[name] = ((lp - ref_lp).abs().max().item(), (ent - ref_ent).abs().max().item())
        offsets = torch.cumsum(torch.tensor([0, *nvec[:-1]]), 0)
        legal = mask.gather(1, offsets + actions)  # the chosen column of each head
        can_act = torch.stack([mask[:, o:o + n].any(-1) for o, n in zip(offsets.tolist(), nvec)], -1)
        assert legal[can_act].all(), "a head with legal choices drew an illegal one"
        assert max(gaps["grouped"]) < 0.05, gaps  # float32 sums over 1792 heads
        print(f"batch {batch}: core sample {times['core'][0]:.3f} s, score+backward {times['core'][1]:.3f} s; "
              f"grouped sample {times['grouped'][0]:.3f} s, score+backward {times['grouped'][1]:.3f} s; "
              f"largest log-prob/entropy gap to the per-head reference: core {gaps['core'][0]:.3g}/"
              f"{gaps['core'][1]:.3g}, grouped {gaps['grouped'][0]:.3g}/{gaps['grouped'][1]:.3g}; draws legal")


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("check", "train"):
        print(__doc__)
        return 2
    if sys.argv[1] == "check":
        check()
        return 0
    pufferlib.pytorch.sample_logits = grouped_sample_logits
    from pufferlib.cli import main as cli_main

    sys.argv = ["puffer", *sys.argv[1:]]
    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
