#!/usr/bin/env bash
# The whole test suite on a fresh machine: set up .venv, lint, type-check against the Blender 4.2
# API (its own .venv-types/, see scripts/typecheck.sh), run pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup_env.sh
# Node.js client for the Detour export check (skipped by the test when Node.js is absent).
if command -v npm >/dev/null 2>&1 && [ -f tests/export/node/package.json ] \
    && [ ! -d tests/export/node/node_modules ]; then
  (cd tests/export/node && npm ci --no-audit --no-fund --silent) || echo "npm ci failed: Detour client test will skip"
fi
export NAVJUMP_RECAST_DATA="${NAVJUMP_RECAST_DATA:-$ROOT/../shared/data/recast}"
.venv/bin/ruff check .
bash scripts/typecheck.sh
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
