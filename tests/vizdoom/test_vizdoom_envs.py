"""puffer-vizdoom: the ids, spaces, seeding, episode ends, refused kwargs, and cleanup of the Doom engine."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import pufferlib
from puffer_vizdoom import _reaper
from puffer_vizdoom.env import AreaResize, VizdoomEnv, area_weights, make
from puffer_vizdoom.specs import env_id
from pufferlib import APIUsageError
from pufferlib.registry import spec


@pytest.fixture(autouse=True)
def _in_tmp_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the engine makes `_vizdoom/` in the working directory: see it removed


def _engine_files(env: VizdoomEnv) -> list[str]:
    instance = env.game.get_instance_id()
    return [name for name in os.listdir("/dev/shm") if name.endswith(instance)]


def test_one_id_per_shipped_scenario_with_an_underscore_alias():
    assert env_id("defend_the_center") == "vizdoom-defend-the-center"
    for scenario in ("basic", "defend_the_center", "health_gathering", "take_cover", "my_way_home"):
        s = spec(env_id(scenario))
        assert s.kwargs["scenario"] == scenario and s.package == "puffer-vizdoom"
        assert s.policy == "puffer_vizdoom.policy:VizdoomCNN" and s.kwargs["frameskip"] == 4
        assert spec("vizdoom-" + scenario).id == s.id
    assert spec("vizdoom-basic").config["train"]["total_timesteps"] == 200_000
    assert spec("vizdoom-basic").kwargs["reward_scale"] == 0.01
    assert spec("vizdoom-defend-the-center").kwargs["reward_scale"] == 1.0


def test_the_entry_module_does_not_import_vizdoom():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('vizdoom-basic'); "
            "assert 'vizdoom' not in sys.modules and 'puffer_vizdoom.env' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("scenario", ["basic", "defend_the_center", "health_gathering"])
def test_the_scenarios_of_the_issue_make_their_buttons_a_discrete_space(scenario):
    # every scenario of SCENARIOS passes `puffer check` (README); 3 here, as each engine start costs ~0.4 s
    env = VizdoomEnv(scenario, stack_num=2)
    try:
        obs, _ = env.reset(seed=0)
        assert obs.shape == (2, 64, 64) and obs.dtype == np.uint8 and obs.any()
        assert env.action_space.n == len(env.buttons) >= 2
        obs = env.step(env.action_space.n - 1)[0]
        assert env.observation_space.contains(obs)
    finally:
        env.close()


def test_spaces_of_basic_in_grayscale_and_rgb_and_the_rendered_screen():
    gray = VizdoomEnv("basic", render_mode="rgb_array")
    rgb = VizdoomEnv("basic", grayscale=False, screen_size=84, stack_num=3, render_mode="rgb_array")
    try:
        assert gray.buttons == ("MOVE_LEFT", "MOVE_RIGHT", "ATTACK") and gray.action_space.n == 3
        assert gray.observation_space.shape == (4, 64, 64)
        obs, _ = gray.reset(seed=0)
        frame = gray.render()
        assert frame.shape == (64, 64, 3) and np.array_equal(frame[..., 1], obs[-1])
        assert rgb.observation_space.shape == (9, 84, 84)
        obs = rgb.reset(seed=1)[0][-3:]
        colour = obs.astype(int)
        assert np.abs(colour[0] - colour[2]).max() > 20  # colour, not grey
        assert np.array_equal(rgb.render(), obs.transpose(1, 2, 0))
    finally:
        gray.close()
        rgb.close()


def test_the_stack_holds_the_last_screens_oldest_first():
    env = VizdoomEnv("basic", stack_num=3)
    try:
        first, _ = env.reset(seed=2)
        assert np.array_equal(first[0], first[2]) and np.array_equal(first[1], first[2])
        second = env.step(1)[0]
        third = env.step(1)[0]
        assert np.array_equal(third[:2], second[1:]) and not np.array_equal(third[2], third[1])
    finally:
        env.close()


def test_same_seed_gives_the_same_episodes_and_another_seed_does_not():
    # (`puffer check` compares two copies in two processes; here one env is reseeded)
    env = VizdoomEnv("defend_the_center", stack_num=1)

    def run(seed: int) -> tuple[list, list]:
        frames, rewards, ends = [env.reset(seed=seed)[0]], [], 0
        for t in range(200):  # this play dies within ~100 steps: the next episode follows from the seed too
            obs, reward, term, trunc, _ = env.step(t % 3 if t % 7 else 2)
            frames.append(obs)
            rewards.append(reward)
            if term or trunc:
                frames.append(env.reset()[0])
                ends += 1
        assert ends >= 1
        return frames, rewards

    try:
        a, b, c = run(7), run(7), run(8)
    finally:
        env.close()
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0])) and a[1] == b[1]
    assert not all(np.array_equal(x, y) for x, y in zip(a[0], c[0]))


def test_death_terminates_and_the_timeout_truncates():
    env = VizdoomEnv("defend_the_center", stack_num=1)
    try:
        env.reset(seed=0)
        for _ in range(600):  # standing still and shooting: the monsters get the player
            obs, reward, term, trunc, info = env.step(2)
            if term or trunc:
                break
        assert term and not trunc and info["died"] == 1.0 and info["health"] <= 0
        assert info["score"] == info["kills"] - 1.0  # +1 a kill, -1 death
        with pytest.raises(APIUsageError, match="call reset"):
            env.step(0)
    finally:
        env.close()
    env = VizdoomEnv("basic", stack_num=1, episode_timeout=40)
    try:
        env.reset(seed=0)
        ends = [env.step(0)[2:] for _ in range(10)]  # 10 steps of 4 tics: 40 tics, moving left only
        assert [e[:2] for e in ends[:-1]] == [(False, False)] * 9
        term, trunc, info = ends[-1]
        assert trunc and not term and info["died"] == 0.0 and info["score"] == -40.0  # -1 a tic
    finally:
        env.close()


def test_frameskip_sums_the_reward_of_its_tics_and_reward_scale_scales_it():
    env = VizdoomEnv("basic", stack_num=1, frameskip=3, reward_scale=0.5)
    try:
        env.reset(seed=0)
        assert env.step(0)[1] == pytest.approx(-1.5)  # -1 a tic, 3 tics, halved
    finally:
        env.close()


def test_area_resampling_averages_the_pixels_each_output_covers():
    weights = area_weights(6, 3)
    assert np.allclose(weights, np.repeat(np.eye(3), 2, axis=1) / 2)
    assert np.allclose(area_weights(120, 84).sum(axis=1), 1.0)
    frame = np.random.default_rng(0).integers(0, 256, (2, 120, 160)).astype(np.uint8)
    expected = area_weights(120, 84) @ frame.astype(np.float64) @ area_weights(160, 84).T
    assert np.abs(AreaResize(120, 160, 84)(frame).astype(float) - expected).max() <= 0.51


def test_kwargs_that_are_not_declared_are_refused_with_the_allowed_ones():
    with pytest.raises(APIUsageError, match="take only: scenario, frameskip"):
        make(scenario="basic", doom_scenario_path="/tmp/elsewhere.wad")
    with pytest.raises(APIUsageError, match="config_file"):
        pufferlib.make("vizdoom-basic", num_envs=1, backend="serial", config_file="/tmp/basic.cfg")
    for bad in ("/tmp/basic.cfg", "../scenarios/basic", "basic.cfg", "cig", "doom2", 3):
        with pytest.raises(APIUsageError, match="scenarios that ship with vizdoom"):
            VizdoomEnv(bad)
    for kwargs, text in (({"frameskip": 0}, "frameskip must be an int"), ({"stack_num": 1.5}, "stack_num must be"),
                         ({"screen_size": 4}, "screen_size must be"), ({"grayscale": "no"}, "grayscale must be"),
                         ({"reward_scale": 0}, "reward_scale must be"), ({"episode_timeout": 0}, "episode_timeout"),
                         ({"render_mode": "human"}, "render_mode must be")):
        with pytest.raises(APIUsageError, match=text):
            VizdoomEnv("basic", **kwargs)
    env = VizdoomEnv("basic", stack_num=1)
    try:
        env.reset(seed=0)
        with pytest.raises(APIUsageError, match=r"outside Discrete\(3\)"):
            env.step(3)
    finally:
        env.close()


def test_close_ends_the_engine_and_leaves_no_file_or_shared_memory(tmp_path):
    env = VizdoomEnv("basic")
    env.reset(seed=0)
    engine = _reaper.find_engine(env.game.get_instance_id())
    shm, folder = _engine_files(env), env._folder
    assert engine is not None and len(shm) == 3 and os.path.isdir(folder)
    reaper = _reaper._state["proc"]
    assert reaper is not None and reaper.poll() is None  # this process's reaper watches the engine
    assert not os.path.exists(tmp_path / "_vizdoom")  # removed right after the engine made it
    env.close()
    env.close()
    assert _reaper.start_time(engine) is None or _zombie(engine)
    assert not any(os.path.exists(f"/dev/shm/{name}") for name in shm) and not os.path.exists(folder)
    assert os.listdir(tmp_path) == []
    assert reaper.wait(timeout=10) == 0 and _reaper._state["proc"] is None  # with the last env closed, it exits
    with pytest.raises(APIUsageError, match="closed"):
        env.reset()


def _zombie(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] == "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the reaper reads /proc (Linux)")
def test_the_engine_of_a_killed_process_is_ended_and_its_shared_memory_freed():
    code = ("import os, signal\nfrom puffer_vizdoom.env import VizdoomEnv\nfrom puffer_vizdoom import _reaper\n"
            "env = VizdoomEnv('basic')\niid = env.game.get_instance_id()\n"
            "print(_reaper.find_engine(iid), iid, env._folder, flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == -signal.SIGKILL, result.stderr
    pid, instance, folder = result.stdout.split()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (os.path.exists(f"/dev/shm/ViZDoomSM{instance}") or os.path.isdir(folder)):
        time.sleep(0.05)
    assert not any(os.path.exists(f"/dev/shm/{p}{instance}") for p in _reaper.SHM_PREFIXES)
    assert not os.path.isdir(folder)
    while time.monotonic() < deadline and _reaper.start_time(int(pid)) is not None and not _zombie(int(pid)):
        time.sleep(0.05)
    assert _reaper.start_time(int(pid)) is None or _zombie(int(pid))


def test_worker_processes_step_the_scenario_and_close_cleanly():
    before = {n for n in os.listdir("/dev/shm") if n.startswith("ViZDoom")}
    env = pufferlib.make("vizdoom-defend-the-center", num_envs=2, num_workers=2, seed=0)
    try:
        assert type(env).__name__ == "Multiprocessing"
        obs, _ = env.reset(seed=0)
        ends = []
        for t in range(150):
            obs, rewards, terms, truncs, infos = env.step(np.full(2, 2 if t % 4 else 0))
            ends += [i for i in infos if "kills" in i]
        assert obs.shape == (2, 4, 64, 64) and ends and all(i["died"] == 1.0 for i in ends)
    finally:
        env.close()
    assert {n for n in os.listdir("/dev/shm") if n.startswith("ViZDoom")} <= before
