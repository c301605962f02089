"""The package's layers, checked on the source: core/ imports neither bpy nor export/ nor
blender/; export/ imports no bpy and no blender/; no import cycles between our modules
(lazy imports inside functions count too)."""

from __future__ import annotations

import ast
import pathlib

import pytest

PKG = pathlib.Path(__file__).resolve().parents[1] / "blender_navjump"
BLENDER_MODULES = {"bpy", "bpy_extras", "bmesh", "gpu", "gpu_extras", "mathutils", "blf",
                   "addon_utils", "_bpy"}


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for p in PKG.rglob("*.py")}


def _imports(name: str, path: pathlib.Path, known: set[str]) -> set[str]:
    """Every module this file imports (absolute names), anywhere in the file."""
    is_pkg = path.name == "__init__.py"
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[:len(base) - (node.level - 1)]
                mod = ".".join(anchor + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                out.add(sub if sub in known else mod)
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {name: _imports(name, path, known) for name, path in mods.items()}


def _top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("layer, forbidden", [
    ("blender_navjump.core", ("blender_navjump.export", "blender_navjump.blender",
                              "blender_navjump.cli")),
    ("blender_navjump.export", ("blender_navjump.blender", "blender_navjump.cli")),
])
def test_layer_imports(layer, forbidden):
    bad = []
    for name, deps in _graph().items():
        if name != layer and not name.startswith(layer + "."):
            continue
        for dep in deps:
            if _top(dep) in BLENDER_MODULES or dep.startswith(forbidden):
                bad.append(f"{name} imports {dep}")
    assert not bad, "\n".join(sorted(bad))


def test_no_import_cycles():
    graph = _graph()
    ours = {k: {d for d in v if d in graph and d != k} for k, v in graph.items()}
    # a package's __init__ re-exporting its own submodules is not a cycle of design
    for k in ours:
        ours[k] = {d for d in ours[k] if not k.startswith(d + ".")}
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for d in sorted(ours[n]):
            if state.get(d) == 1:
                cycles.append(" -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d)
        stack.pop()
        state[n] = 2

    for n in sorted(ours):
        if n not in state:
            visit(n)
    assert not cycles, "\n".join(cycles)


def test_the_checker_sees_lazy_and_relative_imports():
    graph = _graph()
    # stages.run_stages imports its stage modules inside the function, relative to core
    assert "blender_navjump.core.rasterize" in graph["blender_navjump.core.stages"]
    assert any(_top(d) == "bpy" for d in graph["blender_navjump.blender.panel"])


# The Blender layer's bpy-free helpers (README, "In Blender") and the batch command line:
# importing them loads no Blender module, so they run and are tested under plain Python.
BPY_FREE = ["blender_navjump.blender.batch", "blender_navjump.blender.stdio",
            "blender_navjump.blender.summary", "blender_navjump.blender.gather",
            "blender_navjump.blender.overlay_geometry", "blender_navjump.blender.camera",
            "blender_navjump.blender.png", "blender_navjump.blender.result_mesh",
            "blender_navjump.blender.rebake_changes", "blender_navjump.batch_cli",
            "blender_navjump.cli", "blender_navjump.path_cli", "blender_navjump.interrupts"]


def test_bpy_free_helpers_import_no_blender_module():
    import subprocess
    import sys

    code = ("import importlib, json, sys\n"
            f"for name in {BPY_FREE!r}:\n"
            "    importlib.import_module(name)\n"
            f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            f"{sorted(BLENDER_MODULES)!r})))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=str(PKG.parent), timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]"
