"""PyTorch helpers for policies: weight init, observation un-flattening, action heads.

Action heads come in three forms, matching the flat action spaces of the vectorizers:

- Discrete: a logits tensor of shape (batch, n).
- MultiDiscrete: a list/tuple of logits tensors, one (batch, n_i) per sub-action (or one
  (batch, sum(nvec)) tensor split with `nvec=`).
- Box: a `torch.distributions.Normal` with (batch, action_dim) mean and scale, or its
  subclass `StateDependentNormal` (gSDE: exploration noise held for several steps).

`sample_logits` draws actions (or scores given ones) and returns their log-probability
and entropy, summed over sub-actions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from pufferlib.errors import APIUsageError
from pufferlib.protocols import Logits
from pufferlib.spaces import assemble

if TYPE_CHECKING:
    from pufferlib.spaces import Leaf, Nested, ObsLayout


def layer_init(layer: nn.Module, std: float = math.sqrt(2), bias_const: float = 0.0) -> nn.Module:
    """Orthogonal weights scaled by `std` and constant biases (the usual PPO initialisation)."""
    weight, bias = layer.weight, getattr(layer, "bias", None)
    assert isinstance(weight, torch.Tensor), f"{type(layer).__name__}.weight is not a tensor"
    nn.init.orthogonal_(weight, std)
    if bias is not None:
        nn.init.constant_(bias, bias_const)
    return layer


def clip_grad_norm_(grads: list[torch.Tensor] | tuple[torch.Tensor, ...], max_norm: float) -> torch.Tensor:
    """Scale `grads` in place so that their global 2-norm is at most `max_norm`; returns the norm.

    The same result as `torch.nn.utils.clip_grad_norm_` for gradients on one device, at a
    third of its cost for the few small tensors of an RL policy.
    """
    if not grads:
        return torch.zeros(())
    total = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))
    torch._foreach_mul_(grads, (max_norm / (total + 1e-6)).clamp_(max=1.0))
    return total


def embed(embedding: nn.Embedding, indices: torch.Tensor) -> torch.Tensor:
    """`embedding(indices)` through `index_select`: the same values and gradients, and a backward
    pass faster on CPU for large lookups: an `index_add` instead of `embedding_dense_backward`
    (the figures are in the CHANGELOG).

    For embeddings without `padding_idx` or `max_norm`, whose semantics this does not apply.
    """
    if embedding.padding_idx is not None or embedding.max_norm is not None:
        raise APIUsageError("pufferlib.pytorch.embed does not apply padding_idx or max_norm; call the "
                            "embedding itself for those.")
    flat = torch.index_select(embedding.weight, 0, indices.reshape(-1))
    return flat.view(*indices.shape, embedding.embedding_dim)


def torch_dtype(dtype: npt.DTypeLike | None) -> torch.dtype:
    """The torch dtype of a numpy dtype (e.g. np.float32 -> torch.float32; None, as numpy: float64)."""
    return torch.from_numpy(np.zeros(0, dtype=np.dtype(dtype))).dtype


@functools.lru_cache(maxsize=16)
def _hash_weights(length: int, device: str) -> torch.Tensor:
    return torch.randint(1, 2**62, (length,), generator=torch.Generator().manual_seed(0)).to(device)


def distinct_token_rows(tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(distinct, row_of): the distinct rows of a (batch, length) integer tensor of tokens,
    0 being padding, cut after the last column any row uses, as int64; and for each row the
    index of its distinct row (`distinct[row_of]` is `tokens` cut). For encoders of text
    whose cost should follow what varies: a message or mission repeated across a batch, or
    padded far past its length, is encoded once and only over its used columns. Rows are
    matched through a hash and checked exactly; a collision gives every row its own.
    """
    used = tokens.ne(0).any(0).nonzero()
    tokens = tokens[:, :int(used[-1]) + 1 if len(used) else 1].long()
    keys = (tokens * _hash_weights(tokens.shape[1], str(tokens.device))).sum(1)
    _, row_of = torch.unique(keys, return_inverse=True)
    first = torch.empty(int(row_of.max()) + 1 if len(row_of) else 0, dtype=torch.long, device=tokens.device)
    first.scatter_(0, row_of.flip(0), torch.arange(len(row_of) - 1, -1, -1, device=tokens.device))
    distinct = tokens[first]
    if not torch.equal(distinct[row_of], tokens):
        return tokens, torch.arange(len(tokens), device=tokens.device)
    return distinct, row_of


