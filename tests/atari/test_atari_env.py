"""puffer-atari: ids, preprocessing against Gymnasium's reference wrappers, vectorization."""

import inspect
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

from puffer_atari.env import AtariEnv
from puffer_atari.specs import DEFAULTS
from puffer_atari.vector import AtariVector
from pufferlib import APIUsageError, EnvNotFoundError
from pufferlib.registry import spec


def reference(game_id: str, **kwargs):
    """ale-py's env at one frame per step, wrapped in Gymnasium's Atari preprocessing."""
    import ale_py

    gymnasium.register_envs(ale_py)
    env = gymnasium.make(game_id, frameskip=1, repeat_action_probability=0.25,
                         max_num_frames_per_episode=108_000, full_action_space=False)
    return FrameStackObservation(AtariPreprocessing(env, noop_max=30, frame_skip=4, screen_size=84, **kwargs), 4)


def test_every_rom_has_an_id_with_the_documented_defaults():
    from ale_py import roms

    games = roms.get_all_rom_ids()
    assert len(games) > 100
    for game in games:
        s = spec("atari-" + game.replace("_", "-"))
        assert s.kwargs == {"game": game, **DEFAULTS} and s.backend == "native" and s.package == "puffer-atari"
        assert s.policy == "puffer_atari.policy:AtariCNN"
    assert spec("atari-space_invaders").id == "atari-space-invaders"
    assert spec("atari-breakout").config["train"]["learning_rate"] == 2.5e-4
    with pytest.raises(EnvNotFoundError, match="atari-breakout"):
        spec("atari-breakuot")


def test_the_entry_module_imports_neither_ale_py_nor_opencv():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; s = spec('atari-pong'); "
            "import puffer_atari.plugin; assert s.kwargs['game'] == 'pong'; "
            "heavy = [m for m in ('ale_py', 'cv2') if m in sys.modules]; assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("game, gym_id", [("breakout", "ALE/Breakout-v5"), ("pong", "ALE/Pong-v5")])
def test_observations_equal_gymnasium_preprocessing_with_same_seed_and_actions(game, gym_id):
    ref, ours = reference(gym_id), AtariEnv(game)
    rng = np.random.default_rng(1)
    ends = 0
    try:
        obs_ref, _ = ref.reset(seed=7)
        obs, _ = ours.reset(seed=7)
        assert obs.shape == (4, 84, 84) and obs.dtype == np.uint8
        np.testing.assert_array_equal(obs, obs_ref)
        for _ in range(600):
            action = int(rng.integers(ours.action_space.n))
            obs_ref, rew_ref, term_ref, trunc_ref, _ = ref.step(action)
            obs, rew, term, trunc, _ = ours.step(action)
            np.testing.assert_array_equal(obs, obs_ref)
            assert (rew, term, trunc) == (rew_ref, term_ref, trunc_ref)
            if term or trunc:
                ends += 1
                np.testing.assert_array_equal(ours.reset()[0], ref.reset()[0])
        assert len(np.unique(obs)) > 2  # a real frame, not a blank one
    finally:
        ref.close()
        ours.close()
    if game == "breakout":
        assert ends >= 1  # resets without a seed were compared too


def test_defaults_and_kwargs():
    assert DEFAULTS == {"frameskip": 4, "repeat_action_probability": 0.25, "full_action_space": False,
                        "noop_max": 30, "screen_size": 84, "grayscale": True, "stack_num": 4,
                        "episodic_life": False, "reward_clipping": False, "max_episode_frames": 108_000}
    for cls in (AtariEnv, AtariVector):  # both paths take every default as a kwarg, with the same value
        params = inspect.signature(cls).parameters
        assert {key: params[key].default for key in DEFAULTS} == DEFAULTS
    env = AtariEnv("breakout", full_action_space=True, grayscale=False, stack_num=2, screen_size=64,
                   render_mode="rgb_array")
    try:
        obs, _ = env.reset(seed=0)
        assert env.action_space.n == 18 and obs.shape == (6, 64, 64)
        frame = env.render()
        assert frame.shape == (210, 160, 3) and frame.dtype == np.uint8 and frame.max() > 0
        # Channels of the newest frame are its RGB planes.
        assert not np.array_equal(obs[3], obs[4]) or not np.array_equal(obs[4], obs[5])
    finally:
        env.close()
    for bad in ({"frameskip": 0}, {"repeat_action_probability": 1.5}, {"stack_num": 2.0}, {"render_mode": "human"}):
        with pytest.raises(APIUsageError):
            AtariEnv("breakout", **bad)
    with pytest.raises(APIUsageError, match="not an ale-py ROM"):
        AtariEnv("breakuot")


def test_reward_clipping_gives_the_sign_of_the_same_rewards():
    plain, clipped = AtariEnv("space_invaders"), AtariEnv("space_invaders", reward_clipping=True)
    try:
        plain.reset(seed=0)
        clipped.reset(seed=0)
        raw, signs = [], []
        for _ in range(300):
            raw.append(plain.step(1)[1])  # FIRE
            signs.append(clipped.step(1)[1])
        assert max(raw) > 1 and signs == list(np.sign(raw))
    finally:
        plain.close()
        clipped.close()


def test_episodic_life_ends_the_episode_on_a_lost_life_and_the_game_goes_on():
    env = AtariEnv("breakout", episodic_life=True)
    try:
        env.reset(seed=0)
        for _ in range(2000):
            _, _, term, _, info = env.step(1)  # FIRE launches the ball; the paddle stays put
            if term:
                break
        assert term and info["lives"] == 4
        frames = env.ale.getEpisodeFrameNumber()
        _, info = env.reset()
        assert info["lives"] == 4 and env.ale.getEpisodeFrameNumber() == frames + 4
    finally:
        env.close()


def test_without_ale_py_an_atari_id_says_what_to_install(monkeypatch):
    from puffer_atari import plugin, specs

    monkeypatch.setattr(specs, "rom_names", lambda: [])
    assert plugin.pufferlib_env_specs() == []
    with pytest.raises(EnvNotFoundError, match="pip install 'ale-py"):
        plugin.pufferlib_resolve_env(env_id="atari-breakout")
    assert plugin.pufferlib_resolve_env(env_id="gym-CartPole-v1") is None
