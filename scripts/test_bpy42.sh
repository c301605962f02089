#!/usr/bin/env bash
# Compatibility job for the minimum supported Blender (4.2 LTS): runs the Blender tests
# against the bpy 4.2.0 module in its own environment (.venv42, ~1.4 GB). Not part of
# .ci/run to keep CI short; run it before a release.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv42/bin/python ]; then
  "$PY" -m venv .venv42
  .venv42/bin/python -m pip install --quiet --upgrade pip
  .venv42/bin/python -m pip install --quiet "bpy==4.2.0" "numba==0.68.1" "llvmlite==0.50.0" \
    "pytest==9.2.0" "hypothesis==6.170.15"
fi
export NAVJUMP_RECAST_DATA="${NAVJUMP_RECAST_DATA:-$ROOT/../shared/data/recast}"
PYTHONPATH="$ROOT" .venv42/bin/python -m pytest -q -p no:cacheprovider tests/blender "$@"
