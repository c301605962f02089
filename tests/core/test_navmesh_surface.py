"""NavMesh.surface_triangles: the one per-polygon surface-triangle function, against a loop."""

import dataclasses

import numpy as np
from scenes import Scene

from blender_navjump.core import BakeSettings, bake


def _brute_force(nm):
    """Polygon by polygon: detail triangles where the polygon has some, else a fan."""
    start, tris = [0], []
    for p in range(nm.polygon_count):
        vb, _nv, tb, nt = nm.detail_meshes[p] if nm.detail_meshes.shape[0] else (0, 0, 0, 0)
        if nt > 0:
            for a, b, c, _flags in nm.detail_triangles[tb:tb + nt]:
                tris.append(nm.detail_vertices[[vb + a, vb + b, vb + c]])
        else:
            row = nm.polygons[p][nm.polygons[p] >= 0]
            for i in range(1, len(row) - 1):
                tris.append(nm.vertices[[row[0], row[i], row[i + 1]]])
        start.append(len(tris))
    return np.array(start), np.array(tris, np.float64).reshape(-1, 3, 3)


def _level():
    v, t = (Scene().floor(0, 0, 12, 10).box(3, 3, 0, 5, 6, 1.2).ramp(7, 1, 11, 4, 0, 20)
            .arrays())
    return bake(v, t, BakeSettings(detail_sample_dist=1.0))


def test_detail_and_fan_mix_matches_loop():
    nm = _level()
    # Drop the detail mesh of every other polygon: those fall back to fans.
    dm = nm.detail_meshes.copy()
    dm[::2, 3] = 0
    mixed = dataclasses.replace(nm, detail_meshes=dm)
    for mesh in (nm, mixed):
        start, tris = mesh.surface_triangles()
        want_start, want_tris = _brute_force(mesh)
        np.testing.assert_array_equal(start, want_start)
        np.testing.assert_array_equal(tris, want_tris)
    assert mixed.surface_triangles()[1].shape[0] != nm.surface_triangles()[1].shape[0]


def test_polygon_fans_match_loop_and_area():
    nm = _level()
    fans = nm.polygon_triangle_coords()
    no_detail = dataclasses.replace(nm, detail_meshes=nm.detail_meshes[:0],
                                    detail_triangles=nm.detail_triangles[:0],
                                    detail_vertices=nm.detail_vertices[:0])
    np.testing.assert_array_equal(fans, _brute_force(no_detail)[1])
    # A flat polygon mesh's fan area equals the shoelace area of its polygons.
    area = 0.5 * np.linalg.norm(np.cross(fans[:, 1] - fans[:, 0], fans[:, 2] - fans[:, 0]),
                                axis=1).sum()
    assert abs(area - no_detail.surface_area()) < 1e-9


def test_empty_navmesh():
    v, t = Scene().floor(0, 0, 1, 1).arrays()
    nm = bake(v, t)
    start, tris = nm.surface_triangles()
    assert start.shape == (nm.polygon_count + 1,)
    assert tris.shape == (start[-1], 3, 3)
