"""A throwaway virtualenv layered over the test one: what a user's `pip install` does, undone by deleting a folder.

`overlay_venv(root)` makes `root/venv` (no pip of its own) whose site-packages chains to
this interpreter's (a .pth file), so every installed package is visible and `pip install`
inside it lands in `root/venv` only. It returns the environment variables of a shell "in"
that venv: its bin first on PATH (with `python`, `pip` and `puffer` there), no build
isolation and no dependency resolution (everything is installed already; no network), and a
pytest run in it keeping its temporary folders under `root/pytest` (not /tmp/pytest-of-USER,
where pytest would leave them).

`install_core(dest)` builds puffer-core's wheel from this working tree and installs it into
a folder; `overlay_venv(root, core)` chains that folder before this interpreter's
site-packages, so `pufferlib` and `puffer` are those of the wheel, as for a user who ran
`pip install puffer-core`, and not this checkout's editable install (a file that only the
repository has, such as scripts/ or tests/, cannot be reached through `pufferlib.__file__`).
One install serves any number of overlay venvs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIMS = {"pip": "from pip._internal.cli.main import main", "puffer": "from pufferlib.cli import main",
         "pytest": "from pytest import console_main as main", "torchrun": "from torch.distributed.run import main"}


def _run(cmd: list[str], env: dict[str, str] | None = None) -> str:
    """Run `cmd`; its stdout, or an AssertionError with its output."""
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    output = f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}:\n{output}"
    return proc.stdout


def install_core(dest: Path) -> Path:
    """Build puffer-core's wheel as its release does, an sdist first and the wheel from that
    (`python -m build`), from a copy of this working tree in `dest` (nothing is written into
    the checkout), and install the wheel into the folder `dest/site`, which it returns."""
    src, tmp, site = dest / "src", dest / "tmp", dest / "site"
    tmp.mkdir(parents=True)
    shutil.copytree(ROOT / "pufferlib_core", src / "pufferlib_core",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info"))
    for path in ROOT.iterdir():  # pyproject.toml, setup.py, MANIFEST.in, README.md, LICENSE, ...
        if path.is_file():
            shutil.copy2(path, src)
    env = {**os.environ, "TMPDIR": str(tmp)}
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dest / "dist"), str(src)], env)
    (wheel,) = (dest / "dist").glob("*.whl")
    _run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(site),
          str(wheel)], env)
    return site


def overlay_venv(root: Path, core: Path | None = None) -> dict[str, str]:
    """Create root/venv as described in the module docstring; returns its environment variables."""
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
    parent = sysconfig.get_paths()["purelib"]
    chained = [str(core)] if core is not None else []  # before the parent's editable install, which it shadows
    Path(purelib, "_test_parent_venv.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({d!r})" for d in [*chained, parent]) + "\n")
    for name, entry in SHIMS.items():
        shim = venv / "bin" / name
        # as pip writes console scripts: a child process started with "spawn" imports this file again
        shim.write_text(f"#!{python}\nimport sys\n{entry}\nif __name__ == '__main__':\n    sys.exit(main())\n")
        shim.chmod(0o755)
    env = dict(os.environ)
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PIP_NO_BUILD_ISOLATION="0", PIP_NO_DEPS="1", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PYTHONNOUSERSITE="1", MPLBACKEND="Agg", SDL_VIDEODRIVER="dummy",
               PYTEST_ADDOPTS=f"{env.get('PYTEST_ADDOPTS', '')} --basetemp={root / 'pytest'}".strip())
    env.pop("PYTHONPATH", None)
    return env


def site_packages(env: dict[str, str]) -> str:
    """The overlay venv's own site-packages (where its installs land)."""
    python = Path(env["VIRTUAL_ENV"]) / "bin" / "python"
    return _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
