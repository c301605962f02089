"""Issue 12: invalid navmesh data is refused the same way by every consumer.

Each damage is applied to a valid NavMesh; then the in-memory check, the npz and JSON
loaders, the path CLI and the Detour/OBJ/glTF/JSON exporters must all refuse it with a
message naming the source, the array and the index. Never an answer, a file or a crash.
"""

import dataclasses
import io
import json
import os
import zipfile

import numpy as np
import pytest
from export_navmeshes import bump_square, mixed_navmesh, two_platforms

from blender_navjump.core.navmesh import NavMesh
from blender_navjump.core.navmesh_check import NavMeshError, check_navmesh
from blender_navjump.core.query import find_path
from blender_navjump.export import detour, gltf, navjump_json, obj
from blender_navjump.path_cli import path_command

PATH_ARGS = ["--start", "1", "1", "0", "--goal", "3", "1", "0.2"]


def _copy(nm: NavMesh) -> NavMesh:
    return dataclasses.replace(nm, **{f: getattr(nm, f).copy() for f in nm.array_fields()})


def _set(name, fn):
    def damage(nm):
        arr = getattr(nm, name)
        out = fn(arr)
        setattr(nm, name, arr if out is None else out)
    return damage


def _item(name, index, value):
    def fn(arr):
        arr[index] = value
    return _set(name, fn)


def _move_vertex(dst, src):
    def damage(nm):
        nm.vertices[dst] = nm.vertices[src]
    return damage


def _reverse_polygon(p):
    def damage(nm):
        n = int((nm.polygons[p] >= 0).sum())
        nm.polygons[p, :n] = nm.polygons[p, :n][::-1].copy()
    return damage


def _swap_vertices(p, i, j):
    def damage(nm):
        nm.polygons[p, [i, j]] = nm.polygons[p, [j, i]]
    return damage


def _one_sided_neighbour(nm):
    # polygon 2 forgets polygon 0 across their shared edge; polygon 0 still names 2
    q = np.nonzero(nm.neighbours[2] == 0)[0][0]
    nm.neighbours[2, q] = -1


