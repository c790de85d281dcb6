"""puffer-microrts: the ids, the arrays, masks, game ends and outcomes, determinism, bad kwargs, the JVM rule."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import pufferlib
import pufferlib.pytorch
from puffer_microrts.env import CELL_NVEC, NUM_PLANES, MicroRTSEnv, draw_frame
from pufferlib import APIUsageError
from pufferlib.registry import spec

CELLS = 16 * 16


def _leaves(env, obs):
    tree = pufferlib.pytorch.unflatten(torch.from_numpy(obs), env.obs_layout)
    return tree["obs"].numpy(), tree["action_mask"].numpy().reshape(len(obs), CELLS, sum(CELL_NVEC))


def _legal(env, obs, rng):
    """Random actions drawn among the legal choices of every cell's components (any where none is)."""
    mask = _leaves(env, obs)[1]
    scores = rng.random(mask.shape) + mask  # a legal choice outscores every illegal one
    bounds = np.cumsum((0, *CELL_NVEC))
    actions = np.stack([scores[..., a:b].argmax(-1) for a, b in zip(bounds, bounds[1:])], -1)
    return actions.reshape(len(obs), -1)


def test_ids_play_the_papers_map_against_their_bot():
    for env_id, bot in (("microrts-vs-randombiased", "randombiased"), ("microrts-vs-workerrush", "workerrush"),
                        ("microrts-vs-lightrush", "lightrush"), ("microrts-vs-coac", "coac")):
        s = spec(env_id)
        assert s.kwargs["opponent"] == bot and s.kwargs["map"] == "16x16/basesWorkers16x16"
        assert s.kwargs["max_steps"] == 2000 and s.policy == "puffer_microrts.policy:GridNet"
        assert s.kwargs["num_games"] * s.config["vec"]["num_envs"] == 24  # the paper's 24 games
        assert s.package == "puffer-microrts"


