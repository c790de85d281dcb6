"""pufferlib.train.gradient: a minibatch's gradient summed over microbatches is the minibatch's gradient,
the same bit for bit on any number of worker threads, and the automatic count is what its rule says."""

import gc
import threading
import time
from contextlib import nullcontext

import pytest
import torch

import pufferlib
from pufferlib import PuffeRL, models
from pufferlib.cpu.threads import WorkerThreads, torch_threads
from pufferlib.errors import APIUsageError
from pufferlib.train import ppo
from pufferlib.train.dashboard import Dashboard
from pufferlib.train.gradient import (
    MAX_MICROBATCHES,
    MICROBATCH_SEGMENTS,
    MICROBATCH_STEPS,
    MICROBATCH_WORK,
    Gradient,
    microbatch_count,
)

CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def env():
    vecenv = pufferlib.make("gym-CartPole-v1", num_envs=1)
    yield vecenv
    vecenv.close()


def make_policy(env, recurrent):
    torch.manual_seed(0)
    policy = models.Default(env, hidden_size=32)
    return models.LSTMWrapper(env, policy, input_size=32, hidden_size=32) if recurrent else policy


def minibatch(recurrent, weighted, segments=16, length=8, seed=0):
    """(fields, tensors, weights) of a CartPole minibatch of `segments` x `length` steps."""
    g = torch.Generator().manual_seed(seed)
    shape = (segments, length) if recurrent else (segments * length, 1)
    old_logprob = -0.69 + 0.1 * torch.randn(shape, generator=g)
    fields = (old_logprob, torch.randn(shape, generator=g), torch.randn(shape, generator=g) * 3 + 1,
              torch.randn(shape, generator=g))
    tensors = (torch.randn(*shape, 4, generator=g), torch.randint(0, 2, shape, generator=g))
    if recurrent:
        starts = (torch.rand(shape, generator=g) < 0.2).float()
        tensors += (torch.randn(segments, 32, generator=g), torch.randn(segments, 32, generator=g), starts)
    weights = None
    if weighted:  # padded agents (0) and importance weights
        weights = torch.rand(shape, generator=g) + 0.5
        weights[torch.rand(shape, generator=g) < 0.25] = 0
    return fields, tensors, weights


def gradient(policy, recurrent, count, threads, norm_adv=True):
    params = [p for p in policy.parameters() if p.requires_grad]
    return Gradient(policy, policy, recurrent, lambda obs: None, None, ppo.LossConfig(ent_coef=0.01, norm_adv=norm_adv),
                    params, nullcontext, count, threads)


def run(policy, recurrent, count, threads, batch, norm_adv=True):
    """(stats, new log-probabilities, gradients) of one minibatch."""
    grad = gradient(policy, recurrent, count, threads, norm_adv)
    try:
        with torch_threads(1):  # one intra-op thread here too, as on each worker
            stats, new_logprob = grad(*batch)
    finally:
        grad.close()
    return stats, new_logprob, [p.grad.clone() for p in policy.parameters()]


