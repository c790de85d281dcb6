"""MuJoCo envs of the gym- family (the `mujoco` extra): shipped configs, default policy, eval videos."""

from __future__ import annotations

import pytest

from pufferlib import cli, config, config_check, registry

MUJOCO_IDS = ["gym-HalfCheetah-v5", "gym-Hopper-v5", "gym-Walker2d-v5"]


@pytest.mark.parametrize("env_id", MUJOCO_IDS)
def test_mujoco_ids_ship_a_normalized_actor_critic_config(env_id):
    spec = registry.spec(env_id)
    assert spec.policy == "pufferlib.models:ActorCritic"
    assert "spec" not in spec.config                       # EnvSpec fields are not training settings
    default = config.load_default()
    config.check_keys(spec.config, default)
    merged = config.merge(default, spec.config)
    config_check.check_values(merged, default)
    assert merged["normalize"]["observations"] and merged["normalize"]["rewards"]
    assert merged["train"]["batch_size"] % merged["vec"]["num_envs"] == 0


def test_eval_writes_a_video_of_a_mujoco_env(tmp_path):
    import imageio.v3 as iio  # the mujoco package comes with the test extra

    video, settings = tmp_path / "cheetah.gif", tmp_path / "short.toml"
    # An untrained policy for a few 64x48 frames: rendering is software OpenGL on a CI machine.
    settings.write_text("[env]\nmax_episode_steps = 4\nwidth = 64\nheight = 48\n")
    assert cli.main(["eval", "gym-HalfCheetah-v5", "--config", str(settings), "--episodes", "1",
                     "--vec.num-envs", "1", "--video-path", str(video)]) == 0
    frames = iio.imread(video, plugin="pillow")
    assert frames.shape[0] >= 3 and frames.shape[1:] == (48, 64, 3)
    assert frames.std() > 0                                 # a scene, not a blank frame