# name: (damage on mixed_navmesh(), message regex; also valid for the saved files)
DAMAGES = {
    "reversed_winding": (_reverse_polygon(0),
                         r"'polygons'\[0\] is clockwise seen from \+Z"),
    "self_intersecting": (_swap_vertices(0, 1, 2), r"'polygons'\[0\] crosses itself"),
    "duplicated_index": (_item("polygons", (0, 1), 0), r"'polygons'\[0\] .* vertex 0 "
                                                       r"appears twice"),
    "duplicated_position": (_move_vertex(1, 0), r"'polygons'\[0\] has two vertices at the "
                                                r"same place"),
    "not_convex": (_item("vertices", 5, (0.8, 0.8, 0.15)), r"'polygons'\[\d\] is not convex"),
    "boolean_indices": (_set("polygons", lambda a: a >= 0),
                        r"'polygons' must hold whole numbers, got bool"),
    "float_indices": (_set("polygons", lambda a: a.astype(np.float64)),
                      r"'polygons' must hold whole numbers, got float64"),
    "index_out_of_range": (_item("polygons", (1, 2), 40),
                           r"'polygons'\[1\]\[2\] is 40, not a vertex index or -1 \(-1..11\)"),
    "huge_index": (_set("polygons", lambda a: np.where(a == 5, 10**15, a).astype(np.int64)),
                   r"'polygons'\[0\]\[2\] is 1000000000000000, outside"),
    "padding_inside": (_item("polygons", (1, 1), -1), r"'polygons'\[1\] is .* -1 padding"),
    "two_vertices": (_set("polygons", lambda a: np.where(np.arange(6) < 2, a, -1)),
                     r"'polygons'\[0\] has 2 vertices"),
    "nan_vertex": (_item("vertices", (4, 2), np.nan), r"'vertices'\[4\] is .*nan.*NaN or inf"),
    "infinite_vertex": (_item("vertices", (0, 0), -np.inf), r"'vertices'\[0\] .*NaN or inf"),
    "far_vertex": (_item("vertices", (3, 0), 1e300), r"'vertices'\[3\] .* beyond \+-1e\+12"),
    "neighbour_not_adjacent": (_item("neighbours", (0, 0), 3),
                               r"'neighbours'\[0\]\[0\] is polygon 3, but polygon 3 has no "
                               r"edge 1->0"),
    "neighbour_one_sided": (_one_sided_neighbour, r"'neighbours'\[0\]\[\d\] is polygon 2, but"),
    "neighbour_itself": (_item("neighbours", (3, 0), 3), r"'neighbours'\[3\] names polygon 3"),
    "neighbour_out_of_range": (_item("neighbours", (0, 0), 99),
                               r"'neighbours'\[0\]\[0\] is 99, not a polygon index"),
    "neighbour_on_padding": (_item("neighbours", (0, 5), 1),
                             r"'neighbours'\[0\] has a neighbour \(1\) beyond"),
    "stance": (_item("polygon_stance", 2, 7), r"'polygon_stance'\[2\] is 7, not a stance"),
    "short_per_polygon": (_set("polygon_region", lambda a: a[:3]),
                          r"'polygon_region' has 3 rows but there are 4 polygons"),
    "short_detail_meshes": (_set("detail_meshes", lambda a: a[:3]),
                            r"'detail_meshes' has 3 rows; expected one per polygon \(4\)"),
    "short_detail_vertices": (_set("detail_vertices", lambda a: a[:10]),
                              r"'detail_meshes'\[\d\] = .* needs detail vertices up to"),
    "short_detail_triangles": (_set("detail_triangles", lambda a: a[:4]),
                               r"'detail_meshes'\[\d\] = .* needs detail triangles up to"),
    "detail_fewer_vertices": (_item("detail_meshes", (1, 1), 3),
                              r"'detail_meshes'\[1\] = .* polygon 1 has 5 vertices"),
    "detail_not_own_vertex": (_item("detail_vertices", (0, 0), 0.5),
                              r"'detail_vertices'\[0\] should be vertex 0 of polygon 0"),
    "detail_nan": (_item("detail_vertices", (5, 2), np.nan), r"'detail_vertices'\[5\] .*NaN"),
    "detail_triangle_index": (_item("detail_triangles", (0, 1), 9),
                              r"'detail_triangles'\[0\] = .* outside polygon 0's 4 detail"),
    "link_polygon_minus_one": (_item("link_end_poly", 1, -1),
                               r"'link_end_poly'\[1\] is -1, not a polygon index \(0..3\)"),
    "link_polygon_too_big": (_item("link_start_poly", 0, 4),
                             r"'link_start_poly'\[0\] is 4, not a polygon index"),
    "link_negative_cost": (_item("link_cost", 2, -0.5),
                           r"'link_cost'\[2\] is -0.5; it must not be negative"),
    "link_nan_cost": (_item("link_cost", 0, np.nan), r"'link_cost'\[0\] is nan"),
    "link_nan_end": (_item("link_end", (1, 0, 2), np.nan), r"'link_end'\[1\] is .*NaN"),
    "link_kind": (_item("link_kind", 0, 4), r"'link_kind'\[0\] is 4, not a link kind"),
    "link_rows": (_set("link_cost", lambda a: a[:2]),
                  r"'link_cost' has 2 rows but there are 3 links"),
    "link_shape": (_set("link_start", lambda a: a[:, 0, :]),
                   r"'link_start' must be an \(n, 2, 3\) array, got shape \(3, 3\)"),
}
# Damages a JSON document cannot carry (its polygons are unpadded lists of ints; its
# stances and link kinds are names): tested in memory and in npz files only.
NOT_IN_JSON = {"boolean_indices", "float_indices", "huge_index", "padding_inside",
               "two_vertices", "neighbour_on_padding", "stance", "link_kind", "link_shape",
               "short_per_polygon", "link_rows", "short_detail_meshes"}


