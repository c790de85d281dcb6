"""puffer-nethack: ids, observations against NLE's with the same seeds and actions, vectorization."""

import subprocess
import sys

import gymnasium
import nle  # noqa: F401 - registers NLE's ids with Gymnasium (the reference envs)
import numpy as np
import pytest
import torch

import pufferlib
from puffer_nethack.env import OBSERVATION_KEYS, TASKS, episode_seeds, make
from pufferlib import APIUsageError
from pufferlib.registry import spec


def test_ids_for_the_eight_tasks():
    ids = ["score", "staircase", "pet", "oracle", "gold", "eat", "scout", "challenge"]
    assert list(TASKS) == ids
    for task in ids:
        s = spec(f"nethack-{task}")
        defaults = ({"max_episode_steps": 1_000_000, "character": "@"} if task == "challenge"
                    else {"max_episode_steps": 5000, "character": "mon-hum-neu-mal"})
        assert s.kwargs == {"task": task, **defaults, "fix_moon_phase": True}
        assert s.policy == "puffer_nethack.policy:NetHackPolicy"
    assert all(gym_id in gymnasium.registry for gym_id in TASKS.values())


def test_the_entry_module_does_not_import_nle():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('nethack-score'); "
            "heavy = [m for m in ('nle',) if m in sys.modules]; assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_observations_equal_nles_with_same_seeds_and_actions():
    ref = gymnasium.make("NetHackScore-v0", observation_keys=OBSERVATION_KEYS, max_episode_steps=60,
                         fix_moon_phase=True, disable_env_checker=True)
    env = pufferlib.make("nethack-score", num_envs=1, seed=4, backend="serial", max_episode_steps=60)
    seeds, rng = np.random.default_rng(4), np.random.default_rng(0)
    try:
        ref.unwrapped.seed(*episode_seeds(seeds), reseed=False)
        expected, _ = ref.reset()
        obs, _ = env.reset()
        ends = 0
        for _ in range(150):
            got = env.obs_layout.unflatten(obs[0])
            for key in OBSERVATION_KEYS:
                np.testing.assert_array_equal(got[key], expected[key], err_msg=key)
            action = int(rng.integers(ref.action_space.n))
            expected, reward, term, trunc, _ = ref.step(action)
            obs, rewards, terms, truncs, infos = env.step(np.array([action]))
            assert (rewards[0], terms[0], truncs[0]) == (np.float32(reward), term, trunc)
            if term or trunc:
                ends += 1
                ref.unwrapped.seed(*episode_seeds(seeds), reseed=False)
                expected, _ = ref.reset()
        assert ends >= 2
    finally:
        ref.close()
        env.close()


def test_observation_keys_are_selectable_and_checked():
    env = make("gold", observation_keys=("chars", "blstats", "tty_cursor"))
    try:
        obs, _ = env.reset(seed=0)
        assert set(obs) == {"chars", "blstats", "tty_cursor"}
    finally:
        env.close()
    with pytest.raises(APIUsageError, match="Unknown observation keys"):
        make("gold", observation_keys=("glyphs", "smell"))
    with pytest.raises(APIUsageError, match="Unknown NetHack task"):
        make("sokoban")
    challenge = make("challenge")
    try:
        assert challenge.unwrapped.character == "@"  # NLE's random character, not the other tasks' default
        assert challenge._max_episode_steps == 1_000_000 and challenge.action_space.n > 100
    finally:
        challenge.close()


def test_multiprocessing_policy_and_rgb_rendering():
    env = pufferlib.make("nethack-scout", num_envs=4, num_workers=2, seed=0,
                         observation_keys=("glyphs", "blstats", "message", "inv_glyphs", "tty_cursor"))
    try:
        assert type(env).__name__ == "Multiprocessing"
        obs, _ = env.reset()
        policy = spec("nethack-scout").load_policy()(env)
        for _ in range(10):
            logits, value = policy(torch.from_numpy(obs))
            assert logits.shape == (4, env.single_action_space.n) and value.shape == (4, 1)
            obs = env.step(logits.argmax(-1).numpy())[0]
        glyphs = env.obs_layout.unflatten(obs)["glyphs"]
        assert glyphs.shape == (4, 21, 79) and len(np.unique(glyphs)) > 3
    finally:
        env.close()
    single = make("score", render_mode="rgb_array")
    try:
        single.reset(seed=0)
        frame = single.render()
        assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8 and frame.max() > 0
    finally:
        single.close()


def test_without_nle_the_error_gives_the_install_command():
    code = ("import sys; sys.modules['nle'] = None\n"
            "from pufferlib import APIUsageError\n"
            "from puffer_nethack.env import make\n"
            "try:\n    make('score')\nexcept APIUsageError as e:\n"
            "    assert 'pip install --no-deps nle==1.3.0' in str(e), e\n"
            "else:\n    raise SystemExit('no error')\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
