"""A throwaway virtualenv layered over the test one: what a user's `pip install` does, undone by deleting a folder.

`overlay_venv(root)` makes `root/venv` (no pip of its own) whose site-packages chains to
this interpreter's (a .pth file), so every installed package is visible and `pip install`
inside it lands in `root/venv` only. It returns the environment variables of a shell "in"
that venv: its bin first on PATH (with `python`, `pip` and `puffer` there), no build
isolation and no dependency resolution (everything is installed already; no network).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

SHIMS = {"pip": "from pip._internal.cli.main import main", "puffer": "from pufferlib.cli import main",
         "pytest": "from pytest import console_main as main", "torchrun": "from torch.distributed.run import main"}


def overlay_venv(root: Path) -> dict[str, str]:
    """Create root/venv as described in the module docstring; returns its environment variables."""
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    parent = sysconfig.get_paths()["purelib"]
    Path(purelib, "_test_parent_venv.pth").write_text(f"import site; site.addsitedir({parent!r})\n")
    for name, entry in SHIMS.items():
        shim = venv / "bin" / name
        shim.write_text(f"#!{python}\nimport sys\n{entry}\nsys.exit(main())\n")
        shim.chmod(0o755)
    env = dict(os.environ)
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PIP_NO_BUILD_ISOLATION="0", PIP_NO_DEPS="1", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PYTHONNOUSERSITE="1", MPLBACKEND="Agg", SDL_VIDEODRIVER="dummy")
    env.pop("PYTHONPATH", None)
    return env


def site_packages(env: dict[str, str]) -> str:
    """The overlay venv's own site-packages (where its installs land)."""
    python = Path(env["VIRTUAL_ENV"]) / "bin" / "python"
    return subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