def unflatten(flat: torch.Tensor, layout: ObsLayout | None) -> Nested[torch.Tensor]:
    """The structured observation of `flat` (batch..., row) as a dict/tuple of tensor views.

    `layout` is the vecenv's `obs_layout` (a `pufferlib.spaces.ObsLayout`); with None, or a
    layout that is not structured, `flat` comes back reshaped. Nothing is copied: for
    raw-byte layouts (mixed leaf dtypes) each leaf is a dtype view of the uint8 row.
    """
    if layout is None:
        return flat
    batch = flat.shape[:flat.dim() - len(layout.shape)]
    if not layout.structured:
        return flat.reshape(*batch, *layout.leaves[0].shape)
    values = {leaf.path: _leaf(flat, leaf, layout.raw).reshape(*batch, *leaf.shape) for leaf in layout.leaves}
    return assemble(layout.space, (), values)


def _leaf(flat: torch.Tensor, leaf: Leaf, raw: bool) -> torch.Tensor:
    """One leaf's columns of `flat`, viewed with the leaf's dtype when the row is raw bytes."""
    part = flat[..., leaf.offset:leaf.offset + leaf.length]
    return part.view(torch_dtype(leaf.dtype)) if raw else part


def action_mask(flat: torch.Tensor, layout: ObsLayout | None) -> torch.Tensor | None:
    """The `action_mask` entry of dict observations as a (batch, n) bool tensor, or None.

    Envs that allow only some actions put a top-level "action_mask" key (1 = allowed)
    in their Dict observation space; the trainer and `puffer eval` apply it when sampling.
    """
    if layout is None or not layout.structured:
        return None
    for leaf in layout.leaves:
        if leaf.path == ("action_mask",):
            return _leaf(flat, leaf, layout.raw).reshape(flat.shape[0], -1).bool()
    return None


class StateDependentNormal(torch.distributions.Normal):
    """The Gaussian of generalised state-dependent exploration (gSDE; Raffin, Kober and Stulp,
    "Smooth Exploration for Robotic Reinforcement Learning", CoRL 2021).

    An action is `mean + latent @ M`, where `latent` (batch, features) are the actor's last
    features and M (features, action_dim) a noise matrix with entries ~ N(0, exp(log_std)**2),
    which the actor holds for `hold` steps per agent row (`pufferlib.train.acting.Actor`): the noise
    changes smoothly with the state instead of independently at every step, which finds
    rewards that independent noise does not (MountainCarContinuous). Given the latent, each
    action dimension is Gaussian with variance `sum_i latent_i**2 * exp(log_std_i)**2`, the
    scale of this Normal, which scores actions in training. The latent is detached: exploration
    does not train the features, and the gradient reaches `log_std` through the scale.
    """

    def __init__(self, mean: torch.Tensor, latent: torch.Tensor, log_std: torch.Tensor, hold: int,
                 eps: float = 1e-6):
        self.latent = latent.detach()
        self.noise_std = log_std.exp()
        self.hold = hold
        variance = self.latent.square() @ self.noise_std.square()
        super().__init__(mean, torch.sqrt(variance + eps))

    def noise(self, matrices: torch.Tensor) -> torch.Tensor:
        """`latent @ M` per row for held noise matrices (batch, features, action_dim)."""
        return (self.latent.unsqueeze(1) @ matrices.to(self.latent.dtype)).squeeze(1)


#: torch's CPU log_softmax runs a scalar loop over a last dimension narrower than one vector of
#: 8 floats: measured on a 2-core AVX2 machine, 4,096 x 7 logits took 403 us forward and 696 us
#: forward and backward, against 91 and 292 us padded to 8 columns of -inf (`_log_softmax`). The pad
#: is -inf, not the lowest float a mask writes: a fully masked row (a MicroRTS cell with no unit) must
#: stay uniform over its own n choices (log-prob -log n), not over the 8 padded ones (-log 8).
#: Padding pays from 3 columns and 512 rows (forward: 52 -> 21 us at 512 x 7); it costs at 2 columns
#: and on small batches (64 rows: +50 us forward and backward), which keep the plain call.
_PAD_COLUMNS, _PAD_MIN_COLUMNS, _PAD_MIN_ROWS = 8, 3, 512


def _log_softmax(logits: torch.Tensor) -> torch.Tensor:
    """log_softmax over the last dimension (see `_PAD_COLUMNS` for the padding on the CPU)."""
    n = logits.shape[-1]
    if (logits.device.type == "cpu" and _PAD_MIN_COLUMNS <= n < _PAD_COLUMNS
            and logits.numel() >= _PAD_MIN_ROWS * n):
        padded = nn.functional.pad(logits, (0, _PAD_COLUMNS - n), value=float("-inf"))
        return torch.log_softmax(padded, dim=-1)[..., :n]
    return torch.log_softmax(logits, dim=-1)


