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
