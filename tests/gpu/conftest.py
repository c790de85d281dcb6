"""GPU tests: skipped where no CUDA device exists, unless PUFFERLIB_REQUIRE_GPU=1 (set by
benchmarks/gpu_check.sh), which makes a missing device end the run with an error instead."""

import os

import pytest
import torch


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    if os.environ.get("PUFFERLIB_REQUIRE_GPU", "") == "1":
        raise pytest.UsageError("PUFFERLIB_REQUIRE_GPU=1 but torch sees no CUDA device "
                                f"(torch {torch.__version__}, CUDA build: {torch.version.cuda}).")
    skip = pytest.mark.skip(reason="no CUDA device (PUFFERLIB_REQUIRE_GPU=1 makes this an error)")
    for item in items:
        if "tests/gpu/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)