def damaged(name) -> NavMesh:
    nm = _copy(mixed_navmesh())
    check_navmesh(nm)  # the fixture itself is valid
    DAMAGES[name][0](nm)
    return nm


def _json_doc(nm: NavMesh) -> dict:
    """The NavJump JSON document of ``nm`` without any check (to write damaged files)."""
    rows = [[int(i) for i in r if i >= 0] for r in nm.polygons]
    return {
        "format": "navjump", "version": 1, "up": "z", "settings": nm.settings,
        "polygon_max_vertices": int(nm.polygons.shape[1]),
        "vertices": nm.vertices.tolist(), "polygons": rows,
        "neighbours": [nm.neighbours[p, :len(r)].tolist() for p, r in enumerate(rows)],
        "polygon_area": nm.polygon_area.tolist(), "polygon_region": nm.polygon_region.tolist(),
        "polygon_stance": [["stand", "crouch", "prone"][s] for s in nm.polygon_stance],
        "detail": {"meshes": nm.detail_meshes.tolist(),
                   "vertices": nm.detail_vertices.tolist(),
                   "triangles": nm.detail_triangles.tolist()},
        "links": [{"kind": ["drop", "jump_across", "jump_up"][int(nm.link_kind[i])],
                   "start": nm.link_start[i].tolist(), "end": nm.link_end[i].tolist(),
                   "bidirectional": bool(nm.link_bidirectional[i]),
                   "start_polygon": int(nm.link_start_poly[i]),
                   "end_polygon": int(nm.link_end_poly[i]), "apex": float(nm.link_apex[i]),
                   "length": float(nm.link_length[i]), "cost": float(nm.link_cost[i])}
                  for i in range(nm.link_count)],
        "stats": {},
    }


def run_path(capsys, path):
    code = path_command([str(path), *PATH_ARGS])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", sorted(DAMAGES))
def test_damage_is_refused_in_memory_and_by_every_consumer(tmp_path, name):
    nm = damaged(name)
    pattern = DAMAGES[name][1]
    with pytest.raises(NavMeshError, match=pattern):
        check_navmesh(nm, "mine")
    with pytest.raises(ValueError, match=pattern):
        find_path(nm, (1, 1, 0), (3, 1, 0.2))
    writers = {"nav.detour.bin": detour.write_detour, "nav.obj": obj.write_obj,
               "nav.glb": gltf.write_glb, "nav.json": navjump_json.write_json}
    for file_name, write in writers.items():
        with pytest.raises(ValueError, match=pattern):
            write(nm, tmp_path / file_name)
    assert sorted(os.listdir(tmp_path)) == []  # nothing written, no temporaries left


@pytest.mark.parametrize("name", sorted(DAMAGES))
def test_damaged_npz_is_refused_by_load_and_path(tmp_path, capsys, name):
    path = tmp_path / "bad.npz"
    damaged(name).save(path)
    pattern = DAMAGES[name][1]
    with pytest.raises(ValueError, match=f"{path}: " + pattern):
        NavMesh.load(path)
    code, out, err = run_path(capsys, path)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {path}: ") and err.count("\n") == 1


@pytest.mark.parametrize("name", sorted(set(DAMAGES) - NOT_IN_JSON))
def test_damaged_json_is_refused_by_read_and_path(tmp_path, capsys, name):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_json_doc(damaged(name))))
    pattern = DAMAGES[name][1]
    with pytest.raises(ValueError, match=f"{path}: " + pattern):
        navjump_json.read_json(path)
    code, out, err = run_path(capsys, path)
    assert (code, out) == (2, "") and err.startswith(f"error: {path}: ")


def test_undamaged_fixtures_load_and_answer(tmp_path, capsys):
    nm = mixed_navmesh()
    for path in (tmp_path / "ok.npz", tmp_path / "ok.json"):
        if path.suffix == ".npz":
            nm.save(path)
        else:
            navjump_json.write_json(nm, path)
        code, out, err = run_path(capsys, path)
        assert code == 0, err
        assert json.loads(out)["found"] is True


