"""Observation normalization and reward scaling (pufferlib.train.normalize) and their use by PuffeRL."""

from __future__ import annotations

import socket

import numpy as np
import pytest
import torch

import pufferlib
from pufferlib import PuffeRL
from pufferlib.errors import APIUsageError
from pufferlib.train import normalize
from pufferlib.train.dashboard import Dashboard

ON = {"observations": True, "rewards": True, "clip": 10.0, "epsilon": 1e-8}


def test_running_moments_match_numpy_over_batches_and_skip_masked_rows():
    rng = np.random.default_rng(0)
    moments = normalize.RunningMoments((3,))
    kept = []
    for size in (5, 17, 1, 40):
        x = rng.normal(3.0, 2.0, (size, 3))
        weights = rng.random(size) > 0.3
        moments.update(torch.from_numpy(x), torch.from_numpy(weights))
        kept.append(x[weights])
    every = np.concatenate(kept)
    assert moments.count.item() == len(every)
    np.testing.assert_allclose(moments.mean.numpy(), every.mean(0), rtol=1e-10)
    np.testing.assert_allclose(moments.var.numpy(), every.var(0), rtol=1e-10)


def test_constant_features_are_not_divided_by_zero_and_outliers_are_clipped():
    policy = torch.nn.Identity()
    wrapped = normalize.NormalizedPolicy(policy, (2,), True, False, clip=5.0, epsilon=1e-8, gamma=0.99)
    wrapped.obs_moments.update(torch.tensor([[1.0, 0.0], [1.0, 2.0]]))
    out = wrapped(torch.tensor([[1.0, 1e6], [1.0, -1e6]]))
    assert torch.isfinite(out).all()
    assert out[:, 0].tolist() == [0.0, 0.0]          # the constant feature: (x - mean) = 0
    assert out[:, 1].tolist() == [5.0, -5.0]         # clipped


def test_reward_scale_is_the_std_of_discounted_returns_cut_at_dones():
    wrapped = normalize.NormalizedPolicy(torch.nn.Identity(), (1,), False, True, 10.0, 1e-8, gamma=0.5)
    rewards = torch.tensor([[1.0, 1.0, 1.0, 1.0]])
    dones = torch.tensor([[False, True, False, False]])
    wrapped.update(torch.zeros(1, 4, 1), rewards, dones, torch.ones(1, 4))
    returns = np.array([1.0, 1.5, 1.0, 1.5])  # the return restarts after the done
    assert wrapped.return_moments.var.item() == pytest.approx(returns.var())
    assert wrapped.reward_scale() == pytest.approx(1 / np.sqrt(returns.var() + 1e-8))
    # the running return carries into the next batch
    wrapped.update(torch.zeros(1, 1, 1), torch.tensor([[1.0]]), torch.tensor([[False]]), torch.ones(1, 1))
    assert wrapped.return_moments.mean.item() == pytest.approx(np.r_[returns, 1.75].mean())


def test_structured_observations_cannot_be_normalized():
    from tests.core.envs import CountingEnv

    env = pufferlib.emulate(lambda: CountingEnv(nested=True), num_envs=2)
    try:
        with pytest.raises(APIUsageError, match="normalize.observations"):
            normalize.wrap(torch.nn.Identity(), env, ON, 0.99)
        assert normalize.wrap(torch.nn.Identity(), env, {**ON, "observations": False, "rewards": False}, 0.99) \
            .__class__ is torch.nn.Identity
    finally:
        env.close()


def _trainer(tmp_path, **train):
    env = pufferlib.make("gym-Pendulum-v1", num_envs=4, seed=1)
    config = {"normalize": ON, "train": {"device": "cpu", "batch_size": 256, "minibatch_size": 64,
                                         "update_epochs": 1, "data_dir": str(tmp_path), **train}}
    return PuffeRL(config, env, dashboard=Dashboard(interval=1e9, rich=False))


