"""The env list comes from the headers, and `make test` rebuilds the extension after a C edit."""

import re
import shutil
import subprocess
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
