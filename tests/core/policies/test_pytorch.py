"""pufferlib.pytorch: layer_init, un-flattening, action heads."""

import numpy as np
import pytest
import torch
from gymnasium import spaces

import pufferlib.pytorch
from pufferlib.errors import APIUsageError
from pufferlib.pytorch import layer_init, sample_logits, unflatten
from pufferlib.spaces import ObsLayout


def test_layer_init_orthogonal_and_bias():
    layer = layer_init(torch.nn.Linear(8, 8), std=2.0, bias_const=0.5)
    w = layer.weight.detach()
    assert torch.allclose(w @ w.T, 4 * torch.eye(8), atol=1e-4)
    assert torch.all(layer.bias == 0.5)


@pytest.mark.parametrize("space", [
    spaces.Dict({"a": spaces.Box(-1, 1, (2, 3), np.float32), "b": spaces.Discrete(5),
                 "c": spaces.Tuple((spaces.MultiBinary(3), spaces.Box(0, 9, (1,), np.float64)))}),
    spaces.Dict({"x": spaces.Box(0, 1, (4,), np.float32), "y": spaces.Box(0, 1, (2,), np.float32)}),
    spaces.Box(0, 1, (2, 2), np.float32),
])
def test_unflatten_matches_numpy_and_is_a_view(space):
    layout = ObsLayout(space)
    rows = [layout.flatten(space.sample()) for _ in range(5)]
    flat = np.stack(rows)
    expected = layout.unflatten(flat)
    tensor = torch.from_numpy(flat)
    got = unflatten(tensor, layout)

    def compare(e, g):
        if isinstance(e, dict):
            assert set(e) == set(g)
            for k in e:
                compare(e[k], g[k])
        elif isinstance(e, tuple):
            for x, y in zip(e, g):
                compare(x, y)
        else:
            assert g.shape == e.shape and g.dtype == pufferlib.pytorch.torch_dtype(e.dtype)
            np.testing.assert_array_equal(g.numpy(), e)
            assert g.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()  # zero-copy

    compare(expected, got)


def test_unflatten_without_layout_is_identity():
    x = torch.zeros(3, 4)
    assert unflatten(x, None) is x


def test_discrete_logprob_entropy_match_torch():
    logits = torch.randn(64, 5)
    action, logprob, entropy = sample_logits(logits)
    dist = torch.distributions.Categorical(logits=logits)
    assert action.shape == (64,)
    assert torch.allclose(logprob, dist.log_prob(action), atol=1e-6)
    assert torch.allclose(entropy, dist.entropy(), atol=1e-6)
    # scoring given actions (the shape the rollout stores) gives the same log-probs
    _, again, _ = sample_logits(logits, action)
    assert torch.allclose(again, logprob)
    # acting skips the entropy
    _, scored, none = sample_logits(logits, action, entropy=False)
    assert none is None and torch.allclose(scored, logprob)


def test_discrete_sampling_follows_probabilities():
    torch.manual_seed(0)
    logits = torch.log(torch.tensor([[0.7, 0.2, 0.1]])).expand(20000, 3)
    action, _, _ = sample_logits(logits)
    freq = torch.bincount(action, minlength=3).float() / len(action)
    assert torch.allclose(freq, torch.tensor([0.7, 0.2, 0.1]), atol=0.02)


@pytest.mark.parametrize("rows, n", [(64, 5), (600, 3), (4096, 7), (512, 2), (512, 9)])
def test_log_probs_entropy_and_gradients_equal_torch_at_every_width(rows, n):
    """`_log_softmax` pads narrow heads of large batches to 8 columns (a faster CPU kernel): the
    log-probs, the entropy and the gradients are those of torch.distributions.Categorical."""
    torch.manual_seed(1)
    logits = (3 * torch.randn(rows, n)).requires_grad_()
    mask = torch.rand(rows, n) < 0.7
    mask[:, 0] = True
    action, logprob, entropy = sample_logits(logits, action_mask=mask)
    assert bool(mask.gather(1, action[:, None]).all())  # a masked choice is never drawn
    masked = logits.masked_fill(~mask, torch.finfo(logits.dtype).min)
    dist = torch.distributions.Categorical(logits=masked)
    assert torch.allclose(logprob, dist.log_prob(action), atol=1e-5)
    assert torch.allclose(entropy, dist.entropy(), atol=1e-5)
    (grad,) = torch.autograd.grad((logprob + 0.1 * entropy).sum(), logits)
    (expected,) = torch.autograd.grad((dist.log_prob(action) + 0.1 * dist.entropy()).sum(), logits)
    assert torch.allclose(grad, expected, atol=1e-5)


