"""The static type check (scripts/typecheck.sh) is a real check of the Blender 4.2 LTS API.

mypy runs in .venv-types/ (fake-bpy-module-4-2, never the real bpy) with the project's
[tool.mypy] configuration. These tests give it small files: calls that do not exist in 4.2 (one
that Blender 4.4+ added, one that exists nowhere) must be reported, and the same kind of code
written against the 4.2 API must pass, so a check that silently stopped seeing bpy (stubs
missing, every bpy name Any) fails here. The whole package is checked by scripts/run_tests.sh
before pytest, which also creates .venv-types/.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TYPES_PYTHON = ROOT / ".venv-types" / "bin" / "python"


def _mypy(tmp_path: pathlib.Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    if not TYPES_PYTHON.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{TYPES_PYTHON} is missing: scripts/run_tests.sh runs "
                        "scripts/typecheck.sh first, which creates it")
        pytest.skip(f"type-check environment {TYPES_PYTHON} not created yet: "
                    "run `bash scripts/typecheck.sh` once")
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return subprocess.run(
        [str(TYPES_PYTHON), "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(ROOT / ".mypy_cache"), str(path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_api_missing_from_blender_4_2_is_reported(tmp_path):
    # Action.slots arrived with slotted actions in Blender 4.4 (tests/blender checks the real
    # bpy has it); gpu.state.no_such_state_get exists in no Blender.
    result = _mypy(tmp_path, "uses_new_api.py", """\
        import bpy
        import gpu


        def first_slot(action: bpy.types.Action) -> str:
            return action.slots[0].identifier


        def state() -> None:
            gpu.state.no_such_state_get()
        """)
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'uses_new_api.py:6: error: "Action" has no attribute "slots"' in result.stdout
    assert ('uses_new_api.py:10: error: Module has no attribute "no_such_state_get"'
            in result.stdout)
    assert "Found 2 errors in 1 file" in result.stdout


def test_blender_4_2_api_passes(tmp_path):
    # The same kinds of calls the extension makes, as Blender 4.2 spells them, including a
    # Blender property annotation (accepted in blender_navjump.blender.* only, see pyproject).
    result = _mypy(tmp_path, "uses_4_2_api.py", """\
        import bpy
        import gpu


        def make_object(name: str) -> bpy.types.Object:
            mesh = bpy.data.meshes.new(name)
            mesh.from_pydata([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)], [], [(0, 1, 2)])
            return bpy.data.objects.new(name, mesh)


        def first_curve_path(action: bpy.types.Action) -> str:
            gpu.state.blend_set("ALPHA")
            return action.fcurves[0].data_path
        """)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found in 1 source file" in result.stdout


def test_wrong_argument_type_to_bpy_is_reported(tmp_path):
    # Not only missing names: the stubs' signatures are checked too.
    result = _mypy(tmp_path, "wrong_argument.py", """\
        import bpy


        def make_mesh() -> bpy.types.Mesh:
            return bpy.data.meshes.new(42)
        """)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "wrong_argument.py:5: error: Argument 1 to \"new\"" in result.stdout
