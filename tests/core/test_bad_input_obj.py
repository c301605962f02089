"""Issue 12, OBJ input: whitespace, short faces, files that are not files, wrong up axis."""

import os
import threading

import numpy as np
import pytest
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core.objio import read_obj, read_obj_scene, up_axis_warning
from blender_navjump.export.obj import read_obj_polygons

SQUARE = "v 0 0 0\nv 4 0 0\nv 4 4 0\nv 0 4 0\nf 1 2 3 4\n"


def write(tmp_path, text, name="s.obj"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("text", [
    SQUARE.replace(" ", "\t"),  # tab-separated
    "".join("   " + line + "\n" for line in SQUARE.splitlines()),  # indented
    "".join("\t" + line.replace(" ", " \t ") + "  \r\n" for line in SQUARE.splitlines()),
    "v 0 0 \\\n 0\nv 4 0 0\nv 4 4 0\nv 0 4 0\nf 1 2 \\\n3 4\n",  # continued lines
])
def test_whitespace_variants_read_the_same(tmp_path, text):
    v, t = read_obj(write(tmp_path, text))
    ref_v, ref_t = read_obj(write(tmp_path, SQUARE, "ref.obj"))
    np.testing.assert_array_equal(v, ref_v)
    np.testing.assert_array_equal(t, ref_t)
    assert t.shape == (2, 3)
    back = read_obj_polygons(write(tmp_path, text, "p.obj"))
    assert [p.tolist() for p in back.polygons] == [[0, 1, 2, 3]]


@pytest.mark.parametrize("face", ["f", "f 1", "f 1 2", "\tf 1\t2"])
def test_faces_with_fewer_than_three_vertices_are_refused(tmp_path, face):
    path = write(tmp_path, SQUARE + face + "\n")
    with pytest.raises(ValueError, match=rf"{path}:6: a face needs at least 3 vertices"):
        read_obj(path)
    with pytest.raises(ValueError, match=rf"{path}:6: a face needs at least 3 vertices"):
        read_obj_polygons(path)


@pytest.mark.parametrize("line", ["v 1 2 nan", "v inf 0 0", "v 1e999 0 0"])
def test_non_finite_vertices_name_the_line(tmp_path, line):
    path = write(tmp_path, line + "\n" + SQUARE)
    with pytest.raises(ValueError, match=rf"{path}:1: vertex 1 has a NaN or infinite"):
        read_obj(path)


def _with_timeout(fn, seconds=20.0):
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["error"] = exc

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(seconds)
    assert not th.is_alive(), "the reader blocked"
    return box


@pytest.mark.parametrize("reader", [read_obj, read_obj_polygons])
def test_fifo_device_and_folder_are_refused_without_blocking(tmp_path, reader):
    fifo = tmp_path / "pipe.obj"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero", tmp_path):
        box = _with_timeout(lambda p=path: reader(p))
        assert isinstance(box.get("error"), ValueError), box
        assert "not a regular file" in str(box["error"]) and str(path) in str(box["error"])


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"missing\.obj: cannot open \(No such file"):
        read_obj(tmp_path / "missing.obj")


def test_huge_file_is_refused_before_reading(tmp_path):
    from blender_navjump.core.objio import MAX_OBJ_BYTES

    path = tmp_path / "huge.obj"
    with open(path, "wb") as fh:  # sparse: takes no disk space
        fh.write(SQUARE.encode())
        fh.truncate(MAX_OBJ_BYTES + 1)
    box = _with_timeout(lambda: read_obj(path), 5.0)
    assert isinstance(box.get("error"), ValueError), box
    assert "larger than the 4 GiB an OBJ may be" in str(box["error"])


# ----------------------------------------------------------------------- up axis
def _level(up: str) -> str:
    """A small level (floor, two walls, a box) written with the given up axis."""
    s = Scene().floor(0, 0, 20, 12).box(4, 4, 0, 6, 6, 1)
    s.quad((0, 0, 0), (20, 0, 0), (20, 0, 3), (0, 0, 3))
    s.quad((0, 0, 0), (0, 12, 0), (0, 12, 3), (0, 0, 3))
    v, t = s.arrays()
    if up == "y":  # Z-up (x, y, z) -> Y-up (x, z, -y)
        v = np.stack([v[:, 0], v[:, 2], -v[:, 1]], axis=1)
    lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in v.tolist()]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in t.tolist()]
    return "\n".join(lines) + "\n"


def test_y_up_file_read_as_z_up_gets_a_hint(tmp_path):
    path = write(tmp_path, _level("y"))
    scene = read_obj_scene(path, up="z")
    assert len(scene.warnings) == 1
    msg = scene.warnings[0]
    assert msg.startswith(f"{path}: ") and "faces +-Y" in msg and "--up y" in msg
    # read right, no hint, and the bake finds the floor
    right = read_obj_scene(path, up="y")
    assert right.warnings == []
    nm = bake(right.vertices, right.triangles)
    assert nm.surface_area() > 150
    # read wrong, the bake puts its polygons on the walls: the hint is what saves the user
    wrong = bake(scene.vertices, scene.triangles)
    assert wrong.surface_area() < 100


def test_z_up_file_read_as_y_up_gets_the_opposite_hint(tmp_path):
    path = write(tmp_path, _level("z"))
    assert read_obj_scene(path, up="z").warnings == []
    (msg,) = read_obj_scene(path, up="y").warnings
    assert "--up z" in msg


def test_no_hint_for_a_level_with_walls_and_for_degenerate_input():
    s = Scene().floor(0, 0, 10, 10)
    for k in range(4):  # tall walls around, still less than half the area
        s.quad((0, 2 * k, 0), (10, 2 * k, 0), (10, 2 * k, 2), (0, 2 * k, 2))
    v, t = s.arrays()
    assert up_axis_warning(v, t) is None
    assert up_axis_warning(np.zeros((3, 3)), np.array([[0, 1, 2]])) is None
    assert up_axis_warning(np.zeros((0, 3)), np.zeros((0, 3), np.int32)) is None
