"""Shared test fixtures."""

import os

import pytest

# Keep plugin discovery deterministic for the core tests: entry points installed in this
# venv are still discovered (that is the point of some tests), but no SDL window opens.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


@pytest.fixture
def fresh_plugins():
    """Rediscover plugins before and after the test (for tests that install fake ones)."""
    from pufferlib.plugins import reset_plugin_manager

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
