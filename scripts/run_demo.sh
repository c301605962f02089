#!/usr/bin/env bash
# The main job on a fresh machine: set up .venv, bake the bundled demo level headless
# (Blender as a Python module), write its results to out/demo and print a summary.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup_env.sh
.venv/bin/python scripts/bake_demo.py --out "${1:-out/demo}"
