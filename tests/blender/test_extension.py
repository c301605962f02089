"""The package as a Blender extension: manifest, registration, properties."""

import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import navmesh_builders
import pytest

from blender_navjump.core.settings import BakeSettings

OUR_TYPES = ("NAVJUMP_OT_bake", "NAVJUMP_OT_clear", "NAVJUMP_OT_agent_preset_add",
             "NAVJUMP_MT_agent_presets", "NAVJUMP_PT_main", "NAVJUMP_PT_agent",
             "NAVJUMP_PT_links", "NAVJUMP_PT_advanced", "NAVJUMP_PT_result",
             "NAVJUMP_PT_object")


def _handlers_from(bpy, module):
    found = []
    for name in ("load_pre", "load_post", "undo_post", "redo_post", "save_pre",
                 "depsgraph_update_post"):
        for fn in getattr(bpy.app.handlers, name):
            if getattr(fn, "__module__", "").startswith(module):
                found.append((name, fn.__name__))
    return found


def _state(bpy, navjump):
    shipped = str(Path(navjump.ops_presets.SHIPPED_PRESETS_DIR))
    return {
        "types": {t for t in OUR_TYPES if hasattr(bpy.types, t)},
        "property_group": navjump.props.NAVJUMP_PG_settings.is_registered,
        "scene_prop": hasattr(bpy.types.Scene, "navjump"),
        "object_prop": hasattr(bpy.types.Object, "navjump_role"),
        "handlers": sorted(_handlers_from(bpy, navjump.module)),
        "prefs": navjump.module in bpy.context.preferences.addons,
        "preset_paths": sum(1 for p in bpy.utils.preset_paths("navjump/agent")
                            if Path(p) == Path(shipped)),
    }


