"""Install a plugin alone from a folder of freshly built wheels, as a new user would.

Contract: `build_wheels(dir)` builds the wheel of puffer-core and of every plugin under
plugins/ into `dir` (no build isolation: the running environment's setuptools, offline).
`install_alone(plugin, dir, venv)` makes a fresh virtualenv with the interpreter running
this module, installs torch the way the Makefile does (the pinned CPU build, found by pip's
configuration on local disk), then installs `plugin` by name. Our names (puffer-core and
puffer-*) can come from `dir` only: the third-party requirements read from the wheels'
metadata are installed first, from the configured index, and then the plugin itself with
`--no-index --find-links dir`. `check_install` asserts what a user relies on: puffer-core
is ours (version, and imported from the venv, not from this checkout), no foreign
`pufferlib`/`pufferlib-core` is present, `puffer plugins` lists the plugin without error,
`pufferlib.make(ENV_ID)` steps, and a tiny `puffer train` finishes.

    python -m tests.packaging.wheels                 # every plugin, each in its own venv
    python -m tests.packaging.wheels puffer-ocean    # just one
"""

from __future__ import annotations

import email.parser
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_DIRS = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))
OUR_NAMES = {"puffer-core", *(p.name for p in PLUGIN_DIRS)}
FOREIGN_NAMES = {"pufferlib", "pufferlib-core"}
TORCH = os.environ.get("TORCH", "torch==2.13.0")

#: plugin -> an env id of it to make and train (the loggers plugin has none: the core's CartPole)
SMOKE_ENV = {
    "puffer-ocean": "ocean-squared",
    "puffer-atari": "atari-pong",
    "puffer-procgen": "procgen-coinrun",
    "puffer-nethack": "nethack-score",
    "puffer-minigrid": "minigrid-empty-5x5",
    "puffer-crafter": "crafter-reward",
    "puffer-minihack": "minihack-room-5x5",
    "puffer-griddly": "griddly-spiders",
    "puffer-microrts": "microrts-vs-randombiased",
    "puffer-nmmo": "nmmo-small",
    "puffer-openspiel": "openspiel-kuhn_poker",
    "puffer-bsuite": "bsuite-memory_len",
    "puffer-dmcontrol": "dmc-cartpole-swingup",
    "puffer-vizdoom": "vizdoom-basic",
    "puffer-retro": "retro-airstriker-genesis",
    "puffer-magent2": "magent2-battle",
    "puffer-craftax": "craftax-classic",
    "puffer-loggers": "gym-CartPole-v1",
}
#: plugin -> the other plugins of ours it requires (MiniHack runs on NetHack's nle)
COMPANIONS = {"puffer-minihack": {"puffer-nethack"}}
TINY_TRAIN = ["--train.total-timesteps", "256", "--train.batch-size", "256", "--train.minibatch-size", "128",
              "--train.update-epochs", "1", "--vec.num-envs", "4", "--train.device", "cpu"]


def run(cmd: list[str], cwd: Path, timeout: float = 900, extra_env: dict[str, str] | None = None) -> str:
    """Run `cmd` with no PYTHONPATH (nothing of this checkout leaks in) and `extra_env`; its stdout,
    or an error with its output."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PIP_DISABLE_PIP_VERSION_CHECK="1",
               **(extra_env or {}))
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} exited {result.returncode}:\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def build_wheels(dest: Path, plugins: set[str] | None = None, unoptimized: bool = False) -> list[Path]:
    """Build the core's and the plugins' wheels into `dest` (`plugins`: those named, default every
    one); the wheel files. `unoptimized`: Ocean's C at -O0 (PUFFER_OCEAN_UNOPTIMIZED, its
    setup.py), a third of the compile time, for a test of the install rather than of speed."""
    dirs = [d for d in PLUGIN_DIRS if plugins is None or d.name in plugins]
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(dest),
         str(ROOT), *map(str, dirs)], cwd=ROOT, extra_env={"PUFFER_OCEAN_UNOPTIMIZED": "1"} if unoptimized else None)
    wheels = sorted(dest.glob("*.whl"))
    built = {canonicalize_name(parse_wheel_filename(w.name)[0]) for w in wheels}
    expected = {"puffer-core", *(d.name for d in dirs)}
    assert built == expected, f"built {sorted(built)}, expected {sorted(expected)}"
    return wheels


def wheel_for(name: str, wheel_dir: Path) -> Path:
    """The wheel of distribution `name` in `wheel_dir`."""
    found = [w for w in wheel_dir.glob("*.whl") if canonicalize_name(parse_wheel_filename(w.name)[0]) == name]
    assert len(found) == 1, f"{name}: {found}"
    return found[0]


def requirements(wheel: Path) -> list[Requirement]:
    """The unconditional Requires-Dist of a wheel (extras left out)."""
    with zipfile.ZipFile(wheel) as z:
        metadata = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        message = email.parser.Parser().parsestr(z.read(metadata).decode())
    reqs = [Requirement(line) for line in message.get_all("Requires-Dist") or []]
    return [r for r in reqs if r.marker is None or r.marker.evaluate({"extra": ""})]


def third_party_requirements(plugin: str, wheel_dir: Path) -> list[str]:
    """What `plugin` and the core it requires need from elsewhere than `wheel_dir`."""
    reqs = requirements(wheel_for(plugin, wheel_dir)) + requirements(wheel_for("puffer-core", wheel_dir))
    return sorted({str(r) for r in reqs if canonicalize_name(r.name) not in OUR_NAMES})


def install_alone(plugin: str, wheel_dir: Path, venv: Path) -> dict[str, float]:
    """A fresh venv with torch, then `plugin` by name from `wheel_dir`; seconds per step."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    run([sys.executable, "-m", "venv", str(venv)], cwd=venv.parent)
    # --no-compile: no .pyc for the whole of torch up front (a minute of CPU); imports compile what they use
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-compile"]
    run(pip + [TORCH], cwd=venv.parent)
    timings["venv+torch"] = time.perf_counter() - start
    start = time.perf_counter()
    run(pip + third_party_requirements(plugin, wheel_dir), cwd=venv.parent)
    for name in (plugin, *COMPANIONS.get(plugin, ())):  # as the Makefile and the plugin's README do
        nodeps = ROOT / "plugins" / name / "requirements-nodeps.txt"
        if nodeps.exists():  # wheels whose metadata over-constrains numpy/gymnasium/Python
            run(pip + ["--no-deps", "--ignore-requires-python", "-r", str(nodeps)], cwd=venv.parent)
        nobuildiso = ROOT / "plugins" / name / "requirements-nobuildisolation.txt"
        if nobuildiso.exists():  # sdists compiled against the venv's own numpy
            run(pip + ["cython>=3,<4", "setuptools", "wheel"], cwd=venv.parent)
            run(pip + ["--no-deps", "--no-build-isolation", "--ignore-requires-python", "-r", str(nobuildiso)],
                cwd=venv.parent)
    timings["third-party"] = time.perf_counter() - start
    start = time.perf_counter()
    run(pip + ["--no-index", "--find-links", str(wheel_dir), plugin], cwd=venv.parent)
    timings["plugin"] = time.perf_counter() - start
    return timings


