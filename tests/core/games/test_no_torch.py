"""`pufferlib.games` knows no torch: importing every module of it loads no torch."""

import pkgutil
import subprocess
import sys

import pufferlib.games


def test_the_games_package_imports_without_torch():
    modules = [f"pufferlib.games.{m.name}" for m in pkgutil.iter_modules(pufferlib.games.__path__)]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "assert 'torch' not in sys.modules, 'torch'"
    subprocess.run([sys.executable, "-c", code], check=True)
