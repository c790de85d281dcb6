"""puffer-griddly: the ids, the adapter against griddly's own gym wrapper, levels, ends, determinism, errors."""

import subprocess
import sys

import numpy as np
import pytest

import pufferlib
from puffer_griddly.env import GriddlyEnv
from puffer_griddly.games import GAMES
from pufferlib import APIUsageError
from pufferlib.registry import spec


def test_every_game_has_an_id_with_the_vector_policy_and_config():
    for name in GAMES:
        s = spec(f"griddly-{name}")
        assert s.kwargs == {"game": name, "level": 0, "max_steps": 500}
        assert s.policy == "puffer_griddly.policy:GriddlyVectorCNN" and s.package == "puffer-griddly"
        assert s.config["vec"]["num_envs"] == 64 and s.config["train"]["learning_rate"] == 1e-3


def test_the_entry_module_does_not_import_griddly():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('griddly-sokoban'); "
            "assert 'griddly' not in sys.modules and 'gym' not in sys.modules "
            "and 'puffer_griddly.env' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("env_id, obs_shape, action_shape", [
    ("griddly-sokoban", (4, 13, 9), ()),          # Discrete(5)
    ("griddly-zelda", (6, 13, 9), (2,)),          # MultiDiscrete([2, 5]): move or attack, direction
    ("griddly-clusters-po", (10, 5, 5), ()),      # partially observable: 5x5 view around the avatar
])
def test_reset_and_step_give_vector_observations(env_id, obs_shape, action_shape):
    env = pufferlib.make(env_id, num_envs=2, backend="serial", seed=0)
    try:
        obs, _ = env.reset()
        assert obs.shape == (2, *obs_shape) and obs.dtype == np.uint8
        assert env.single_action_space.shape == action_shape
        assert set(np.unique(obs)) <= {0, 1} and obs[:, :].any()
        obs, rewards, terms, truncs, _ = env.step(np.zeros((2, *action_shape), np.int64))
        assert obs.shape == (2, *obs_shape) and rewards.dtype == np.float32
        assert terms.dtype == truncs.dtype == np.bool_
    finally:
        env.close()


def test_steps_equal_griddlys_own_gym_wrapper_with_the_same_seed_and_actions():
    from puffer_griddly.env import import_griddly

    griddly = import_griddly()
    vector = griddly.gd.ObserverType.VECTOR
    ref = griddly.GymWrapper(yaml_file=GAMES["spiders"][0], level=0, global_observer_type=vector,
                             player_observer_type=vector)
    env = GriddlyEnv("spiders", max_steps=10_000)
    ref.seed(7)
    expected = ref.reset()
    obs, _ = env.reset(seed=7)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):  # spiders move at random: equal frames mean equal random streams
        np.testing.assert_array_equal(obs, expected)
        action = int(rng.integers(5))
        expected, reward, done, info = ref.step(action)
        obs, got_reward, terminated, truncated, got_info = env.step(action)
        assert (got_reward, terminated, truncated) == (reward, done, False)
        if done:
            ends += 1
            assert got_info["win"] == float(info["PlayerResults"]["1"] == "Win")
            expected, _ = ref.reset(), env.reset()
            obs = _[0]
    assert ends >= 3
    env.close()


