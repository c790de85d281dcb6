#!/usr/bin/env bash
# The test suite on every CPython 3.10-3.13 installed on this machine; one line of counts each.
#
#  - The Python that has the pinned CPU torch on local disk (3.11 here, TORCH=torch==2.13.0):
#    the project's .venv (`make install`), the whole suite (what `make test` runs in CI).
#  - Every other Python: the index has torch 2.13.0 for it only as the CUDA build (a multi-GB
#    download with its nvidia-* wheels), so its venv gets no torch (a constraint forbids it)
#    and runs the core, Ocean and packaging tests without the slow ones; a test that fails only
#    for want of torch is counted apart ("need torch"), never as passed.
#    The other plugins are not installed there (their upstream wheels: see README, "Python versions").
#
# Venvs live in $PUFFER_PYTHONS_DIR (default /tmp/puffer-pythons), reused on a second run.
# Usage: scripts/test_pythons.sh [3.10 3.12 ...]   (default: 3.10 3.11 3.12 3.13)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${PUFFER_PYTHONS_DIR:-/tmp/puffer-pythons}
VERSIONS=${*:-3.10 3.11 3.12 3.13}
TORCH_PYTHON=${TORCH_PYTHON:-3.11}
mkdir -p "$WORK"
echo "torch<0" > "$WORK/no-torch.txt"   # any attempt to install torch fails instead of downloading CUDA
# The test extra, less what needs torch (stable-baselines3) or only serves tests/loggers.
TEST_DEPS=$(python3 -c "
import tomllib; extra = tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['test']
skip = ('stable-baselines3', 'wandb', 'neptune', 'tensorboard')
print('\n'.join(r for r in extra if not r.startswith(skip)))")
# An interpreter that runs: pythonX.Y on PATH, else pyenv's (whose shim on PATH may refuse).
find_python() {
    local c
    for c in "python$1" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1".*/bin/"python$1"; do
        if "$c" -c "import sys" > /dev/null 2>&1; then command -v "$c"; return 0; fi
    done
    return 1
}
summary=()
for v in $VERSIONS; do
    py=$(find_python "$v") || { summary+=("$v: not installed"); continue; }
    report="$WORK/junit-$v.xml"
    start=$SECONDS
    if [ "$v" = "$TORCH_PYTHON" ]; then
        make install > "$WORK/install-$v.log" 2>&1 || { summary+=("$v: make install failed (see $WORK/install-$v.log)"); continue; }
        .venv/bin/python -m pytest tests -q -p no:cacheprovider --junitxml "$report" > "$WORK/pytest-$v.log" 2>&1
        scope="whole suite, torch $(.venv/bin/python -c 'import torch; print(torch.__version__)')"
    else
        venv="$WORK/py$v"
        "$venv/bin/python" -m pip --version > /dev/null 2>&1 || { rm -rf "$venv"; "$py" -m venv "$venv"; }
        mapfile -t deps <<< "$TEST_DEPS"
        if ! "$venv/bin/python" -m pip install --quiet -c "$WORK/no-torch.txt" "$ROOT" "$ROOT/plugins/puffer-ocean" \
                "${deps[@]}" > "$WORK/install-$v.log" 2>&1; then
            summary+=("$v: install failed (see $WORK/install-$v.log)"); continue
        fi
        (cd "$ROOT" && PIP_CONSTRAINT="$WORK/no-torch.txt" "$venv/bin/python" -m pytest tests/core tests/ocean \
            tests/packaging -q -m "not slow" -p no:cacheprovider --continue-on-collection-errors \
            --junitxml "$report" > "$WORK/pytest-$v.log" 2>&1)
        scope="core+ocean+packaging, not slow, no torch"
    fi
    summary+=("$v ($("$py" -V 2>&1), $scope, $((SECONDS - start)) s): $(python3 scripts/junit_counts.py "$report")")
done
printf '%s\n' "${summary[@]}"
