"""Export from inside Blender (``navjump.export``, File > Export > NavJump navmesh): the same
bytes as the command line for the same bake; a failed export changes no file."""

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("bpy", reason="Blender's bpy module is not installed")

from blender_navjump.core.settings import BakeSettings  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALL_FORMATS = {"json", "obj", "gltf", "detour"}
SUFFIXES = (".json", ".obj", ".glb", ".detour.bin")

# A 12 x 8 m floor with a 2 x 2 x 1 m block and a 2 m step up at the far end (links), in
# coordinates float32 holds exactly (Blender stores float32, the OBJ reader float64).
VERTS = [(0, 0, 0), (12, 0, 0), (12, 8, 0), (0, 8, 0),
         (4, 3, 1), (6, 3, 1), (6, 5, 1), (4, 5, 1), (4, 3, 0), (6, 3, 0), (6, 5, 0), (4, 5, 0),
         (12, 0, 2), (16, 0, 2), (16, 8, 2), (12, 8, 2)]
TRIS = [(0, 1, 2), (0, 2, 3), (4, 5, 6), (4, 6, 7),
        (8, 9, 5), (8, 5, 4), (9, 10, 6), (9, 6, 5), (10, 11, 7), (10, 7, 6), (11, 8, 4),
        (11, 4, 7), (12, 13, 14), (12, 14, 15), (1, 12, 15), (1, 15, 2)]


def add_level(bpy, location=(0.0, 0.0, 0.0)):
    mesh = bpy.data.meshes.new("Level")
    mesh.from_pydata([tuple(map(float, v)) for v in VERTS], [], TRIS)
    mesh.update()
    obj = bpy.data.objects.new("Level", mesh)
    obj.location = location
    bpy.context.scene.collection.objects.link(obj)
    return obj


def write_level_obj(path):
    lines = [f"v {x} {y} {z}\n" for x, y, z in VERTS]
    lines += [f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in TRIS]
    path.write_text("".join(lines))


