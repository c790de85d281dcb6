"""PuffeRL's PPO maths and rollout collection: each point fails if its behaviour breaks."""

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces

import pufferlib
import pufferlib.models
import pufferlib.train.storage
from pufferlib import PuffeRL
from pufferlib.train import ppo
from pufferlib.train.dashboard import Dashboard
from tests.core.envs import ComeAndGo


class Echo(gym.Env):
    """obs = (steps taken, env tag); reward = the action's first entry; ends at `length` (or truncates)."""

    def __init__(self, length=5, truncate=False, action_space=None, tag=0):
        self.length, self.truncate, self.tag = length, truncate, tag
        self.observation_space = spaces.Box(-1e3, 1e3, (2,), np.float32)
        self.action_space = action_space or spaces.Discrete(3)
        self.t = 0

    def reset(self, seed=None, options=None):
        self.t = 0
        return np.array([0, self.tag], np.float32), {}

    def step(self, action):
        self.t += 1
        done = self.t >= self.length
        reward = float(np.asarray(action).reshape(-1)[0])
        return (np.array([self.t, self.tag], np.float32), reward, done and not self.truncate,
                done and self.truncate, {})


def quiet(**kw):
    return dict(device="cpu", dashboard=Dashboard(interval=1e9, rich=False), **kw)


def reference_gae(r, v, term, trunc, boot, gamma, lam):
    rows, T = r.shape
    adv = np.zeros_like(r)
    for i in range(rows):
        last = 0.0
        for t in reversed(range(T)):
            nxt = boot[i] if t == T - 1 else v[i, t + 1]
            if trunc[i, t]:
                nxt = v[i, t]
            delta = r[i, t] + gamma * nxt * (1 - term[i, t]) - v[i, t]
            last = delta + gamma * lam * (1 - max(term[i, t], trunc[i, t])) * last
            adv[i, t] = last
    return adv


def test_gae_matches_reference_and_bootstraps_truncation():
    rng = np.random.default_rng(0)
    r, v = rng.normal(size=(3, 9)).astype(np.float32), rng.normal(size=(3, 9)).astype(np.float32)
    term = np.zeros((3, 9), np.float32)
    trunc = np.zeros((3, 9), np.float32)
    term[0, 4] = trunc[1, 3] = trunc[2, 8] = 1
    boot = rng.normal(size=3).astype(np.float32)
    adv = ppo.compute_advantages(*map(torch.from_numpy, (r, v, term, trunc, boot)), 0.9, 0.8)
    np.testing.assert_allclose(adv.numpy(), reference_gae(r, v, term, trunc, boot, 0.9, 0.8), rtol=1e-5)
    # truncation keeps a bootstrapped future, termination does not
    as_term = ppo.compute_advantages(*map(torch.from_numpy, (r, v, term + trunc, trunc * 0, boot)), 0.9, 0.8)
    assert not torch.isclose(adv[1, 3], as_term[1, 3])
    assert torch.isclose(adv[1, 3], torch.tensor(r[1, 3] + 0.9 * v[1, 3] - v[1, 3]))


def test_vtrace_with_unit_ratio_is_gae_and_clips_ratios():
    r, v = torch.randn(2, 6), torch.randn(2, 6)
    z, boot = torch.zeros(2, 6), torch.randn(2)
    gae = ppo.compute_advantages(r, v, z, z, boot, 0.99, 0.95)
    assert torch.allclose(ppo.compute_advantages(r, v, z, z, boot, 0.99, 0.95, torch.ones(2, 6)), gae)
    big = ppo.compute_advantages(r, v, z, z, boot, 0.99, 0.95, torch.full((2, 6), 5.0), rho_clip=1.0, c_clip=1.0)
    assert torch.allclose(big, gae)  # ratios above the clips count as 1
    half = ppo.compute_advantages(r, v, z, z, boot, 0.99, 0.95, torch.full((2, 6), 0.5), rho_clip=1.0, c_clip=1.0)
    assert not torch.allclose(half, gae)