# ------------------------------------------------------------------------ npz files
def _npz_with(tmp_path, drop=(), meta=None, extra=None):
    nm = mixed_navmesh()
    arrays = {f: getattr(nm, f) for f in nm.array_fields() if f not in drop}
    arrays.update(extra or {})
    if meta is None:
        meta = {"format": "navjump-navmesh", "version": 1, "settings": nm.settings,
                "stats": {}}
    text = meta if isinstance(meta, str) else json.dumps(meta)
    path = tmp_path / "x.npz"
    np.savez(path, __meta__=np.frombuffer(text.encode(), np.uint8), **arrays)
    return path


@pytest.mark.parametrize("kwargs, message", [
    ({"drop": ("polygons",)}, r"array\(s\) missing: polygons"),
    ({"drop": ("vertices", "detail_meshes")}, "missing: vertices, detail_meshes"),
    ({"drop": ("link_cost",)}, r"link array\(s\) missing: link_cost"),
    ({"drop": ("__meta__",), "meta": "{}"}, "not a NavJump navmesh file"),
    ({"meta": "not json"}, "not a NavJump navmesh file"),
    ({"meta": "[1, 2]"}, "not a NavJump navmesh file"),
    ({"meta": {"format": "navjump-navmesh", "version": 2}}, "navmesh version 2 is not"),
    ({"meta": {"format": "navjump-navmesh", "version": 1, "settings": [], "stats": {}}},
     "the metadata has no 'settings' dictionary"),
    ({"meta": {"format": "navjump-navmesh", "version": 1, "settings": {}}},
     "no 'stats' dictionary"),
    ({"meta": {"format": "other", "version": 1}}, "not a NavJump navmesh file"),
    ({"extra": {"vertices": np.array([["a", "b", "c"]])}},
     "'vertices' must hold numbers, got str"),
    ({"extra": {"polygons": np.zeros((4, 70), np.int32)}},
     r"'polygons' must be a \(polygons, 3..64\) array"),
])
def test_npz_structure_errors(tmp_path, capsys, kwargs, message):
    path = _npz_with(tmp_path, **kwargs)
    if "__meta__" in kwargs.get("drop", ()):
        with zipfile.ZipFile(path, "w") as zf:  # an npz without the metadata member
            zf.writestr("vertices.npy", b"")
    with pytest.raises(ValueError, match=message):
        NavMesh.load(path)
    code, out, err = run_path(capsys, path)
    assert (code, out) == (2, "") and str(path) in err


def test_npz_with_pickled_objects_truncated_or_not_a_file(tmp_path, capsys):
    nm = mixed_navmesh()
    path = tmp_path / "obj.npz"
    buf = io.BytesIO()
    np.savez(buf, __meta__=np.frombuffer(b'{"format": "navjump-navmesh"}', np.uint8),
             vertices=np.array([object()], dtype=object))
    path.write_bytes(buf.getvalue())
    with pytest.raises(ValueError, match="not a NavJump navmesh file"):
        NavMesh.load(path)
    good = tmp_path / "good.npz"
    nm.save(good)
    data = good.read_bytes()
    for cut in (10, len(data) // 2, len(data) - 30):
        trunc = tmp_path / f"cut{cut}.npz"
        trunc.write_bytes(data[:cut])
        with pytest.raises(ValueError, match=str(trunc)):
            NavMesh.load(trunc)
        assert run_path(capsys, trunc)[0] == 2
    # a damaged compressed member (flipped bytes in the middle of the deflate stream)
    flipped = bytearray(data)
    for k in range(len(data) // 3, len(data) // 3 + 64):
        flipped[k] ^= 0x5A
    bad = tmp_path / "flipped.npz"
    bad.write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match=str(bad)):
        NavMesh.load(bad)
    # zip flags found by the fuzz run: "encrypted" (bit 0) and "compressed patched data"
    # (bit 5) made zipfile raise RuntimeError / NotImplementedError
    for bit in (0x01, 0x20):
        flagged = bytearray(data)
        at = flagged.find(b"PK\x01\x02")  # first central directory entry: flags at +8
        flagged[at + 8] |= bit
        at = flagged.find(b"PK\x03\x04")  # first local header: flags at +6
        flagged[at + 6] |= bit
        bad = tmp_path / f"flag{bit}.npz"
        bad.write_bytes(bytes(flagged))
        with pytest.raises(ValueError, match=f"{bad}: not a NavJump navmesh file"):
            NavMesh.load(bad)
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        NavMesh.load(fifo)  # must not block
    assert run_path(capsys, tmp_path)[0] == 2  # a folder


# ----------------------------------------------------------------------- JSON files
def _json_file(tmp_path, doc_or_text):
    path = tmp_path / "x.json"
    path.write_text(doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text))
    return path


