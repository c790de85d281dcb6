"""MuJoCo envs of the gym- family (the `mujoco` extra): shipped configs, default policy, eval videos."""

from __future__ import annotations

import os
import sys

import pytest

from pufferlib import cli, config, registry
from pufferlib.config import validation

MUJOCO_IDS = ["gym-HalfCheetah-v5", "gym-Hopper-v5", "gym-Walker2d-v5"]


@pytest.mark.parametrize("env_id", MUJOCO_IDS)
def test_mujoco_ids_ship_a_normalized_actor_critic_config(env_id):
    spec = registry.spec(env_id)
    assert spec.policy == "pufferlib.models:ActorCritic"
    assert "spec" not in spec.config                       # EnvSpec fields are not training settings
    default = config.load_default()
    config.check_keys(spec.config, default)
    merged = config.merge(default, spec.config)
    validation.validate(merged, default)
    assert merged["normalize"]["observations"] and merged["normalize"]["rewards"]
    assert merged["train"]["batch_size"] % merged["vec"]["num_envs"] == 0


def _headless(monkeypatch):
    """No display and no MUJOCO_GL choice, restored after the test (the env maker may set MUJOCO_GL)."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "MUJOCO_GL"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


def test_rendering_gym_envs_on_a_linux_server_use_egl_unless_chosen(monkeypatch):
    from pufferlib.registry.builtin import make_gymnasium

    _headless(monkeypatch)
    monkeypatch.setattr(sys, "platform", "linux")
    make_gymnasium("CartPole-v1").close()
    assert "MUJOCO_GL" not in os.environ                   # no rendering asked: nothing changed
    make_gymnasium("CartPole-v1", render_mode="rgb_array").close()
    assert os.environ["MUJOCO_GL"] == "egl"
    monkeypatch.setenv("MUJOCO_GL", "osmesa")
    make_gymnasium("CartPole-v1", render_mode="rgb_array").close()
    assert os.environ["MUJOCO_GL"] == "osmesa"              # the user's choice stays


def test_eval_writes_a_video_of_a_mujoco_env(tmp_path, monkeypatch):
    import imageio.v3 as iio  # the mujoco package comes with the test extra

    _headless(monkeypatch)
    monkeypatch.chdir(tmp_path)  # MuJoCo 4 writes its warnings (deprecated XML attributes) to ./MUJOCO_LOG.TXT
    video, settings = tmp_path / "cheetah.gif", tmp_path / "short.toml"
    # An untrained policy for a few 64x48 frames: rendering is software OpenGL on a CI machine.
    settings.write_text("[env]\nmax_episode_steps = 4\nwidth = 64\nheight = 48\n")
    assert cli.main(["eval", "gym-HalfCheetah-v5", "--config", str(settings), "--episodes", "1",
                     "--vec.num-envs", "1", "--video-path", str(video)]) == 0
    frames = iio.imread(video, plugin="pillow")
    assert frames.shape[0] >= 3 and frames.shape[1:] == (48, 64, 3)
    assert frames.std() > 0                                 # a scene, not a blank frame
