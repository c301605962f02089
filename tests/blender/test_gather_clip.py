"""Bake bounds, without Blender: triangles clipped against an oriented box (gather.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blender_navjump.blender.gather import (
    GatherResult,
    check_box,
    clip_gathered,
    clip_triangles_to_box,
)


def box_matrix(centre=(0, 0, 0), half=(1, 1, 1), angle_deg=0.0):
    a = np.radians(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    m = np.eye(4)
    m[:3, :3] = rot @ np.diag(half)
    m[:3, 3] = centre
    return m


def local(points, box):
    inv = np.linalg.inv(box)
    return np.asarray(points) @ inv[:3, :3].T + inv[:3, 3]


def area(vertices, triangles):
    t = np.asarray(vertices)[np.asarray(triangles)]
    return 0.5 * np.linalg.norm(np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), axis=1).sum()


def test_a_floor_crossing_a_rotated_box_is_cut_at_its_faces():
    floor_v = np.array([[-10, -10, 0], [10, -10, 0], [10, 10, 0], [-10, 10, 0]], float)
    floor_t = np.array([[0, 1, 2], [0, 2, 3]])
    box = box_matrix((1.0, 2.0, 0.5), (3.0, 2.0, 1.0), 30.0)
    out = clip_triangles_to_box(floor_v, floor_t, box)
    # every point inside, the cut area is the box's footprint (6 x 4 m), and the cut
    # reaches the box's side faces
    p = local(out.vertices, box)
    assert np.abs(p).max() <= 1 + 1e-9
    assert area(out.vertices, out.triangles) == pytest.approx(24.0)
    assert np.isclose(np.abs(p[:, 0]), 1.0).any() and np.isclose(np.abs(p[:, 1]), 1.0).any()
    assert set(out.source.tolist()) == {0, 1}


def test_triangles_inside_stay_as_they_are_and_outside_go():
    v = np.array([[0, 0, 0], [0.5, 0, 0], [0, 0.5, 0],       # inside
                  [5, 5, 0], [6, 5, 0], [5, 6, 0]], float)    # outside
    out = clip_triangles_to_box(v, np.array([[0, 1, 2], [3, 4, 5]]), box_matrix())
    assert out.source.tolist() == [0]
    np.testing.assert_array_equal(out.vertices[out.triangles[0]], v[:3])
    # a triangle around the box but touching no face's inside: nothing of it is inside
    big = np.array([[3, -3, 0], [3, 3, 0], [9, 0, 0]], float)
    assert clip_triangles_to_box(big, np.array([[0, 1, 2]]), box_matrix()).triangles.size == 0


def test_a_box_with_no_volume_is_refused_by_name():
    with pytest.raises(ValueError, match=r"'Bounds Cube' has no volume.*0 m"):
        check_box(box_matrix(half=(2, 2, 0)), "Bounds Cube")
    flat = box_matrix(half=(1, 1, 1))
    flat[:3, 2] = flat[:3, 0]  # z axis along x: a box squashed into a plane
    with pytest.raises(ValueError, match="flat"):
        check_box(flat, "Skewed")
    check_box(box_matrix(half=(0.01, 5, 5)), "thin but fine")


def test_object_counts_and_walkable_flags_follow_the_clip():
    v = np.array([[0, 0, 0], [0.5, 0, 0], [0, 0.5, 0], [5, 5, 0], [6, 5, 0], [5, 6, 0],
                  [-2, -0.2, 0.1], [2, -0.2, 0.1], [0, 0.5, 0.1]], float)
    t = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]], np.int32)
    g = GatherResult(v, t, np.array([True, True, False]), ["A", "B"], [2, 1])
    c = clip_gathered(g, box_matrix())
    assert c.object_triangle_counts[0] == 1 and c.object_triangle_counts[1] >= 1
    assert c.object_names == ["A", "B"]
    sl = c.object_slices()
    assert c.walkable[sl["A"]].all() and not c.walkable[sl["B"]].any()
    assert c.triangle_count == sum(c.object_triangle_counts)


coord = st.floats(-4, 4, allow_nan=False)
triangle = st.lists(st.tuples(coord, coord, coord), min_size=3, max_size=3)


@settings(max_examples=60, deadline=None)
@given(tris=st.lists(triangle, min_size=1, max_size=6), angle=st.floats(0, 90),
       cut=st.floats(-0.9, 0.9))
def test_clipping_keeps_inside_and_splits_additively(tris, angle, cut):
    v = np.array(tris, float).reshape(-1, 3)
    t = np.arange(v.shape[0]).reshape(-1, 3)
    box = box_matrix((0.3, -0.2, 0.1), (2.0, 1.5, 1.0), angle)
    whole = clip_triangles_to_box(v, t, box)
    assert np.abs(local(whole.vertices, box)).max(initial=0) <= 1 + 1e-9
    # output triangles lie in the plane of the triangle they come from
    src = v[t[whole.source]]
    normal = np.cross(src[:, 1] - src[:, 0], src[:, 2] - src[:, 0])
    off = np.einsum("tij,tj->ti", whole.vertices[whole.triangles] - src[:, :1], normal)
    assert np.abs(off).max(initial=0) <= 1e-6 * max(1.0, np.abs(normal).max(initial=0))
    # the box cut in two along its local x at ``cut``: the halves' areas add up
    lo = box @ np.array([[(cut + 1) / 2, 0, 0, (cut - 1) / 2], [0, 1, 0, 0], [0, 0, 1, 0],
                         [0, 0, 0, 1]])
    hi = box @ np.array([[(1 - cut) / 2, 0, 0, (cut + 1) / 2], [0, 1, 0, 0], [0, 0, 1, 0],
                         [0, 0, 0, 1]])
    parts = sum(area(c.vertices, c.triangles) for c in (clip_triangles_to_box(v, t, lo),
                                                         clip_triangles_to_box(v, t, hi)))
    assert parts == pytest.approx(area(whole.vertices, whole.triangles), rel=1e-9, abs=1e-9)
    assert area(whole.vertices, whole.triangles) <= area(v, t) + 1e-9