def cli_bake(obj_path, out_path, settings: dict):
    """``python -m blender_navjump bake`` with every setting that is not the default."""
    defaults = BakeSettings().to_dict()
    sets = [f"--set={k}={v}" for k, v in settings.items() if defaults.get(k) != v]
    proc = subprocess.run([sys.executable, "-m", "blender_navjump", "bake", str(obj_path),
                           "--out", str(out_path), "--format", "json,obj,gltf,detour",
                           "--quiet", *sets], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr


def export(bpy, path, formats):
    return bpy.ops.navjump.export(filepath=str(path), formats=set(formats))


def test_export_writes_the_cli_bytes_and_remembers_the_path(bpy, navjump, scene, tmp_path):
    add_level(bpy)
    pg = scene.navjump
    pg.links_enabled = True
    assert bpy.ops.navjump.bake() == {'FINISHED'}
    settings = navjump.props.to_bake_settings(pg).validate().to_dict()
    write_level_obj(tmp_path / "level.obj")
    (tmp_path / "cli").mkdir()
    (tmp_path / "ui").mkdir()
    cli_bake(tmp_path / "level.obj", tmp_path / "cli" / "level.json", settings)

    assert export(bpy, tmp_path / "ui" / "level.json", ALL_FORMATS) == {'FINISHED'}
    nm = navjump.storage.load_navmesh(scene)
    assert nm.polygon_count > 0 and nm.link_count > 0
    for suffix in SUFFIXES:
        ui = (tmp_path / "ui" / f"level{suffix}").read_bytes()
        assert ui == (tmp_path / "cli" / f"level{suffix}").read_bytes(), suffix
    assert sorted(os.listdir(tmp_path / "ui")) == sorted(f"level{s}" for s in SUFFIXES)
    # the path and the formats are kept in the scene and offered next time
    ops_export = __import__(f"{navjump.module}.blender.ops_export", fromlist=["x"])
    assert pg.export_path == str(tmp_path / "ui" / "level.json")
    assert set(pg.export_formats) == ALL_FORMATS
    assert ops_export.default_path(scene) == str(tmp_path / "ui" / "level.json")
    # File > Export lists it
    draw_funcs = bpy.types.TOPBAR_MT_file_export._dyn_ui_initialize()
    assert ops_export.menu_entry in draw_funcs
    assert ops_export.MENU_LABEL == "NavJump navmesh"


def test_a_failed_export_changes_no_file_and_says_why(bpy, navjump, scene, tmp_path):
    obj = add_level(bpy)
    scene.navjump.links_enabled = False
    bpy.ops.navjump.bake()
    out = tmp_path / "level.json"
    assert export(bpy, out, {"json"}) == {'FINISHED'}
    before = out.read_bytes()
    scene.navjump.agent_radius = 0.8  # a different bake: its JSON differs
    bpy.ops.navjump.bake()

    # 1. caught by the checks: a folder where the OBJ would go
    (tmp_path / "level.obj").mkdir()
    with pytest.raises(RuntimeError, match=r"export to .*level\.json failed, no file was "
                                           r"changed: output .*level\.obj is a folder"):
        export(bpy, out, {"json", "obj"})
    assert out.read_bytes() == before
    os.rmdir(tmp_path / "level.obj")

    # 2. a writer failing after the JSON was written: a level 300 km out is beyond what
    # glTF's 32-bit floats hold; the JSON written first to a temporary is dropped too
    obj.location = (300_000.0, 0.0, 0.0)
    bpy.ops.navjump.bake()
    assert navjump.storage.load_navmesh(scene).vertices[:, 0].min() > 299_000
    with pytest.raises(RuntimeError, match=r"failed, no file was changed: .*262144 m glTF"):
        export(bpy, out, {"json", "gltf"})
    assert out.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["level.json"]  # no temporaries left
    assert scene.navjump.export_formats == {"json"}  # a failed export is not remembered

    # 3. nothing to export / no format
    with pytest.raises(RuntimeError, match="choose at least one format"):
        export(bpy, out, set())
    bpy.ops.navjump.clear()
    assert not bpy.ops.navjump.export.poll()
    assert np.array_equal(np.frombuffer(out.read_bytes(), np.uint8),
                          np.frombuffer(before, np.uint8))


def _far_climb_navmesh(navjump):
    """A tiled bake with ladders whose foot and top are in neighbouring tiles, one climb
    link moved onto a polygon beyond the neighbouring tiles: its way through the climb
    graph is one the Detour export must leave out (Detour joins off-mesh connections only
    to adjacent tiles), with a ``DetourExportWarning``."""
    import dataclasses

    from scenes import Scene

    core = navjump.core
    climb = navjump.sub("core.climb")
    kinds = navjump.sub("core.kinds")
    edge_x = -0.4  # a tile line (tiles of 32 cells of 0.3 m from x = -10)
    v, t = Scene().floor(-10, -10, 14, 10).box(-8, edge_x, 0, edge_x, 4, 4).arrays()
    settings = core.BakeSettings(climbing_enabled=True, auto_ledges=False, tile_size=32)
    nm = core.bake(v, t, settings)
    ladders = [("edge-ladder", kinds.CLIMB_LADDER,
                np.array([(edge_x + 0.1, 2.0, 0.0), (edge_x + 0.1, 2.0, 4.0)]))]
    nm, found = climb.add_climbing(nm, ladders, v, t, settings)
    assert found == []
    tiles_x = nm.stats["tile_grid"]["tiles"][0]
    tr = climb.climb_transits(nm)
    entry_tile = nm.polygon_tile[nm.climb_link_poly[tr.entry_link]]
    r = int(np.nonzero(entry_tile % tiles_x == 0)[0][0])  # a way from the west column
    start_tile = int(entry_tile[r])
    far = [k for k in np.unique(nm.polygon_tile).tolist()
           if abs(k % tiles_x - start_tile % tiles_x) > 1
           or abs(k // tiles_x - start_tile // tiles_x) > 1]
    far_poly = int(np.nonzero(nm.polygon_tile == far[0])[0][0])
    k = int(tr.exit_link[r])
    link_poly, point = nm.climb_link_poly.copy(), nm.climb_link_point.copy()
    link_poly[k] = far_poly
    point[k] = nm.vertices[nm.polygons[far_poly, :3]].mean(axis=0)
    return dataclasses.replace(nm, climb_link_poly=link_poly, climb_link_point=point)


def test_detour_export_warnings_are_reported_by_the_operator(bpy, navjump, scene, tmp_path,
                                                             capfd):
    """What the Detour export leaves out (a climbing way ending beyond the neighbouring
    tile) is in the export operator's report as a warning, as the command line prints it;
    the files are written."""
    nm = _far_climb_navmesh(navjump)
    navjump.storage.write_result(scene, nm, {}, [])
    capfd.readouterr()
    path = tmp_path / "level.json"
    assert bpy.ops.navjump.export(filepath=str(path), formats={"json", "detour"}) \
        == {'FINISHED'}
    out = capfd.readouterr()
    # Blender prints an operator's reports in background mode: "Warning: <text>"
    reported = [line for line in (out.out + out.err).splitlines()
                if line.startswith("Warning: Detour export:")]
    assert len(reported) == 1, out
    assert "climbing way(s) left out" in reported[0] and "tile_size" in reported[0]
    assert "DetourExportWarning" not in out.err  # reported, not printed as a warning
    assert path.is_file() and (tmp_path / "level.detour.bin").is_file()
