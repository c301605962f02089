"""Bake invariants on procedural scenes whose answers are known analytically."""

from __future__ import annotations

import math

import numpy as np
import pytest
from navmesh_checks import (
    assert_adjacency_symmetric,
    assert_convex_ccw,
    connected_components,
    polygons_at,
    surface_heights_at,
)
from scenes import Scene

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.pipeline import STAGES

S = BakeSettings()
CH = S.cell_height
CS = S.cell_size


def room(size=10.0, wall=0.5, wall_h=3.0, x0=0.0, y0=0.0, z=0.0):
    """A square floor enclosed by four wall boxes (walls make no ledges)."""
    sc = Scene().floor(x0 - wall, y0 - wall, x0 + size + wall, y0 + size + wall, z)
    sc.box(x0 - wall, y0 - wall, z, x0, y0 + size + wall, z + wall_h)
    sc.box(x0 + size, y0 - wall, z, x0 + size + wall, y0 + size + wall, z + wall_h)
    sc.box(x0, y0 - wall, z, x0 + size, y0, z + wall_h)
    sc.box(x0, y0 + size, z, x0 + size, y0 + size + wall, z + wall_h)
    return sc


def check_common(nm, v, t):
    assert_convex_ccw(nm)
    assert_adjacency_symmetric(nm)
    assert np.isfinite(nm.vertices).all()
    assert np.isfinite(nm.detail_vertices).all()


def test_room_area_and_wall_clearance():
    v, t = room().arrays()
    nm = bake(v, t)
    check_common(nm, v, t)
    # voxelisation erodes by the radius rounded up to whole cells: at most one cell more
    hi = (10.0 - 2 * S.agent_radius) ** 2
    lo = (10.0 - 2 * (S.agent_radius + CS)) ** 2
    assert lo * 0.98 <= nm.surface_area() <= hi * 1.02
    # no polygon vertex closer than the radius to a wall (within one cell)
    xy = nm.vertices[:, :2]
    dist_to_wall = np.minimum.reduce([xy[:, 0], xy[:, 1], 10 - xy[:, 0], 10 - xy[:, 1]])
    assert dist_to_wall.min() >= S.agent_radius - CS - 1e-6
    # vertices lie within a cell height of the floor
    assert np.abs(nm.vertices[:, 2]).max() <= CH + 1e-6
    assert set(nm.polygon_stance.tolist()) == {0}


def test_polygon_vertices_on_walkable_geometry():
    sc = room()
    sc.box(3, 3, 0, 5, 6, 0.4)  # a low block you can step onto
    v, t = sc.arrays()
    nm = bake(v, t)
    check_common(nm, v, t)
    for p in nm.vertices:
        hs = surface_heights_at(v, t, p[0], p[1])
        # vertices sit on cell corners: look at the surfaces just around the corner too
        for dx, dy in ((0.01, 0.01), (-0.01, 0.01), (0.01, -0.01), (-0.01, -0.01)):
            hs += surface_heights_at(v, t, p[0] + dx, p[1] + dy)
        assert hs, f"vertex {p} is not above any geometry"
        assert min(abs(h - p[2]) for h in hs) <= CH + 1e-6, f"vertex {p} floats"


@pytest.mark.parametrize("angle,walkable", [(30.0, True), (60.0, False)])
def test_ramp_slope(angle, walkable):
    sc = Scene().floor(-10, 0, 0, 6).ramp(0, 0, 6, 6, 0.0, angle)
    v, t = sc.arrays()
    nm = bake(v, t)
    on_ramp = [p for p in range(nm.polygon_count)
               if nm.polygon_vertices(p)[:, 0].mean() > 1.5]
    if walkable:
        assert on_ramp, "a 30 degree ramp must be walkable"
        check_common(nm, v, t)
    else:
        # nothing walkable anywhere on the 60 degree ramp (allow the foot, within a cell)
        for p in range(nm.polygon_count):
            assert nm.polygon_vertices(p)[:, 0].max() <= CS + 1e-6


@pytest.mark.parametrize("step,connected", [(0.3, True), (1.2, False)])
def test_stairs_connect_only_under_max_climb(step, connected):
    sc = Scene().floor(-8, 0, 0.001, 4)
    sc.stairs(0, 0, 4, 0.0, step, 1.2, 3)
    top = 3 * step
    sc.floor(3.6, 0, 12, 4, top)
    v, t = sc.arrays()
    nm = bake(v, t)
    check_common(nm, v, t)
    comp = connected_components(nm)
    low = [p for p in range(nm.polygon_count) if nm.polygon_vertices(p)[:, 0].mean() < -2]
    high = [p for p in range(nm.polygon_count) if nm.polygon_vertices(p)[:, 0].mean() > 6]
    assert low and high
    same = comp[low[0]] == comp[high[0]]
    assert same == connected


