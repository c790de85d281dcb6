"""Training on a CUDA device: the trainer, bf16 autocast, torch.compile, pinned copies, NCCL.

Run by benchmarks/gpu_check.sh on a machine with a GPU; skipped elsewhere (see conftest).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import pufferlib
from pufferlib import PuffeRL
from pufferlib.train.dashboard import Dashboard


def _trainer(tmp_path, **train):
    env = pufferlib.make("gym-CartPole-v1", num_envs=8, seed=0)
    config = {"train": {"device": "cuda", "batch_size": 1024, "minibatch_size": 256,
                        "data_dir": str(tmp_path), **train}}
    return PuffeRL(config, env, dashboard=Dashboard(interval=1e9, rich=False))


def _train(trainer, epochs):
    for _ in range(epochs):
        trainer.evaluate()
        losses = trainer.train()
        trainer.mean_and_log()
    return losses


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_cuda_training_updates_weights_and_saves_a_cpu_loadable_checkpoint(tmp_path, precision):
    trainer = _trainer(tmp_path, precision=precision)
    try:
        assert next(trainer.policy.parameters()).is_cuda
        before = [p.detach().clone() for p in trainer.policy.parameters()]
        losses = _train(trainer, 3)
        assert all(torch.isfinite(torch.tensor(v)) for v in losses.values())
        assert any(not torch.equal(a, b) for a, b in zip(before, trainer.policy.parameters()))
        path = trainer.save_checkpoint()
    finally:
        trainer.close()
    state = torch.load(path, map_location="cpu", weights_only=True)
    assert state  # loads on a machine without the GPU


def test_compiled_policy_trains_on_cuda(tmp_path):
    trainer = _trainer(tmp_path, compile=True)
    try:
        losses = _train(trainer, 2)
        assert torch.isfinite(torch.tensor(losses["policy_loss"]))
    finally:
        trainer.close()


def test_microbatches_on_cuda_add_up_to_the_minibatch_gradient(tmp_path):
    """On a GPU the automatic count keeps minibatches whole; a microbatch_size of the user's
    accumulates their gradients in turn (less memory, the same update)."""
    grads = {}
    for microbatch in (0, 64):
        trainer = _trainer(tmp_path, microbatch_size=microbatch, update_epochs=1, learning_rate=0.0)
        try:
            assert trainer.gradient.count == (1 if microbatch == 0 else 4)
            assert trainer.gradient.workers is None  # worker threads are for the CPU
            trainer.evaluate()
            trainer.train()
            grads[microbatch] = [p.grad.clone() for p in trainer.policy.parameters()]
        finally:
            trainer.close()
    for whole, parts in zip(grads[0], grads[64]):
        torch.testing.assert_close(whole, parts, rtol=1e-4, atol=1e-6)


def test_pinned_host_copies_round_trip():
    host = torch.arange(1 << 20, dtype=torch.float32).pin_memory()
    device = host.to("cuda", non_blocking=True)
    back = torch.empty_like(host).pin_memory()
    back.copy_(device, non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(host, back)


NCCL_SCRIPT = """
import torch, torch.distributed as dist
dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank)
x = torch.full((4,), float(rank + 1), device="cuda")
dist.all_reduce(x)
assert x.tolist() == [3.0] * 4, x
dist.destroy_process_group()
"""


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="NCCL across ranks needs two GPUs")
def test_nccl_all_reduce_across_two_gpus(tmp_path):
    script = tmp_path / "nccl.py"
    script.write_text(NCCL_SCRIPT)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    torchrun = Path(sys.executable).with_name("torchrun")
    result = subprocess.run([str(torchrun), "--nproc_per_node=2", f"--rdzv-endpoint=127.0.0.1:{port}",
                             "--rdzv-backend=c10d", str(script)], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr[-4000:]
