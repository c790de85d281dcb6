"""puffer-retro: the ids, spaces, seeding, sticky actions, episode ends, refused kwargs, and one emulator
per process."""

import subprocess
import sys
import time

import numpy as np
import pytest

import pufferlib
from puffer_retro.env import HostedRetroEnv, RetroGameEnv, make
from puffer_retro.specs import GAMES, env_id
from pufferlib import APIUsageError
from pufferlib.registry import spec


@pytest.fixture
def env():
    made = make(game="Airstriker-Genesis-v0", reward_scale=0.05)
    yield made
    made.close()


def test_one_id_per_game_whose_rom_ships():
    assert env_id("Airstriker-Genesis-v0") == "retro-airstriker-genesis"
    s = spec("retro-airstriker-genesis")
    assert s.kwargs["game"] == "Airstriker-Genesis-v0" and s.package == "puffer-retro"
    assert s.kwargs["frameskip"] == 4 and s.kwargs["repeat_action_probability"] == 0.25
    assert s.policy == "pufferlib.models:SmallConvolutional"
    assert spec("retro-airstriker").id == s.id
    assert s.config["vec"] == {"num_envs": 8, "num_workers": 0}  # 0: the vectorizer picks, by the cores
    # the settings that left random play in the README's runs: whole steps of every env in a batch,
    # whole minibatches, 4 epochs
    train = s.config["train"]
    assert (train["batch_size"], train["minibatch_size"], train["update_epochs"]) == (512, 128, 4)
    assert train["batch_size"] % s.config["vec"]["num_envs"] == 0 and train["batch_size"] % train["minibatch_size"] == 0


def test_every_game_of_the_specs_has_its_rom_in_the_installed_package():
    import stable_retro

    for game in GAMES:
        assert stable_retro.data.get_romfile_path(game, stable_retro.data.Integrations.STABLE)


def test_the_entry_module_does_not_import_stable_retro():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('retro-airstriker-genesis'); "
            "assert 'stable_retro' not in sys.modules and 'puffer_retro.env' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_spaces_and_the_pad_actions(env):
    obs, _ = env.reset(seed=0)
    assert obs.shape == (4, 84, 84) and obs.dtype == np.uint8 and obs.any()
    assert env.action_space.n == 18 and env.actions[0] == () and env.actions[9] == ("B",)
    assert (obs == obs[:1]).all()  # every slot of the stack holds the first frame after a reset
    obs = env.step(17)[0]
    assert env.observation_space.contains(obs)


def test_same_seed_and_actions_give_the_same_steps_and_sticky_draws_follow_the_seed(env):
    actions = np.random.default_rng(0).integers(0, 18, 40)

    def run(seed):
        first, _ = env.reset(seed=seed)
        out = [first]
        rewards = []
        for a in actions:
            obs, reward, *_ = env.step(a)
            out.append(obs)
            rewards.append(reward)
        return np.stack(out), rewards

    a, ra = run(3)
    b, rb = run(3)
    assert np.array_equal(a, b) and ra == rb
    c, _ = run(4)
    assert not np.array_equal(a, c)  # other sticky draws: other frames


def test_a_truncated_episode_reports_its_score_and_needs_a_reset():
    env = make(max_episode_frames=8, repeat_action_probability=0.0)
    try:
        env.reset(seed=0)
        first = env.step(9)
        assert first[3] is False and first[4] == {}
        obs, reward, terminated, truncated, info = env.step(0)
        assert truncated and not terminated and info == {"score": 0.0, "frames": 8.0}
        with pytest.raises(APIUsageError, match="reset"):
            env.step(0)
    finally:
        env.close()


def test_a_second_emulator_in_one_process_is_refused_by_the_class_and_hosted_by_make(env):
    with pytest.raises(APIUsageError, match="one emulator per process.*num_workers=N"):
        RetroGameEnv()
    hosted = make(game="Airstriker-Genesis-v0", reward_scale=0.05)
    try:
        assert isinstance(hosted, HostedRetroEnv) and hosted.action_space == env.action_space
        first, _ = env.reset(seed=5)
        second, _ = hosted.reset(seed=5)
        assert np.array_equal(first, second)
        for action in (9, 0, 9, 4, 17):
            ours, theirs = env.step(action), hosted.step(action)
            assert np.array_equal(ours[0], theirs[0]) and ours[1:] == theirs[1:]
        with pytest.raises(APIUsageError, match="outside Discrete"):
            hosted.step(18)  # the child's error comes back as itself
    finally:
        hosted.close()
    assert hosted._proc.poll() == 0
    env.close()
    again = make()  # closing frees the emulator: the next one runs here again
    assert isinstance(again, RetroGameEnv)
    again.close()


def test_a_hosted_env_ends_with_the_process_that_made_it():
    code = ("from puffer_retro.env import make; a = make(); b = make(); print(b._proc.pid, flush=True); "
            "import time; time.sleep(60)")
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
    finally:
        parent.kill()
        parent.wait()
        parent.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_vectorized_over_worker_processes_one_env_each():
    vec = pufferlib.make("retro-airstriker-genesis", num_envs=2, num_workers=2, backend="multiprocessing",
                         stack_num=2)
    try:
        obs, _ = vec.reset(seed=0)
        assert obs.shape == (2, 2, 84, 84)
        obs = vec.step(np.array([9, 4]))[0]
        assert obs.shape == (2, 2, 84, 84) and obs.any()
    finally:
        vec.close()


@pytest.mark.parametrize("kwargs, match", [
    ({"rom": "/tmp/x.md"}, "do not take rom"),
    ({"game": "SonicTheHedgehog-Genesis"}, "ROM ships"),
    ({"frameskip": 0}, "frameskip"),
    ({"repeat_action_probability": 1.0}, "below 1"),
    ({"repeat_action_probability": -0.1}, "repeat_action_probability"),
    ({"screen_size": 4}, "screen_size"),
    ({"grayscale": "yes"}, "grayscale"),
    ({"reward_scale": 0}, "reward_scale"),
    ({"render_mode": "human"}, "render_mode"),
])
def test_bad_arguments_say_how_to_fix(kwargs, match):
    with pytest.raises(APIUsageError, match=match):
        make(**kwargs)


def test_rgb_observations_and_rendering():
    env = RetroGameEnv(grayscale=False, stack_num=2, screen_size=64, render_mode="rgb_array")
    try:
        obs, _ = env.reset(seed=0)
        assert obs.shape == (6, 64, 64)
        frame = env.render()
        assert frame.shape == (224, 320, 3) and frame.dtype == np.uint8
    finally:
        env.close()
