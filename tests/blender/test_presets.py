"""Agent presets: the shipped ones load, your own save, load and remove."""

import os
import re

import pytest

MENU = "NAVJUMP_MT_agent_presets"


def _preset_values(path):
    """{field: value} read from a preset file's ``settings.<field> = <value>`` lines."""
    import ast

    values = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"settings\.(\w+) = (.+)$", line.strip())
            if m:
                values[m.group(1)] = ast.literal_eval(m.group(2))
    return values


def _assert_scene_has(settings_pg, values):
    for name, value in values.items():
        got = getattr(settings_pg, name)
        if isinstance(value, float):
            assert got == pytest.approx(value, rel=1e-6), name
        else:
            assert got == value, name


def test_shipped_presets_are_listed_and_load(bpy, navjump, scene):
    shipped = navjump.ops_presets.shipped_presets()
    assert set(shipped) == {"Human", "Small creature", "Large robot"}
    for name, path in shipped.items():
        assert navjump.ops_presets.find_preset(name) is not None
        values = _preset_values(path)
        assert set(values) == set(navjump.ops_presets.AGENT_PRESET_FIELDS)
        assert bpy.ops.script.execute_preset(filepath=path, menu_idname=MENU) == {'FINISHED'}
        _assert_scene_has(scene.navjump, values)
        # Every shipped agent bakes with valid settings.
        navjump.props.to_bake_settings(scene.navjump).validate()
    human = _preset_values(shipped["Human"])
    small = _preset_values(shipped["Small creature"])
    assert small["agent_radius"] < human["agent_radius"]


def test_save_load_and_remove_your_own_preset(bpy, navjump, scene):
    name = "NavJump Test Agent"
    settings_pg = scene.navjump
    settings_pg.agent_radius = 0.73
    settings_pg.max_jump_distance = 4.25
    settings_pg.prone_enabled = False
    user_dir = bpy.utils.user_resource('SCRIPTS', path=os.path.join("presets", "navjump",
                                                                    "agent"))
    path = os.path.join(user_dir, "NavJump_Test_Agent.py")
    if os.path.exists(path):
        os.remove(path)  # left over from an interrupted run
    try:
        assert bpy.ops.navjump.agent_preset_add(name=name) == {'FINISHED'}
        assert os.path.isfile(path)
        assert navjump.ops_presets.find_preset(name) == path
        saved = _preset_values(path)
        assert set(saved) == set(navjump.ops_presets.AGENT_PRESET_FIELDS)

        settings_pg.agent_radius = 0.2
        settings_pg.max_jump_distance = 1.0
        settings_pg.prone_enabled = True
        assert bpy.ops.script.execute_preset(filepath=path, menu_idname=MENU) == {'FINISHED'}
        assert settings_pg.agent_radius == pytest.approx(0.73)
        assert settings_pg.max_jump_distance == pytest.approx(4.25)
        assert settings_pg.prone_enabled is False

        assert bpy.ops.navjump.agent_preset_add(name=name, remove_name=True) == {'FINISHED'}
        assert not os.path.exists(path)
    finally:
        if os.path.exists(path):
            os.remove(path)


def test_shipped_presets_cannot_be_removed_or_shadowed(bpy, navjump, scene):
    human = navjump.ops_presets.shipped_presets()["Human"]
    assert bpy.ops.navjump.agent_preset_add(name="Human", remove_name=True) == {'CANCELLED'}
    assert os.path.isfile(human)
    if hasattr(bpy.utils, "register_preset_path"):
        # Saving under a shipped name is refused rather than hiding the shipped preset.
        assert bpy.ops.navjump.agent_preset_add(name="Human") == {'CANCELLED'}
