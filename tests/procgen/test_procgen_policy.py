"""ProcgenCNN, the default policy of the procgen ids: acts on the env's frames and learns from them."""

import torch

import pufferlib
from puffer_procgen.policy import ProcgenCNN
from pufferlib.registry import spec


def test_default_policy_maps_frames_to_logits_and_values_with_gradients():
    env = pufferlib.make("procgen-coinrun", num_envs=4, seed=0)
    try:
        obs, _ = env.reset(seed=0)
        policy = spec("procgen-coinrun").load_policy()(env)
        assert isinstance(policy, ProcgenCNN)
        logits, value = policy(torch.from_numpy(obs))
        assert logits.shape == (4, env.single_action_space.n) and value.shape == (4, 1)
        (logits.sum() + value.sum()).backward()
        first = policy.network[0][0].weight.grad
        assert first is not None and first.abs().sum() > 0
        # the frames are read: a black frame gets another value
        assert not torch.equal(policy(torch.zeros_like(torch.from_numpy(obs)))[1], value.detach())
    finally:
        env.close()
