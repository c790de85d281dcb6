"""Module structure: no import cycles (hidden in functions or not), and every module imports alone."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pufferlib

ROOT = Path(pufferlib.__file__).parent
MODULES = sorted(m.name for m in pkgutil.walk_packages([str(ROOT)], "pufferlib.")
                 if not m.name.split(".")[-1].startswith("_") or m.name.endswith("__main__"))


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> the pufferlib modules it imports anywhere in its body (functions included)."""
    known = {_module_of(p) for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        name = _module_of(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name and target != "pufferlib":
                    edges.add(target)
        graph[name] = edges
    return graph


def test_the_import_graph_has_no_cycles():
    graph = import_graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


#: Imports each module given on the command line in a child forked from an interpreter that
#: holds only the heavy third-party packages, so that no pufferlib module is loaded before the
#: one under test: a module that works only after another was imported fails here. Prints the
#: modules that failed as JSON (their tracebacks go to stderr).
ALONE = """
import importlib, json, os, sys, traceback
import gymnasium, numpy, torch  # third-party only, loaded once instead of once per module
failed, modules, sys.argv = [], sys.argv[1:], sys.argv[:1]  # as `python -c "import M"` sees them
for module in modules:
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(module)
        except SystemExit as exc:  # pufferlib.__main__ runs the CLI, which prints its help
            os._exit(0 if exc.code in (0, None) else 1)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    if os.waitpid(pid, 0)[1]:
        failed.append(module)
print(json.dumps(failed))
"""


def test_every_module_imports_alone_in_a_fresh_interpreter():
    import json

    assert not any(m == "pufferlib" or m.startswith("pufferlib.") for m in ("gymnasium", "numpy", "torch"))
    result = subprocess.run([sys.executable, "-c", ALONE, *MODULES], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    assert json.loads(result.stdout.splitlines()[-1]) == [], result.stderr[-6000:]


def test_the_lazy_names_are_typed_for_type_checkers():
    """Every name `pufferlib.__getattr__` loads lazily is imported, from the same module, in the
    package's `if TYPE_CHECKING:` block, so that mypy and IDEs see `pufferlib.make` and the rest."""
    tree = ast.parse((ROOT / "__init__.py").read_text())
    typed: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    typed.update({alias.name: stmt.module for alias in stmt.names})
    assert typed == pufferlib._LAZY