def test_deeply_nested_json(tmp_path, capsys):
    path = _json_file(tmp_path, "[" * 200_000 + "]" * 200_000)
    with pytest.raises(ValueError, match="nested too deeply"):
        navjump_json.read_json(path)
    assert run_path(capsys, path)[0] == 2


@pytest.mark.parametrize("change, message", [
    (lambda d: d.__setitem__("polygon_max_vertices", 10**9),
     r"'polygon_max_vertices' must be a whole number in 3..64, got 1000000000"),
    (lambda d: d["polygons"][0].__setitem__(0, 10**20),
     r"'polygons' holds 100000000000000000000, too large a number"),
    (lambda d: d["polygons"][0].__setitem__(0, 1e20), r"'polygons' must hold whole numbers"),
    (lambda d: d["polygons"][0].__setitem__(0, 2**40),
     r"'polygons'\[0\] is 1099511627776, outside -2147483648..2147483647"),
    (lambda d: d["polygons"][0].__setitem__(1, True), r"'polygons' holds true \(item 1\)"),
    (lambda d: d["neighbours"][1].__setitem__(0, False), r"'neighbours' holds false"),
    (lambda d: d["detail"]["meshes"][0].__setitem__(3, 10**12),
     r"'detail.meshes'\[0\] is \[0, 4, 0, 1000000000000\], outside"),
    (lambda d: d["detail"]["meshes"][0].__setitem__(1, 2**30),
     "needs detail vertices up to 1073741824"),
    (lambda d: d.__setitem__("version", True), "version True is not supported"),
    (lambda d: d.__setitem__("polygon_region", 1), "'polygon_region' must be a list, got 1"),
    (lambda d: d.__setitem__("vertices", 2.5), "'vertices' must be a list, got 2.5"),
    (lambda d: d.__setitem__("format", "x" * 10_000), r"format is 'xxxx.*\.\.\., expected"),
])
def test_json_counts_and_values(tmp_path, capsys, change, message):
    doc = _json_doc(mixed_navmesh())
    change(doc)
    path = _json_file(tmp_path, doc)
    with pytest.raises(ValueError, match=message) as e:
        navjump_json.read_json(path)
    assert "-9223372036854775808" not in str(e.value)
    assert len(str(e.value)) < 400
    assert run_path(capsys, path)[0] == 2


def test_json_fifo_and_folder_do_not_block(tmp_path, capsys):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        navjump_json.read_json(fifo)
    code, out, err = run_path(capsys, fifo)
    assert (code, out) == (2, "") and "not a regular file" in err


# ---------------------------------------------------------------------- Detour only
@pytest.mark.parametrize("radius", [1e-7, 1e-300, 5e-324])
def test_detour_tiny_agent_radius_is_refused_before_allocating(tmp_path, radius):
    nm = two_platforms(width=2.0)
    nm.settings = dict(nm.settings, agent_radius=radius)
    with pytest.raises(ValueError, match=r"off-mesh connections .* at most 32767: bake with "
                                         r"a larger agent_radius"):
        detour.write_detour(nm, tmp_path / "x.detour.bin")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("radius", ["wide", float("nan"), -1.0, float("inf")])
