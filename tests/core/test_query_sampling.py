"""Points on a NavMesh: surface samples and the far-apart pair of the path test."""

import numpy as np
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core.query import far_apart_points, find_path, random_navmesh_points


def _two_rooms():
    # an L of floor (long way round) plus a separate island
    v, t = (Scene().floor(0, 0, 20, 4).floor(16, 4, 20, 16).floor(30, 0, 34, 4).arrays())
    return bake(v, t)


def test_samples_lie_on_the_surface_and_cover_it():
    nm = _two_rooms()
    pts = random_navmesh_points(nm, 2000, rng=3)
    assert np.allclose(pts[:, 2], 0.0, atol=0.25)
    on_island = pts[:, 0] > 25
    # the island has 16 of 144 m2 of floor (before erosion): about 11% of the samples
    assert 0.05 < on_island.mean() < 0.2
    again = random_navmesh_points(nm, 2000, rng=3)
    np.testing.assert_array_equal(pts, again)


def test_far_apart_points_are_joined_by_the_longest_path():
    nm = _two_rooms()
    a, b = far_apart_points(nm, samples=32, seed=1)
    path = find_path(nm, a, b)
    assert path.found
    # near the two ends of the L (about 28 m apart along it), not out to the island
    assert path.length > 20.0
    assert {a[0] < 5, b[0] < 5} == {True, False} and max(a[1], b[1]) > 12


def test_far_apart_points_without_polygons():
    assert far_apart_points(None) is None
