#!/usr/bin/env bash
# Create (or reuse) the project's virtual environment in .venv and install everything the
# bake, the demo and the tests need, with the 'farm' extra (Dask, openjd-cli: the farm tests
# run them). Safe to run again: it only installs what is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x "$ROOT/.venv/bin/python" ]; then
  "$PY" -m venv "$ROOT/.venv"
fi
STAMP="$ROOT/.venv/.navjump-installed"
if [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ]; then
  "$ROOT/.venv/bin/python" -m pip install --quiet --upgrade pip
  "$ROOT/.venv/bin/python" -m pip install --quiet -e "$ROOT[test,farm]"
  touch "$STAMP"
fi
