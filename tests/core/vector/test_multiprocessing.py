"""The multiprocessing vectorizer: equality with Serial, async batches, robustness, arguments."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import pufferlib
import pufferlib.vector
from pufferlib import APIUsageError, WorkerError
from pufferlib.vector import _sync
from tests.core.mp_envs import NestedEnv, Squad, Tagged, cartpole, tagged_creators

pytestmark = pytest.mark.timeout(120)
MP = "multiprocessing"
ROOT = str(Path(__file__).resolve().parents[3])


def gone(pid: int) -> bool:
    """True when the process no longer exists, or is a zombie whose parent is not us."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return True
    return fields[0] == "Z" and int(fields[1]) != os.getpid()


def shm_files(pid: int) -> list[str]:
    """Files that process `pid` left in /dev/shm (named segments or heap files)."""
    return [name for name in os.listdir("/dev/shm") if f"-{pid}-" in name or name.startswith("psm_")]


def assert_cleaned_up(vecenv) -> None:
    pids = [p.pid for p in vecenv._procs]
    assert vecenv.closed
    assert all(p.exitcode is not None for p in vecenv._procs)
    assert all(not os.path.exists(f"/proc/{pid}") for pid in pids), "a worker is left (zombie?)"
    assert not shm_files(os.getpid())


def rollout(vecenv, steps: int, seed: int = 0) -> list:
    """Every array of a seeded random rollout (copies), plus the infos (Discrete actions)."""
    rng = np.random.default_rng(seed)
    obs, infos = vecenv.reset(seed=7)
    frames = [obs.copy(), infos]
    for _ in range(steps):
        actions = rng.integers(0, vecenv.single_action_space.n, vecenv.num_agents)
        obs, rewards, terminals, truncations, infos = vecenv.step(actions)
        frames += [obs.copy(), rewards.copy(), terminals.copy(), truncations.copy(), vecenv.masks.copy(), infos]
    return frames


def assert_same(a: list, b: list) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
        else:
            assert x == y


@pytest.mark.parametrize("creator, kwargs", [
    (cartpole, {}),
    (NestedEnv, {}),
    (Squad, {}),
    (Tagged, {"num_agents": 5}),
], ids=["cartpole", "nested-obs", "pettingzoo-multiagent", "native-multiagent"])
def test_sync_equals_serial_over_1000_steps(creator, kwargs):
    with pufferlib.vector.make(creator, env_kwargs=kwargs, num_envs=4, seed=3) as serial:
        expected = rollout(serial, 1000)
    with pufferlib.vector.make(creator, env_kwargs=kwargs, backend=MP, num_envs=4, num_workers=2,
                               seed=3) as vecenv:
        got = rollout(vecenv, 1000)
    assert_same(expected, got)
    assert any(isinstance(x, list) and x for x in got[1::6]), "the rollout produced no infos to compare"


def test_the_spin_both_sides_use_is_in_the_shared_block():
    """A given spin_us is published once for every wait; by default SpinPolicy chooses, starting at SPIN_US."""
    from pufferlib.vector.multiprocessing import SPIN_US

    with pufferlib.vector.make(NestedEnv, backend=MP, num_envs=2, num_workers=2, spin_us=7.0) as vecenv:
        rollout(vecenv, 20)
        assert vecenv._flags.spin_us == pytest.approx(7.0) and not vecenv._spin.adaptive
    with pufferlib.vector.make(NestedEnv, backend=MP, num_envs=2, num_workers=2) as vecenv:
        assert vecenv._flags.spin_us == pytest.approx(SPIN_US) and vecenv._spin.adaptive
        rollout(vecenv, 200)
        assert vecenv._flags.spin_us == pytest.approx(vecenv._spin.current)  # what it chose is what workers read


