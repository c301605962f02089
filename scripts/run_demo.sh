#!/usr/bin/env bash
# The main job on a fresh machine: set up .venv, bake the bundled demo level headless
# (Blender as a Python module), write its results to out/demo and print a summary.
# On a first run the numba kernels compile in a second process while bpy installs (and the
# demo bake waits for it, then loads them: README, "Compiled kernels").
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup_env.sh --runtime
WARM_LOG="$ROOT/.venv/navjump-warm.log"
if ! .venv/bin/python -c "import sys; from blender_navjump.core import kernel_cache as k; \
sys.exit(0 if k.is_warm() or k.install_shipped(k.active_dir()) else 1)"; then
  echo "compiling NavJump kernels in the background while bpy installs (log: $WARM_LOG)" >&2
  .venv/bin/python -m blender_navjump cache --warm >"$WARM_LOG" 2>&1 &
fi
bash scripts/setup_env.sh --demo
.venv/bin/python scripts/bake_demo.py --out "${1:-out/demo}"