def test_manifest_validates_with_blenders_own_checker(bpy, navjump):
    cli = (Path(bpy.utils.system_resource('SCRIPTS')) / "addons_core" / "bl_pkg" / "cli"
           / "blender_ext.py")
    if not cli.is_file():
        pytest.skip(f"blender_ext.py not found at {cli}")
    ext_dir = navjump.repo_dir / navjump.devload.manifest_id()
    proc = subprocess.run([sys.executable, str(cli), "validate", str(ext_dir)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_enable_disable_twice_leaves_nothing_behind(bpy, navjump):
    enabled = _state(bpy, navjump)
    assert enabled["types"] == set(OUR_TYPES)
    assert enabled["scene_prop"] and enabled["object_prop"] and enabled["prefs"]
    assert enabled["property_group"]
    assert len(enabled["handlers"]) == len(set(enabled["handlers"])) >= 1
    has_preset_api = hasattr(bpy.utils, "register_preset_path")
    assert enabled["preset_paths"] == (1 if has_preset_api else 0)
    for _ in range(2):
        assert bpy.ops.preferences.addon_disable(module=navjump.module) == {'FINISHED'}
        disabled = _state(bpy, navjump)
        assert disabled == {"types": set(), "property_group": False, "scene_prop": False,
                            "object_prop": False, "handlers": [], "prefs": False,
                            "preset_paths": 0}
        assert bpy.ops.preferences.addon_enable(module=navjump.module) == {'FINISHED'}
        assert _state(bpy, navjump) == enabled


def test_preferences_are_found_through_the_extension_package(bpy, navjump):
    prefs_module = sys.modules[f"{navjump.module}.blender.prefs"]
    assert prefs_module.ADDON_PACKAGE == navjump.module
    prefs = bpy.context.preferences.addons[navjump.module].preferences
    assert type(prefs).__name__ == "NAVJUMP_AddonPreferences"
    assert prefs_module.preferences(bpy.context) == prefs
    assert prefs.use_background_thread is True


def test_viewport_query_kernels_cache_in_the_user_kernel_folder(bpy, navjump):
    """The viewport (gizmo placement, path test) imports the query kernels directly; they
    still cache where the command line does (one folder per user and version), found by
    numba's own dispatchers."""
    import time

    import numpy as np
    from numba.core.registry import CPUDispatcher

    t0 = time.time() - 1
    core = navjump.core
    kernel_cache = sys.modules[f"{navjump.module}.core.kernel_cache"]
    query = navjump.sub("core.query")  # as gizmo.py does
    build = navmesh_builders.for_package(navjump.module)
    verts = [(0, 0, 0), (4, 0, 0), (4, 4, 0), (0, 4, 0), (8, 0, 0), (8, 4, 0)]
    nm = build.navmesh_from_polygons(verts, [[0, 1, 2, 3], [1, 4, 5, 2]])
    a, b = query.far_apart_points(nm, samples=6)
    assert np.linalg.norm(np.subtract(a, b)) > 0
    folder = Path(kernel_cache.active_dir())
    assert folder.parent == Path(kernel_cache.default_root())
    solve = sys.modules[f"{navjump.module}.core.query.batch_kernel"]
    used = [d for d in vars(solve).values() if isinstance(d, CPUDispatcher) and
            (sum(d.stats.cache_hits.values()) or sum(d.stats.cache_misses.values()))]
    assert used
    for dispatcher in used:
        assert Path(dispatcher._cache.cache_path) == folder / "core" / "query"
        index = Path(dispatcher._cache._cache_file._index_path)
        assert index.is_file() and index.parent == folder / "core" / "query"
    assert core.__name__ == f"{navjump.module}.core"
    in_tree = Path(solve.__file__).parent / "__pycache__"
    assert not [p for p in in_tree.glob("*.nbi") if p.stat().st_mtime >= t0]


def test_every_bake_setting_has_a_slider(bpy, navjump, scene):
    pg = navjump.props.NAVJUMP_PG_settings.bl_rna.properties
    missing = [f.name for f in fields(BakeSettings) if f.name not in pg]
    assert missing == []


def test_sliders_map_to_bake_settings(bpy, navjump, scene):
    settings_pg = scene.navjump
    settings_pg.auto_cell_size = False
    rna = settings_pg.bl_rna.properties
    expected = {}
    for f in fields(BakeSettings):
        prop = rna[f.name]
        if prop.type == 'ENUM':
            setattr(settings_pg, f.name, 'MONOTONE')
            expected[f.name] = "monotone"
        elif prop.type == 'BOOLEAN':
            value = not getattr(settings_pg, f.name)
            setattr(settings_pg, f.name, value)
            expected[f.name] = value
        else:
            # A value inside the slider's range that differs from the current one.
            lo, hi = prop.soft_min, prop.soft_max
            value = lo + (hi - lo) * 0.37
            if prop.type == 'INT':
                value = int(round(value))
            setattr(settings_pg, f.name, value)
            expected[f.name] = value
    got = navjump.props.to_bake_settings(settings_pg).to_dict()
    for name, value in expected.items():
        if isinstance(value, float):
            assert got[name] == pytest.approx(value, rel=1e-6), name
        else:
            assert got[name] == value, name


def test_default_sliders_give_valid_settings_with_auto_voxels(bpy, navjump, scene):
    settings_pg = scene.navjump
    assert settings_pg.auto_cell_size
    settings_pg.agent_radius = 0.5
    settings = navjump.props.to_bake_settings(settings_pg).validate()
    assert settings.cell_size == pytest.approx(0.25)
    assert settings.cell_height == pytest.approx(0.125)
    assert settings.agent_radius == 0.5  # float32 noise removed
    settings_pg.agent_radius = 0.0
    cs, ch = navjump.props.effective_voxel_size(settings_pg)
    assert cs == navjump.props.MIN_AUTO_CELL_SIZE and ch == cs / 2


def test_object_role_defaults_to_walkable(bpy, navjump, scene):
    obj = bpy.data.objects.new("Thing", bpy.data.meshes.new("Thing"))
    assert obj.navjump_role == 'WALKABLE'
    obj.navjump_role = 'OBSTACLE'
    assert obj.navjump_role == 'OBSTACLE'
