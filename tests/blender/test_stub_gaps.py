"""The real Blender behind the type check's assumptions (tests/test_typecheck.py).

The doors in ``blender/stub_gaps.py`` state what Blender returns where the 4.2 stubs say
``None``; here the real bpy must agree. And the API test_typecheck.py uses as "newer than
4.2" (``Action.slots``) must exist in the bpy the suite runs, or that test proves nothing.
"""

import pytest

bpy = pytest.importorskip("bpy", reason="Blender's bpy module is not installed")

from blender_navjump.blender import stub_gaps  # noqa: E402  (after bpy, like Blender does)


def test_newer_api_used_by_the_type_check_test_exists_here():
    if bpy.app.version < (4, 4, 0):
        pytest.skip(f"bpy {bpy.app.version_string} predates slotted actions")
    assert "slots" in bpy.types.Action.bl_rna.properties


def test_register_classes_factory_returns_the_pair():
    class NAVJUMP_PG_stub_gap_probe(bpy.types.PropertyGroup):
        pass

    register, unregister = stub_gaps.register_classes_factory((NAVJUMP_PG_stub_gap_probe,))
    register()
    try:
        assert NAVJUMP_PG_stub_gap_probe.is_registered
    finally:
        unregister()
    assert not NAVJUMP_PG_stub_gap_probe.is_registered


def test_preferences_and_framebuffer_names():
    assert isinstance(stub_gaps.blender_preferences(), bpy.types.Preferences)
    import gpu

    # the stubs call it framebuffer_active_get (a docstring typo); Blender has this name
    assert callable(gpu.state.active_framebuffer_get)
    assert not hasattr(gpu.state, "framebuffer_active_get")
