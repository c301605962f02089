import json
import struct

import numpy as np
import pytest
from export_navmeshes import grid_floor, mixed_navmesh, two_platforms

from blender_navjump.core.navmesh import LINK_KINDS, empty_navmesh
from blender_navjump.export.gltf import STANCE_COLORS, read_glb, write_glb

F32 = dict(rtol=1e-6, atol=1e-6)


def y_up(p):
    p = np.asarray(p, np.float64)
    return np.stack([p[..., 0], p[..., 2], -p[..., 1]], axis=-1)


@pytest.mark.parametrize("make", [mixed_navmesh, grid_floor, two_platforms])
def test_polygons_round_trip(tmp_path, make):
    nm = make()
    glb = read_glb(write_glb(nm, tmp_path / "level.glb"))
    polys, stances = glb.polygons_z_up()
    assert len(polys) == nm.polygon_count
    assert stances.tolist() == nm.polygon_stance.tolist()
    for p, pts in enumerate(polys):
        np.testing.assert_allclose(pts, nm.polygon_vertices(p), **F32)


def test_mesh_layout(tmp_path):
    nm = mixed_navmesh()
    glb = read_glb(write_glb(nm, tmp_path / "level.glb"))
    node = glb.navmesh_node()
    assert node["name"] == "level-navmesh"  # Godot's "-navmesh" import suffix
    assert glb.gltf["meshes"][node["mesh"]]["name"] == "level-navmesh"
    attrs, indices = glb.primitive()
    assert set(attrs) == {"POSITION", "COLOR_0", "_STANCE", "_POLYGON"}
    counts = nm.polygon_vertex_count()
    assert attrs["POSITION"].shape == (counts.sum(), 3)
    assert indices.size == 3 * (counts - 2).sum()
    tris = indices.reshape(-1, 3)
    poly = attrs["_POLYGON"][tris]
    assert (poly == poly[:, :1]).all(), "a triangle mixes polygons"
    # Y-up and front-facing up: every triangle's normal has a positive y.
    pos = attrs["POSITION"].astype(np.float64)
    normal = np.cross(pos[tris[:, 1]] - pos[tris[:, 0]], pos[tris[:, 2]] - pos[tris[:, 0]])
    assert (normal[:, 1] > 0).all()
    # Each polygon's triangles cover its area exactly (fan of a convex polygon).
    tri_area = 0.5 * np.abs(normal[:, 1])
    for p in range(nm.polygon_count):
        v = nm.polygon_vertices(p)[:, :2]
        x, y = v[:, 0], v[:, 1]
        shoelace = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
        assert tri_area[poly[:, 0] == p].sum() == pytest.approx(shoelace, rel=1e-5)
    # Colour constant per polygon and matching its stance.
    stance_of_vertex = nm.polygon_stance[attrs["_POLYGON"].astype(int)]
    np.testing.assert_allclose(attrs["COLOR_0"], np.array(STANCE_COLORS)[stance_of_vertex],
                               **F32)
    acc = glb.gltf["accessors"][glb.gltf["meshes"][0]["primitives"][0]["attributes"]
                                ["POSITION"]]
    np.testing.assert_allclose(acc["min"], pos.min(axis=0), **F32)
    np.testing.assert_allclose(acc["max"], pos.max(axis=0), **F32)


def test_links_in_extras(tmp_path):
    nm = mixed_navmesh()
    extras = read_glb(write_glb(nm, tmp_path / "a.glb")).navmesh_node()["extras"]["navjump"]
    assert extras["up"] == "y" and extras["polygon_count"] == nm.polygon_count
    links = extras["links"]
    assert len(links) == nm.link_count
    for i, link in enumerate(links):
        assert link["kind"] == LINK_KINDS[nm.link_kind[i]]
        np.testing.assert_allclose(link["start"], y_up(nm.link_start[i]))
        np.testing.assert_allclose(link["end"], y_up(nm.link_end[i]))
        assert link["width"] == pytest.approx(np.linalg.norm(np.diff(nm.link_start[i], axis=0)))
        assert link["bidirectional"] == bool(nm.link_bidirectional[i])
        assert link["polygons"] == [nm.link_start_poly[i], nm.link_end_poly[i]]
        assert link["cost"] == nm.link_cost[i]


def test_empty_navmesh_is_a_valid_file(tmp_path):
    glb = read_glb(write_glb(empty_navmesh(), tmp_path / "e.glb"))
    assert "mesh" not in glb.navmesh_node()
    assert glb.polygons_z_up()[0] == []


def test_khronos_validator_finds_no_issue(tmp_path, node_client):
    files = [write_glb(make(), tmp_path / f"{make.__name__}.glb")
             for make in (mixed_navmesh, grid_floor, two_platforms, empty_navmesh)]
    reports = node_client.run("validate_gltf.mjs", *files)
    for report in reports:
        issues = report["issues"]
        assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, report
    assert reports[0]["info"]["totalTriangleCount"] == \
        (mixed_navmesh().polygon_vertex_count() - 2).sum()


# ----------------------------------------------------------------------- bad files
def _split(data: bytes):
    json_len = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + json_len]), data[20 + json_len:]


def _join(gltf: dict, rest: bytes) -> bytes:
    js = json.dumps(gltf).encode()
    js += b" " * (-len(js) % 4)
    body = struct.pack("<II", len(js), 0x4E4F534A) + js + rest
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body


def _corrupt(data: bytes, case: str) -> bytes:
    gltf, rest = _split(data)
    if case == "magic":
        return b"GLTF" + data[4:]
    if case == "length":
        return data + b"\0\0\0\0"
    if case == "truncated":
        cut = data[:-16]
        return cut[:8] + struct.pack("<I", len(cut)) + cut[12:]
    if case == "version":
        return data[:4] + struct.pack("<I", 1) + data[8:]
    if case == "accessor":
        gltf["accessors"][0]["count"] += 1
    elif case == "view":
        gltf["bufferViews"][1]["byteLength"] = 10 ** 6
    elif case == "json":
        js = b"{not json" + b" " * 3
        body = struct.pack("<II", len(js), 0x4E4F534A) + js + rest
        return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body
    return _join(gltf, rest)


BAD = {"magic": "no 'glTF' magic", "length": "header says", "truncated": "runs past the end",
       "version": "version 1", "accessor": "accessor 0 .* reads past the end",
       "view": "bufferView 1 .* lies outside buffer 0", "json": "not valid JSON"}


@pytest.mark.parametrize("case", sorted(BAD))
def test_corrupt_files_are_rejected(tmp_path, case):
    good = write_glb(mixed_navmesh(), tmp_path / "good.glb").read_bytes()
    read_glb(tmp_path / "good.glb")
    bad = tmp_path / f"{case}.glb"
    bad.write_bytes(_corrupt(good, case))
    with pytest.raises(ValueError, match=BAD[case]) as info:
        read_glb(bad)
    assert str(bad) in str(info.value)
