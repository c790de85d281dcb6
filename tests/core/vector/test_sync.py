"""The C synchronisation flags (`pufferlib.vector._sync`), futex build and portable fallback."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time

import numpy as np
import pytest

import pufferlib.vector
from pufferlib.vector import _sync
from tests.core.mp_envs import NestedEnv

pytestmark = pytest.mark.timeout(120)
SOURCE = os.path.join(os.path.dirname(_sync.__file__), "_sync.c")


def build_fallback():
    """_sync compiled with PUFFERLIB_SYNC_POLL: the sleeping-poll path of non-Linux systems."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    with tempfile.TemporaryDirectory() as folder:
        target = os.path.join(folder, "_sync" + suffix)
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-std=c11", "-shared", "-fPIC",
                        "-DPUFFERLIB_SYNC_POLL", f"-I{sysconfig.get_paths()['include']}", SOURCE,
                        "-o", target], check=True, capture_output=True)
        spec = importlib.util.spec_from_file_location("_sync", target)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", params=["futex", "poll"])
def sync(request):
    if request.param == "poll":
        module = build_fallback()
        assert module.HAVE_FUTEX == 0
        return module
    assert _sync.HAVE_FUTEX == (sys.platform == "linux")
    return _sync


def make_flags(sync, workers: int):
    block = np.zeros(sync.HEADER_BYTES + sync.SLOT_BYTES * workers + 64, np.uint8)
    start = -block.ctypes.data % 64
    block = block[start:start + sync.HEADER_BYTES + sync.SLOT_BYTES * workers]
    states = np.ndarray((workers,), np.uint32, buffer=block, offset=sync.HEADER_BYTES, strides=(sync.SLOT_BYTES,))
    return sync.Flags(block, workers), states


def test_command_and_result_round_trip(sync):
    flags, states = make_flags(sync, 2)
    states[:] = sync.READY
    start = time.monotonic()
    assert flags.wait_command(0, 50.0) == -1  # no command: times out
    assert 0.04 < time.monotonic() - start < 1.0
    flags.send(0, sync.STEP)
    assert flags.wait_command(0, 1000.0) == sync.STEP
    pending = np.array([1, 0], np.uint8)
    assert flags.wait_ready(pending, 1, 20.0) == (0, 0)  # still stepping: timeout
    assert flags.post(0, sync.STEP, sync.READY_INFOS) is True
    assert flags.wait_ready(pending, 1, 1000.0) == (1, 1)
    flags.send_many(np.array([1, 1], np.uint8), sync.RESET)
    assert list(states) == [sync.RESET, sync.RESET]


def test_close_replaces_a_running_command_and_errors_end_waits(sync):
    flags, states = make_flags(sync, 2)
    states[:] = sync.STEP
    flags.send(1, sync.CLOSE)
    assert flags.post(1, sync.STEP, sync.READY) is False  # the worker learns it must close
    assert flags.post(0, sync.STEP, sync.ERROR) is True
    assert flags.wait_ready(np.array([1, 0], np.uint8), 2, 5000.0) == (-1, 0)


def test_a_sleeping_waiter_is_woken(sync):
    flags, states = make_flags(sync, 3)
    states[:] = sync.READY
    got = []
    thread = threading.Thread(target=lambda: got.append(flags.wait_command(2, 5000.0)))
    thread.start()
    time.sleep(0.1)  # let it fall asleep
    start = time.monotonic()
    flags.send_many(np.array([0, 0, 1], np.uint8), sync.STEP)
    thread.join(5)
    assert got == [sync.STEP] and time.monotonic() - start < 0.5
    states[:] = sync.STEP
    pending = np.ones(3, np.uint8)
    result = []
    thread = threading.Thread(target=lambda: result.append(flags.wait_ready(pending, 3, 5000.0)))
    thread.start()
    for w in range(3):
        time.sleep(0.05)
        flags.post(w, sync.STEP, sync.READY)
    thread.join(5)
    assert result == [(3, 0)]


@pytest.mark.parametrize("side", ["worker", "main"])
def test_both_sides_spin_as_long_as_the_published_spin(sync, side):
    """set_spin reaches both kinds of wait: with a long spin nobody sleeps, with none both do."""
    block = np.zeros(sync.HEADER_BYTES + sync.SLOT_BYTES + 64, np.uint8)
    start = -block.ctypes.data % 64
    block = block[start:start + sync.HEADER_BYTES + sync.SLOT_BYTES]
    flags = sync.Flags(block, 1)
    states = np.ndarray((1,), np.uint32, buffer=block, offset=sync.HEADER_BYTES)
    # the `sleeping` word of worker 0's slot, or main_sleeping of the results slot (see _sync.c)
    sleeping = np.ndarray((), np.uint32, buffer=block, offset=4 + (sync.HEADER_BYTES if side == "worker" else 0))
    assert flags.spin_us == 0.0  # a new block: no spin until the main process sets one
    for spin_us, sleeps in ((2e5, False), (0.0, True)):
        flags.set_spin(spin_us)
        assert flags.spin_us == spin_us
        states[:] = sync.READY if side == "worker" else sync.STEP
        got: list = []
        if side == "worker":
            wait = lambda got=got: got.append(flags.wait_command(0, 5000.0))  # noqa: E731
        else:
            wait = lambda got=got: got.append(flags.wait_ready(np.ones(1, np.uint8), 1, 5000.0))  # noqa: E731
        thread = threading.Thread(target=wait)
        thread.start()
        deadline = time.monotonic() + 0.1  # well within the long spin
        while time.monotonic() < deadline and not int(sleeping):
            time.sleep(0.002)
        assert bool(int(sleeping)) == sleeps
        if side == "worker":
            flags.send(0, sync.STEP)
        else:
            flags.post(0, sync.STEP, sync.READY)
        thread.join(5)
        assert got == [sync.STEP if side == "worker" else (1, 0)]
    with pytest.raises(ValueError, match="spin_us"):
        flags.set_spin(-1.0)


def test_bad_arguments(sync):
    with pytest.raises(ValueError, match="aligned"):
        sync.Flags(bytearray(10), 1)
    flags, _ = make_flags(sync, 1)
    with pytest.raises(IndexError):
        flags.send(1, sync.STEP)
    with pytest.raises(ValueError, match="1 bytes"):
        flags.wait_ready(np.ones(2, np.uint8), 1, 1.0)
    flags.release()
    with pytest.raises(ValueError, match="released"):
        flags.send(0, sync.STEP)


def test_vectorizer_on_the_fallback(monkeypatch):
    """The whole backend works on the portable fallback (workers forked with it)."""
    import pufferlib.vector.multiprocessing as mp_backend
    import pufferlib.vector.shared as shared

    fallback = build_fallback()
    monkeypatch.setattr(mp_backend, "_sync", fallback)
    monkeypatch.setattr(shared, "_sync", fallback)
    with pufferlib.vector.make(NestedEnv, num_envs=4, seed=1) as serial:
        serial.reset()
        expected = [serial.step(np.ones(4, np.int32))[0].copy() for _ in range(100)]
    with pufferlib.vector.make(NestedEnv, backend="multiprocessing", num_envs=4, num_workers=2, seed=1,
                               start_method="fork") as vecenv:
        assert isinstance(vecenv._flags, fallback.Flags)
        vecenv.reset()
        got = [vecenv.step(np.ones(4, np.int32))[0].copy() for _ in range(100)]
    np.testing.assert_array_equal(expected, got)
