import json
import pathlib

import numpy as np
import pytest
from export_navmeshes import bump_square, grid_floor, l_corridor, mixed_navmesh, two_platforms
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blender_navjump.core.navmesh import LINK_KINDS, STANCE_NAMES, empty_navmesh
from blender_navjump.export.navjump_json import (
    FORMAT,
    VERSION,
    navmesh_to_json_dict,
    read_json,
    write_json,
)

NAVMESHES = {"grid": grid_floor, "l": l_corridor, "platforms": two_platforms,
             "bump": bump_square, "mixed": mixed_navmesh, "empty": empty_navmesh}


def assert_identical(a, b):
    for name in a.array_fields():
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert x.shape == y.shape, name
        # Bit patterns, so -0.0 vs 0.0 or a last-bit float difference would show.
        assert x.tobytes() == y.tobytes(), name
    assert a.settings == b.settings
    assert a.stats == b.stats


@pytest.mark.parametrize("name", sorted(NAVMESHES))
def test_round_trip_is_exact(tmp_path, name):
    nm = NAVMESHES[name]()
    path = write_json(nm, tmp_path / "nav.json")
    back = read_json(path)
    assert_identical(nm, back)
    assert nm.equals(back)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=9,
                max_size=30))
def test_any_finite_float_survives_bit_exactly(tmp_path, values):
    nm = grid_floor(nx=1, ny=1)
    # extra vertices no polygon uses: any finite float may sit there (a polygon's vertices
    # must make a valid polygon and lie within +-1e12 m)
    extra = np.array((values * 2)[:12], np.float64).reshape(4, 3)
    nm.vertices = np.concatenate([nm.vertices, extra])
    back = read_json(write_json(nm, tmp_path / "f.json"))
    assert back.vertices.view(np.uint64).tolist() == nm.vertices.view(np.uint64).tolist()


def test_document_follows_the_schema(tmp_path):
    nm = mixed_navmesh()
    doc = json.loads(write_json(nm, tmp_path / "m.json").read_text())
    assert doc["format"] == FORMAT == "navjump" and doc["version"] == VERSION == 1
    assert doc["up"] == "z"
    # Polygons unpadded, one neighbour per edge, stance names.
    for p, row in enumerate(doc["polygons"]):
        assert row == [int(i) for i in nm.polygons[p] if i >= 0]
        assert len(doc["neighbours"][p]) == len(row)
    assert doc["polygon_stance"] == [STANCE_NAMES[s] for s in nm.polygon_stance]
    assert set(doc["detail"]) == {"meshes", "vertices", "triangles"}
    assert [lk["kind"] for lk in doc["links"]] == [LINK_KINDS[k] for k in nm.link_kind]
    assert set(doc["links"][0]) == {"kind", "start", "end", "bidirectional", "start_polygon",
                                    "end_polygon", "apex", "length", "cost", "area"}
    assert [lk["area"] for lk in doc["links"]] == [LINK_KINDS[k] for k in nm.link_kind]
    assert doc["links"][1]["bidirectional"] is True
    assert doc["stats"]["nested"] == [1, 2.5, "x"]
    assert navmesh_to_json_dict(nm)["vertices"] == doc["vertices"]


def test_numpy_values_in_stats_are_written_as_plain_json(tmp_path):
    nm = grid_floor()
    nm.stats = {"count": np.int64(3), "time": np.float32(0.5), "flag": np.bool_(True),
                "arr": np.arange(3)}
    back = read_json(write_json(nm, tmp_path / "s.json"))
    assert back.stats == {"count": 3, "time": 0.5, "flag": True, "arr": [0, 1, 2]}