def test_raised_platform_is_separate_and_walkable():
    sc = room(12)
    sc.box(4, 4, 0, 8, 8, 1.5)
    v, t = sc.arrays()
    nm = bake(v, t)
    check_common(nm, v, t)
    top = polygons_at(nm, (6.0, 6.0))
    assert top, "the platform top must be walkable"
    assert all(abs(nm.polygon_vertices(p)[:, 2].mean() - 1.5) <= CH + 1e-6 for p in top)
    comp = connected_components(nm)
    floor = polygons_at(nm, (2.0, 2.0))
    assert floor and comp[floor[0]] != comp[top[0]]


@pytest.mark.parametrize("slab_z,walkable_below", [(1.0, False), (3.0, True)])
def test_overhang_clearance(slab_z, walkable_below):
    sc = room(12)
    sc.box(4, 0, slab_z, 8, 12, slab_z + 0.3)  # a slab across the room
    v, t = sc.arrays()
    nm = bake(v, t)
    check_common(nm, v, t)
    below = [p for p in polygons_at(nm, (6.0, 6.0))
             if nm.polygon_vertices(p)[:, 2].mean() < 0.5]
    assert bool(below) == walkable_below


def test_far_from_origin_matches_origin():
    v, t = room().arrays()
    nm0 = bake(v, t)
    far = v + np.array([5000.0, -5000.0, 0.0])
    nm1 = bake(far, t)
    assert nm1.polygon_count == nm0.polygon_count
    assert nm1.surface_area() == pytest.approx(nm0.surface_area(), rel=1e-3)


def test_hole_in_floor_is_not_covered():
    sc = Scene()
    # floor with a 3 x 3 m hole in the middle, inside walls
    sc.floor(0, 0, 12, 4.5).floor(0, 7.5, 12, 12).floor(0, 4.5, 4.5, 7.5).floor(7.5, 4.5, 12,
                                                                                7.5)
    v, t = sc.arrays()
    nm = bake(v, t)
    check_common(nm, v, t)
    assert not polygons_at(nm, (6.0, 6.0))
    assert polygons_at(nm, (6.0, 2.5))


def test_walkable_area_matches_analytic_with_obstacle():
    sc = room(12)
    sc.box(5, 5, 0, 7, 7, 2.5)  # a pillar block too tall to climb
    v, t = sc.arrays()
    nm = bake(v, t)
    def expected(r):
        # room interior shrunk by r, minus the pillar grown by r (rounded corners)
        return (12 - 2 * r) ** 2 - ((2 + 2 * r) ** 2 - (4 - math.pi) * r * r)

    # the pillar top (2 x 2 m, shrunk by the ledge filter and the radius) is walkable too
    top = [p for p in range(nm.polygon_count) if nm.polygon_vertices(p)[:, 2].mean() > 2]
    top_area = sum(abs(_area(nm.polygon_vertices(p))) for p in top)
    floor_area = nm.surface_area() - top_area
    # erosion rounds the radius up by at most one cell
    assert expected(S.agent_radius + CS) * 0.98 <= floor_area <= expected(S.agent_radius) * 1.02


def _area(pts):
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)


def test_monotone_partition_covers_same_area():
    sc = room(12)
    sc.box(5, 5, 0, 7, 7, 2.5)
    v, t = sc.arrays()
    a = bake(v, t)
    b = bake(v, t, BakeSettings(partition="monotone"))
    check_common(b, v, t)
    assert b.surface_area() == pytest.approx(a.surface_area(), rel=0.03)


def test_progress_and_timings():
    v, t = room().arrays()
    seen = []
    nm = bake(v, t, progress=lambda stage, frac: seen.append((stage, frac)))
    names = [s for s, _ in seen]
    assert names == [*STAGES, "done"]  # every stage announced once, in order
    timings = nm.stats["timings_ms"]
    assert set(timings) == {*STAGES, "total"}
    # the stages are timed inside the total (a stage timed twice or not stopped breaks it)
    assert sum(timings[s] for s in STAGES) <= timings["total"]
    fracs = [f for _, f in seen]
    assert fracs == sorted(fracs) and fracs[-1] == 1.0


def test_obstacle_triangles_block_but_are_not_walked_on():
    sc = room(12)
    sc.box(4, 4, 0, 8, 8, 1.5)
    v, t = sc.arrays()
    walk = np.ones(t.shape[0], bool)
    walk[-12:] = False  # the platform box is an obstacle
    nm = bake(v, t, walkable=walk)
    assert not polygons_at(nm, (6.0, 6.0)) or all(
        nm.polygon_vertices(p)[:, 2].mean() < 0.5 for p in polygons_at(nm, (6.0, 6.0)))
    assert not [p for p in range(nm.polygon_count) if nm.polygon_vertices(p)[:, 2].mean() > 1]