def check_install(plugin: str, venv: Path, work: Path) -> float:
    """Assert the installed plugin works as a user expects; seconds taken."""
    start = time.perf_counter()
    python, puffer = str(venv / "bin" / "python"), str(venv / "bin" / "puffer")
    import pufferlib

    installed = {canonicalize_name(p["name"]): p["version"]
                 for p in json.loads(run([python, "-m", "pip", "list", "--format", "json"], cwd=work))}
    assert not FOREIGN_NAMES & installed.keys(), f"a foreign distribution was installed: {installed}"
    assert installed.get("puffer-core") == pufferlib.__version__, installed.get("puffer-core")
    assert installed.get(plugin) is not None
    expected = {"puffer-core", plugin, *COMPANIONS.get(plugin, ())}
    assert not (OUR_NAMES - expected) & installed.keys(), "another plugin came along"
    where = run([python, "-c", "import pufferlib; print(pufferlib.__file__)"], cwd=work).strip()
    assert Path(where).resolve().is_relative_to(venv.resolve()), f"pufferlib imported from {where}"

    listing = run([puffer, "plugins"], cwd=work)
    assert "FAILED" not in listing, listing
    lines = {line.split()[1]: line.split()[2] for line in listing.splitlines() if len(line.split()) >= 3}
    assert lines.get(plugin) == installed[plugin] and lines.get("puffer-core") == pufferlib.__version__, listing

    env_id = SMOKE_ENV[plugin]
    run([python, "-c", "import numpy as np, pufferlib\n"
         f"env = pufferlib.make({env_id!r}, num_envs=2, seed=0)\n"
         "env.reset(seed=0)\n"
         "for _ in range(4): env.step(np.stack([env.single_action_space.sample() for _ in range(env.num_agents)]))\n"
         "env.close()"], cwd=work)
    out = run([puffer, "train", env_id, *TINY_TRAIN, "--train.data-dir", str(work / "experiments")], cwd=work)
    assert f"Trained {env_id} for 256 steps" in out, out[-2000:]
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    """Build once, then install and check each named plugin (all by default) alone; print timings."""
    plugins = argv or [p.name for p in PLUGIN_DIRS]
    failures = 0
    with tempfile.TemporaryDirectory(prefix="puffer-wheels-") as tmp:
        tmp_path = Path(tmp)
        start = time.perf_counter()
        wheels = build_wheels(tmp_path / "wheels")
        print(f"built in {time.perf_counter() - start:.0f} s: " + ", ".join(w.name for w in wheels), flush=True)
        for plugin in plugins:
            (tmp_path / plugin).mkdir()
            try:
                timings = install_alone(plugin, tmp_path / "wheels", tmp_path / plugin / "venv")
                timings["checks"] = check_install(plugin, tmp_path / plugin / "venv", tmp_path / plugin)
                print(f"PASS {plugin}: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()), flush=True)
            except AssertionError as exc:
                failures += 1
                print(f"FAIL {plugin}: {exc}", flush=True)
    print(f"{len(plugins) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