# ----------------------------------------------------------------------- bad input
def _mutated(tmp_path, change):
    doc = navmesh_to_json_dict(mixed_navmesh())
    change(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    return path


def _set(key, value):
    def change(doc):
        doc[key] = value
    return change


BAD_DOCS = {
    "format": (_set("format", "something-else"), "not a NavJump JSON file"),
    "version": (_set("version", 99), "version 99 is not supported"),
    "up": (_set("up", "y"), "'up' is 'y'"),
    "missing": (lambda d: d.pop("polygon_region"), "missing key.*polygon_region"),
    "short_area": (lambda d: d["polygon_area"].pop(), "'polygon_area' has 3 entries"),
    "neighbour_row": (lambda d: d["neighbours"][1].pop(), r"'neighbours'\[1\] must have"),
    "neighbour_rows": (lambda d: d["neighbours"].pop(), "'neighbours' has 3 rows"),
    "vertex_index": (lambda d: d["polygons"][0].__setitem__(0, 999),
                     r"'polygons'\[0\]\[0\] is 999, not a vertex index"),
    "neighbour_index": (lambda d: d["neighbours"][0].__setitem__(0, 7),
                        r"'neighbours'\[0\]\[0\] is 7, not a polygon index"),
    "float_index": (lambda d: d["polygons"][0].__setitem__(0, 1.5), "whole numbers"),
    "stance": (lambda d: d["polygon_stance"].__setitem__(0, "sit"), "'sit'"),
    "link_kind": (lambda d: d["links"][0].__setitem__("kind", "fly"), "'fly'"),
    "link_key": (lambda d: d["links"][0].pop("cost"), r"'links'\[0\] is missing.*cost"),
    "link_shape": (lambda d: d["links"][0].__setitem__("start", [[0, 0, 0]]), "start"),
    "vertex_shape": (lambda d: d["vertices"].__setitem__(0, [1, 2]), "vertices"),
    "detail_rows": (lambda d: d["detail"]["meshes"].pop(), "'detail.meshes' has 3 rows"),
    "detail_range": (lambda d: d["detail"]["meshes"][0].__setitem__(0, 10_000),
                     "needs detail vertices up to 10004"),
    "detail_tri": (lambda d: d["detail"]["triangles"][0].__setitem__(0, 40),
                   "uses a vertex outside polygon 0's"),
    "area_range": (lambda d: d["polygon_area"].__setitem__(0, 300), "outside 0..255"),
    "not_object": (lambda d: d.clear(), "format is None"),
}


@pytest.mark.parametrize("case", sorted(BAD_DOCS))
def test_bad_documents_are_rejected_with_the_file_and_the_problem(tmp_path, case):
    change, message = BAD_DOCS[case]
    path = _mutated(tmp_path, change)
    with pytest.raises(ValueError, match=message) as info:
        read_json(path)
    assert str(path) in str(info.value)


def test_truncated_and_binary_files_are_rejected(tmp_path):
    good = write_json(mixed_navmesh(), tmp_path / "good.json").read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(good[: len(good) // 2])
    with pytest.raises(ValueError, match="not valid JSON") as info:
        read_json(cut)
    assert str(cut) in str(info.value)
    blob = tmp_path / "blob.json"
    blob.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match=str(blob)):
        read_json(blob)
    top = tmp_path / "list.json"
    top.write_text("[1, 2]")
    with pytest.raises(ValueError, match="top level is not an object"):
        read_json(top)


# ---------------------------------------------------------------------- atomicity
def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_failed_write_leaves_no_file_and_no_temporary(tmp_path):
    nm = grid_floor()
    nm.stats = {"ok": 1, "bad": object()}  # fails while streaming, after bytes are written
    target = tmp_path / "nav.json"
    with pytest.raises(ValueError, match="cannot write NavJump JSON"):
        write_json(nm, target)
    assert not target.exists()
    assert _leftovers(tmp_path) == []


def test_failed_write_keeps_the_previous_file(tmp_path):
    target = write_json(l_corridor(), tmp_path / "nav.json")
    before = target.read_bytes()
    nm = grid_floor()
    nm.vertices = nm.vertices.copy()
    nm.vertices[3, 2] = np.nan  # strict JSON has no NaN
    with pytest.raises(ValueError, match=str(target)):
        write_json(nm, target)
    assert target.read_bytes() == before
    assert _leftovers(tmp_path) == []
    assert read_json(target).equals(l_corridor())


def test_padding_inside_a_polygon_is_refused(tmp_path):
    nm = grid_floor()
    nm.polygons = nm.polygons.copy()
    nm.polygons[2, :] = [0, -1, 1, 6, -1, -1]
    with pytest.raises(ValueError, match=r"'polygons'\[2\] is .*-1 padding before"):
        write_json(nm, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


def test_example_in_the_schema_doc_reads(tmp_path):
    doc = pathlib.Path(__file__).resolve().parents[2] / "docs" / "navjump-json.md"
    text = doc.read_text()
    example = text.split("```json", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.json"
    path.write_text(example)
    nm = read_json(path)
    assert nm.polygon_count == 2 and nm.link_count == 1
    assert nm.polygon_stance.tolist() == [STANCE_NAMES.index("stand"),
                                          STANCE_NAMES.index("crouch")]
    # The documented neighbours are the shared edge, seen from both sides.
    assert nm.neighbours[0, 1] == 1 and nm.neighbours[1, 3] == 0
    assert read_json(write_json(nm, tmp_path / "again.json")).equals(nm)
