"""puffer-minihack: the ids, observations against MiniHack's own with the same seeds and actions,
episode ends, the pkg_resources stand-in, and errors that say how to fix them."""

import subprocess
import sys

import gymnasium
import numpy as np
import pytest

import pufferlib
from puffer_minihack import specs
from puffer_minihack.env import MiniHackEnv, import_minihack, make
from puffer_nethack.env import episode_seeds
from pufferlib import APIUsageError
from pufferlib.registry import spec


def test_every_task_registers_an_id_named_after_minihacks_own():
    assert len(specs.TASKS) == 146
    s = spec("minihack-room-5x5")
    assert s.kwargs == {"task": "room-5x5", "max_episode_steps": 100}
    assert s.policy == "puffer_minihack.policy:MiniHackPolicy" and s.package == "puffer-minihack"
    assert spec("minihack-corridor-r3").kwargs["max_episode_steps"] == 1000
    assert specs.TASKS["sokoban1a"] == "MiniHack-Sokoban1a-v1"
    assert specs.TASKS["hidenseek-big"] == "MiniHack-HideNSeek-Big-v0"
    assert specs.is_skill("wod-easy-full") and not specs.is_skill("room-5x5")
    import_minihack()
    for task, gym_id in specs.TASKS.items():
        assert spec(f"minihack-{task}").kwargs["task"] == task
        assert gym_id in gymnasium.registry, gym_id
        assert specs.task_name(gym_id) == task


def test_the_entry_module_does_not_import_minihack_or_nle():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('minihack-room-5x5'); "
            "heavy = [m for m in ('minihack', 'nle') if m in sys.modules]; assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_observations_equal_minihacks_own_with_same_seeds_and_actions():
    limit = 30
    import_minihack()
    # MiniHack's own limit one step later, as in puffer_minihack.env.make: its episodes end where ours do
    ref = gymnasium.make("MiniHack-Room-Random-5x5-v0", observation_keys=specs.OBSERVATION_KEYS,
                         max_episode_steps=limit + 1, disable_env_checker=True)
    env = pufferlib.make("minihack-room-random-5x5", num_envs=1, seed=7, backend="serial", max_episode_steps=limit)
    seeds, rng = np.random.default_rng(7), np.random.default_rng(0)
    try:
        ref.unwrapped.seed(*episode_seeds(seeds), reseed=False)
        expected, _ = ref.reset()
        obs, _ = env.reset()
        ends, steps = 0, 0
        for _ in range(150):
            got = env.obs_layout.unflatten(obs[0])
            for key in specs.OBSERVATION_KEYS:
                np.testing.assert_array_equal(got[key], expected[key], err_msg=key)
            action = int(rng.integers(ref.action_space.n))
            expected, reward, term, _, _ = ref.step(action)
            steps += 1
            obs, rewards, terms, truncs, infos = env.step(np.array([action]))
            assert (rewards[0], terms[0], truncs[0]) == (np.float32(reward), term, steps == limit and not term)
            if term or steps == limit:
                ends += 1
                assert infos[0]["success"] == float(term and reward > 0)
                ref.unwrapped.seed(*episode_seeds(seeds), reseed=False)
                expected, _ = ref.reset()
                steps = 0
        assert ends >= 3
    finally:
        ref.close()
        env.close()


def test_the_step_limit_is_a_truncation_and_a_won_task_a_success():
    env = make("room-15x15", max_episode_steps=5)
    try:
        env.reset(seed=0)
        ends = [env.step(0)[2:] for _ in range(5)]
        assert [e[:2] for e in ends] == [(False, False)] * 4 + [(False, True)]
        assert ends[-1][2] == {"success": 0.0} and ends[0][2] == {}
    finally:
        env.close()
    env = make("room-5x5")
    rng = np.random.default_rng(0)
    try:
        env.reset(seed=1)
        for _ in range(1000):  # random play wins about 2 episodes in 3 of Room-5x5
            _, reward, term, trunc, info = env.step(int(rng.integers(8)))
            if term and reward > 0:
                assert info == {"success": 1.0}
                break
            if term or trunc:
                env.reset()
        else:
            pytest.fail("random play never reached the stairs of Room-5x5")
    finally:
        env.close()


