import itertools

import numpy as np
import pytest
from export_navmeshes import mixed_navmesh

from blender_navjump.export import FORMATS, format_path, write_formats
from blender_navjump.export.detour import read_detour
from blender_navjump.export.gltf import read_glb
from blender_navjump.export.navjump_json import read_json
from blender_navjump.export.obj import read_obj_polygons


def test_all_formats_beside_out(tmp_path):
    nm = mixed_navmesh()
    out = tmp_path / "level.json"
    paths = write_formats(nm, out, ["json", "obj", "gltf", "detour"])
    assert [p.name for p in paths] == ["level.json", "level.obj", "level.glb",
                                       "level.detour.bin"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)
    assert read_json(paths[0]).equals(nm)
    assert len(read_obj_polygons(paths[1]).polygons) == nm.polygon_count
    assert len(read_glb(paths[2]).polygons_z_up()[0]) == nm.polygon_count
    assert read_detour(paths[3]).tiles[0].header["offMeshBase"] == nm.polygon_count


def test_subset_order_and_duplicates(tmp_path):
    paths = write_formats(mixed_navmesh(), tmp_path / "a.json", ["detour", "json", "detour"])
    assert [p.name for p in paths] == ["a.detour.bin", "a.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.detour.bin", "a.json"]
    assert write_formats(mixed_navmesh(), tmp_path / "b.json", []) == []


def test_unknown_format_is_refused_before_writing(tmp_path):
    with pytest.raises(ValueError) as info:
        write_formats(mixed_navmesh(), tmp_path / "a.json", ["json", "fbx"])
    message = str(info.value)
    assert "'fbx'" in message
    for name in FORMATS:
        assert name in message
    assert list(tmp_path.iterdir()) == []


def test_format_paths_replace_the_suffix(tmp_path):
    assert format_path(tmp_path / "x.json", "gltf").name == "x.glb"
    assert format_path(tmp_path / "x.detour.bin", "json").name == "x.json"
    assert format_path(tmp_path / "x", "detour").name == "x.detour.bin"
    assert format_path(tmp_path / "my.level.json", "obj").name == "my.level.obj"


def test_baked_navmesh_through_every_format(tmp_path, node_client):
    """A real bake (core pipeline) exported everywhere; Detour walks around the box."""
    from scenes import Scene

    from blender_navjump.core import bake
    from blender_navjump.core.settings import BakeSettings

    verts, tris = Scene().floor(0, 0, 12, 9).box(4, 3, 0, 7, 6, 2.5).arrays()
    nm = bake(verts, tris, BakeSettings())
    assert nm.polygon_count > 0
    paths = write_formats(nm, tmp_path / "baked.json", list(FORMATS))
    assert read_json(paths[0]).equals(nm)
    assert len(read_obj_polygons(paths[1]).polygons) == nm.polygon_count
    assert len(read_glb(paths[2]).polygons_z_up()[0]) == nm.polygon_count

    def y_up(p):
        return [p[0], p[2], -p[1]]

    start, end = (1.0, 4.5, 0.0), (11.0, 4.5, 0.0)
    request = {"navmeshes": [{"file": str(paths[3]), "kind": "mset"}],
               "queries": [{"start": y_up(start), "end": y_up(end)}], "dump": False}
    result = node_client.request("navjump_detour.mjs", "query", request, tmp_path)
    q = result["results"][0]["queries"][0]
    assert q["found"] and not q["partial"]
    path = np.array([[x, -z, y] for x, y, z in q["straight"]])
    np.testing.assert_allclose(path[0, :2], start[:2], atol=0.05)
    np.testing.assert_allclose(path[-1, :2], end[:2], atol=0.05)
    # Never through the box footprint; a detour longer than the straight line, but not by
    # more than going round the agent-inflated box would need.
    t = np.linspace(0, 1, 50)[:, None]
    for a, b in itertools.pairwise(path):
        pts = a[:2] + t * (b[:2] - a[:2])
        inside = (pts[:, 0] > 4) & (pts[:, 0] < 7) & (pts[:, 1] > 3) & (pts[:, 1] < 6)
        assert not inside.any()
    length = np.linalg.norm(np.diff(path, axis=0), axis=1).sum()
    assert 10.0 < length < 13.0
