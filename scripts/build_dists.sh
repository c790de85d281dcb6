#!/usr/bin/env bash
# Build what a release uploads, offline, into DIST (default: dist/):
#   1. an sdist of puffer-core and of every plugin (python -m build --sdist --no-isolation);
#   2. a wheel from each sdist with pip, --no-index --no-build-isolation: proves that the sdist
#      alone (C sources included) builds without the network;
#   3. where auditwheel (and patchelf) is on PATH, the two C-extension wheels (puffer-core, puffer-ocean)
#      repaired to a manylinux tag in DIST/wheelhouse (the release itself uses cibuildwheel:
#      see [tool.cibuildwheel] in pyproject.toml and RELEASE.md).
# Needs: setuptools>=77 and build in the running Python (`make install` provides both).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
DIST=${1:-dist}
rm -rf "$DIST" && mkdir -p "$DIST/sdist" "$DIST/wheels"
for project in . plugins/*/; do
    "$PY" -m build --sdist --no-isolation --outdir "$DIST/sdist" "$project" > /dev/null
done
# Each sdist is unpacked and built in a temporary folder: nothing of this checkout is used.
"$PY" -m pip wheel --quiet --no-index --no-deps --no-build-isolation -w "$DIST/wheels" "$DIST"/sdist/*.tar.gz
AUDITWHEEL=${AUDITWHEEL:-$(command -v auditwheel || true)}   # needs patchelf on PATH too
if [ -n "$AUDITWHEEL" ]; then
    for whl in "$DIST"/wheels/*-linux_*.whl; do
        "$AUDITWHEEL" repair --wheel-dir "$DIST/wheelhouse" "$whl" > /dev/null
    done
fi
echo "sdists:";  ls -1 "$DIST/sdist"
echo "wheels:";  ls -1 "$DIST/wheels"
if [ -d "$DIST/wheelhouse" ]; then echo "manylinux (auditwheel):"; ls -1 "$DIST/wheelhouse"; fi
