"""ProcgenCNN, the default policy of the procgen ids: acts on the env's frames and learns from them."""

from puffer_procgen.policy import ProcgenCNN
from tests.policy_checks import assert_default_policy_learns_from_frames


def test_default_policy_maps_frames_to_logits_and_values_with_gradients():
    assert_default_policy_learns_from_frames("procgen-coinrun", ProcgenCNN, num_envs=4)