def loss_inputs(n=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    old_lp = torch.randn(n, generator=g)
    return dict(new_logprob=old_lp + 0.5 * torch.randn(n, generator=g), entropy=torch.rand(n, generator=g),
                new_value=torch.randn(n, generator=g), old_logprob=old_lp, old_value=torch.randn(n, generator=g),
                advantages=torch.randn(n, generator=g), returns=torch.randn(n, generator=g), weights=torch.ones(n))


def test_policy_loss_is_clipped():
    cfg = ppo.LossConfig(clip_coef=0.2, vf_coef=0, ent_coef=0, norm_adv=False)
    new_lp = torch.tensor([0.5, 0.5], requires_grad=True)  # ratio e^0.5 > 1.2
    inp = dict(loss_inputs(2), new_logprob=new_lp, old_logprob=torch.zeros(2), advantages=torch.tensor([1.0, -1.0]))
    loss, stats = ppo.ppo_loss(cfg=cfg, **inp)
    loss.backward()
    assert new_lp.grad[0] == 0  # positive advantage beyond the clip: no gradient
    assert new_lp.grad[1] != 0  # negative advantage: the unclipped (pessimistic) term is kept
    assert stats["clipfrac"] == 1.0
    assert float(loss.detach()) == pytest.approx((-1.2 + np.exp(0.5)) / 2, rel=1e-5)


def test_value_loss_clipped_and_entropy_bonus():
    inp = dict(loss_inputs(1), old_value=torch.tensor([0.0]), returns=torch.tensor([1.0]),
               new_value=torch.tensor([0.5]), entropy=torch.tensor([2.0]))
    _, clipped = ppo.ppo_loss(cfg=ppo.LossConfig(vf_clip_coef=0.1), **inp)
    _, free = ppo.ppo_loss(cfg=ppo.LossConfig(vf_clip_coef=0.0), **inp)
    assert torch.isclose(free["value_loss"], torch.tensor(0.5 * 0.25))
    assert torch.isclose(clipped["value_loss"], torch.tensor(0.5 * 0.81))  # max(0.25, (0.1 - 1)^2)
    base, _ = ppo.ppo_loss(cfg=ppo.LossConfig(ent_coef=0.0), **inp)
    bonus, _ = ppo.ppo_loss(cfg=ppo.LossConfig(ent_coef=0.1), **inp)
    assert torch.isclose(base - bonus, torch.tensor(0.2))


def test_advantage_normalisation_makes_loss_scale_free():
    inp = loss_inputs()
    scaled = dict(inp, advantages=inp["advantages"] * 100 + 3)
    on, off = ppo.LossConfig(norm_adv=True), ppo.LossConfig(norm_adv=False)
    assert torch.isclose(ppo.ppo_loss(cfg=on, **inp)[0], ppo.ppo_loss(cfg=on, **scaled)[0], atol=1e-5)
    assert not torch.isclose(ppo.ppo_loss(cfg=off, **inp)[0], ppo.ppo_loss(cfg=off, **scaled)[0])


def test_masked_entries_contribute_nothing():
    inp = loss_inputs()
    weights = torch.ones(32)
    weights[::3] = 0
    garbage = {k: v.clone() for k, v in inp.items()}
    for key in ("new_logprob", "new_value", "advantages", "returns", "entropy"):
        garbage[key][::3] = 1e6
    cfg = ppo.LossConfig()
    loss_a, stats_a = ppo.ppo_loss(cfg=cfg, **dict(inp, weights=weights))
    loss_b, stats_b = ppo.ppo_loss(cfg=cfg, **dict(garbage, weights=weights))
    assert torch.isclose(loss_a, loss_b) and torch.isclose(stats_a["approx_kl"], stats_b["approx_kl"])


@pytest.mark.parametrize("norm_adv", [True, False])
@pytest.mark.parametrize("vf_clip_coef", [0.0, 0.2])
def test_loss_without_weights_equals_unit_weights(norm_adv, vf_clip_coef):
    cfg = ppo.LossConfig(ent_coef=0.01, norm_adv=norm_adv, vf_clip_coef=vf_clip_coef)
    inp = loss_inputs()
    inp["new_logprob"].requires_grad_(True)
    loss_w, stats_w = ppo.ppo_loss(cfg=cfg, **inp)
    (grad_w,) = torch.autograd.grad(loss_w, inp["new_logprob"])
    loss_n, stats_n = ppo.ppo_loss(cfg=cfg, **dict(inp, weights=None))
    (grad_n,) = torch.autograd.grad(loss_n, inp["new_logprob"])
    assert torch.isclose(loss_w, loss_n, atol=1e-6) and torch.allclose(grad_w, grad_n, atol=1e-6)
    assert all(torch.isclose(stats_w[k], stats_n[k], atol=1e-6) for k in stats_w)


def test_minibatches_cover_the_batch_once_and_priorities_bias_sampling():
    order, weights = ppo.minibatch_segments(12, 4)
    assert weights is None and sorted(order.tolist()) == list(range(12))
    order, _ = ppo.minibatch_segments(13, 4)  # three minibatches of 4; one segment left out
    assert len(order) == 12 and len(set(order.tolist())) == 12
    prio = torch.tensor([100.0] + [0.0] * 11)
    for _ in range(50):  # each minibatch of 2 draws the heavy segment, and never twice
        order, _ = ppo.minibatch_segments(12, 2, prio, 1.0, 1.0)
        assert all(0 in pair and pair[0] != pair[1] for pair in order.view(6, 2).tolist())
    order, w = ppo.minibatch_segments(12, 4, torch.arange(12.0), 1.0, 1.0)
    assert order.shape == w.shape == (12,)
    assert (w.view(3, 4).max(1).values == 1).all() and (w > 0).all()


def test_explained_variance_is_the_share_of_return_variance_the_critic_explains():
    rng = np.random.default_rng(0)
    returns = rng.normal(size=256).astype(np.float32)
    values = (returns + 0.5 * rng.normal(size=256)).astype(np.float32)
    expected = 1 - np.var(returns - values, ddof=1) / np.var(returns, ddof=1)
    assert ppo.explained_variance(torch.from_numpy(values), torch.from_numpy(returns)) == pytest.approx(expected, 1e-5)
    assert ppo.explained_variance(torch.from_numpy(returns), torch.from_numpy(returns)) == 1.0
    assert np.isnan(ppo.explained_variance(torch.zeros(8), torch.ones(8)))  # constant returns: undefined


def make_trainer(env, **kw):
    return PuffeRL(env=env, **quiet(**kw))


@pytest.mark.parametrize("vec_kwargs", [dict(num_envs=4), dict(num_envs=4, batch_size=2)], ids=["sync", "async"])
def test_rollout_aligns_rewards_dones_and_starts(vec_kwargs):
    env = pufferlib.emulate(lambda: Echo(length=5), **vec_kwargs)
    trainer = make_trainer(env, batch_size=64, minibatch_size=16)
    for _ in range(3):  # later batches start from held or in-flight observations
        trainer.evaluate()
        data = trainer.rollout.storage
        count = data.obs[..., 0]
        # the reward of step t is the reward of the action taken at step t
        assert torch.equal(data.rewards, data.actions.float())
        assert torch.equal(data.terminals, count == 4)
        assert not data.truncations.any()
        # every row is a contiguous run of steps (nothing skipped inside a batch)
        assert torch.equal((count[:, 1:] - count[:, :-1]) % 5, torch.ones_like(count[:, 1:]))
        assert torch.equal(data.starts[:, 1:], count[:, 1:] == 0)
        trainer.train()
    trainer.close()


ROLLOUT_FIELDS = ("obs", "actions", "logprobs", "values", "rewards", "weights", "terminals", "truncations",
                  "starts", "final_values", "bootstrap")


@pytest.mark.parametrize("rnn", [False, True], ids=["mlp", "lstm"])
@pytest.mark.parametrize("env_batch", [4, 2], ids=["sync", "async"])
def test_torch_storage_path_stores_what_the_numpy_path_stores(monkeypatch, rnn, env_batch):
    """Off the CPU the rollout writes through torch (and CPU mirrors when synchronous); forced
    on the CPU, that path must fill the storage exactly as the numpy views do."""
    def batches(numpy_views):
        monkeypatch.setattr(pufferlib.train.storage.RolloutStorage, "numpy_views",
                            staticmethod(lambda device: numpy_views))
        env = pufferlib.emulate(lambda: Echo(length=3, truncate=True), num_envs=4, batch_size=env_batch)
        cfg = {"rnn": {"enabled": rnn, "hidden_size": 8}, "policy": {"hidden_size": 8},
               "train": dict(batch_size=64, minibatch_size=32, bptt_horizon=4, seed=3)}
        trainer = PuffeRL(cfg, env, **quiet())
        assert (trainer.rollout.storage.numpy is not None) == numpy_views
        out = []
        for _ in range(2):
            trainer.evaluate()
            out.append({name: getattr(trainer.rollout.storage, name).clone() for name in ROLLOUT_FIELDS})
            trainer.train()
        trainer.close()
        return out

    for views, torch_path in zip(batches(True), batches(False)):
        assert views["truncations"].any() and views["starts"].any()
        for name in ROLLOUT_FIELDS:
            assert torch.equal(views[name].nan_to_num(-7), torch_path[name].nan_to_num(-7)), name


class Float64Rewards:
    """A vectorized env whose recv() breaks the contract: float64 rewards."""

    def __init__(self, env):
        self.env = env

    def __getattr__(self, name):
        return getattr(self.env, name)

    def recv(self):
        obs, rewards, *rest = self.env.recv()
        return (obs, rewards.astype(np.float64), *rest)


def test_recv_arrays_that_do_not_fit_their_spaces_are_named():
    env = Float64Rewards(pufferlib.emulate(lambda: Echo(length=5), num_envs=2))
    trainer = make_trainer(env, batch_size=32, minibatch_size=16)
    with pytest.raises(pufferlib.APIUsageError, match=r"Float64Rewards.recv\(\) returned arrays that do not fit "
                                                      r"its spaces: rewards float64 \(2,\) \(expected float32 \(2,\)"):
        trainer.evaluate()
    trainer.close()


@pytest.mark.parametrize("rnn", [False, True], ids=["mlp", "lstm"])
@pytest.mark.parametrize("env_batch", [4, 2], ids=["sync", "async"])
def test_truncated_steps_bootstrap_from_the_final_observation(rnn, env_batch):
    env = pufferlib.emulate(lambda: Echo(length=3, truncate=True), num_envs=4, batch_size=env_batch)
    cfg = {"rnn": {"enabled": rnn, "hidden_size": 8}, "policy": {"hidden_size": 8},
           "train": dict(batch_size=64, minibatch_size=32, bptt_horizon=4)}
    trainer = PuffeRL(cfg, env, **quiet())
    for _ in range(2):
        trainer.evaluate()
        data = trainer.rollout.storage
        assert torch.equal(data.truncations, data.obs[..., 0] == 2) and not data.terminals.any()
        truncated = data.truncations & ~data.terminals
        assert truncated.sum() >= 8
        # a final value for every truncated step (the final observation is (3, 0)), none elsewhere
        assert torch.equal(~data.final_values.isnan(), truncated)
        if not rnn:
            with torch.no_grad():
                final = trainer.policy(torch.tensor([[3.0, 0.0]]))[1].item()
            assert torch.allclose(data.final_values[truncated], torch.tensor(final))
        trainer.train()
    trainer.close()


def test_steps_both_terminal_and_truncated_are_terminal():
    class EndsBothWays(Echo):
        def step(self, action):
            obs, reward, terminated, truncated, info = super().step(action)
            return obs, reward, terminated, terminated, info

    env = pufferlib.emulate(lambda: EndsBothWays(length=3), num_envs=2)
    trainer = make_trainer(env, batch_size=32, minibatch_size=16)
    trainer.evaluate()
    data = trainer.rollout.storage
    assert data.truncations.any() and torch.equal(data.truncations, data.terminals)
    assert data.final_values.isnan().all()  # no future to bootstrap
    trainer.train()
    trainer.close()


def test_advantages_of_truncated_steps_use_final_values():
    r, v = torch.randn(2, 4), torch.randn(2, 4)
    z, boot = torch.zeros(2, 4), torch.randn(2)
    trunc = torch.zeros(2, 4)
    trunc[0, 1] = trunc[1, 3] = 1
    final = torch.full((2, 4), float("nan"))
    final[0, 1] = 7.0
    adv = ppo.compute_advantages(r, v, z, trunc, boot, 0.9, 0.8, final_values=final)
    assert torch.isclose(adv[0, 1], r[0, 1] + 0.9 * 7.0 - v[0, 1])
    # NaN (no final observation): the step's own value stands in, as without final values
    without = ppo.compute_advantages(r, v, z, trunc, boot, 0.9, 0.8)
    assert torch.isclose(adv[1, 3], without[1, 3]) and torch.isclose(adv[1, 3], r[1, 3] + 0.9 * v[1, 3] - v[1, 3])


def test_bootstrap_value_is_value_of_next_observation():
    env = pufferlib.emulate(lambda: Echo(length=1000), num_envs=2)
    trainer = make_trainer(env, batch_size=16, minibatch_size=8)
    trainer.evaluate()
    boot = trainer.rollout.storage.bootstrap.clone()
    next_obs = trainer.rollout.storage.obs[:, -1].clone()
    next_obs[:, 0] += 1
    with torch.no_grad():
        _, value = trainer.policy(next_obs)
    assert torch.allclose(boot, value.view(-1))
    trainer.close()


@pytest.mark.parametrize("act_space", [spaces.Discrete(3), spaces.MultiDiscrete([3, 2]),
                                       spaces.Box(-1, 1, (2,), np.float32)], ids=["discrete", "multi", "box"])
@pytest.mark.parametrize("rnn", [False, True], ids=["mlp", "lstm"])
@pytest.mark.parametrize("env_batch", [4, 2], ids=["sync", "async"])
@pytest.mark.parametrize("norm", [False, True])
def test_stored_logprobs_reproduce_in_training(act_space, rnn, env_batch, norm):
    """First minibatch of the first epoch sees ratio 1: the training forward (BPTT for the
    LSTM, with state resets at episode starts) reproduces what the rollout computed."""
    env = pufferlib.emulate(lambda: Echo(length=3, action_space=act_space), num_envs=4, batch_size=env_batch)
    cfg = {"rnn": {"enabled": rnn, "hidden_size": 8}, "policy": {"hidden_size": 8},
           "normalize": {"observations": norm, "rewards": norm},
           "train": dict(batch_size=64, minibatch_size=64, bptt_horizon=8, update_epochs=1)}
    trainer = PuffeRL(cfg, env, **quiet())
    assert trainer.recurrent == rnn
    for _ in range(2):  # the second batch starts from carried-over observations and LSTM state
        trainer.evaluate()
        losses = trainer.train()
        assert losses["approx_kl"] < 1e-6 and losses["clipfrac"] == 0
    if rnn:
        assert trainer.rollout.storage.starts.any()
    trainer.close()


def test_lstm_training_would_notice_missing_resets():
    env = pufferlib.emulate(lambda: Echo(length=3), num_envs=2)
    cfg = {"rnn": {"enabled": True, "hidden_size": 8}, "train": dict(batch_size=32, minibatch_size=32, bptt_horizon=4)}
    trainer = PuffeRL(cfg, env, **quiet())
    trainer.evaluate()
    data = trainer.rollout.storage
    seg = data.segments
    # the rollout zeroes the state at episode starts: segments that begin with one start from zero
    begins = seg(data.starts)[:, 0]
    assert begins.any() and (~begins).any()
    assert (data.state_h[begins] == 0).all() and (data.state_h[~begins] != 0).any()
    logits, _ = trainer.policy.forward_sequence(seg(data.obs), (data.state_h, data.state_c),
                                                torch.zeros_like(seg(data.starts)))
    _, lp, _ = pufferlib.pytorch.sample_logits(logits, seg(data.actions).reshape(-1))
    assert not torch.allclose(lp, seg(data.logprobs).reshape(-1), atol=1e-4)
    trainer.close()


def test_multiagent_padding_is_masked():
    env = pufferlib.emulate(ComeAndGo, num_envs=2)
    trainer = make_trainer(env, batch_size=48, minibatch_size=16)
    trainer.evaluate()
    data = trainer.rollout.storage
    # 3-step episodes: "a" acts at t0, t1 and finishes at t2 (its row masked there); "b" arrives
    # at t1 and finishes at t3, when the episode resets and only "a" is back.
    expected = torch.tensor([[1., 1., 0.] * 4, [0., 1., 1.] * 4] * 2)
    assert torch.equal(data.weights, expected)
    assert (data.obs[1::2, 0] == 0).all()
    losses = trainer.train()
    assert np.isfinite(losses["policy_loss"])
    trainer.close()


def test_action_masks_from_dict_observations_are_respected():
    class Masked(gym.Env):
        observation_space = spaces.Dict({"obs": spaces.Box(0, 1, (2,), np.float32),
                                         "action_mask": spaces.MultiBinary(4)})
        action_space = spaces.Discrete(4)

        def reset(self, seed=None, options=None):
            return self._obs(), {}

        def _obs(self):
            return {"obs": np.zeros(2, np.float32), "action_mask": np.array([0, 1, 0, 1], np.int8)}

        def step(self, action):
            assert action in (1, 3), action
            return self._obs(), 0.0, False, False, {}

    env = pufferlib.emulate(Masked, num_envs=4)
    trainer = make_trainer(env, batch_size=64, minibatch_size=64, update_epochs=1)
    trainer.evaluate()
    assert set(trainer.rollout.storage.actions.unique().tolist()) <= {1, 3}
    assert trainer.train()["approx_kl"] < 1e-6
    trainer.close()


def test_epochs_minibatches_grad_clip_and_lr_annealing(monkeypatch):
    env = pufferlib.emulate(lambda: Echo(length=4), num_envs=4)
    trainer = make_trainer(env, batch_size=64, minibatch_size=16, update_epochs=3, max_grad_norm=0.01,
                           learning_rate=0.1, total_timesteps=256, anneal_lr=True)
    opt = trainer.optimizers[0]
    norms, lrs = [], []
    original = opt.step

    def step(*a, **k):
        norms.append(float(torch.nn.utils.get_total_norm([p.grad for p in trainer.policy.parameters()])))
        lrs.append(opt.param_groups[0]["lr"])
        return original(*a, **k)

    monkeypatch.setattr(opt, "step", step)
    trainer.evaluate()
    trainer.train()
    assert len(norms) == 3 * 64 // 16  # update_epochs * minibatches
    assert max(norms) <= 0.01 + 1e-6
    assert lrs[0] == pytest.approx(0.1 * (1 - 64 / 256))
    trainer.evaluate()
    trainer.train()
    assert lrs[-1] == pytest.approx(0.1 * (1 - 128 / 256))
    trainer.close()


def test_custom_policy_forward_returns_logits_and_value():
    """The user guide's policy (section 4): a plain module returning (logits, value)."""
    from torch import nn

    from pufferlib.pytorch import layer_init

    obs_dim, num_actions = 4, 2

    class Policy(nn.Module):
        def __init__(self, observation_space, action_space):
            super().__init__()
            self.encoder = nn.Sequential(layer_init(nn.Linear(obs_dim, 256)), nn.ReLU(),
                                         layer_init(nn.Linear(256, 256)), nn.ReLU())
            self.actor = layer_init(nn.Linear(256, num_actions), std=0.01)
            self.critic = layer_init(nn.Linear(256, 1), std=1.0)

        def forward(self, observations):
            features = self.encoder(observations)
            return self.actor(features), self.critic(features)

    env = pufferlib.make("gym-CartPole-v1", num_envs=8)
    policy = Policy(env.single_observation_space, env.single_action_space)
    trainer = PuffeRL(env=env, policy=policy, device="cpu", learning_rate=3e-4, batch_size=1024)
    before = [p.clone() for p in policy.parameters()]
    trainer.evaluate()
    trainer.train()
    logs = trainer.mean_and_log()
    assert logs["global_step"] == 1024 and logs["SPS"] > 0 and "environment/episode_return" in logs
    assert any(not torch.equal(a, b) for a, b in zip(before, policy.parameters()))
    trainer.close()


def test_policy_state_set_while_acting_trains():
    """A policy may replace a buffer while acting (a running observation scale); training then uses it."""
    from torch import nn

    class RunningScalePolicy(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.ones(4))
            self.net = nn.Linear(4, 3)

        def forward(self, obs):
            if not self.training:
                self.scale = 0.9 * self.scale + 0.1 / (obs.abs().mean(0) + 1)
            out = nn.functional.linear(obs, self.net.weight * self.scale, self.net.bias)  # scale saved for backward
            return out[:, :2], out[:, 2]

    env = pufferlib.make("gym-CartPole-v1", num_envs=2)
    policy = RunningScalePolicy()
    trainer = make_trainer(env, policy=policy, batch_size=64, minibatch_size=32)
    # Acting runs in inference mode: the new buffer is copied out of it, once, with a warning,
    # and later batches act under no_grad.
    with pytest.warns(UserWarning, match=r"assigned new tensors to buffers \['scale'\]"):
        trainer.evaluate()
    assert not policy.scale.is_inference() and trainer.rollout._grad_mode is torch.no_grad
    trainer.train()
    assert not torch.equal(policy.scale, torch.ones(4))
    trainer.evaluate()
    trainer.train()
    trainer.close()


def test_bad_arguments_say_how_to_fix():
    env = pufferlib.emulate(lambda: Echo(), num_envs=3)
    with pytest.raises(pufferlib.APIUsageError, match="multiple of the env's 3 agent rows"):
        make_trainer(env, batch_size=64)
    with pytest.raises(pufferlib.APIUsageError, match="learning_rate"):
        make_trainer(env, learning_rat=1e-3)
    with pytest.raises(pufferlib.APIUsageError, match="evaluate"):
        make_trainer(env, batch_size=48, minibatch_size=16).train()
    with pytest.raises(pufferlib.APIUsageError, match=r"update_epochs = 0 must be in \[1, 65536\]"):
        make_trainer(env, batch_size=48, minibatch_size=16, update_epochs=0)
    env.close()


@pytest.mark.parametrize("options", [dict(), dict(prio_alpha=0.8), dict(vtrace_rho_clip=1.0)],
                         ids=["uniform", "prio", "vtrace"])
@pytest.mark.parametrize("rnn", [False, True], ids=["mlp", "lstm"])
def test_minibatches_gathered_together_train_as_gathered_one_by_one(monkeypatch, options, rnn):
    """`_minibatches` gathers as many minibatches at once as fit in GATHER_BYTES: the grouping
    must not change which steps a gradient step sees."""
    def weights_after_training(gather_bytes):
        monkeypatch.setattr(pufferlib.pufferl, "GATHER_BYTES", gather_bytes)
        env = pufferlib.emulate(lambda: Echo(length=4), num_envs=4)
        cfg = {"rnn": {"enabled": rnn, "hidden_size": 8}, "policy": {"hidden_size": 8},
               "train": dict(batch_size=64, minibatch_size=16, bptt_horizon=4, update_epochs=2, seed=5, **options)}
        trainer = PuffeRL(cfg, env, **quiet())
        for _ in range(2):
            trainer.evaluate()
            trainer.train()
        trainer.close()
        return [p.detach().clone() for p in trainer.policy.parameters()]

    one_by_one, together, in_pairs = (weights_after_training(size) for size in (1, 1 << 30, 16 * 4 * 30))
    for a, b, c in zip(one_by_one, together, in_pairs):
        assert torch.equal(a, b) and torch.equal(a, c)


@pytest.mark.parametrize("options", [dict(), dict(prio_alpha=0.8), dict(vtrace_rho_clip=1.0)],
                         ids=["uniform", "prio", "vtrace"])
@pytest.mark.parametrize("rnn", [False, True], ids=["mlp", "lstm"])
def test_each_epoch_trains_on_its_own_draw_in_order(monkeypatch, options, rnn):
    """Uniform epochs without V-trace are gathered as one sequence of minibatches, the others
    epoch by epoch: either way the updates see each epoch's draw of `ppo.minibatch_segments`,
    minibatch after minibatch, and (uniform) every segment once per epoch."""
    drawn: list[torch.Tensor] = []
    original = ppo.minibatch_segments

    def draw(*args, **kwargs):
        order, weights = original(*args, **kwargs)
        drawn.append(order)
        return order, weights

    monkeypatch.setattr(ppo, "minibatch_segments", draw)
    env = pufferlib.emulate(lambda: Echo(length=4), num_envs=4)
    cfg = {"rnn": {"enabled": rnn, "hidden_size": 8}, "policy": {"hidden_size": 8},
           "train": dict(batch_size=64, minibatch_size=16, bptt_horizon=4, update_epochs=3, **options)}
    trainer = PuffeRL(cfg, env, **quiet())
    trained: list[torch.Tensor] = []
    gather = trainer._minibatches

    def recording(*args):
        for minibatch in gather(*args):
            trained.append(minibatch[0])
            yield minibatch

    monkeypatch.setattr(trainer, "_minibatches", recording)
    trainer.evaluate()
    trainer.train()
    trainer.close()
    segments, per_minibatch = (16, 4) if rnn else (64, 16)
    assert len(drawn) == 3 and len(trained) == 3 * segments // per_minibatch
    assert all(len(idx) == per_minibatch for idx in trained)
    assert torch.equal(torch.cat(trained), torch.cat(drawn))
    if "prio_alpha" not in options:
        for epoch in torch.cat(trained).split(segments):
            assert torch.equal(epoch.sort().values, torch.arange(segments))


@pytest.mark.parametrize("options", [dict(optimizer="muon"), dict(vtrace_rho_clip=1.0, vtrace_c_clip=1.0),
                                     dict(prio_alpha=0.8, prio_beta0=0.4)], ids=["muon", "vtrace", "prio"])
def test_optional_algorithms_update_the_policy(options, monkeypatch):
    env = pufferlib.emulate(lambda: Echo(length=4), num_envs=4)
    trainer = make_trainer(env, batch_size=64, minibatch_size=16, update_epochs=2, **options)
    if options.get("optimizer") == "muon":
        assert [type(o).__name__ for o in trainer.optimizers] == ["Muon", "Adam"]
    seen = []
    original = ppo.minibatch_segments
    monkeypatch.setattr(ppo, "minibatch_segments",
                        lambda *a, **k: seen.append(a[2] if len(a) > 2 else None) or original(*a, **k))
    advantages = []
    original_adv = trainer._advantages
    monkeypatch.setattr(trainer, "_advantages", lambda ratio: advantages.append(ratio) or original_adv(ratio))
    before = [p.clone() for p in trainer.policy.parameters()]
    trainer.evaluate()
    losses = trainer.train()
    assert all(np.isfinite(v) for v in losses.values())
    assert all(not torch.equal(a, b) for a, b in zip(before, trainer.policy.parameters()))
    if "prio_alpha" in options:
        assert len(seen) == 2 and all(p is not None and p.shape == (64,) for p in seen)  # per-segment priorities
    if "vtrace_rho_clip" in options:  # advantages recomputed each epoch from the latest ratios
        assert len(advantages) == 2 and not torch.equal(advantages[1], torch.ones_like(advantages[1]))
    trainer.close()


def test_default_sizes_fit_any_number_of_agent_rows():
    """The guide's `PuffeRL(env=env, policy=policy)` works whatever the env's agent count."""
    env = pufferlib.emulate(ComeAndGo, num_envs=3)  # 6 agent rows: 1024 is not a multiple
    trainer = PuffeRL(env=env, device="cpu", dashboard=Dashboard(interval=1e9, rich=False))
    cfg = trainer.config["train"]
    assert cfg["batch_size"] == 6 * 171 and cfg["batch_size"] % cfg["minibatch_size"] == 0
    trainer.evaluate()
    trainer.train()
    trainer.close()
    env = pufferlib.emulate(lambda: Echo(), num_envs=3)
    with pytest.raises(pufferlib.APIUsageError, match="multiple of the env's 3 agent rows"):
        make_trainer(env, batch_size=1000)  # explicit sizes are checked, not changed
    env.close()


class _Counting(torch.nn.Module):
    """A policy that counts the observations it acts on, in a buffer updated in place."""

    def __init__(self, env):
        super().__init__()
        self.inner = pufferlib.models.Default(env, hidden_size=16)
        self.register_buffer("seen", torch.zeros(()))

    def forward(self, obs):
        self.seen += len(obs)
        return self.inner(obs)


def test_a_buffer_updated_in_place_while_acting_keeps_inference_mode():
    import warnings

    env = pufferlib.make("gym-CartPole-v1", num_envs=2)
    policy = _Counting(env)
    trainer = make_trainer(env, policy=policy, batch_size=64, minibatch_size=32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            trainer.evaluate()
            trainer.train()
    assert trainer.rollout._grad_mode is torch.inference_mode
    assert not policy.seen.is_inference() and policy.seen.item() >= 2 * 64
    trainer.close()


def test_a_log_step_keeps_episode_stats_of_any_call_in_its_window(tmp_path):
    from pufferlib.train.metrics import read_metrics

    env = pufferlib.emulate(lambda: Echo(length=10), num_envs=1)  # an episode ends in every 5th batch of 2
    trainer = make_trainer(env, batch_size=2, minibatch_size=2, log_interval=1e9, data_dir=str(tmp_path))
    for _ in range(12):  # the window's last calls end no episode
        trainer.evaluate()
        trainer.train()
        trainer.mean_and_log()
    trainer.close()  # writes the window as one log step
    _, rows = read_metrics(next(tmp_path.glob("*")))
    assert rows[-1]["environment/episode_length"] == 10