@pytest.mark.parametrize("rows, n", [(64, 3), (512, 3), (4096, 7)])
def test_a_fully_masked_row_is_uniform_over_its_own_choices(rows, n):
    """A row with no allowed choice (a MultiDiscrete head of a unit that cannot act, a finished
    seat) scores as torch's Categorical scores it: log-prob -log n and entropy log n, padded or not."""
    torch.manual_seed(2)
    logits = torch.randn(rows, n, requires_grad=True)
    mask = torch.ones(rows, n, dtype=torch.bool)
    mask[::2] = False
    _, logprob, entropy = sample_logits(logits, action=torch.zeros(rows, dtype=torch.long), action_mask=mask)
    assert torch.allclose(logprob[::2], torch.full((rows // 2,), -float(np.log(n))), atol=1e-5)
    assert torch.allclose(entropy[::2], torch.full((rows // 2,), float(np.log(n))), atol=1e-5)
    (grad,) = torch.autograd.grad((logprob + entropy).sum(), logits)
    assert torch.isfinite(grad).all() and not grad[::2].any()


def test_a_uniform_draw_of_zero_never_picks_a_masked_choice(monkeypatch):
    """Sampling turns uniform draws into Exp(1) noise; a draw of exactly 0 (which `rand` can give)
    must not make a forbidden choice win, even where one choice alone is allowed."""
    monkeypatch.setattr(torch, "rand_like", torch.zeros_like)
    logits = torch.randn(1024, 5)
    mask = torch.zeros(1024, 5, dtype=torch.bool)
    mask[torch.arange(1024), torch.arange(1024) % 5] = True
    action, _, _ = sample_logits(logits, action_mask=mask)
    assert torch.equal(action, torch.arange(1024) % 5)


def test_sample_action_draws_as_sample_logits_does_without_scoring():
    """`sample_action` (acting outside training) follows the probabilities, never draws a masked
    choice, and gives MultiDiscrete and Box actions the shapes `sample_logits` gives."""
    torch.manual_seed(0)
    # unnormalized; the last choice, the likeliest by its logit, is masked
    logits = torch.cat([torch.log(torch.tensor([0.7, 0.2, 0.1])) + 5.0, torch.tensor([20.0])]).expand(40000, 4)
    mask = torch.tensor([[1, 1, 1, 0]]).bool().expand(40000, 4)
    action = pufferlib.pytorch.sample_action(logits, action_mask=mask)
    freq = torch.bincount(action, minlength=4).float() / len(action)
    assert torch.allclose(freq, torch.tensor([0.7, 0.2, 0.1, 0.0]), atol=0.01)
    assert pufferlib.pytorch.sample_action(torch.randn(16, 7), nvec=[3, 4]).shape == (16, 2)
    normal = torch.distributions.Normal(torch.zeros(8, 2), torch.ones(8, 2))
    assert pufferlib.pytorch.sample_action(normal).shape == (8, 2)


def test_multidiscrete_list_and_split_tensor_agree():
    nvec = [3, 4]
    logits = torch.randn(16, 7)
    action, logprob, entropy = sample_logits(logits, nvec=nvec)
    assert action.shape == (16, 2)
    parts = torch.split(logits, nvec, dim=-1)
    expected = sum(torch.distributions.Categorical(logits=p).log_prob(action[:, i]) for i, p in enumerate(parts))
    assert torch.allclose(logprob, expected, atol=1e-6)
    _, lp2, ent2 = sample_logits(list(parts), action)
    assert torch.allclose(lp2, logprob) and torch.allclose(ent2, entropy)
    with pytest.raises(APIUsageError, match="sum\\(nvec\\)"):
        sample_logits(torch.randn(2, 6), nvec=nvec)


@pytest.mark.parametrize("rows", [8, 600])
def test_multidiscrete_heads_scored_by_size_equal_torch_head_by_head(rows):
    """One logits tensor's sub-actions are scored size by size (one log_softmax per size): the
    actions, log-probs, entropies and gradients are those of one torch Categorical per sub-action,
    fully masked sub-actions included, and `greedy_action` takes each sub-action's best allowed choice."""
    torch.manual_seed(3)
    nvec = [3, 5, 3, 2, 5, 5, 7]
    logits = torch.randn(rows, sum(nvec), requires_grad=True)
    mask = torch.rand(rows, sum(nvec)) < 0.6
    mask[:, 3:8] = False  # the second sub-action (5 choices) has no allowed choice
    action, logprob, entropy = sample_logits(logits, nvec=nvec, action_mask=mask)
    assert action.shape == (rows, len(nvec)) and action.dtype == torch.long
    # the reference masks with -1e9 (as good as the lowest float here): a Categorical of a row at the lowest
    # float everywhere rounds its log-probs to 0 instead of -log n
    dists = [torch.distributions.Categorical(logits=part.double().masked_fill(~allowed, -1e9))
             for part, allowed in zip(torch.split(logits, nvec, -1), torch.split(mask, nvec, -1))]
    expected_lp = sum(d.log_prob(action[:, i]) for i, d in enumerate(dists)).float()
    expected_ent = sum(d.entropy() for d in dists).float()
    assert torch.allclose(logprob, expected_lp, atol=1e-4) and torch.allclose(entropy, expected_ent, atol=1e-4)
    (grad,) = torch.autograd.grad((logprob + entropy).sum(), logits)
    (expected,) = torch.autograd.grad((expected_lp + expected_ent).sum(), logits)
    assert torch.allclose(grad, expected, atol=1e-4)
    some_allowed = torch.stack([m.any(-1) for m in torch.split(mask, nvec, -1)], -1)
    chosen_allowed = torch.stack([m.gather(-1, action[:, i:i + 1]).squeeze(-1)
                                  for i, m in enumerate(torch.split(mask, nvec, -1))], -1)
    assert bool(chosen_allowed[some_allowed].all())  # a masked choice is drawn only where none is allowed
    _, rescored, _ = sample_logits(logits, action.float(), nvec=nvec, action_mask=mask)
    assert torch.allclose(rescored, logprob)
    best = torch.stack([d.logits.argmax(-1) for d in dists], -1)
    assert torch.equal(pufferlib.pytorch.greedy_action(logits, nvec=nvec, action_mask=mask), best)
    drawn = pufferlib.pytorch.sample_action(logits, nvec=nvec, action_mask=mask)
    assert drawn.shape == (rows, len(nvec)) and bool(torch.stack(
        [m.gather(-1, drawn[:, i:i + 1]).squeeze(-1) for i, m in enumerate(torch.split(mask, nvec, -1))],
        -1)[some_allowed].all())


def test_box_head_gaussian():
    dist = torch.distributions.Normal(torch.zeros(8, 2), torch.ones(8, 2))
    action, logprob, entropy = sample_logits(dist)
    assert action.shape == (8, 2)
    assert torch.allclose(logprob, dist.log_prob(action).sum(-1))
    assert torch.allclose(entropy, torch.full((8,), 2 * 1.4189385), atol=1e-5)


def test_action_mask_forbids_choices():
    logits = torch.zeros(1000, 4)
    mask = torch.tensor([[1, 0, 1, 0]]).expand(1000, 4)
    action, logprob, _ = sample_logits(logits, action_mask=mask)
    assert set(action.tolist()) <= {0, 2}
    assert torch.allclose(logprob, torch.full((1000,), float(np.log(0.5))), atol=1e-5)


def test_unsupported_head_is_an_api_error():
    with pytest.raises(APIUsageError, match="Normal"):
        sample_logits({"a": torch.zeros(1)})


def test_action_mask_leaf_of_dict_observations():
    space = spaces.Dict({"obs": spaces.Box(0, 1, (3,), np.float32), "action_mask": spaces.MultiBinary(4)})
    layout = ObsLayout(space)
    assert layout.raw  # float32 and int8 leaves: a byte row
    flat = torch.from_numpy(np.stack([layout.flatten({"obs": np.ones(3, np.float32),
                                                      "action_mask": np.array([1, 0, 0, 1], np.int8)})] * 2))
    mask = pufferlib.pytorch.action_mask(flat, layout)
    assert mask.dtype == torch.bool and mask.tolist() == [[True, False, False, True]] * 2
    assert pufferlib.pytorch.action_mask(flat, ObsLayout(spaces.Dict({"obs": space["obs"]}))) is None
    assert pufferlib.pytorch.action_mask(torch.zeros(2, 3), None) is None


def test_clip_grad_norm_matches_torch():
    torch.manual_seed(0)
    grads = [torch.randn(5, 3) * 4, torch.randn(7)]
    expected = [g.clone() for g in grads]
    params = [torch.nn.Parameter(torch.zeros_like(g)) for g in expected]
    for p, g in zip(params, expected):
        p.grad = g
    want = torch.nn.utils.clip_grad_norm_(params, 0.5)
    got = pufferlib.pytorch.clip_grad_norm_(grads, 0.5)
    assert torch.isclose(got, want)
    for g, p in zip(grads, params):
        assert torch.allclose(g, p.grad)
    small = [torch.full((3,), 0.01)]
    pufferlib.pytorch.clip_grad_norm_(small, 0.5)  # under the limit: unchanged
    assert torch.allclose(small[0], torch.full((3,), 0.01))


def test_distinct_token_rows_cuts_padding_and_maps_every_row_back(monkeypatch):
    tokens = torch.tensor([[3, 1, 0, 0, 0], [2, 0, 0, 0, 0], [3, 1, 0, 0, 0], [0, 0, 0, 0, 0]], dtype=torch.uint8)
    distinct, row_of = pufferlib.pytorch.distinct_token_rows(tokens)
    assert distinct.dtype == torch.int64 and distinct.shape == (3, 2)  # columns past the longest row are cut
    assert torch.equal(distinct[row_of], tokens[:, :2].long()) and row_of[0] == row_of[2]
    # a hash under which every row collides: the exact check gives every row its own
    monkeypatch.setattr(pufferlib.pytorch, "_hash_weights", lambda n, device: torch.zeros(n, dtype=torch.long))
    distinct, row_of = pufferlib.pytorch.distinct_token_rows(tokens)
    assert torch.equal(distinct, tokens[:, :2].long()) and torch.equal(row_of, torch.arange(4))
    empty = pufferlib.pytorch.distinct_token_rows(torch.zeros(2, 4, dtype=torch.uint8))[0]
    assert empty.shape == (1, 1)


def test_embed_matches_the_embedding_module_in_values_and_gradients():
    torch.manual_seed(0)
    table = torch.nn.Embedding(50, 6)
    indices = torch.randint(0, 50, (4, 7, 3))
    indices[0] = 5  # repeated rows accumulate their gradients
    out = pufferlib.pytorch.embed(table, indices)
    assert out.shape == (4, 7, 3, 6)
    weights = torch.randn_like(out)
    (out * weights).sum().backward()
    ours = table.weight.grad.clone()
    table.weight.grad = None
    expected = table(indices)
    (expected * weights).sum().backward()
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(ours, table.weight.grad)
    with pytest.raises(APIUsageError, match="padding_idx"):
        pufferlib.pytorch.embed(torch.nn.Embedding(5, 2, padding_idx=0), indices % 5)