def test_neither_the_entry_module_nor_making_an_env_starts_java():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('microrts-vs-coac'); "
            "assert 'jpype' not in sys.modules and 'puffer_microrts.env' not in sys.modules; "
            "from puffer_microrts.env import MicroRTSEnv; env = MicroRTSEnv(num_games=3); "
            "assert env.observations.shape == (3, 16 * 16 * (27 + 78)); "
            "assert 'jpype' not in sys.modules or not sys.modules['jpype'].isJVMStarted()")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_jvm_leaves_the_process_signals_to_python():
    """Ctrl-C after the JVM started is Python's KeyboardInterrupt (the trainer saves, the vectorizer
    closes), and SIGTERM/SIGHUP keep their handlers: a JVM started with its defaults takes all three
    for its own shutdown and ends the process at once (exit 130 on SIGINT, no traceback)."""
    code = ("import ctypes, os, signal, pufferlib\n"
            "libc = ctypes.CDLL(None)\n"
            "def handler(sig):\n"
            "    buf = ctypes.create_string_buffer(256)\n"  # struct sigaction: its handler comes first
            "    libc.sigaction(sig, None, buf)\n"
            "    return buf.raw[:8]\n"
            "before = [handler(s) for s in (signal.SIGTERM, signal.SIGHUP)]\n"
            "env = pufferlib.make('microrts-vs-randombiased', num_envs=1, backend='serial', num_games=1)\n"
            "env.reset(seed=0)\n"
            "assert [handler(s) for s in (signal.SIGTERM, signal.SIGHUP)] == before\n"
            "try:\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "except KeyboardInterrupt:\n"
            "    print('KeyboardInterrupt', flush=True)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "KeyboardInterrupt\n", (proc.returncode, proc.stderr[-2000:])


def test_the_main_thread_keeps_its_stack_once_the_jvm_runs(tmp_path):
    """A JVM created on the main thread guards that thread's stack at -Xss (1 MB by default): native
    code that needs more there afterwards died of SIGSEGV without a word (Procgen's reset did, which
    ended a pytest worker that had run these tests). 4 MB of C stack must still be usable."""
    source = tmp_path / "stack.c"
    source.write_text("int use_stack(int kib) { volatile char buf[kib * 1024]; for (int i = 0; i < kib * 1024; "
                      "i += 512) buf[i] = (char)i; return buf[0] + kib; }\n")
    library = tmp_path / "libstack.so"
    subprocess.run(["gcc", "-O0", "-shared", "-fPIC", "-o", str(library), str(source)], check=True, timeout=60)
    code = ("import ctypes, pufferlib\n"
            "env = pufferlib.make('microrts-vs-randombiased', num_envs=1, backend='serial', num_games=1)\n"
            "env.reset(seed=0)\n"
            f"print(ctypes.CDLL({str(library)!r}).use_stack(4096), flush=True)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "4096\n", (proc.returncode, proc.stderr[-2000:])


def test_reset_gives_feature_planes_and_masks_of_the_agents_units_only():
    env = MicroRTSEnv(num_games=2, max_steps=50)
    try:
        obs, _ = env.reset(seed=0)
        assert obs.dtype == np.uint8 and obs.shape == (2, CELLS * (NUM_PLANES + sum(CELL_NVEC)))
        assert env.single_action_space.nvec.tolist() == list(CELL_NVEC) * CELLS and env.game_seats == 1
        planes, mask = _leaves(env, obs)
        assert planes.shape == (2, 16, 16, NUM_PLANES) and set(np.unique(planes)) == {0, 1}
        own = planes[..., 11].reshape(2, CELLS).astype(bool)  # owner planes: none, the agent, the bot
        assert own.sum(1).tolist() == [2, 2]  # basesWorkers16x16: a base and a worker each
        acting = mask.any(-1)
        assert np.array_equal(acting, own)  # only the agent's units have legal choices
        for cells in mask[acting].reshape(-1, sum(CELL_NVEC)):
            start = 0
            for n in CELL_NVEC[:1]:  # each acting unit has some legal action type
                assert cells[start:start + n].any()
                start += n
    finally:
        env.close()


def test_a_game_the_bot_wins_ends_terminal_with_outcome_0_and_a_tie_truncates_with_one_half():
    rng = np.random.default_rng(0)
    env = MicroRTSEnv(opponent="workerrush", num_games=1, max_steps=2000)
    tie = MicroRTSEnv(opponent="passive", num_games=1, max_steps=30)
    try:
        obs, _ = env.reset(seed=1)
        total, length = 0.0, 0
        while length < 2000:
            obs, rewards, terms, truncs, infos = env.step(_legal(env, obs, rng))
            total, length = total + float(rewards[0]), length + 1
            if terms[0] or truncs[0]:
                break
        assert terms[0] and not truncs[0] and env.outcomes[0] == 0.0, "WorkerRush beats random play"
        assert infos[0]["loss"] == 1.0 and infos[0]["win"] == 0.0 and infos[0]["episode_length"] == length
        assert infos[0]["raw_winloss"] == -1.0 and rewards[0] < 0  # the loss weighs 10
        assert infos[0]["episode_return"] == pytest.approx(total, rel=1e-5)
        assert _leaves(env, obs)[0][..., 11].sum() == 2  # the next game started: a base and a worker again
        obs, _ = tie.reset(seed=1)
        ends = [tie.step(_legal(tie, obs, rng)) for _ in range(30)][-1]
        assert not ends[2][0] and ends[3][0] and tie.outcomes[0] == 0.5
        assert ends[4][0]["tie"] == 1.0 and ends[4][0]["episode_length"] == 30
    finally:
        env.close()
        tie.close()


def test_same_seed_and_actions_play_the_same_games():
    traces = []
    for seed in (3, 3, 4):
        env = MicroRTSEnv(opponent="randombiased", num_games=2, max_steps=2000)
        rng = np.random.default_rng(0)
        try:
            obs, _ = env.reset(seed=seed)
            trace = [obs.copy()]
            for _ in range(60):
                obs, rewards = env.step(_legal(env, obs, rng))[:2]
                trace += [obs.copy(), rewards.copy()]
            traces.append(trace)
        finally:
            env.close()
    assert all(np.array_equal(a, b) for a, b in zip(traces[0], traces[1]))
    assert not all(np.array_equal(a, b) for a, b in zip(traces[0], traces[2]))


@pytest.mark.parametrize("kwargs, message", [
    ({"opponent": "coacAI"}, "choose one of"),
    ({"map": "16x16/basesWorkers"}, "basesWorkers16x16"),
    ({"map": "../../../microrts"}, "not a map"),
    ({"num_games": 0}, "num_games must be an int >= 1"),
    ({"reward_weight": (1.0, 2.0)}, "6 finite numbers"),
    ({"render_mode": "human"}, "rgb_array"),
])
def test_bad_arguments_say_how_to_fix(kwargs, message):
    with pytest.raises(APIUsageError, match=message):
        MicroRTSEnv(**kwargs)


def test_an_env_stepped_in_a_process_forked_from_its_jvm_says_why_it_cannot(monkeypatch):
    """A JVM does not survive a fork: an env whose JVM another process started refuses to reset,
    naming both processes. (Forking a process that runs the JVM for real is left out: the child may
    deadlock on a lock a JVM thread held at the fork before it gets this far, so such a test hangs
    at random.) The JVM's starter is faked here as another process."""
    import puffer_microrts.env as microrts_env

    serial = pufferlib.make("microrts-vs-randombiased", num_envs=1, backend="serial", num_games=1)
    try:
        serial.reset(seed=0)  # the JVM now runs in this process
        monkeypatch.setattr(microrts_env, "_JVM_PID", os.getpid() + 1)
        with pytest.raises(APIUsageError, match=f"started in process {os.getpid() + 1}.*does not survive a fork"):
            serial.reset(seed=0)
    finally:
        serial.close()


def test_render_draws_the_units_of_the_first_game():
    env = MicroRTSEnv(num_games=1, render_mode="rgb_array")
    try:
        obs, _ = env.reset()
        frame = env.render()
        assert frame.shape == (256, 256, 3) and frame.dtype == np.uint8
        planes = _leaves(env, obs)[0][0]
        assert np.array_equal(frame, draw_frame(planes))
        assert (frame == [60, 110, 255]).all(-1).any() and (frame == [230, 60, 60]).all(-1).any()
    finally:
        env.close()
