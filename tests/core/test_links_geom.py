"""Look-ups of the link stage (``core/links_geom.py``) agree with the one point-in-polygon
test at the boundaries of their bins."""

from __future__ import annotations

import numpy as np
import pytest

from blender_navjump.core.links_geom import BOX_EPS, locate, make_grid, polygon_index
from blender_navjump.core.query.spatial import INSIDE_EPS, point_in_polygon_xy


def _square_index(x_max):
    """One standing square polygon, x in [0, x_max], y in [0, 1], height 0.5, indexed on a
    grid of 1 m bins from (-1, -1): the bin boundary x = 1 lies just beyond its edge."""
    vertices = np.array([[0.0, 0.0, 0.5], [x_max, 0.0, 0.5], [x_max, 1.0, 0.5],
                         [0.0, 1.0, 0.5]])
    polygons = np.array([[0, 1, 2, 3]], np.int32)
    nv = np.array([4], np.int32)
    surf = vertices[np.array([[0, 1, 2], [0, 2, 3]])]
    grid = make_grid(np.array([-1.0, -1.0]), np.array([3.0, 3.0]), 1.0)
    pi = polygon_index(vertices, polygons, nv, np.array([True]), surf,
                       np.array([0, 2], np.int64), grid)
    return vertices, polygons, pi


@pytest.mark.parametrize("beyond", [0.0, 1e-15, 0.25 * INSIDE_EPS, 0.9 * INSIDE_EPS])
def test_locate_finds_a_polygon_wherever_point_in_polygon_counts_a_point_inside(beyond):
    """A point on (or within INSIDE_EPS outside) a polygon's edge is inside it
    (``point_in_polygon_xy``); where that edge lies just short of a bin boundary and the
    point just past it, the point's bin must list the polygon too (the polygons were
    listed by their exact bounds: the look-up found nothing there)."""
    assert BOX_EPS >= INSIDE_EPS  # the bounds tests before the exact one keep its slack
    x_max = 1.0 - 0.5 * INSIDE_EPS
    vertices, polygons, pi = _square_index(x_max)
    x, y = x_max + beyond, 0.5
    assert point_in_polygon_xy(vertices, polygons[0], 4, x, y)
    out_poly = np.empty(4, np.int32)
    out_z = np.empty(4)
    n = locate(x, y, 0.0, 1.0, -1, pi, out_poly, out_z)
    assert n == 1 and out_poly[0] == 0 and out_z[0] == pytest.approx(0.5)


def test_locate_does_not_find_a_polygon_beyond_its_edge():
    """Beyond INSIDE_EPS from the edge the point is outside, in any bin."""
    x_max = 1.0 - 0.5 * INSIDE_EPS
    vertices, polygons, pi = _square_index(x_max)
    out_poly = np.empty(4, np.int32)
    out_z = np.empty(4)
    for x in (x_max + 2.0 * INSIDE_EPS, 1.5, -0.01):
        assert not point_in_polygon_xy(vertices, polygons[0], 4, x, 0.5)
        assert locate(x, 0.5, 0.0, 1.0, -1, pi, out_poly, out_z) == 0
