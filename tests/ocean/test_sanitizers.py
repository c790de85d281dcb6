"""Every Ocean env, built with AddressSanitizer and UBSan, plays, renders and refuses bad input cleanly.

The extension is compiled again with PUFFER_OCEAN_SANITIZE=1 into a temporary directory
(the installed build is untouched); a child Python with libasan preloaded loads that
build in place of `puffer_ocean._ocean` and drives every env of `specs.ENVS`: random
play across episode ends, a seeded reset, both render modes, a bad action. Any
sanitizer report fails the test with its text.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "puffer-ocean"

CHILD = textwrap.dedent("""
    import importlib.util, sys
    import numpy as np
    spec = importlib.util.spec_from_file_location("puffer_ocean._ocean", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    sys.modules["puffer_ocean._ocean"] = module
    spec.loader.exec_module(module)
    import pufferlib
    from puffer_ocean import envs, specs

    for name in specs.ENVS:
        cls = getattr(envs, specs.class_name(name))
        for mode in ("ansi", "rgb_array"):
            env = cls(num_envs=3, num_threads=2 if mode == "ansi" else 1, render_mode=mode, log_interval=50)
            space = env.single_action_space
            rng = np.random.default_rng(0)
            env.reset(seed=1)
            for step in range(400):
                if hasattr(space, "n"):
                    actions = rng.integers(0, space.n, env.actions.shape, dtype=np.int32)
                elif hasattr(space, "nvec"):
                    actions = rng.integers(0, space.nvec, env.actions.shape, dtype=np.int32)
                else:
                    actions = rng.uniform(-2, 2, env.actions.shape).astype(np.float32)
                env.step(actions)
                if step % 97 == 0:
                    env.render(env_id=step % 3)
            env.reset(seed=2)
            env.render()
            try:
                env.step(np.full(env.actions.shape, -1 if hasattr(space, "n") or hasattr(space, "nvec") else np.nan,
                                 env.actions.dtype))
            except pufferlib.APIUsageError:
                pass
            else:
                raise SystemExit(f"{name}: a bad action was accepted")
            env.close()
        print("ok", name, flush=True)
""")


def _runtime(name: str) -> str:
    out = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True, check=True).stdout.strip()
    assert os.path.isabs(out), f"gcc does not ship {name}"
    return out


@pytest.mark.slow
def test_every_env_is_clean_under_address_and_undefined_behaviour_sanitizers(tmp_path):
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "lib"),
         "--build-temp", str(tmp_path / "tmp")],
        cwd=PLUGIN, env={**os.environ, "PUFFER_OCEAN_SANITIZE": "1"}, capture_output=True, text=True, timeout=1200)
    assert build.returncode == 0, build.stderr[-3000:]
    (built,) = (tmp_path / "lib").rglob("_ocean*.so")
    env = {**os.environ, "LD_PRELOAD": f"{_runtime('libasan.so')}:{_runtime('libubsan.so')}",
           "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1", "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}
    run = subprocess.run([sys.executable, "-c", CHILD, str(built)], env=env, capture_output=True, text=True,
                         timeout=1200)
    from puffer_ocean import specs

    report = run.stdout[-2000:] + run.stderr[-6000:]
    assert run.returncode == 0 and "runtime error" not in run.stderr, report
    assert run.stdout.split().count("ok") == len(specs.ENVS), report
