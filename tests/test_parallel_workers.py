"""The suite's own set-up (tests/conftest.py): each xdist worker runs torch on one thread."""

import os
import subprocess
import sys


def test_an_xdist_worker_and_its_subprocesses_run_torch_on_one_thread():
    """Under `make test` this runs in an xdist worker; alone (`pytest` without -n) it checks nothing
    but that torch starts."""
    import torch

    worker = bool(os.environ.get("PYTEST_XDIST_WORKER"))
    child = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
                           capture_output=True, text=True, check=True)
    counts = (torch.get_num_threads(), int(child.stdout))
    assert counts == (1, 1) or not worker, counts
