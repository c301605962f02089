#!/usr/bin/env bash
# Create (or reuse) the project's virtual environment in .venv and install what a job needs:
#   setup_env.sh            everything the bake, the demo and the tests need: the package
#                           (editable) with the 'test' and 'farm' extras (Dask, openjd-cli:
#                           the farm tests run them)
#   setup_env.sh --runtime  only the bake's dependencies (numpy, numba, llvmlite)
#   setup_env.sh --demo     those and bpy: what scripts/run_demo.sh needs (the demo runs the
#                           package from the checkout, not installed)
# Versions come from pyproject.toml. Safe to run again: it only installs what is missing.
# For --runtime and --demo the venv gets no pip of its own when this Python's pip can install
# into it (--python): seeding one costs seconds on every clean clone; the full set-up adds it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODE="${1:-full}"
case "$MODE" in
  full|--full) MODE=full ;;
  --runtime) MODE=runtime ;;
  --demo) MODE=demo ;;
  *) echo "usage: setup_env.sh [--runtime | --demo]" >&2; exit 2 ;;
esac
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
VENV="$ROOT/.venv"
OUTER_PIP=0
if "$PY" -m pip --python "$PY" --version >/dev/null 2>&1; then
  OUTER_PIP=1
fi
if [ ! -x "$VENV/bin/python" ]; then
  if [ "$OUTER_PIP" = 1 ]; then
    "$PY" -m venv --without-pip "$VENV"
  else
    "$PY" -m venv "$VENV"
  fi
fi
pip_install() {
  if "$VENV/bin/python" -c "import pip" >/dev/null 2>&1; then
    "$VENV/bin/python" -m pip install --quiet "$@"
  else
    "$PY" -m pip --python "$VENV/bin/python" install --quiet "$@"
  fi
}
# The pinned requirements of pyproject.toml: "deps" (the bake's) or an extra's name.
pins() {
  "$VENV/bin/python" - "$ROOT/pyproject.toml" "$1" <<'EOF'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
group = sys.argv[2]
print("\n".join(project["dependencies"] if group == "deps"
                else [r for r in project["optional-dependencies"]["test"]
                      if r.split("==")[0] == group]))
EOF
}
stamp() { [ "$1" = full ] && echo "$VENV/.navjump-installed" || echo "$VENV/.navjump-$1"; }
fresh() {  # the mode's stamp exists and is newer than pyproject.toml
  [ -f "$(stamp "$1")" ] && ! [ "$ROOT/pyproject.toml" -nt "$(stamp "$1")" ]
}
if fresh full || fresh "$MODE"; then
  exit 0
fi
case "$MODE" in
  runtime)
    mapfile -t REQ < <(pins deps)
    pip_install "${REQ[@]}"
    ;;
  demo)
    fresh runtime || { mapfile -t REQ < <(pins deps); pip_install "${REQ[@]}"; }
    mapfile -t REQ < <(pins bpy)
    pip_install "${REQ[@]}"
    touch "$VENV/.navjump-runtime"
    ;;
  full)
    # the tests' venv has its own pip (scripts/build_extension.py downloads wheels with it)
    "$VENV/bin/python" -c "import pip" >/dev/null 2>&1 || \
      "$VENV/bin/python" -m ensurepip --default-pip >/dev/null
    pip_install -e "$ROOT[test,farm]"
    touch "$VENV/.navjump-runtime" "$VENV/.navjump-demo"
    ;;
esac
touch "$(stamp "$MODE")"
