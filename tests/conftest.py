"""Shared test fixtures."""

import os
import shutil
import tempfile

import pytest

# torch makes its compiler cache folder in the temp dir (/tmp/torchinductor_<user>) as soon
# as anything imports torch._dynamo, which optimisers do: the suite keeps it in a folder of
# its own, removed at the end (subprocesses inherit the variable).
_TORCH_CACHE = None
if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
    _TORCH_CACHE = tempfile.mkdtemp(prefix="pufferlib-tests-torch-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = _TORCH_CACHE


def pytest_sessionfinish(session, exitstatus):
    if _TORCH_CACHE is not None:
        shutil.rmtree(_TORCH_CACHE, ignore_errors=True)

# Keep plugin discovery deterministic for the core tests: entry points installed in this
# venv are still discovered (that is the point of some tests), but no SDL window opens.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


@pytest.fixture
def fresh_plugins():
    """Rediscover plugins before and after the test (for tests that install fake ones)."""
    from pufferlib.registry.plugins import reset_plugin_manager

    reset_plugin_manager()
    yield
    reset_plugin_manager()


@pytest.fixture(autouse=True)
def runs_in_tmp_path(tmp_path, monkeypatch):
    """Trainers whose data_dir is relative (the default ./experiments) write under tmp_path instead."""
    try:
        from pufferlib.pufferl import PuffeRL
    except ImportError:  # torch missing: no trainer in this test either
        return
    default_run_dir = PuffeRL._default_run_dir

    def run_dir_under_tmp_path(self):
        path = default_run_dir(self)
        return path if path.is_absolute() else tmp_path / path

    monkeypatch.setattr(PuffeRL, "_default_run_dir", run_dir_under_tmp_path)