def test_same_seed_same_episode_and_other_seeds_differ():
    def run(seed: int) -> list[np.ndarray]:
        env = GriddlyEnv("spiders", max_steps=10_000)
        frames = [env.reset(seed=seed)[0]]
        for action in np.random.default_rng(1).integers(5, size=120):
            obs, _, terminated, truncated, _ = env.step(int(action))
            frames.append(obs)
            if terminated or truncated:
                frames.append(env.reset()[0])
        env.close()
        return frames

    first, again, other = run(3), run(3), run(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_observations_are_not_overwritten_by_later_steps():
    env = GriddlyEnv("sokoban")
    first, _ = env.reset(seed=0)
    kept = first.copy()
    for action in (1, 2, 3, 4, 1, 2):
        env.step(action)
    np.testing.assert_array_equal(first, kept)  # griddly's own array is a view of a buffer it rewrites


def test_level_selects_the_map_and_its_size():
    shapes = {level: GriddlyEnv("sokoban", level=level).observation_space.shape for level in (0, 1, 4)}
    assert shapes == {0: (4, 13, 9), 1: (4, 13, 9), 4: (4, 7, 7)}
    first = GriddlyEnv("sokoban", level=0).reset(seed=0)[0]
    second = GriddlyEnv("sokoban", level=1).reset(seed=0)[0]
    assert not np.array_equal(first, second)
    env = pufferlib.make("griddly-sokoban", num_envs=1, backend="serial", level=4)
    try:
        assert env.reset()[0].shape == (1, 4, 7, 7)
    finally:
        env.close()


def test_episodes_are_truncated_at_max_steps_and_report_no_win():
    env = GriddlyEnv("sokoban", max_steps=5)
    env.reset(seed=0)
    results = [env.step(0) for _ in range(5)]  # 0 is the no-op: nothing ends the game
    assert [r[3] for r in results] == [False] * 4 + [True] and not any(r[2] for r in results)
    assert results[-1][4] == {"win": 0.0} and all(r[4] == {} for r in results[:-1])


def test_wins_and_losses_end_episodes_with_their_reward():
    env = GriddlyEnv("spiders", max_steps=10_000)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    outcomes = set()
    for _ in range(3000):
        _, reward, terminated, truncated, info = env.step(int(rng.integers(5)))
        assert not truncated
        if terminated:
            outcomes.add((info["win"], reward))
            env.reset()
    assert outcomes == {(1.0, 1.0), (0.0, -1.0)}  # the gem gives +1 and a win, a spider -1 and a loss


def test_bad_arguments_say_how_to_fix():
    with pytest.raises(APIUsageError, match="Unknown griddly game 'sokobann'; choose one of: .*sokoban"):
        GriddlyEnv("sokobann")
    with pytest.raises(APIUsageError, match=r"level must be in 0..5 for griddly game 'sokoban', got 6"):
        GriddlyEnv("sokoban", level=6)
    with pytest.raises(APIUsageError, match="level must be an int >= 0"):
        GriddlyEnv("sokoban", level=-1)
    with pytest.raises(APIUsageError, match="max_steps must be an int >= 1"):
        GriddlyEnv("sokoban", max_steps=0)
    with pytest.raises(APIUsageError, match="observer 'sprite2d' is not supported: .*Vulkan.*observer='vector'"):
        GriddlyEnv("sokoban", observer="sprite2d")
    with pytest.raises(APIUsageError, match="observer must be one of"):
        GriddlyEnv("sokoban", observer="pixels")
    with pytest.raises(APIUsageError, match="render_mode must be None or 'rgb_array'"):
        GriddlyEnv("sokoban", render_mode="human")
    zelda = GriddlyEnv("zelda")
    for action in (5, -1, [2, 0], [0, 5]):  # griddly itself takes them silently as no-ops
        with pytest.raises(APIUsageError, match="outside this game's action space"):
            (GriddlyEnv("spiders") if np.ndim(action) == 0 else zelda).step(action)
    env = GriddlyEnv("sokoban", max_steps=1)
    env.reset(seed=0)
    assert env.step(0)[3]
    with pytest.raises(APIUsageError, match=r"episode has ended: call reset\(\) before step\(\)"):
        env.step(0)


def test_renders_one_colour_per_object_type():
    env = GriddlyEnv("sokoban", render_mode="rgb_array")
    obs, _ = env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (9 * 8, 13 * 8, 3) and frame.dtype == np.uint8
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) == 5  # floor + avatar, box, hole, wall
    assert GriddlyEnv("sokoban").render() is None


def test_making_an_env_prints_nothing():
    # griddly imports gym 0.26, which prints a notice; griddly's C++ logs when no level is loaded
    code = "from puffer_griddly.env import GriddlyEnv; e = GriddlyEnv('zelda'); e.reset(seed=0); e.step([0, 1])"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == "" and result.stdout == ""
