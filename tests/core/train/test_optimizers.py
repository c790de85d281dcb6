"""The trainer's optimizers (pufferlib.train.optimizers): torch's arithmetic and state dicts,
without importing torch._dynamo."""

import subprocess
import sys

import pytest
import torch

from pufferlib.train import optimizers


@pytest.mark.parametrize("fused", [False, True])
def test_adam_steps_and_saves_as_torchs_adam(fused):
    torch.manual_seed(0)
    ours_net, torch_net = torch.nn.Linear(6, 3), torch.nn.Linear(6, 3)
    torch_net.load_state_dict(ours_net.state_dict())
    kwargs = dict(lr=1e-2, betas=(0.9, 0.99), eps=1e-5, fused=fused)
    ours, theirs = optimizers.Adam(ours_net.parameters(), **kwargs), torch.optim.Adam(torch_net.parameters(), **kwargs)
    assert isinstance(ours, torch.optim.Adam) and type(ours).__name__ == "Adam"
    x = torch.randn(32, 6)
    for _ in range(5):
        for net, opt in ((ours_net, ours), (torch_net, theirs)):
            opt.zero_grad()
            net(x).pow(2).mean().backward()
            opt.step()
    assert all(torch.equal(a, b) for a, b in zip(ours_net.parameters(), torch_net.parameters(), strict=True))
    assert str(ours.state_dict()) == str(theirs.state_dict())
    ours.load_state_dict(theirs.state_dict())  # a checkpoint's optimizer state loads into either
    theirs.load_state_dict(ours.state_dict())


def test_muon_steps_as_torchs_muon():
    torch.manual_seed(0)
    ours_w = torch.nn.Parameter(torch.randn(8, 5))
    torch_w = torch.nn.Parameter(ours_w.detach().clone())
    assert optimizers.Muon is not None  # torch 2.9+
    ours, theirs = optimizers.Muon([ours_w], lr=0.02), torch.optim.Muon([torch_w], lr=0.02)
    assert isinstance(ours, torch.optim.Muon)
    x = torch.randn(16, 8)
    for _ in range(3):
        for w, opt in ((ours_w, ours), (torch_w, theirs)):
            opt.zero_grad()
            (x @ w).pow(2).mean().backward()
            opt.step()
    assert torch.equal(ours_w, torch_w)


def test_a_training_process_never_imports_torch_dynamo():
    code = """
import sys
import pufferlib
from pufferlib import PuffeRL
import tempfile
with tempfile.TemporaryDirectory() as run_dir:
    env = pufferlib.make("gym-CartPole-v1", num_envs=4)
    trainer = PuffeRL(env=env, device="cpu", total_timesteps=1024, batch_size=512, minibatch_size=256,
                      run_dir=run_dir, checkpoint_interval=0)
    while not trainer.done_training():
        trainer.evaluate()
        trainer.train()
    trainer.load_checkpoint(trainer.save_checkpoint(), resume=True)  # the optimiser's state saved and loaded
    trainer.close()
print("dynamo" if "torch._dynamo" in sys.modules else "none")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-1] == "none"  # torch's own Adam imports it (1.4 s of a short run's start)
