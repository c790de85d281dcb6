#!/usr/bin/env bash
# Every plugin alone, from a folder of freshly built wheels, in its own fresh virtualenv:
# `puffer plugins`, `pufferlib.make(ID)` and a tiny `puffer train` (tests/packaging/wheels.py).
# CI runs puffer-ocean only (tests/packaging/test_install_from_wheels.py); run this before a
# release. Arguments: plugin names (default: all). Several minutes per plugin on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
exec "$PY" -m tests.packaging.wheels "$@"
