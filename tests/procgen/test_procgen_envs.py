"""puffer-procgen: ids, in-place batched stepping against Procgen's own env, vectorization."""

import subprocess
import sys

import numpy as np
import pytest

import pufferlib
from puffer_procgen.env import GAMES, ProcgenVector
from puffer_procgen.specs import GAMES as LISTED_GAMES
from pufferlib import APIUsageError
from pufferlib.registry import spec


def reference(num: int, seed: int, game: str = "coinrun", **kwargs):
    from procgen import ProcgenGym3Env

    return ProcgenGym3Env(num=num, env_name=game, distribution_mode="easy", rand_seed=seed, **kwargs)


def test_ids_for_the_16_games_with_the_easy_defaults():
    assert LISTED_GAMES == GAMES and len(GAMES) == 16
    for game in GAMES:
        s = spec(f"procgen-{game}")
        assert s.kwargs == {"env_name": game, "distribution_mode": "easy", "num_levels": 0, "start_level": 0,
                            "num_threads": 4}
        assert s.backend == "native" and s.policy == "puffer_procgen.policy:ProcgenCNN"
    assert spec("procgen-coinrun").config["train"]["gamma"] == 0.999


def test_the_entry_module_imports_neither_procgen_nor_gym():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('procgen-coinrun'); "
            "heavy = [m for m in ('procgen', 'gym', 'gym3') if m in sys.modules]; assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("game", ["coinrun", "bigfish"])
def test_steps_equal_procgens_with_same_seed_and_actions(game):
    ref = reference(3, seed=9, game=game)
    env = ProcgenVector(game, num_envs=3)
    rng = np.random.default_rng(0)
    ends = 0
    try:
        obs, _ = env.reset(seed=9)
        _, ref_obs, _ = ref.observe()
        np.testing.assert_array_equal(obs, ref_obs["rgb"])
        for _ in range(400):
            actions = rng.integers(0, 15, 3)
            ref.act(actions)
            ref_rew, ref_obs, ref_first = ref.observe()
            obs, rewards, terminals, truncations, infos = env.step(actions.reshape(3, 1))
            np.testing.assert_array_equal(obs, ref_obs["rgb"])
            np.testing.assert_array_equal(rewards, ref_rew)
            np.testing.assert_array_equal(terminals, ref_first)
            assert not truncations.any() and len(infos) == terminals.sum()
            ends += len(infos)
        assert ends > 0
    finally:
        ref.close()
        env.close()


def test_multiprocessing_workers_write_procgen_frames_into_shared_memory():
    env = pufferlib.make("procgen-coinrun", num_envs=4, num_workers=2, seed=20)
    refs = [reference(2, seed=20), reference(2, seed=21)]  # worker w is seeded with seed + w
    rng = np.random.default_rng(1)
    try:
        assert type(env).__name__ == "Multiprocessing"
        obs, _ = env.reset()
        for _ in range(100):
            expected = np.concatenate([r.observe()[1]["rgb"] for r in refs])
            np.testing.assert_array_equal(obs, expected)
            actions = rng.integers(0, 15, 4)
            refs[0].act(actions[:2])
            refs[1].act(actions[2:])
            obs = env.step(actions)[0]
    finally:
        env.close()
        for r in refs:
            r.close()


def test_level_kwargs_rendering_and_errors():
    env = pufferlib.make("procgen-maze", num_envs=3, num_levels=1, start_level=5, render_mode="rgb_array")
    try:
        obs, _ = env.reset(seed=0)
        assert obs.shape == (3, 64, 64, 3) and obs.dtype == np.uint8
        assert (obs == obs[0]).all()  # one level: every copy starts in the same maze
        frame = env.render(0)
        assert frame.shape == (512, 512, 3) and frame.dtype == np.uint8 and frame.max() > 0
    finally:
        env.close()
    for bad in ({"env_name": "pacman"}, {"env_name": "maze", "distribution_mode": "medium"},
                {"env_name": "maze", "num_levels": -1}, {"env_name": "maze", "render_mode": "human"}):
        with pytest.raises(APIUsageError):
            ProcgenVector(**bad)
    with pytest.raises(APIUsageError, match="reset"):
        ProcgenVector("maze").step(np.zeros((1, 1), np.int32))
    bad = ProcgenVector("maze", num_envs=2)
    try:
        bad.reset(seed=0)
        with pytest.raises(APIUsageError, match="actions"):
            bad.step(np.array([[3], [15]]))
    finally:
        bad.close()
    with pytest.raises(APIUsageError, match="exploration"):
        ProcgenVector("bigfish", distribution_mode="exploration").reset(seed=0)
    explore = ProcgenVector("maze", num_envs=2, distribution_mode="exploration")
    try:
        obs, _ = explore.reset(seed=0)
        assert (obs[0] == obs[1]).all()  # the mode's single level
    finally:
        explore.close()


def test_without_procgen_the_error_gives_the_install_command():
    code = ("import sys; sys.modules['procgen'] = None\n"
            "from pufferlib import APIUsageError\n"
            "from puffer_procgen.env import ProcgenVector\n"
            "try:\n    ProcgenVector('coinrun').reset()\nexcept APIUsageError as e:\n"
            "    assert 'pip install --no-deps procgen-mirror==0.10.7 gym3==0.3.3' in str(e), e\n"
            "else:\n    raise SystemExit('no error')\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_actions_that_would_wrap_or_truncate_are_rejected():
    env = ProcgenVector("coinrun", num_envs=2, num_threads=0)
    try:
        env.reset(seed=0)
        with pytest.raises(APIUsageError, match="out of range"):
            env.step(np.array([0, 2**32]))
        with pytest.raises(APIUsageError, match="non-integer"):
            env.step(np.array([0.5, 0.0]))
        env.step(np.array([0, 1]))
    finally:
        env.close()


def test_a_closed_env_is_never_reopened():
    env = ProcgenVector("coinrun", num_envs=2, num_threads=0)
    env.reset(seed=0)
    env.close()
    for call in (lambda: env.reset(seed=1), lambda: env.step(np.zeros(2, np.int32))):
        with pytest.raises(APIUsageError, match="closed"):
            call()
    assert env._env is None  # Procgen's native env was not re-created
    vecenv = pufferlib.make("procgen-coinrun", num_envs=2, num_threads=0)
    vecenv.reset(seed=0)
    vecenv.close()
    with pytest.raises(APIUsageError, match="closed"):
        vecenv.async_reset(seed=0)
    assert vecenv.envs[0]._env is None
