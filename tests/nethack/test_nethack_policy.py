"""NetHackPolicy: each row's output depends on that row only (messages deduplicated and cut)."""

import numpy as np
import torch

import pufferlib
from puffer_nethack.policy import NetHackPolicy
from tests.policy_checks import assert_rows_do_not_depend_on_their_batch


def test_each_rows_output_is_the_same_alone_or_in_a_batch_with_other_messages():
    env = pufferlib.make("nethack-score", num_envs=4, backend="serial", seed=0)
    try:
        obs, _ = env.reset(seed=0)
        obs = np.repeat(obs[:1], 4, axis=0)  # four copies of one observation, differing only in the message
        messages = env.obs_layout.unflatten(obs)["message"]
        for row, text in enumerate((b"Hello Agent, welcome to NetHack!", b"", b"You see here a dagger.", b"Hello")):
            messages[row] = 0
            messages[row, :len(text)] = np.frombuffer(text, np.uint8)
        torch.manual_seed(0)
        policy = NetHackPolicy(env)
        logits, _ = assert_rows_do_not_depend_on_their_batch(policy, torch.from_numpy(obs))
        assert not torch.equal(logits[0], logits[3])  # the message is read, beyond a shared prefix
    finally:
        env.close()