def _gumbel_argmax(logp: torch.Tensor) -> torch.Tensor:
    """A sample of the categorical distributions of log-probabilities `logp` (batch, n), or of
    logits (the same up to a constant per row), as indices (batch, 1): Gumbel-max,
    argmax(log p - log E) with E = -log U ~ Exp(1), U uniform in (0, 1).
    E is made from `rand` (2-2.7x faster than `exponential_` on the CPU: 53 against 109 us at
    512 x 7); U is kept above 0, so that E is finite and above 0 and a masked choice (log p at the
    lowest float) is never drawn."""
    noise = torch.rand_like(logp).clamp_(min=torch.finfo(logp.dtype).tiny).log_().neg_().log_()
    return (logp - noise).argmax(-1, keepdim=True)


def _categorical(logits: torch.Tensor, action: torch.Tensor | None, mask: torch.Tensor | None, with_entropy: bool):
    logp = _log_softmax(_masked(logits, mask))
    if action is None:
        index = _gumbel_argmax(logp)
    else:
        index = action.long().unsqueeze(-1)
    logprob = logp.gather(-1, index).squeeze(-1)
    entropy = -(logp.exp() * logp).sum(-1) if with_entropy else None
    return index.squeeze(-1) if action is None else action, logprob, entropy


def sample_action(logits: Logits, nvec: Sequence[int] | None = None,
                  action_mask: torch.Tensor | None = None) -> torch.Tensor:
    """A sampled action of a policy head, as `sample_logits` draws it, without its log-prob or
    entropy (acting outside training, self-play's opponents): Gumbel-max on the (masked) logits
    themselves, whose argmax does not need them normalized; a Normal's sample for Box actions."""
    if isinstance(logits, torch.distributions.Normal):
        return logits.sample()
    if isinstance(logits, torch.Tensor) and (nvec is None or len(nvec) == 1):
        return _gumbel_argmax(_masked(logits, action_mask)).squeeze(-1)
    return _per_group(logits, nvec, action_mask, lambda lg: _gumbel_argmax(lg).squeeze(-1))


def greedy_action(logits: Logits, nvec: Sequence[int] | None = None,
                  action_mask: torch.Tensor | None = None) -> torch.Tensor:
    """The most likely action of a policy head, shaped as `sample_logits` returns actions: the
    allowed choice of highest logit (per sub-action of a MultiDiscrete space), or the mean of
    a Normal (Box actions)."""
    if isinstance(logits, torch.distributions.Normal):
        return logits.mean
    if isinstance(logits, torch.Tensor) and (nvec is None or len(nvec) == 1):
        return _masked(logits, action_mask).argmax(-1)
    return _per_group(logits, nvec, action_mask, lambda lg: lg.argmax(-1))


@functools.lru_cache(maxsize=64)
def _columns_by_size(nvec: tuple[int, ...], device: torch.device
                     ) -> tuple[tuple[slice | torch.Tensor, int, slice | torch.Tensor], ...]:
    """For each distinct size s of `nvec`: (the sub-actions of size s, s, their columns in a logits
    tensor of sum(nvec) columns). Sub-actions that follow one another (every one of [3, 3], a
    lone one of [2, 5]) are slices, so that their logits are a view; others are index tensors on
    `device` (a gather), made once."""
    offsets = np.concatenate([[0], np.cumsum(nvec)[:-1]]).astype(np.int64)
    groups: list[tuple[slice | torch.Tensor, int, slice | torch.Tensor]] = []
    with torch.inference_mode(False):  # the first call may come from acting; training reuses them
        for size in sorted(set(nvec)):
            heads = np.flatnonzero(np.asarray(nvec) == size)
            first, count = int(heads[0]), len(heads)
            if heads[-1] - first + 1 == count:
                groups.append((slice(first, first + count), size,
                               slice(int(offsets[first]), int(offsets[first]) + count * size)))
            else:
                columns = offsets[heads][:, None] + np.arange(size)
                groups.append((torch.as_tensor(heads, device=device), size,
                               torch.as_tensor(columns.reshape(-1), device=device)))
    return tuple(groups)


#: A group of MultiDiscrete sub-actions of one size: (their indices among the sub-actions, their
#: logits (..., count, size), their mask of the same shape or None).
HeadGroup = tuple["torch.Tensor | slice", torch.Tensor, "torch.Tensor | None"]


