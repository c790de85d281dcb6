"""The pages of docs/: each guide has the sections it promises, every `python` and `bash` block
of every page runs, in order, as a new user would run it (`console` blocks are shown only),
the index links every page, and the site builds with `mkdocs build --strict`.

A new user has installed the packages, not this repository: the blocks run in a throwaway
venv where puffer-core comes from a wheel built from this working tree (overlay_venv.py),
from a folder outside the checkout and with no PYTHONPATH, so a block that needs a file
only the repository has (scripts/, tests/) fails.
"""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock  # torch's dependency

from tests.core.overlay_venv import install_core, overlay_venv, site_packages

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

#: guide -> the section headings it promises (for the five of the user guide: those its references/*.md list).
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
    "sharing.md": ["What is published", "A round trip through a local hub", "The Hugging Face Hub",
                   "What is refused"],
    "selfplay.md": ["The game contract", "Training by self-play", "Matches", "Leagues", "What to expect"],
    "sweeps.md": ["What a sweep does", "The [sweep] section", "A first sweep", "Reading the results",
                  "Resuming", "Trials on a Ray cluster", "Sweeping your own training script"],
}

#: Objects of the public API whose entries the API reference (docs/api.md) must hold.
API = ["pufferlib.make", "pufferlib.PufferEnv", "pufferlib.APIUsageError", "pufferlib.checker.check_env",
       "pufferlib.PuffeRL", "pufferlib.vector.make", "pufferlib.emulation.GymnasiumPufferEnv",
       "pufferlib.models.Default", "pufferlib.pytorch.unflatten", "pufferlib.config.load_default"]

#: Blocks that work in a checkout of the repository only: a guide's block must not do this.
REPOSITORY_ONLY = {
    "import scripts.env_template": "ModuleNotFoundError: No module named 'scripts'",
    # 'tests' or 'tests.core': opensimplex (crafter's dependency) installs a top-level `tests` package
    "import tests.core.envs": "ModuleNotFoundError: No module named 'tests",
    "import pathlib, pufferlib, runpy\n"
    "runpy.run_path(str(pathlib.Path(pufferlib.__file__).parents[2] / 'scripts' / 'env_template.py'))":
        "FileNotFoundError",
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
    """(kind, line, code) of the fenced python/bash blocks of a page, in order."""
    text = path.read_text()
    return [(m.group(1), text[:m.start()].count("\n") + 1, m.group(2))
            for m in re.finditer(r"^```(python|bash)\n(.*?)^```", text, flags=re.S | re.M)]


#: The pages of docs/ that have blocks to run: every one of them runs.
PAGES = sorted(page.name for page in DOCS.glob("*.md") if blocks(page))


def test_every_guide_has_the_sections_it_promises():
    for guide, sections in CONTENTS.items():
        headings = re.findall(r"^#+ (.+)$", (DOCS / guide).read_text(), flags=re.M)
        assert [s for s in sections if s not in headings] == [], guide
        assert blocks(DOCS / guide), f"{guide} has no runnable block"


def test_index_links_every_page():
    index = (DOCS / "index.md").read_text()
    pages = sorted(page.name for page in DOCS.glob("*.md") if page.name != "index.md")
    assert [page for page in pages if f"({page})" not in index] == []


@pytest.fixture(scope="session")
def core(tmp_path_factory, worker_id):
    """puffer-core installed from its wheel, built once per session from this working tree: under
    xdist, the first worker to need it builds it into the workers' shared temp folder (a lock)."""
    if worker_id == "master":  # no xdist
        return install_core(tmp_path_factory.mktemp("puffer-core"))
    shared = tmp_path_factory.getbasetemp().parent  # every worker's base temp folder is in it
    done = shared / "puffer-core.done"
    with FileLock(str(shared / "puffer-core.lock")):
        if not done.exists():
            shutil.rmtree(shared / "puffer-core", ignore_errors=True)  # a build that failed half-way
            done.write_text(str(install_core(shared / "puffer-core")))
    return Path(done.read_text())


def run_blocks(env: dict[str, str], tmp_path: Path, guide: str, code: list[tuple[str, int, str]]):
    """Run `code` (as `blocks` returns it) with DRIVER in the venv of `env`, from tmp_path/work."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (tmp_path / "driver.py").write_text(DRIVER)
    (tmp_path / f"{guide}.json").write_text(json.dumps(code))
    python = str(Path(env["VIRTUAL_ENV"]) / "bin" / "python")
    argv = [python, str(tmp_path / "driver.py"), guide, site_packages(env), str(tmp_path / f"{guide}.json")]
    return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
@pytest.mark.parametrize("guide", PAGES)
def test_guide_blocks_run(guide, tmp_path, core):
    proc = run_blocks(overlay_venv(tmp_path, core), tmp_path, guide, blocks(DOCS / guide))
    assert proc.returncode == 0, f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
    work = tmp_path / "work"
    if guide == "plugins.md":  # the walkthrough ends with a trained policy's video and a wheel
        assert (work / "my-plugin" / "walk.gif").stat().st_size > 0
        assert list((work / "my-plugin" / "dist").glob("my_plugin-0.1.0-*.whl"))
        assert importlib.util.find_spec("my_plugin") is None  # installed in the throwaway venv only
    if guide == "sweeps.md":  # the sweep ends with its best trial's config and its figure
        assert "[train]" in (work / "sweep" / "best.toml").read_text()
        assert (work / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_block_that_needs_the_repository_fails(tmp_path, core):
    env = overlay_venv(tmp_path, core)
    for i, (code, error) in enumerate(REPOSITORY_ONLY.items()):
        proc = run_blocks(env, tmp_path, f"probe{i}.md", [("python", 1, code)])
        assert proc.returncode != 0 and error in proc.stderr, f"{code!r} ran:\n{proc.stdout}\n{proc.stderr}"


def test_the_site_builds_in_strict_mode_with_the_api_reference(tmp_path):
    """`mkdocs build --strict` (what `make docs` runs): no warning, every page in the menu, every
    link and anchor found, the API reference generated from the docstrings."""
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-6000:]
    api = (site / "api" / "index.html").read_text()
    assert [name for name in API if f'id="{name}"' not in api] == []


def test_the_architecture_page_draws_the_layers_make_lint_checks():
    """docs/architecture.md's layer picture is the import-linter contract of pyproject.toml."""
    from pufferlib._compat import tomllib

    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    page = (DOCS / "architecture.md").read_text()
    drawn = re.search(r"## Layers\n.*?```\n(.*?)```", page, flags=re.S).group(1).strip().splitlines()
    assert drawn == contract["layers"]