@pytest.mark.parametrize("recurrent", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("norm_adv", [True, False])
def test_microbatch_gradients_add_up_to_the_minibatch_gradient(env, recurrent, weighted, norm_adv):
    policy = make_policy(env, recurrent)
    batch = minibatch(recurrent, weighted)
    whole_stats, whole_logprob, whole = run(policy, recurrent, 1, 1, batch, norm_adv)
    parts_stats, parts_logprob, parts = run(policy, recurrent, 4, 1, batch, norm_adv)
    for a, b in zip(whole, parts):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert max(g.abs().max() for g in whole) > 1e-3  # the comparison is not between zeros
    torch.testing.assert_close(whole_logprob, parts_logprob)
    for key in ppo.LOSS_STATS:
        torch.testing.assert_close(whole_stats[key], parts_stats[key], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("recurrent", [False, True])
@pytest.mark.parametrize("threads", [2, 3])
def test_worker_threads_give_the_serial_result_bit_for_bit(env, recurrent, threads):
    policy = make_policy(env, recurrent)
    batch = minibatch(recurrent, weighted=True)
    serial_stats, serial_logprob, serial = run(policy, recurrent, 8, 1, batch)
    for _ in range(3):  # the workers finish in whatever order; the sums are added in one
        stats, logprob, grads = run(policy, recurrent, 8, threads, batch)
        assert all(torch.equal(a, b) for a, b in zip(serial, grads))
        assert torch.equal(serial_logprob, logprob)
        assert all(torch.equal(serial_stats[k], stats[k]) for k in ppo.LOSS_STATS)


def test_a_microbatch_that_raises_stops_the_update_and_leaves_no_work_running(env):
    class Fails(torch.nn.Module):
        """Raises on a marked microbatch; the others take a while, and count themselves."""

        def __init__(self):
            super().__init__()
            self.inner = make_policy(env, False)
            self.running = self.calls = 0

        def forward(self, obs):
            self.running += 1
            self.calls += 1
            try:
                if obs[0, 0] > 100:
                    raise ValueError("a bad microbatch")
                time.sleep(0.05)
                return self.inner(obs)
            finally:
                self.running -= 1

    policy = Fails()
    fields, tensors, weights = minibatch(False, False)
    grad = gradient(policy, False, 4, 2)
    try:
        bad = tensors[0].clone()
        bad[len(bad) // 2] = 1e3  # the first row of the third microbatch
        with pytest.raises(ValueError, match="a bad microbatch"):
            grad(fields, (bad, tensors[1]), weights)
        assert policy.running == 0  # the update returned after every started microbatch ended
        calls = policy.calls
        grad(fields, tensors, weights)  # the workers are still there for the next minibatch
        assert policy.calls == calls + 4
        threads = worker_threads_of(grad.workers)
    finally:
        grad.close()
    assert not any(thread.is_alive() for thread in threads)


def test_automatic_count_follows_its_rule():
    big = 10 * MICROBATCH_WORK  # parameters: never the binding limit below
    assert microbatch_count(4096, 1, 0, big, CPU) == 1  # a few thousand steps stay whole
    assert microbatch_count(2 * MICROBATCH_STEPS, 1, 0, big, CPU) == 2
    assert microbatch_count(1 << 20, 1, 0, big, CPU) == MAX_MICROBATCHES
    # An LSTM's microbatches keep MICROBATCH_SEGMENTS segments: 512 segments of 64 steps make 4.
    assert microbatch_count(512 * 64, 64, 0, big, CPU) == 512 // MICROBATCH_SEGMENTS
    # A small policy needs more steps per microbatch to be worth cutting.
    small = MICROBATCH_WORK // (4 * MICROBATCH_STEPS)
    assert microbatch_count(32768, 1, 0, small, CPU) == 32768 // (4 * MICROBATCH_STEPS)
    assert microbatch_count(32772, 1, 0, big, CPU) == 6  # equal parts: 8 fit, but only 6 divides 32,772
    assert microbatch_count(1 << 20, 1, 0, big, torch.device("cuda")) == 1  # a GPU takes the whole minibatch
    assert microbatch_count(32768, 64, 8192, 1, torch.device("cuda")) == 4  # unless asked


def test_a_microbatch_size_that_does_not_fit_says_which_do():
    with pytest.raises(APIUsageError, match=r"must divide minibatch_size=1024 and be a multiple of "
                                            r"bptt_horizon=16: use one of .*512, 1024"):
        microbatch_count(1024, 16, 100, 1000, CPU)
    with pytest.raises(APIUsageError, match="multiple of bptt_horizon=16"):
        microbatch_count(1024, 16, 8, 1000, CPU)


def test_trainer_rejects_a_bad_microbatch_size_before_it_starts(env):
    fresh = pufferlib.make("gym-CartPole-v1", num_envs=2)
    try:
        with pytest.raises(APIUsageError, match="microbatch_size=300 must divide minibatch_size=512"):
            PuffeRL(env=fresh, device="cpu", batch_size=1024, minibatch_size=512, microbatch_size=300,
                    dashboard=Dashboard(interval=1e9, rich=False))
    finally:
        fresh.close()


def train_weights(tmp_path, cpu_threads):
    env = pufferlib.make("gym-CartPole-v1", num_envs=4, seed=3)
    trainer = PuffeRL(env=env, device="cpu", cpu_threads=cpu_threads, batch_size=1024, minibatch_size=512,
                      microbatch_size=128, update_epochs=2, total_timesteps=3072, checkpoint_interval=0,
                      data_dir=str(tmp_path), dashboard=Dashboard(interval=1e9, rich=False))
    workers = trainer.gradient.workers
    assert workers is not None and workers.count == 2
    threads = worker_threads_of(workers)
    try:
        while not trainer.done_training():
            trainer.evaluate()
            trainer.train()
        return {k: v.clone() for k, v in trainer.policy.state_dict().items()}, threads
    finally:
        trainer.close()


def test_threaded_microbatches_train_reproducibly_and_close_stops_the_workers(tmp_path):
    first, threads = train_weights(tmp_path, 2)
    assert not any(thread.is_alive() for thread in threads)  # close() joined them
    second, _ = train_weights(tmp_path, 2)
    assert all(torch.equal(first[k], second[k]) for k in first)


def worker_threads_of(workers):
    """The threads of `workers`: each of `count` jobs waits for all, so each runs on its own."""
    meet = threading.Barrier(workers.count)

    def where():
        meet.wait(timeout=5)
        return threading.current_thread()

    return {f.result() for f in [workers.submit(where) for _ in range(workers.count)]}


def test_worker_threads_run_jobs_with_their_own_intra_op_count():
    before = torch.get_num_threads()
    with torch_threads(2):
        workers = WorkerThreads(2, intra_op=1)
        try:
            assert [f.result() for f in [workers.submit(torch.get_num_threads) for _ in range(4)]] == [1] * 4
            assert torch.get_num_threads() == 2  # the caller's own count is untouched
            seen = []
            fresh = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
            fresh.start()
            fresh.join()
            assert seen == [2]  # and threads started later begin with it, not the workers' 1
            with pytest.raises(ZeroDivisionError):
                workers.submit(lambda: 1 / 0).result()
            assert workers.submit(sum, [1, 2]).result() == 3
            threads = worker_threads_of(workers)
            assert len(threads) == 2
        finally:
            workers.shutdown()
    assert torch.get_num_threads() == before
    assert not any(thread.is_alive() for thread in threads)


def test_worker_threads_stop_when_collected():
    workers = WorkerThreads(2)
    threads = worker_threads_of(workers)
    del workers
    gc.collect()
    for thread in threads:
        thread.join(timeout=5)
        assert not thread.is_alive()
