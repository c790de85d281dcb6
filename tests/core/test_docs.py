"""The guides in docs/: each one lists what the user guide promises, and every `python` and
`bash` block runs, in order, as a new user would run it (`console` blocks are shown only)."""

import importlib.util
import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.core.overlay_venv import overlay_venv, site_packages

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

#: guide -> section headings the user guide (references/*.md) lists for it.
CONTENTS = {
    "training.md": ["Workflow and CLI options", "Hyperparameters", "Distributed training", "Monitoring and logging",
                    "Checkpointing and resuming", "Performance", "Troubleshooting"],
    "environments.md": ["The PufferEnv API", "Observation and action spaces", "Multi-agent environments",
                        "The Ocean suite", "From Python to C", "Wrappers and good practice", "Debugging"],
    "vectorization.md": ["Architecture", "Modes: serial, multiprocessing, async", "Workers and batch sizes",
                         "Shared memory and zero-copy", "Large-scale and custom vectorization",
                         "Multi-agent vectorization", "Profiling and troubleshooting"],
    "policies.md": ["Basic structure", "CNN policies for images", "Recurrent policies (LSTM)", "Multi-input policies",
                    "Continuous actions", "Multi-agent policies", "Advanced architectures",
                    "Initialisation and normalisation", "Debugging and testing"],
    "integration.md": ["Gymnasium", "PettingZoo (parallel and AEC)", "Third-party environment suites",
                       "Custom wrappers", "Space flattening and unflattening", "Registering environments",
                       "Compatibility and performance", "Debugging integration"],
    "plugins.md": ["1. Create the package", "2. Install it and check the env",
                   "3. Train it, then evaluate with a video", "4. Run its tests and publish a wheel"],
}

DRIVER = '''
import importlib, json, site, subprocess, sys
guide, site_dir, blocks = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
namespace = {"__name__": "__guide__"}
for kind, line, code in blocks:
    print(f"--- {guide}:{line} ({kind})", flush=True)
    if kind == "python":
        site.addsitedir(site_dir)  # what a new interpreter would see after a `pip install` in a bash block
        importlib.invalidate_caches()
        exec(compile(code, f"{guide}:{line}", "exec"), namespace)
    else:
        subprocess.run(["bash", "-e", "-c", code], check=True)
'''


def blocks(path: Path) -> list[tuple[str, int, str]]:
    """(kind, line, code) of the fenced python/bash blocks of a guide, in order."""
    text = path.read_text()
    return [(m.group(1), text[:m.start()].count("\n") + 1, m.group(2))
            for m in re.finditer(r"^```(python|bash)\n(.*?)^```", text, flags=re.S | re.M)]


def test_every_guide_has_the_sections_the_user_guide_lists():
    nav = (ROOT / "mkdocs.yml").read_text()
    for guide, sections in CONTENTS.items():
        headings = re.findall(r"^#+ (.+)$", (DOCS / guide).read_text(), flags=re.M)
        assert [s for s in sections if s not in headings] == [], guide
        assert guide in nav, f"{guide} missing from mkdocs.yml nav"
        assert blocks(DOCS / guide), f"{guide} has no runnable block"


def test_index_links_every_guide():
    index = (DOCS / "index.md").read_text()
    assert all(f"({guide})" in index for guide in CONTENTS)


@pytest.mark.slow
@pytest.mark.parametrize("guide", sorted(CONTENTS))
def test_guide_blocks_run(guide, tmp_path):
    env = overlay_venv(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "blocks.json").write_text(json.dumps(blocks(DOCS / guide)))
    (tmp_path / "driver.py").write_text(DRIVER)
    python = str(Path(env["VIRTUAL_ENV"]) / "bin" / "python")
    argv = [python, str(tmp_path / "driver.py"), guide, site_packages(env), str(tmp_path / "blocks.json")]
    proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
    if guide == "plugins.md":  # the walkthrough ends with a trained policy's video and a wheel
        assert (work / "my-plugin" / "walk.gif").stat().st_size > 0
        assert list((work / "my-plugin" / "dist").glob("my_plugin-0.1.0-*.whl"))
        assert importlib.util.find_spec("my_plugin") is None  # installed in the throwaway venv only


def test_the_architecture_page_draws_the_layers_make_lint_checks():
    """docs/architecture.md's layer picture is the import-linter contract of pyproject.toml."""
    from pufferlib._compat import tomllib

    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    page = (DOCS / "architecture.md").read_text()
    drawn = re.search(r"## Layers\n.*?```\n(.*?)```", page, flags=re.S).group(1).strip().splitlines()
    assert drawn == contract["layers"]
