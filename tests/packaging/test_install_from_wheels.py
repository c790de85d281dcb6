"""A new user's install: `pip install puffer-ocean` from a folder of wheels into a fresh venv.

Only puffer-ocean runs here (CI time); `scripts/check_wheel_installs.sh` runs every plugin,
each alone, through the same code (tests/packaging/wheels.py).
"""

from __future__ import annotations

import pytest

from tests.packaging import wheels


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_puffer_ocean_alone_from_built_wheels_gives_a_working_puffer(tmp_path):
    wheel_dir = tmp_path / "wheels"
    # the others: the script's; Ocean at -O0 (its tiny training needs no speed; a third of the compile)
    built = wheels.build_wheels(wheel_dir, {"puffer-ocean", "puffer-loggers"}, unoptimized=True)
    tags = {w.name.split("-")[0]: w.name.split("-", 2)[2] for w in built}
    assert tags["puffer_core"].endswith("linux_x86_64.whl") and "cp3" in tags["puffer_core"]  # C extension
    assert tags["puffer_loggers"] == "py3-none-any.whl"  # pure-Python plugins are universal
    venv = tmp_path / "venv"
    wheels.install_alone("puffer-ocean", wheel_dir, venv)
    wheels.check_install("puffer-ocean", venv, tmp_path)