def test_fork_start_method():
    with pufferlib.vector.make(NestedEnv, num_envs=4, seed=1) as serial:
        expected = rollout(serial, 50)
    with pufferlib.vector.make(NestedEnv, num_envs=4, seed=1, backend=MP, num_workers=2,
                               start_method="fork") as vecenv:
        assert vecenv.start_method == "fork"
        got = rollout(vecenv, 50)
    assert_same(expected, got)
    assert_cleaned_up(vecenv)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_spawn_and_forkserver_start_methods(method):
    # In a child process: spawn and forkserver start helper processes (resource tracker,
    # fork server) that live until their parent exits; the reaper then collects them.
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {ROOT!r})
        import numpy as np, pufferlib.vector
        from tests.core.mp_envs import NestedEnv
        from tests.core.vector.test_multiprocessing import rollout, assert_same
        if __name__ == "__main__":
            with pufferlib.vector.make(NestedEnv, num_envs=4, seed=1) as serial:
                expected = rollout(serial, 50)
            with pufferlib.vector.make(NestedEnv, num_envs=4, seed=1, backend="multiprocessing",
                                       num_workers=2, start_method={method!r}) as vecenv:
                print(*[p.pid for p in vecenv._procs], flush=True)
                got = rollout(vecenv, 50)
            assert_same(expected, got)
            print("same", vecenv.start_method, flush=True)
    """)
    first, out, err = run_reaped(script)
    assert f"same {method}" in out, err
    assert "all reaped" in out and len(first) == 2 and all(gone(int(pid)) for pid in first)


def test_spawn_with_unpicklable_creator_says_how_to_fix():
    with pytest.raises(APIUsageError, match="module-level function"):
        pufferlib.vector.make(lambda: cartpole(), backend=MP, num_envs=2, num_workers=2, start_method="spawn")


def test_native_envs_with_many_agents_each():
    creators, args, kwargs = tagged_creators(2, num_agents=64)
    with pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=2, num_workers=2) as vecenv:
        obs, infos = vecenv.reset()
        assert obs.shape == (128, 4) and vecenv.num_agents == 128
        assert infos == [{"reset": 0}, {"reset": 1}]
        actions = np.arange(128) % 1000
        obs, rewards, _, _, _ = vecenv.step(actions)
        np.testing.assert_array_equal(obs[:, 0], np.repeat([0, 1], 64))  # env tag
        np.testing.assert_array_equal(obs[:, 1], np.tile(np.arange(64), 2))  # agent index
        np.testing.assert_array_equal(obs[:, 3], actions)
        np.testing.assert_array_equal(rewards, np.repeat([0, 1], 64))
        # Steps without infos send nothing through the pipes: the arrays are all shared.
        assert list(vecenv._states) == [_sync.READY] * 2 and not any(conn.poll(0) for conn in vecenv._conns)


def test_pufferlib_make_picks_multiprocessing_with_workers():
    with pufferlib.make("gym-CartPole-v1", num_envs=4, num_workers=2) as vecenv:
        assert type(vecenv).__name__ == "Multiprocessing" and vecenv.num_workers == 2
        obs, _ = vecenv.reset(seed=0)
        assert obs.shape == (4, 4) and np.shares_memory(obs, vecenv.observations)
        vecenv.step(np.zeros(4, np.int32))
    with pufferlib.make("gym-CartPole-v1", num_envs=4, num_workers=2, batch_size=2, zero_copy=False) as vecenv:
        assert vecenv.batch_size == 2 and not vecenv.zero_copy
        vecenv.async_reset(0)
        obs = vecenv.recv()[0]
        assert obs.shape == (2, 4) and not np.shares_memory(obs, vecenv.observations)


# ---- async ---------------------------------------------------------------------------

def slow_and_fast_tagged_envs():
    """(creators, args, kwargs) of 4 tagged envs of 2 agents: envs 0 and 1 slow (0.2 s a step), 2 and 3 fast."""
    creators, args, kwargs = tagged_creators(4, num_agents=2)
    for i in (0, 1):
        kwargs[i]["delays"] = (0.2,)
    return creators, args, kwargs


def check_async_batches_serve_the_fastest(vecenv) -> None:
    """Over 12 async batches of 2 envs of `slow_and_fast_tagged_envs`: every row belongs to its
    env id, at its own step, with its own last action and reward; the fast envs are served more."""
    vecenv.async_reset()
    steps = np.zeros(4, int)
    last_action = np.full(8, -1)
    rng = np.random.default_rng(0)
    for _ in range(12):
        obs, rewards, terminals, truncations, infos, env_ids, masks = vecenv.recv()
        assert obs.shape == (4, 4) and len(env_ids) == 4 and masks.all()
        tags = env_ids // 2
        np.testing.assert_array_equal(obs[:, 0], tags)          # the rows belong to those envs
        np.testing.assert_array_equal(obs[:, 1], env_ids % 2)
        np.testing.assert_array_equal(obs[:, 2], steps[tags])   # each at its own step count
        np.testing.assert_array_equal(obs[:, 3], last_action[env_ids])  # having got its own action
        np.testing.assert_array_equal(rewards, np.where(steps[tags] > 0, tags, 0))
        actions = rng.integers(0, 1000, 4)
        steps[tags[::2]] += 1
        last_action[env_ids] = actions
        vecenv.send(actions)
    assert steps[2:].sum() > steps[:2].sum() + 4


def test_async_batches_serve_the_fastest_workers_with_their_env_ids():
    creators, args, kwargs = slow_and_fast_tagged_envs()
    with pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=4, num_workers=4,
                               batch_size=2) as vecenv:
        check_async_batches_serve_the_fastest(vecenv)


def test_async_reset_while_envs_are_in_flight():
    creators, args, kwargs = tagged_creators(4, num_agents=1, delays=(0.0, 0.01))
    with pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=4, num_workers=4,
                               batch_size=2) as vecenv:
        vecenv.async_reset()
        for _ in range(5):
            vecenv.recv()
            vecenv.send(np.ones(2, np.int32))
        vecenv.async_reset()  # two envs are still stepping: their results must be dropped
        steps = np.zeros(4, int)
        served = np.zeros(4, bool)
        for _ in range(8):
            obs, _, _, _, infos, env_ids, _ = vecenv.recv()
            np.testing.assert_array_equal(obs[:, 2], steps[env_ids])  # counted from the reset
            assert infos == [{"reset": int(i)} for i in env_ids if not served[i]]
            served[env_ids] = True
            steps[env_ids] += 1
            vecenv.send(np.zeros(2, np.int32))


def test_zero_copy_views_and_copies():
    creators, args, kwargs = tagged_creators(4, num_agents=1)
    with pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=4, num_workers=2) as vecenv:
        obs, _ = vecenv.reset()
        assert np.shares_memory(obs, vecenv.observations)
    with pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=4, num_workers=2,
                               zero_copy=False) as vecenv:
        obs, _ = vecenv.reset()
        assert not np.shares_memory(obs, vecenv.observations)
        np.testing.assert_array_equal(obs[:, 0], [0, 1, 2, 3])
        obs, *_ = vecenv.step(np.array([5, 6, 7, 8]))
        np.testing.assert_array_equal(obs[:, 3], [5, 6, 7, 8])


def test_noncontiguous_ready_workers_are_gathered():
    # Envs 1 and 3 step slowly: soon envs 0 and 2 come back together, a batch of
    # non-contiguous workers that is gathered into a copy; contiguous batches are views.
    creators, args, kwargs = tagged_creators(4, num_agents=1)
    for i in (1, 3):
        kwargs[i]["delays"] = (1.0,)
    with pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=4, num_workers=4,
                               batch_size=2) as vecenv:
        vecenv.async_reset()
        last_action = np.full(4, -1)
        gathered = 0
        for k in range(8):
            obs, _, _, _, _, env_ids, _ = vecenv.recv()
            np.testing.assert_array_equal(obs[:, 0], env_ids)
            np.testing.assert_array_equal(obs[:, 3], last_action[env_ids])
            contiguous = env_ids[1] == env_ids[0] + 1
            assert np.shares_memory(obs, vecenv.observations) == contiguous
            gathered += not contiguous
            last_action[env_ids] = [k, 100 + k]
            vecenv.send(last_action[env_ids])
            if gathered >= 2:
                break
        assert gathered >= 2


def test_sync_api_needs_full_batch_and_call_order_is_checked():
    creators, args, kwargs = tagged_creators(4, num_agents=1)
    with pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=4, num_workers=4,
                               batch_size=2) as vecenv:
        with pytest.raises(APIUsageError, match="batch_size"):
            vecenv.reset()
        with pytest.raises(APIUsageError, match="async_reset"):
            vecenv.recv()
        with pytest.raises(APIUsageError, match="recv"):
            vecenv.send(np.zeros(2, np.int32))
        vecenv.async_reset()
        vecenv.recv()
        with pytest.raises(APIUsageError, match="twice"):
            vecenv.recv()
        with pytest.raises(APIUsageError, match="shape"):
            vecenv.send(np.zeros(3, np.int32))
        with pytest.raises(APIUsageError, match="out of range"):
            vecenv.send(np.array([0, 1000]))
        vecenv.send(np.zeros(2, np.int32))


# ---- robustness ----------------------------------------------------------------------

def test_exception_in_worker_is_raised_with_its_traceback():
    creators, args, kwargs = tagged_creators(4, num_agents=1)
    kwargs[3]["fail_at"] = 3
    vecenv = pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=4, num_workers=2)
    vecenv.reset()
    start = time.monotonic()
    with pytest.raises(WorkerError) as info:
        for _ in range(5):
            vecenv.step(np.zeros(4, np.int32))
    assert time.monotonic() - start < 2
    message = str(info.value)
    assert "Worker 1" in message and "envs 2..3" in message
    assert "ValueError: Tagged env 3 fails at step 3" in message and "in step" in message
    assert_cleaned_up(vecenv)
    with pytest.raises(APIUsageError, match="closed"):
        vecenv.step(np.zeros(4, np.int32))


def test_exception_while_creating_envs():
    creators, args, kwargs = tagged_creators(2, num_agents=1)
    kwargs[1]["num_agents"] = 0
    with pytest.raises(WorkerError, match="num_agents must be an int >= 1"):
        pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=2, num_workers=2)


def test_worker_that_exits_abruptly_is_reported():
    creators, args, kwargs = tagged_creators(2, num_agents=1)
    kwargs[0]["exit_at"] = 2
    vecenv = pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=2, num_workers=2)
    vecenv.reset()
    with pytest.raises(WorkerError, match="exited with code 3"):
        for _ in range(3):
            vecenv.step(np.zeros(2, np.int32))
    assert_cleaned_up(vecenv)


@pytest.mark.parametrize("while_waiting", [False, True])
def test_sigkilled_worker_is_detected_within_2s(while_waiting):
    delays = (0.05,) if while_waiting else (0.0,)
    creators, args, kwargs = tagged_creators(4, num_agents=1, delays=delays)
    vecenv = pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=4, num_workers=2)
    vecenv.reset()
    vecenv.step(np.zeros(4, np.int32))
    victim = vecenv._procs[1].pid
    if while_waiting:
        vecenv.send(np.zeros(4, np.int32))
        os.kill(victim, signal.SIGKILL)
        call = vecenv.recv
    else:
        os.kill(victim, signal.SIGKILL)
        time.sleep(0.1)
        call = functools.partial(vecenv.step, np.zeros(4, np.int32))
    start = time.monotonic()
    with pytest.raises(WorkerError, match=r"Worker 1 .*SIGKILL"):
        for _ in range(100):
            call()
    assert time.monotonic() - start < 2
    assert_cleaned_up(vecenv)


def test_close_is_idempotent_and_leaves_nothing_behind():
    vecenv = pufferlib.vector.make(cartpole, backend=MP, num_envs=4, num_workers=2)
    assert not shm_files(os.getpid())  # the shared block has no name
    obs, _ = vecenv.reset()
    vecenv.close()
    vecenv.close()
    assert_cleaned_up(vecenv)
    assert obs.shape == (4, 4) and np.isfinite(obs).all()  # views stay readable after close
    with pytest.raises(APIUsageError, match="closed"):
        vecenv.reset()


# Runs a script in a child and reaps every process orphaned below it (a child subreaper),
# so that the workers of a killed or interrupted script leave no zombie behind.
REAPER = textwrap.dedent("""
    import ctypes, os, signal, subprocess, sys, time
    signal.signal(signal.SIGINT, lambda *_: None)  # Ctrl-C is meant for the script
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    code = subprocess.call([sys.executable, "-c", sys.argv[1]])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.02)
        except ChildProcessError:
            print("all reaped", flush=True)
            break
    sys.exit(code)
