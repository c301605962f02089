#!/usr/bin/env bash
# Static type check of the whole package against the Blender 4.2 LTS API (the oldest Blender the
# extension supports, blender_manifest.toml's blender_version_min). It runs mypy in its own
# virtual environment .venv-types/, which holds fake-bpy-module-4-2 (the 4.2 stubs) and never the
# real bpy: with both installed, `import bpy` would resolve to whichever comes first on the path.
# Configuration: [tool.mypy] in pyproject.toml. Safe to run again: it installs only when the pins
# below change. Extra arguments go to mypy (e.g. a file list instead of the package).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
VENV="$ROOT/.venv-types"
PINS="mypy==2.4.1 fake-bpy-module-4-2==20260730 numpy==1.26.4"
STAMP="$VENV/.navjump-pins"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$PINS" ]; then
  # shellcheck disable=SC2086  # PINS is a word list on purpose
  "$VENV/bin/python" -m pip install --quiet $PINS
  echo "$PINS" > "$STAMP"
fi
if [ "$#" -eq 0 ]; then
  set -- blender_navjump
fi
"$VENV/bin/python" -m mypy "$@"
