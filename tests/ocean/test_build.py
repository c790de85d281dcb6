"""The env list comes from the headers; a C edit rebuilds the extension (`make test`, an in-tree build)."""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from puffer_ocean import _ocean, specs

ROOT = Path(__file__).resolve().parents[2]
ENVS_DIR = ROOT / "plugins" / "puffer-ocean" / "puffer_ocean" / "csrc" / "envs"


def test_every_header_is_compiled_and_registered_by_the_generated_registry():
    headers = sorted(p.stem for p in ENVS_DIR.glob("*.h"))
    (define,) = [line for line in (ENVS_DIR / "_gen" / "registry.h").read_text().splitlines()
                 if line.startswith("#define OCEAN_ENVS")]
    assert re.findall(r"X\((\w+)\)", define.split(" ", 2)[2]) == headers
    assert sorted(_ocean.env_names()) == headers == sorted(specs.ENVS)
    assert not list(ENVS_DIR.glob("*.c")), "per-env .c files are generated into _gen, not written by hand"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize("edited", ["plugins/puffer-ocean/puffer_ocean/csrc/envs/pong.h",
                                    "plugins/puffer-ocean/puffer_ocean/csrc/binding.h"])
def test_make_test_rebuilds_puffer_ocean_after_a_c_edit(edited):
    # -n: print the recipes without running them; -W: as if `edited` had just changed.
    out = subprocess.run(["make", "-n", "-W", edited, "test"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert "-e plugins/puffer-ocean" in out and "--no-deps" in out
    assert out.index("-e plugins/puffer-ocean") < out.index("pytest")  # rebuilt before the tests run


def test_a_header_edit_rebuilds_over_a_previous_build(tmp_path):
    """An in-tree `pip wheel` builds into plugins/puffer-ocean/build, where a previous build's
    extension is: setuptools rebuilds it only when a source or a declared dependency is newer,
    and the generated .c files only include the headers, so the headers must be declared."""
    plugin = tmp_path / "puffer-ocean"
    shutil.copytree(ROOT / "plugins" / "puffer-ocean", plugin,
                    ignore=shutil.ignore_patterns("build", "*.so", "__pycache__", "*.egg-info"))
    built = tmp_path / "lib" / "puffer_ocean" / f"_ocean{sysconfig.get_config_var('EXT_SUFFIX')}"
    built.parent.mkdir(parents=True)
    built.touch()
    header = plugin / "puffer_ocean" / "csrc" / "envs" / "pong.h"

    def build() -> int:
        # CC=false: a compile attempted fails; a build skipped as up to date succeeds
        return subprocess.run([sys.executable, "setup.py", "build_ext", "-b", str(tmp_path / "lib"), "-t",
                               str(tmp_path / "tmp")], cwd=plugin, env={**os.environ, "CC": "false"},
                              capture_output=True, text=True, timeout=120).returncode

    later = time.time() + 60
    os.utime(built, (later, later))  # a previous build, newer than every file of the copy
    assert build() == 0
    os.utime(header, (later + 60, later + 60))  # a header edited after that build
    assert build() != 0


def test_an_unoptimized_build_compiles_at_O0_into_a_folder_of_its_own(tmp_path):
    """PUFFER_OCEAN_UNOPTIMIZED=1: -O0 -g0 last on the compile line (they win over -O3 -g), and
    objects under build/unoptimized, so an optimised in-tree build never reuses them."""
    plugin = tmp_path / "puffer-ocean"
    shutil.copytree(ROOT / "plugins" / "puffer-ocean", plugin,
                    ignore=shutil.ignore_patterns("build", "*.so", "__pycache__", "*.egg-info"))
    compiler = tmp_path / "cc"  # records its arguments and fails: nothing is compiled
    compiler.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "calls"}\nexit 1\n')
    compiler.chmod(0o755)
    subprocess.run([sys.executable, "setup.py", "build_ext"], cwd=plugin, capture_output=True, timeout=120,
                   env={**os.environ, "CC": str(compiler), "PUFFER_OCEAN_UNOPTIMIZED": "1"})
    flags = (tmp_path / "calls").read_text().split("\n")[0].split()
    assert flags.index("-O0") > flags.index("-O3") and flags.index("-g0") > flags.index("-g")
    assert list((plugin / "build" / "unoptimized").glob("temp.*")) and not list((plugin / "build").glob("temp.*"))
