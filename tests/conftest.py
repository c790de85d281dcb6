"""Shared test fixtures, and which tests may run in parallel.

`make test` runs the suite in two parts: every test not marked `serial` in parallel
(pytest-xdist, `-n auto --dist loadgroup`), then the `serial` ones alone. `SERIAL` below
marks the tests that time things, read the machine's load or scan every process's shared
memory, and Ocean's learning checks, which also assert the env's share of the time. Learning
checks whose result depends on their steps alone (the continuous-control ones, cartpole) run in
parallel: a busy machine makes them slower, not worse. `GROUPS` keeps tests that share a
resource in one worker, one after the other.
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

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

# An xdist worker shares the cores with the other workers: torch's (and BLAS's) default of one
# intra-op thread per core would run workers x cores threads that wait at each operation's barrier
# for one another (the parallel part took 440 s of wall and 661 s of CPU with the default, 378 s
# and 577 s with one thread each, on the 2-core machine). Subprocesses inherit the setting; the
# serial part, alone on the machine, keeps the default.
_WORKER = bool(os.environ.get("PYTEST_XDIST_WORKER"))
if _WORKER:
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, "1")


@pytest.fixture(autouse=True)
def one_torch_thread_per_worker():
    """A test that sets torch's thread count (a trainer with `cpu_threads` 0 or 2, the thread tuner)
    must not leave it to the tests after it in the same worker."""
    yield
    torch = sys.modules.get("torch")
    if _WORKER and torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)

# Keep plugin discovery deterministic for the core tests: entry points installed in this
# venv are still discovered (that is the point of some tests), but no SDL window opens.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


#: Node-id prefix -> why the test runs alone (marked `serial`).
SERIAL = {
    "tests/core/vector/test_sync.py": "it times waits and spins",
    "tests/core/vector/test_multiprocessing.py": "it checks /dev/shm for any process's leftovers, and times waits",
    "tests/core/cpu/test_threads.py": "it reads the machine's load (other workers are load)",
    "tests/ocean/test_learning.py": "learning checks: their margins and the env's share of the time",
}

def pytest_ignore_collect(collection_path, config):
    """`-m serial` (the second part of `make test`) imports only the files that hold serial tests:
    collecting the whole suite to deselect the rest took about 8 s."""
    if config.getoption("markexpr") != "serial" or not collection_path.name.startswith("test_"):
        return None
    path = collection_path.relative_to(config.rootpath).as_posix()
    return None if any(prefix.split("::")[0] == path for prefix in SERIAL) else True


#: Node-id prefix -> xdist group: Ray tests share one worker (each module starts its own Ray
#: and checks every Ray process it finds); so do the ViZDoom tests (they check /dev/shm for the
#: engines' shared memory, which another worker's ViZDoom test would be making meanwhile).
GROUPS = {
    "tests/core/vector/test_ray.py": "ray",
    "tests/core/vector/test_ray_cluster.py": "ray",
    "tests/core/sweep/test_sweep_ray.py": "ray",
    "tests/vizdoom/test_vizdoom_envs.py": "vizdoom",
    "tests/vizdoom/test_vizdoom_policy.py": "vizdoom",
    "tests/vizdoom/test_vizdoom_train.py": "vizdoom",
}


@pytest.hookimpl(tryfirst=True)  # before `-m` selects on the markers added here
def pytest_collection_modifyitems(config, items):
    grouped = set()
    for item in items:
        if any(item.nodeid.startswith(prefix) for prefix in SERIAL):
            item.add_marker(pytest.mark.serial)
        group = next((g for prefix, g in GROUPS.items() if item.nodeid.startswith(prefix)), None)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
            grouped.add(item.nodeid)
    # A group is the longest chain one worker runs: handed out first, it runs beside the rest. The
    # `slow` tests (tens of seconds each) come next, so that the run ends on short tests and no
    # worker waits idle at the end for another's minute-long test.
    items.sort(key=lambda item: (item.nodeid not in grouped, item.get_closest_marker("slow") is None))
    _check_prefixes_still_name_tests(items)


def pytest_collection_finish(session):
    """On an xdist worker of `--dist loadgroup`, every grouped test must carry its group in its node
    id (`...@ray`: how xdist tells the scheduler): a pytest/xdist pair that drops it (pytest 9.2
    with xdist 3.8, pytest-xdist#1386) would spread a group over workers, each starting Ray."""
    if not session.config.getoption("loadgroup", False):
        return
    lost = [item.nodeid for item in session.items
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if lost:
        raise pytest.UsageError(f"pytest-xdist's loadgroup did not group {len(lost)} test(s), e.g. {lost[0]}: "
                                f"pytest {pytest.__version__} and this pytest-xdist do not work together "
                                "(see pyproject.toml's test extra)")


def _check_prefixes_still_name_tests(items):
    """A renamed or moved test must not slip out of SERIAL or GROUPS unnoticed: each prefix names
    an existing file, and one whose file was collected matched a test of it."""
    root = Path(__file__).resolve().parents[1]
    collected = {item.nodeid.split("::")[0] for item in items}
    for prefix in (*SERIAL, *GROUPS):
        path = prefix.split("::")[0]
        if not (root / path).is_file():
            raise pytest.UsageError(f"tests/conftest.py names {prefix!r}, but {path} does not exist")
        if path in collected and not any(item.nodeid.startswith(prefix) for item in items):
            raise pytest.UsageError(f"tests/conftest.py names {prefix!r}, which matches no test")


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
