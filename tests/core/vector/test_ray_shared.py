"""The shared block of the Ray backend's shared-memory transport, without Ray (see
pufferlib.vector.ray_shared): mapped again by its /proc path, and only when it is the same file."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from pufferlib.vector.ray_shared import MemfdBlock


def test_block_mapped_by_its_proc_path_shares_memory():
    block = MemfdBlock(4096)
    try:
        other = pickle.loads(pickle.dumps(block))  # what an actor on this host receives
        block.array[:8] = np.arange(8, dtype=np.uint8)
        np.testing.assert_array_equal(other.array[:8], np.arange(8))
        other.array[100] = 42
        assert block.array[100] == 42
    finally:
        block.release_fd()


def test_block_refuses_a_file_that_is_not_the_drivers():
    block, stranger = MemfdBlock(4096), MemfdBlock(4096)
    try:
        state = pickle.loads(pickle.dumps(block))
        state.path = stranger.path  # e.g. the same pid and fd number on another host
        with pytest.raises(RuntimeError, match="not the driver's shared memory.*transport='object_store'"):
            _ = state.array
    finally:
        block.release_fd()
        stranger.release_fd()