def test_stats_change_between_batches_so_stored_logprobs_reproduce(tmp_path):
    trainer = _trainer(tmp_path)
    try:
        for _ in range(2):
            trainer.evaluate()
            data = trainer.rollout.storage
            flat_obs = data.obs.reshape(-1, *data.obs.shape[2:])
            with torch.no_grad():
                dist, _ = trainer.policy(flat_obs)
                logprob = dist.log_prob(data.actions.reshape(-1, *data.actions.shape[2:])).sum(-1)
            torch.testing.assert_close(logprob.view_as(data.logprobs), data.logprobs)
            count = trainer.policy.obs_moments.count.item()
            trainer.train()
            assert trainer.policy.obs_moments.count.item() == count + 256
        # the policy saw normalized observations: the moments are Pendulum's, not (0, 1)
        assert trainer.policy.obs_moments.var.min().item() < 0.9
    finally:
        trainer.close()


def test_statistics_are_saved_and_restored_with_the_weights(tmp_path):
    trainer = _trainer(tmp_path)
    try:
        trainer.evaluate()
        trainer.train()
        path = trainer.save_checkpoint()
        saved = {k: v.clone() for k, v in trainer.policy.state_dict().items() if "moments" in k}
    finally:
        trainer.close()
    assert saved["obs_moments.count"].item() == 256
    fresh = _trainer(tmp_path)
    try:
        fresh.load_checkpoint(path)
        for key, value in saved.items():
            torch.testing.assert_close(fresh.policy.state_dict()[key], value)
    finally:
        fresh.close()


def _merge_on_rank(rank: int, port: int, out: list) -> None:
    torch.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    try:
        moments = normalize.RunningMoments((2,))
        moments.update(torch.full((3, 2), float(rank * 10)))
        out[rank] = (moments.count.item(), moments.mean.tolist(), moments.var.tolist())
    finally:
        torch.distributed.destroy_process_group()


def _rank_main(rank: int, port: int, queue) -> None:
    out: list = [None, None]
    _merge_on_rank(rank, port, out)
    queue.put((rank, out[rank]))


def test_ranks_merge_each_others_moments():
    import torch.multiprocessing as tmp

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = tmp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_rank_main, args=(rank, port, queue)) for rank in range(2)]
    for proc in procs:
        proc.start()
    results = dict(queue.get(timeout=120) for _ in procs)
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    assert results[0] == results[1] == (6.0, [5.0, 5.0], [25.0, 25.0])


def test_gaussian_head_has_state_independent_std_and_small_initial_means():
    env = pufferlib.make("gym-Pendulum-v1", num_envs=2)
    try:
        from pufferlib import models

        policy = models.Default(env, hidden_size=16)
        dist, _ = policy(torch.randn(5, 3) * 10)
        assert torch.equal(dist.scale, torch.ones_like(dist.scale))       # exp(0): std 1 for every state
        assert dist.loc.abs().max() < 1.0                                   # actor init std 0.01
        assert [name for name, _ in policy.named_parameters() if "logstd" in name] == ["head.logstd"]
    finally:
        env.close()


def test_box_actions_are_stored_unclipped_and_clipped_only_for_the_env(tmp_path):
    from gymnasium import spaces

    from tests.core.train.test_pufferl import Echo, quiet

    env = pufferlib.emulate(lambda: Echo(length=4, action_space=spaces.Box(-1, 1, (1,), np.float32)), num_envs=4)
    trainer = PuffeRL({"train": {"batch_size": 64, "minibatch_size": 64, "data_dir": str(tmp_path)}}, env, **quiet())
    try:
        with torch.no_grad():
            trainer.policy.head.logstd.fill_(np.log(5.0))  # most samples fall outside [-1, 1]
        trainer.evaluate()
        actions, rewards = trainer.rollout.storage.actions, trainer.rollout.storage.rewards
        assert actions.abs().max() > 1.5                   # stored as sampled: logprobs are of these
        assert rewards.abs().max() <= 1.0                  # Echo rewards the action the env received
        outside = actions[..., 0].abs() > 1
        torch.testing.assert_close(rewards[outside], actions[..., 0][outside].clamp(-1, 1))
        dist, _ = trainer.policy(trainer.rollout.storage.obs.view(-1, 2))
        torch.testing.assert_close(dist.log_prob(actions.view(-1, 1)).sum(-1).view_as(rewards),
                                   trainer.rollout.storage.logprobs)
    finally:
        trainer.close()