def test_detour_bad_agent_radius_setting(tmp_path, radius):
    nm = two_platforms()
    nm.settings = dict(nm.settings, agent_radius=radius, cell_size=radius)
    with pytest.raises(ValueError, match="agent_radius"):
        detour.write_detour(nm, tmp_path / "x.detour.bin")


def test_detour_small_radius_still_splits_wide_links():
    nm = two_platforms(width=2.0)
    nm.settings = dict(nm.settings, agent_radius=0.01)
    cons = detour.offmesh_connections(nm)
    assert cons.count == 100  # 2 m at one diameter (2 cm) apart


def test_detour_fan_only_when_no_detail_at_all():
    """No detail mesh at all: fans (documented). A detail array shorter than the polygons
    used to be replaced with fans silently; now it is refused."""
    nm = bump_square()
    nm.detail_meshes = np.zeros((0, 4), np.int32)
    tile = detour.build_detour_tile(nm)
    assert tile.detail_tris.shape[0] == 2
    # no detail triangles either (found by the fuzz run: an IndexError)
    nm.detail_triangles = np.zeros((0, 4), np.int32)
    nm.detail_vertices = np.zeros((0, 3))
    tile = detour.build_detour_tile(nm)
    assert tile.detail_tris[:, :3].tolist() == [[0, 1, 2], [0, 2, 3]]
    nm = _copy(mixed_navmesh())
    nm.detail_meshes = nm.detail_meshes[:2]
    with pytest.raises(ValueError, match="'detail_meshes' has 2 rows; expected one per"):
        detour.build_detour_tile(nm)


# ------------------------------------------------------------ far from the origin
@pytest.mark.parametrize("offset", [3e5, 1e9])
def test_float32_formats_refuse_a_level_far_from_the_origin(tmp_path, offset):
    nm = _copy(mixed_navmesh())
    for name in ("vertices", "detail_vertices"):
        getattr(nm, name)[:, 0] += offset
    nm.link_start[..., 0] += offset
    nm.link_end[..., 0] += offset
    check_navmesh(nm)  # valid data: only float32 cannot hold it
    for write, fmt in ((detour.write_detour, "Detour"), (gltf.write_glb, "glTF")):
        with pytest.raises(ValueError, match=rf"beyond the 262144 m {fmt} can hold .* step "
                                             r"by"):
            write(nm, tmp_path / "x.bin")
    assert list(tmp_path.iterdir()) == []
    # OBJ and JSON are text: they keep the level, to well under a millimetre
    back = obj.read_obj_polygons(obj.write_obj(nm, tmp_path / "x.obj"))
    n = nm.vertices.shape[0]  # then the link points
    np.testing.assert_allclose(back.vertices[:n], nm.vertices, rtol=0, atol=1e-4)
    assert navjump_json.read_json(navjump_json.write_json(nm, tmp_path / "x.json")).equals(nm)


def test_unchecked_load_for_a_viewer_still_guards_queries_and_exports(tmp_path):
    """NavMesh.load(check=False) (the Blender overlay shows what it can of a damaged bake)
    keeps the structural checks, and the consumers still refuse the damaged data."""
    path = tmp_path / "d.npz"
    damaged("link_polygon_minus_one").save(path)
    nm = NavMesh.load(path, check=False)
    assert nm.link_end_poly[1] == -1
    with pytest.raises(ValueError, match=r"'link_end_poly'\[1\] is -1"):
        find_path(nm, (1, 1, 0), (3, 1, 0.2))
    with pytest.raises(ValueError, match=r"'link_end_poly'\[1\] is -1"):
        detour.write_detour(nm, tmp_path / "x.detour.bin")
    (tmp_path / "m.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a NavJump navmesh file"):
        NavMesh.load(tmp_path / "m.npz", check=False)
