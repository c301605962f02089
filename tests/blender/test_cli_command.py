"""``blender -c navjump``: the command registered by the extension.

bpy 5.0.1 exposes no way to list or run registered commands (only ``register_cli_command``
and ``unregister_cli_command``), so the handler is called directly with an argv list, and
registration is observed through Blender's own duplicate-command warning.
"""

import json
import shutil
import sys
from pathlib import Path

import pytest

from blender_navjump.export import navjump_json

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "demo_level.blend"
DUPLICATE_WARNING = 'registered duplicate command "navjump"'


@pytest.fixture
def cli(navjump):
    return sys.modules[f"{navjump.module}.blender.cli_command"]


def _register_probe(bpy, capfd) -> bool:
    """Register a second "navjump" command and remove it; True if Blender said the id was
    already taken (i.e. the extension's command is registered)."""
    capfd.readouterr()
    handle = bpy.utils.register_cli_command("navjump", lambda argv: 0)
    bpy.utils.unregister_cli_command(handle)
    captured = capfd.readouterr()
    return DUPLICATE_WARNING in captured.out + captured.err


def test_command_follows_the_extension(bpy, navjump, cli, capfd):
    assert cli._handle is not None
    assert _register_probe(bpy, capfd)
    old_module, old_handle = cli, cli._handle
    assert bpy.ops.preferences.addon_disable(module=navjump.module) == {'FINISHED'}
    try:
        assert old_module._handle is None
        assert not _register_probe(bpy, capfd)
        with pytest.raises(ValueError, match="already been removed"):
            bpy.utils.unregister_cli_command(old_handle)
    finally:
        assert bpy.ops.preferences.addon_enable(module=navjump.module) == {'FINISHED'}
    assert sys.modules[f"{navjump.module}.blender.cli_command"]._handle is not None
    assert _register_probe(bpy, capfd)


def test_help(cli, capsys):
    assert cli.execute(["--help"]) == 0
    out = capsys.readouterr().out
    assert "blender -c navjump" in out and "bake" in out
    assert cli.execute(["bake", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--out", "--format", "--preset", "--set", "--save", "--report", "--jobs"):
        assert option in out


@pytest.mark.parametrize("argv, message", [
    ([], "required"),
    (["explode"], "invalid choice"),
    (["bake"], "no .blend files given"),
    (["bake", "a.blend", "--format", "fbx"], "unknown export format 'fbx'"),
    (["bake", "a.blend", "--set", "agent_radius"], "NAME=VALUE"),
    (["bake", "a.blend", "--set", "wingspan=2"], "wingspan"),
    (["bake", "a.blend", "--jobs", "2"], "--jobs above 1"),
    (["bake", "a.blend", "--jobs", "none"], "--jobs"),
    (["bake", "a.blend", "--frobnicate"], "unrecognized arguments"),
])
def test_argument_errors_return_2(cli, argv, message, capsys):
    assert cli.execute(argv) == 2
    assert message in capsys.readouterr().err


def test_command_bakes_files_one_after_another(tmp_path, bpy, cli, capsys):
    level = tmp_path / "level.blend"
    shutil.copy2(DEMO, level)
    missing = tmp_path / "missing.blend"
    out, report = tmp_path / "out", tmp_path / "report.json"
    code = cli.execute(["bake", str(level), str(missing), "--out", str(out), "--format",
                        "json,gltf", "--set", "links_enabled=false", "--report", str(report)])
    assert code == 1  # one of the two failed
    stdout = capsys.readouterr().out
    lines = [line for line in stdout.splitlines() if line.startswith(("OK ", "FAILED "))]
    assert lines[0].startswith("OK ") and "level.blend" in lines[0]
    assert lines[1].startswith("FAILED ") and "file not found" in lines[1]
    data = json.loads(report.read_text())
    assert [f["ok"] for f in data["files"]] == [True, False]
    nm = navjump_json.read_json(out / "level.navjump.json")
    assert nm.polygon_count == data["files"][0]["stats"]["polygons"] > 0
    assert (out / "level.navjump.glb").is_file()

    assert cli.execute(["bake", str(level), "--out", str(out), "--format", "json",
                        "--set", "links_enabled=false"]) == 0
