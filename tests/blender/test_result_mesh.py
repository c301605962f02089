"""``blender/result_mesh.py``: the arrays of the stored result meshes, without Blender."""

import numpy as np
import pytest
from navmesh_builders import navmesh_from_polygons, with_links

from blender_navjump.blender import result_mesh
from blender_navjump.core.kinds import LINK_KIND_AREAS
from blender_navjump.core.navmesh import empty_navmesh


def _level():
    # a triangle, a quad and a pentagon: faces of different sizes in one mesh
    verts = [(0, 0, 0), (2, 0, 0), (0, 2, 0), (3, 0, 0), (5, 0, 0), (5, 2, 0), (3, 2, 0),
             (6, 0, 1), (8, 0, 1), (9, 1, 1), (8, 2, 1), (6, 2, 1)]
    nm = navmesh_from_polygons(verts, [[0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10, 11]],
                               stances=["stand", "crouch", "prone"])
    return with_links(nm, ["drop", "jump_across"],
                      [[(1, 0.5, 0), (1, 1.5, 0)], [(5, 0.5, 0), (5, 1.5, 0)]],
                      [[(3.5, 0.5, 0), (3.5, 1.5, 0)], [(6.5, 0.5, 1), (6.5, 1.0, 1)]],
                      bidirectional=[False, True], costs=[2.0, 3.5])


def test_faces_rebuild_every_polygon_in_order():
    nm = _level()
    faces = result_mesh.navmesh_faces(nm)
    assert faces.vertices.dtype == np.float32 and faces.loops.dtype == np.int32
    ends = list(faces.loop_starts[1:]) + [faces.loops.shape[0]]
    rebuilt = [list(faces.loops[a:b]) for a, b in zip(faces.loop_starts, ends, strict=True)]
    assert rebuilt == [list(p[p >= 0]) for p in nm.polygons]
    assert list(faces.attributes["stance"]) == [0, 1, 2]
    assert np.array_equal(faces.attributes["area"], nm.polygon_area.astype(np.int32))


def test_link_edges_join_segment_midpoints_with_their_attributes():
    nm = _level()
    edges = result_mesh.link_edges(nm)
    pts = edges.vertices.reshape(-1, 2, 3)
    assert np.allclose(pts[:, 0], [(1, 1, 0), (5, 1, 0)])
    assert np.allclose(pts[:, 1], [(3.5, 1, 0), (6.5, 0.75, 1)])
    assert list(edges.edges) == [0, 1, 2, 3]
    assert edges.attributes["width"] == pytest.approx([1.0, 1.0])
    assert list(edges.attributes["bidirectional"]) == [False, True]
    assert edges.attributes["cost"] == pytest.approx([2.0, 3.5])
    assert list(edges.attributes["kind"]) == list(nm.link_kind)
    assert list(edges.attributes["area"]) == list(nm.link_area) == [
        LINK_KIND_AREAS[k] for k in nm.link_kind]


def test_an_empty_navmesh_gives_empty_meshes():
    nm = empty_navmesh()
    faces, edges = result_mesh.navmesh_faces(nm), result_mesh.link_edges(nm)
    assert faces.loops.shape == (0,) and faces.loop_starts.shape == (0,)
    assert edges.vertices.shape == (0, 3) and edges.edges.shape == (0,)
    assert all(v.shape == (0,) for v in edges.attributes.values())