""")

SCRIPT_HEAD = textwrap.dedent(f"""
    import os, signal, sys, numpy as np, pufferlib.vector
    sys.path.insert(0, {ROOT!r})
    from tests.core.mp_envs import tagged_creators
    creators, args, kwargs = tagged_creators(4, num_agents=1, delays=(0.05,))
    vecenv = pufferlib.vector.make(creators, args, kwargs, backend="multiprocessing", num_envs=4,
                                   num_workers=2)
    print(*[p.pid for p in vecenv._procs], os.getpid(), flush=True)
""")

CTRL_C_SCRIPT = SCRIPT_HEAD + textwrap.dedent("""
    vecenv.reset()
    try:
        while True:
            vecenv.step(np.zeros(4, np.int32))
    except KeyboardInterrupt:
        if {close}:
            vecenv.close()
            vecenv.close()
        print("interrupted", flush=True)
        raise
""")


def run_reaped(script: str, interrupt_after: float | None = None) -> tuple[list[str], str, str]:
    """Run `script` under REAPER; return (words of its first line, the rest of stdout, stderr)."""
    proc = subprocess.Popen([sys.executable, "-c", REAPER, script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        first = proc.stdout.readline().split()
        if interrupt_after is not None:
            time.sleep(interrupt_after)
            os.killpg(proc.pid, signal.SIGINT)  # like Ctrl-C in a terminal: the whole process group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return first, out, err


@pytest.mark.parametrize("close", [True, False], ids=["close", "exit-without-close"])
def test_ctrl_c_leaves_no_worker_nor_shared_memory(close):
    first, out, err = run_reaped(CTRL_C_SCRIPT.format(close=close), interrupt_after=0.5)
    *pids, main_pid = map(int, first)
    assert "interrupted" in out and "KeyboardInterrupt" in err
    assert "Traceback" not in err.split("KeyboardInterrupt")[-1]  # nothing else went wrong at exit
    assert "all reaped" in out and len(pids) == 2 and all(gone(pid) for pid in pids)
    assert not shm_files(main_pid)


def test_workers_exit_when_the_main_process_is_killed():
    script = SCRIPT_HEAD + "os.kill(os.getpid(), signal.SIGKILL)\n"
    start = time.monotonic()
    first, out, err = run_reaped(script)
    *pids, main_pid = map(int, first)
    assert "all reaped" in out and len(pids) == 2 and all(gone(pid) for pid in pids)
    assert time.monotonic() - start < 10
    assert not shm_files(main_pid)


# ---- arguments -----------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(num_envs=6, num_workers=4), r"num_workers=4 does not divide num_envs=6.*\[1, 2, 3, 6\]"),
    (dict(num_envs=2, num_workers=4), r"num_workers=4 is more than num_envs=2.*\[1, 2\]"),
    (dict(num_envs=8, num_workers=4, batch_size=3), r"batch_size=3 .*Valid batch_size values: \[2, 4, 6, 8\]"),
    (dict(num_envs=8, num_workers=2, batch_size=16), r"Valid batch_size values: \[4, 8\]"),
    (dict(num_envs=8, num_workers=2, envs_per_worker=3), r"envs_per_worker=3 disagrees"),
    (dict(num_envs=2, num_workers=2, start_method="teleport"), r"start_method='teleport'.*choose one of"),
])
def test_bad_arguments_say_which_values_work(kwargs, message):
    with pytest.raises(APIUsageError, match=message):
        pufferlib.vector.make(cartpole, backend=MP, **kwargs)


def test_layout_defaults():
    with pufferlib.vector.make(cartpole, backend=MP, num_envs=4, envs_per_worker=2) as vecenv:
        assert (vecenv.num_workers, vecenv.envs_per_worker, vecenv.batch_size) == (2, 2, 4)
    with pufferlib.vector.make(cartpole, backend=MP, num_envs=3) as vecenv:
        assert vecenv.num_workers in (1, 3) and vecenv.num_workers <= max(os.cpu_count(), 1)


# ---- hanging envs -------------------------------------------------------------------------

def test_env_hanging_in_step_raises_after_the_timeout_naming_worker_and_envs():
    creators, args, kwargs = tagged_creators(4, num_agents=1)
    kwargs[3]["hang_at"] = 2  # env 3, in worker 1
    vecenv = pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=4, num_workers=2, timeout=1.0)
    procs = list(vecenv._procs)
    vecenv.reset()
    vecenv.step(np.zeros(4, np.int32))
    start = time.monotonic()
    with pytest.raises(WorkerError, match=r"within 1 s: worker 1 \(pid \d+, envs 2\.\.3\): step\(\)"):
        vecenv.step(np.zeros(4, np.int32))
    assert time.monotonic() - start < 10
    assert vecenv.closed and not any(p.is_alive() for p in procs)


def test_env_hanging_in_init_raises_after_init_timeout():
    creators, args, kwargs = tagged_creators(2, num_agents=1, hang_in_worker=True)
    with pytest.raises(WorkerError, match=r"worker 0 \(pid \d+, envs 0\.\.0\): creating its envs"):
        pufferlib.vector.make(creators, args, kwargs, backend=MP, num_envs=2, num_workers=2, init_timeout=1.0)


@pytest.mark.parametrize("value", [0, -1.0, "5", float("nan")])
def test_bad_timeouts_say_what_works(value):
    with pytest.raises(APIUsageError, match="timeout must be a number of seconds > 0, or None"):
        pufferlib.vector.make(cartpole, backend=MP, num_envs=2, num_workers=2, timeout=value)


def test_make_passes_worker_options_through():
    with pufferlib.make("gym-CartPole-v1", num_envs=2, num_workers=2, start_method="spawn", timeout=30) as vecenv:
        assert vecenv.start_method == "spawn" and vecenv.timeout == 30.0
        vecenv.reset(seed=0)


def test_workers_stuck_in_a_step_exit_when_the_main_process_is_killed():
    script = SCRIPT_HEAD.replace("delays=(0.05,)", "hang_at=1, spin=True") + textwrap.dedent("""
        vecenv.async_reset()
        vecenv.send(np.zeros(4, np.int32)) if vecenv.recv() else None
        import time; time.sleep(0.5)  # both workers now spin in step() for ever
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    start = time.monotonic()
    pids: list[int] = []
    try:
        first, out, err = run_reaped(script)
        *pids, main_pid = map(int, first)
        assert len(pids) == 2 and "all reaped" in out, err
        assert all(gone(pid) for pid in pids)
        assert time.monotonic() - start < 15
    finally:
        for pid in pids:  # without the fix they would spin for ever
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_vec_config_timeout_reaches_the_workers():
    from pufferlib import config as cfglib
    from pufferlib.registry.make import make_from_config as make_env

    config = cfglib.merge(cfglib.load_default(), {"vec": {"backend": MP, "num_envs": 2, "num_workers": 2,
                                                          "timeout": 12.5}})
    with make_env("gym-CartPole-v1", config) as vecenv:
        assert vecenv.timeout == 12.5
    config["vec"]["timeout"] = 0.0  # 0: wait forever
    with make_env("gym-CartPole-v1", config) as vecenv:
        assert vecenv.timeout is None
