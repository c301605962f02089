"""The command-line layer's batch front ends (``batch_cli.py``) and the argument parsing
every command shares (``cli.parse_set_values``, ``cli.parse_formats``): argument errors end
in exit 2 before anything is baked or imported from Blender."""

from __future__ import annotations

import pytest

from blender_navjump import batch_cli
from blender_navjump.cli import parse_formats, parse_set_values


def test_shared_parsing_of_set_and_format():
    assert parse_set_values([" agent_radius = 0.5", "links_enabled=no"]) == {
        "agent_radius": 0.5, "links_enabled": False}
    for bad, words in ((["agent_radius"], "NAME=VALUE"), (["=3"], "NAME=VALUE"),
                       (["wingspan=2"], "wingspan"), (["cell_size=wide"], "cell_size")):
        with pytest.raises(ValueError, match=words):
            parse_set_values(bad)
    assert parse_formats("JSON, obj,json") == ("json", "obj")
    with pytest.raises(ValueError, match="no output format"):
        parse_formats(" , ")
    with pytest.raises(ValueError, match="'fbx'"):
        parse_formats("json,fbx")


@pytest.mark.parametrize("argv, message", [
    ([], "no .blend files given"),
    (["a.blend", "--format", "json,png"], "unknown export format 'png'"),
    (["a.blend", "--set", "agent_radius"], "NAME=VALUE"),
    (["a.blend", "--set", "wingspan=2"], "wingspan"),
    (["a.blend", "--set", "cell_size=wide"], "cell_size"),
    (["a.blend", "--jobs", "0"], "--jobs"),
    (["x/level.blend", "y/level.blend", "--out", "o"], "same output files"),
])
def test_argument_errors_exit_2_before_baking(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        batch_cli.script_main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["bake"], "no .blend files given"),
    (["bake", "a.blend", "--jobs", "2"], "--jobs above 1"),
    (["bake", "a.blend", "--format", "png"], "unknown export format 'png'"),
    (["bake", "a.blend", "b/a.blend", "--out", "o"], "same output files"),
])
def test_blender_command_argument_errors_return_2(argv, message, capsys):
    # ``blender -c navjump``: Blender wants an exit code back, not a SystemExit
    assert batch_cli.command_main(argv) == 2
    assert message in capsys.readouterr().err


def test_blender_command_help_returns_0(capsys):
    assert batch_cli.command_main(["bake", "--help"]) == 0
    assert "--preset" in capsys.readouterr().out
