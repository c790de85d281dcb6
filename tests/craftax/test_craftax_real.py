"""Craftax-Classic itself: steps, ends and auto-resets through `pufferlib.make`, and `puffer train`.

One subprocess (tests/craftax/real_check.py) compiles Craftax's programs once for both checks,
with XLA confined to one thread and its optimisations mostly off (compiling at the default level
costs about a minute of CPU here; at backend level 0, 73 s for the whole check; with JAX's
`jax_disable_most_optimizations` as well, 39 s). The full game's programs
take minutes to compile on a CPU: the plugin's benchmark covers them, not the tests.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FAST_COMPILE = ("--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1 "
                "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true")
CRAFTER_ACHIEVEMENTS = {  # Crafter's 22 (Hafner 2021): Craftax-Classic keeps them
    "collect_coal", "collect_diamond", "collect_drink", "collect_iron", "collect_sapling", "collect_stone",
    "collect_wood", "defeat_skeleton", "defeat_zombie", "eat_cow", "eat_plant", "make_iron_pickaxe",
    "make_iron_sword", "make_stone_pickaxe", "make_stone_sword", "make_wood_pickaxe", "make_wood_sword",
    "place_furnace", "place_plant", "place_stone", "place_table", "wake_up"}


@pytest.mark.slow  # ~40 s of CPU: Craftax-Classic's reset and step programs are compiled once
def test_classic_steps_ends_resets_and_trains(tmp_path: Path):
    env = {**os.environ, "XLA_FLAGS": FAST_COMPILE, "JAX_PLATFORMS": "cpu", "JAX_DISABLE_MOST_OPTIMIZATIONS": "1"}
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-m", "tests.craftax.real_check", str(tmp_path)], cwd=root, env=env,
                            capture_output=True, text=True, timeout=400)
    lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    assert result.returncode == 0 and lines, result.stdout[-2000:] + result.stderr[-3000:]
    got = json.loads(lines[-1][len("RESULT "):])
    assert got["shape"] == [4, 1345] and got["dtype"] == "float32" and got["in_unit_range"]
    assert got["distinct_worlds"] == 4
    no_end = [[False] * 4, [False] * 4]
    assert got["ends"] == [no_end, no_end, [[False] * 4, [True] * 4]]  # the step limit truncates, alive
    assert all(got["next_differs_from_final"]) and got["final_differs_from_first"]
    assert len(got["infos"]) == 4
    for info in got["infos"]:
        assert {k[len("achievement_"):] for k in info if k.startswith("achievement_")} == CRAFTER_ACHIEVEMENTS
        assert info["episode_length"] == 3 and 0.0 <= info["score"] <= 100.0
    assert got["train_exit"] == 0
    checkpoints = list(tmp_path.glob("*/*.pt"))
    assert checkpoints and all(c.stat().st_size > 0 for c in checkpoints)
