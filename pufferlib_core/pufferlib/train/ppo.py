"""The PPO maths: advantages (GAE, optionally V-trace-clipped), the clipped loss, sampling.

Tensors are laid out (rows, time): one row per agent slot of the vectorized env, in
the order the steps were taken. Step t holds the observation, the action taken on it,
its value, and the reward/terminal/truncation that the env returned for that action.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from pufferlib.train._kernels import gae


def compute_advantages(rewards: torch.Tensor, values: torch.Tensor, terminals: torch.Tensor,
                       truncations: torch.Tensor, bootstrap: torch.Tensor, gamma: float, gae_lambda: float,
                       ratio: torch.Tensor | None = None, rho_clip: float = 1.0,
                       c_clip: float = 1.0, final_values: torch.Tensor | None = None,
                       acting: torch.Tensor | None = None) -> torch.Tensor:
    """Generalised advantage estimates of (rows, time) rollouts.

    `bootstrap` (rows,) is the value of the observation after each row's last step.
    A terminal step has no future. A truncated step is bootstrapped from `final_values`
    (rows, time), the value of the episode's final observation; where that is NaN or not
    given (the env did not keep the final observation), from the value of the step's own
    observation, the last one seen. The lambda-chain stops at either.
    `ratio` (rows, time): pi/mu of the current policy over the behaviour policy; when
    given, temporal differences are weighted by min(rho_clip, ratio) and the chain by
    min(c_clip, ratio), as in V-trace. With ratio None (or all ones) this is plain GAE.
    `acting` (rows, time; nonzero where the row acted, e.g. the rollout's masks): a step where
    the row did not act (a seat waiting for its turn, an absent agent) is passed through: its
    advantage is 0, and its reward and its end belong to the transition of the row's previous
    acting step, which continues into the row's next acting step. None: every step acted.
    """
    # The loop over time runs in C on the host (pufferlib.train._kernels.gae), over float32 (or bool) arrays.
    def host(x: torch.Tensor) -> np.ndarray:
        x = x.detach()
        return (x if x.dtype in (torch.float32, torch.bool) else x.float()).cpu().contiguous().numpy()

    out = np.empty(tuple(rewards.shape), np.float32)
    gae(host(rewards), host(values), host(terminals), host(truncations), host(bootstrap),
        None if final_values is None else host(final_values), None if ratio is None else host(ratio),
        None if acting is None else host(acting), gamma, gae_lambda, rho_clip, c_clip, out)
    return torch.from_numpy(out).to(values.device)


#: The statistics `ppo_loss` returns, in this order.
LOSS_STATS = ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac")


@dataclass
class LossConfig:
    """Coefficients of the PPO loss (documented in data/default.toml)."""

    clip_coef: float = 0.2
    vf_coef: float = 0.5
    vf_clip_coef: float = 0.0
    ent_coef: float = 0.0
    norm_adv: bool = True


def normalize_advantages(advantages: torch.Tensor, weights: torch.Tensor | None) -> torch.Tensor:
    """`advantages` scaled to mean 0 and (unbiased) std 1 over the present entries (`weights` > 0;
    all of them when `weights` is None). Absent entries come back 0."""
    if weights is None:
        return (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    present = weights > 0
    count = present.sum().clamp(min=1)
    mean = torch.where(present, advantages, 0.0).sum() / count
    centred = torch.where(present, advantages - mean, 0.0)
    std = (centred.square().sum() / (count - 1).clamp(min=1)).sqrt()
    return centred / (std + 1e-8)


def ppo_loss(new_logprob: torch.Tensor, entropy: torch.Tensor, new_value: torch.Tensor,
             old_logprob: torch.Tensor, old_value: torch.Tensor, advantages: torch.Tensor,
             returns: torch.Tensor, weights: torch.Tensor | None, cfg: LossConfig,
             total: torch.Tensor | int | None = None) -> tuple[torch.Tensor, dict]:
    """The clipped PPO objective over one minibatch; returns (loss, stats).

    `weights` holds 0 for padded/absent agents (they add nothing to loss or statistics)
    and, with prioritised sampling, the importance weights of the sampled segments; None
    when every entry is present with weight 1 (the same result with fewer operations).

    `total`: when the inputs are one microbatch of a minibatch, the minibatch's count of
    present entries. `advantages` must then be normalised over the whole minibatch already
    (`normalize_advantages`, when `cfg.norm_adv`), and every mean is this microbatch's sum
    over `total`: the microbatches' losses, gradients and stats add up to the minibatch's.
    None: the inputs are the whole minibatch.
    """
    if total is None and cfg.norm_adv:
        advantages = normalize_advantages(advantages, weights)
    if weights is None:
        def present_mean(x: torch.Tensor) -> torch.Tensor:
            return x.mean() if total is None else x.sum() / total

        weighted_mean = present_mean
    else:
        present = weights > 0
        count = present.sum().clamp(min=1) if total is None else total

        def present_mean(x: torch.Tensor) -> torch.Tensor:
            return torch.where(present, x, 0.0).sum() / count

        def weighted_mean(x: torch.Tensor) -> torch.Tensor:
            return present_mean(x * weights)

    log_ratio = new_logprob - old_logprob
    ratio = log_ratio.exp()
    pg_loss1 = -advantages * ratio
    pg_loss2 = -advantages * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)
    policy_loss = weighted_mean(torch.max(pg_loss1, pg_loss2))

    if cfg.vf_clip_coef > 0:
        clipped = old_value + (new_value - old_value).clamp(-cfg.vf_clip_coef, cfg.vf_clip_coef)
        v_loss = torch.max((new_value - returns) ** 2, (clipped - returns) ** 2)
    else:
        v_loss = (new_value - returns) ** 2
    value_loss = 0.5 * weighted_mean(v_loss)
    loss = policy_loss + cfg.vf_coef * value_loss
    if cfg.ent_coef:
        entropy_loss = weighted_mean(entropy)
        loss = loss - cfg.ent_coef * entropy_loss

    with torch.no_grad():
        stats = {
            "policy_loss": policy_loss.detach(),
            "value_loss": value_loss.detach(),
            "entropy": entropy_loss.detach() if cfg.ent_coef else weighted_mean(entropy.detach()),
            "approx_kl": present_mean((ratio - 1) - log_ratio),
            "clipfrac": present_mean(((ratio - 1).abs() > cfg.clip_coef).float()),
        }
    return loss, stats


def explained_variance(values: torch.Tensor, returns: torch.Tensor) -> float:
    """1 - Var(returns - values) / Var(returns): how much of the return the critic explains."""
    var, residual = torch.stack([returns, returns - values]).var(1).tolist()
    return float("nan") if var == 0 else 1 - residual / var


def minibatch_segments(num_segments: int, per_minibatch: int, priorities: torch.Tensor | None = None,
                       alpha: float = 0.0, beta: float = 0.0,
                       generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor | None]:
    """One epoch's minibatches: (segment indices, importance weights), minibatch i being entries
    [i * per_minibatch, (i + 1) * per_minibatch) of both, `num_segments // per_minibatch` of them.

    Uniform (`alpha == 0`): a random permutation, every segment used at most once, weights None
    (all 1). Prioritised (`alpha > 0`): each minibatch draws distinct segments with probability
    proportional to priority**alpha (priority: summed absolute advantage) and weights them by
    (N * p)**-beta, normalised to max 1 within the minibatch.
    """
    count = num_segments // per_minibatch
    if alpha <= 0 or priorities is None:
        return torch.randperm(num_segments, generator=generator)[:count * per_minibatch], None
    probs = (priorities.float().cpu() + 1e-8) ** alpha
    probs = probs / probs.sum()
    idx = torch.stack([torch.multinomial(probs, per_minibatch, replacement=False, generator=generator)
                       for _ in range(count)])
    weights = (num_segments * probs[idx]) ** -beta
    return idx.view(-1), (weights / weights.max(1, keepdim=True).values).view(-1)