def _head_groups(logits: Logits, nvec: Sequence[int] | None, action_mask: torch.Tensor | None) -> list[HeadGroup]:
    """The sub-actions of a MultiDiscrete head, those of one size together. One logits tensor cut
    by `nvec` is gathered size by size, so that one log_softmax scores every sub-action of a size
    (MicroRTS's 1,792 sub-actions of 16x16 cells: 4 sizes; benchmarks/bench_multidiscrete.py); a list
    of logits tensors is one group per tensor. Sub-actions of one size that follow one another are a
    view of the logits (no copy), the others a gather."""
    if isinstance(logits, torch.Tensor):
        assert nvec is not None
        if logits.shape[-1] != sum(nvec):
            raise APIUsageError(f"logits have {logits.shape[-1]} columns but the MultiDiscrete space needs "
                                f"sum(nvec) = {sum(nvec)}; size the policy's action head to sum(nvec).")
        return [(heads, logits[..., columns].unflatten(-1, (-1, size)),
                 None if action_mask is None else action_mask[..., columns].unflatten(-1, (-1, size)))
                for heads, size, columns in _columns_by_size(tuple(int(n) for n in nvec), logits.device)]
    if not isinstance(logits, (list, tuple)):
        raise APIUsageError(f"Unsupported policy output {type(logits).__name__}: return a logits tensor, a list "
                            "of logits tensors (MultiDiscrete) or a torch.distributions.Normal (Box).")
    masks = ([None] * len(logits) if action_mask is None
             else torch.split(action_mask, [lg.shape[-1] for lg in logits], dim=-1))
    return [(slice(i, i + 1), lg.unsqueeze(-2), None if m is None else m.unsqueeze(-2))
            for i, (lg, m) in enumerate(zip(logits, masks))]


def _per_group(logits: Logits, nvec: Sequence[int] | None, action_mask: torch.Tensor | None,
               choose: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """The MultiDiscrete action (..., sub-actions) that `choose` picks from each group's masked
    logits (..., count, size) -> indices (..., count)."""
    groups = _head_groups(logits, nvec, action_mask)
    actions = _empty_action(groups)
    for heads, lg, mask in groups:
        actions[..., heads] = choose(_masked(lg, mask))
    return actions


def _empty_action(groups: list[HeadGroup]) -> torch.Tensor:
    """An uninitialized MultiDiscrete action (..., sub-actions) for the sub-actions of `groups`."""
    logits = groups[0][1]
    count = sum(lg.shape[-2] for _, lg, _ in groups)
    return torch.empty(*logits.shape[:-2], count, dtype=torch.long, device=logits.device)


def _masked(logits: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """`logits` with the choices `mask` forbids (0) at the lowest value."""
    return logits if mask is None else logits.masked_fill(~mask.bool(), torch.finfo(logits.dtype).min)


def sample_logits(logits: Logits, action: torch.Tensor | None = None, nvec: Sequence[int] | None = None,
                  action_mask: torch.Tensor | None = None,
                  entropy: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Sample actions from a policy head (or score `action`); return (action, logprob, entropy).

    `logits`: see the module docstring. `nvec` splits a single logits tensor into the
    sub-actions of a MultiDiscrete space. `action_mask` (batch, sum(nvec) or n) marks the
    allowed choices with 1; masked choices get zero probability.
    Actions come back as (batch,) int64 for Discrete, (batch, k) for MultiDiscrete and
    (batch, action_dim) float for Box; logprob and entropy are (batch,). `entropy=False`
    skips the entropy (None comes back), which acting does not need.
    """
    if isinstance(logits, torch.distributions.Normal):
        if action is None:
            action = logits.sample()
        return action, logits.log_prob(action).sum(-1), logits.entropy().sum(-1) if entropy else None
    if isinstance(logits, torch.Tensor) and (nvec is None or len(nvec) == 1):
        if action is not None and action.dim() == logits.dim():
            action = action.squeeze(-1)
        return _categorical(logits, action, action_mask, entropy)
    groups = _head_groups(logits, nvec, action_mask)
    sampling = action is None
    action = _empty_action(groups) if action is None else action
    logprob = total_entropy = groups[0][1].new_zeros(())
    for heads, lg, mask in groups:
        logp = _log_softmax(_masked(lg, mask))
        if sampling:
            index = _gumbel_argmax(logp)
            action[..., heads] = index.squeeze(-1)
        else:
            index = action[..., heads].long().unsqueeze(-1)
        logprob = logprob + logp.gather(-1, index).squeeze(-1).sum(-1)
        if entropy:
            total_entropy = total_entropy - (logp.exp() * logp).sum((-2, -1))
    return action, logprob, total_entropy if entropy else None