def test_same_seed_gives_the_same_levels_and_episodes_differ():
    def first_maps(seed: int) -> list[np.ndarray]:
        env = make("room-random-15x15", max_episode_steps=3)
        try:
            maps = [env.reset(seed=seed)[0]["glyphs"].copy()]
            maps += [env.reset()[0]["glyphs"].copy() for _ in range(2)]
            return maps
        finally:
            env.close()

    first, again, other = first_maps(3), first_maps(3), first_maps(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], first[1]) and not np.array_equal(first[0], other[0])


def test_multiroom_levels_follow_the_seed():
    # minihack seeds their MiniGrid level generator with gym 0.21's env.seed, which Gymnasium 1.x lacks
    def levels(seed: int) -> list[np.ndarray]:
        env = make("multiroom-n4", max_episode_steps=2)
        try:
            return [env.reset(seed=seed)[0]["glyphs"].copy(), env.reset()[0]["glyphs"].copy()]
        finally:
            env.close()

    first, again = levels(5), levels(5)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], first[1])


def test_minihack_imports_without_pkg_resources_and_leaves_no_stand_in_behind():
    # setuptools >= 81 has no pkg_resources; minihack 1.0.2 imports it for resource_filename
    code = ("import os, sys; sys.modules['pkg_resources'] = None\n"
            "from puffer_minihack.env import import_minihack\n"
            "minihack = import_minihack()\n"
            "import minihack.base as base\n"
            "assert base.HACKDIR == os.path.join(os.path.dirname(sys.modules['nle'].__file__), 'nethackdir')\n"
            "assert os.path.isfile(base.PATCH_SCRIPT), base.PATCH_SCRIPT\n"
            "assert sys.modules['pkg_resources'] is None  # as it was\n"
            "from puffer_minihack.env import make\n"
            "make('room-5x5').reset(seed=0)\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    unblocked = ("import sys; from puffer_minihack.env import import_minihack; import_minihack()\n"
                 "assert 'pkg_resources' not in sys.modules or sys.modules['pkg_resources'].__file__\n")
    subprocess.run([sys.executable, "-c", unblocked], check=True, timeout=60)


def test_bad_arguments_say_how_to_fix():
    with pytest.raises(APIUsageError, match="Unknown MiniHack task 'room-5x6'.*room-5x5"):
        make("room-5x6")
    with pytest.raises(APIUsageError, match="max_episode_steps must be an int >= 1"):
        make("room-5x5", max_episode_steps=0)
    with pytest.raises(APIUsageError, match="render_mode must be None or 'rgb_array'"):
        make("room-5x5", render_mode="human")
    with pytest.raises(APIUsageError, match="Unknown observation keys"):
        make("room-5x5", observation_keys=("glyphs", "smell"))
    with pytest.raises(APIUsageError, match="non-empty list"):
        make("room-5x5", observation_keys="glyphs")
    with pytest.raises(APIUsageError, match="minihack-room-5x5: .*unexpected keyword argument 'foo'"):
        make("room-5x5", foo=1)


def test_without_minihack_the_error_gives_the_install_command():
    code = ("import sys; sys.modules['minihack'] = None\n"
            "from pufferlib import APIUsageError\n"
            "from puffer_minihack.env import make\n"
            "try:\n    make('room-5x5')\nexcept APIUsageError as e:\n"
            "    assert 'pip install --no-deps nle==1.3.0 minihack==1.0.2' in str(e), e\n"
            "else:\n    raise SystemExit('no error')\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_renders_rgb_frames_and_other_observation_keys():
    env = make("corridor-r2", render_mode="rgb_array", observation_keys=("chars_crop", "message", "blstats"))
    try:
        obs, _ = env.reset(seed=0)
        assert set(obs) == {"chars_crop", "message", "blstats"} and obs["chars_crop"].shape == (9, 9)
        frame = env.render()
        assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8 and frame.max() > 0
        assert isinstance(env, MiniHackEnv)
    finally:
        env.close()
