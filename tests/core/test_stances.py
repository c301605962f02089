"""Multi-stance layers checked against an independent oracle: upward rays on the triangles."""

from __future__ import annotations

import numpy as np
import pytest
from navmesh_checks import (
    assert_adjacency_symmetric,
    assert_convex_ccw,
    polygons_at,
    surface_heights_at,
)
from scenes import Scene

from blender_navjump.core import BakeSettings, bake

STANCES = BakeSettings(multi_stance=True)
HEIGHTS = (STANCES.stand_height, STANCES.crouch_height, STANCES.prone_height)
CH = STANCES.cell_height
CS = STANCES.cell_size
R = STANCES.agent_radius


def clearance_at(v, t, x, y, floor_z):
    """Free height above the floor nearest floor_z at (x, y), from the triangles only."""
    hs = surface_heights_at(v, t, x, y)
    if not hs:
        return None
    floor = min(hs, key=lambda h: abs(h - floor_z))
    above = [h for h in hs if h > floor + 1e-3]
    return (min(above) - floor) if above else np.inf


def sample_points(nm, p):
    pts = nm.polygon_vertices(p)
    c = pts.mean(axis=0)
    out = [c]
    n = len(pts)
    for i in range(n):
        out.append(c + 0.9 * (pts[i] - c))
        out.append(c + 0.9 * ((pts[i] + pts[(i + 1) % n]) / 2 - c))
    return out


def assert_stances_match_clearance(nm, v, t):
    """Every polygon's stance fits the clearance everywhere inside it (one cell height of
    tolerance), and is not lower than needed at its centre (within a cell)."""
    assert nm.polygon_count > 0
    for p in range(nm.polygon_count):
        s = int(nm.polygon_stance[p])
        for q in sample_points(nm, p):
            clear = clearance_at(v, t, q[0], q[1], q[2])
            assert clear is not None, f"polygon {p} sample {q} is over nothing"
            assert clear >= HEIGHTS[s] - CH - 1e-6, (
                f"polygon {p} tagged {('stand', 'crouch', 'prone')[s]} but clearance "
                f"{clear:.2f} m at {q}")


def corridor(ceilings, length=4.0, width=4.0, wall_h=3.0):
    """A corridor along +x with walls on both sides and both ends; one ceiling height per
    segment of ``length`` m (None = open sky)."""
    total = length * len(ceilings)
    sc = Scene().floor(-0.5, -0.5, total + 0.5, width + 0.5)
    sc.box(-0.5, -0.5, 0, total + 0.5, 0, wall_h)
    sc.box(-0.5, width, 0, total + 0.5, width + 0.5, wall_h)
    sc.box(-0.5, 0, 0, 0, width, wall_h)
    sc.box(total, 0, 0, total + 0.5, width, wall_h)
    for i, h in enumerate(ceilings):
        if h is not None:
            sc.box(i * length, -0.5, h, (i + 1) * length, width + 0.5, h + 0.2)
    return sc


def floor_polygons_at(nm, xy, zmax=0.5):
    """Polygons over (x, y) at ground level (roofs of ceiling slabs are walkable too)."""
    return [p for p in polygons_at(nm, xy) if nm.polygon_vertices(p)[:, 2].mean() < zmax]


def stance_area(nm, s):
    return nm.stats["area_by_stance_m2"][("stand", "crouch", "prone")[s]]


def test_stepped_corridor_stand_crouch_prone_blocked():
    v, t = corridor([2.4, 1.5, 0.9, 0.4]).arrays()
    nm = bake(v, t, STANCES)
    assert_convex_ccw(nm)
    assert_adjacency_symmetric(nm)
    assert_stances_match_clearance(nm, v, t)
    for x, stance in ((2.0, 0), (6.0, 1), (10.0, 2)):
        polys = floor_polygons_at(nm, (x, 2.0))
        assert polys and all(nm.polygon_stance[p] == stance for p in polys), (x, stance)
    assert not floor_polygons_at(nm, (14.0, 2.0)), "0.4 m is too low for any stance"
    # the three stances are connected: stance boundaries are shared polygon edges
    from navmesh_checks import connected_components

    comp = connected_components(nm)
    assert len({comp[floor_polygons_at(nm, (x, 2.0))[0]] for x in (2.0, 6.0, 10.0)}) == 1
    # analytic areas: width 4 - 2r; lengths: stand 4 - r (end wall), crouch 4,
    # prone 4 - r (the blocked part acts as a wall); erosion rounds r up by <= one cell
    for s, length in ((0, 4 - R), (1, 4.0), (2, 4 - R)):
        hi = (4 - 2 * R) * length
        lo = (4 - 2 * (R + CS)) * (length - (0 if length == 4.0 else CS))
        got = sum(_area(nm, p) for p in range(nm.polygon_count)
                  if nm.polygon_stance[p] == s and nm.polygon_vertices(p)[:, 2].mean() < 0.5)
        assert lo * 0.97 <= got <= hi * 1.03, (s, got, lo, hi)


def _area(nm, p):
    pts = nm.polygon_vertices(p)
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def test_table_is_crawled_under():
    sc = Scene().floor(-1, -1, 11, 11)
    sc.box(3, 3, 1.0, 7, 7, 1.05)  # table top, 1 m clearance, too high to climb onto
    for x, y in ((3, 3), (6.9, 3), (3, 6.9), (6.9, 6.9)):
        sc.box(x, y, 0, x + 0.1, y + 0.1, 1.0)  # thin legs
    v, t = sc.arrays()
    nm = bake(v, t, STANCES)
    assert_stances_match_clearance(nm, v, t)
    under = [p for p in polygons_at(nm, (5.0, 5.0)) if nm.polygon_vertices(p)[:, 2].mean() < 0.3]
    assert under and all(nm.polygon_stance[p] == 2 for p in under)
    beside = polygons_at(nm, (1.0, 5.0))
    assert beside and all(nm.polygon_stance[p] == 0 for p in beside)


def test_attic_slope_changes_stance_along_the_slope():
    sc = Scene().floor(-1, -1, 11, 5)
    # a sloped ceiling facing down, from 2.6 m at x=0 to 0.3 m at x=10
    sc.quad((0, -1, 2.6), (0, 5, 2.6), (10, 5, 0.3), (10, -1, 0.3))
    sc.box(-1, -1, 2.6, 0, 5, 3.0)  # closes the high end
    v, t = sc.arrays()
    nm = bake(v, t, STANCES)
    assert_stances_match_clearance(nm, v, t)
    slope = 2.3 / 10.0
    expect = {0: (2.6 - 1.8) / slope, 1: (2.6 - 1.2) / slope, 2: (2.6 - 0.6) / slope}
    # Where each stance ends along x. The floor's top rounds up and the ceiling's bottom
    # rounds down to whole cell heights, which moves a boundary back by up to ch / slope;
    # boundaries fall on cells; prone ends against the blocked part, eroded by the radius.
    window = {}
    for s in (0, 1, 2):
        erode = R + CS if s == 2 else 0.0
        window[s] = (expect[s] - CH / slope - CS - erode, expect[s] - erode + CS)
        xs = [nm.polygon_vertices(p)[:, 0].max() for p in range(nm.polygon_count)
              if nm.polygon_stance[p] == s and nm.polygon_vertices(p)[:, 2].mean() < 0.5]
        assert xs
        assert window[s][0] <= max(xs) <= window[s][1], (s, max(xs), window[s])
    # between the windows the stance is certain
    for x, s in ((1.5, 0), ((window[0][1] + window[1][0]) / 2, 1),
                 ((window[1][1] + window[2][0]) / 2, 2)):
        polys = floor_polygons_at(nm, (x, 2.0))
        assert polys and all(nm.polygon_stance[p] == s for p in polys), (x, s)


def test_vent_reachable_only_prone():
    sc = Scene().floor(-6, -3, 8, 5)
    # a thick wall with a 0.8 m high, 2.4 m wide vent through it
    sc.box(0, -3, 0.8, 2, 5, 3.0)  # above the vent
    sc.box(0, -3, 0, 2, 0, 0.8)  # beside the vent
    sc.box(0, 2.4, 0, 2, 5, 0.8)
    v, t = sc.arrays()
    full = bake(v, t, STANCES)
    assert_stances_match_clearance(full, v, t)
    vent = polygons_at(full, (1.0, 1.2))
    assert vent and all(full.polygon_stance[p] == 2 for p in vent)
    from navmesh_checks import connected_components

    comp = connected_components(full)
    a, b = polygons_at(full, (-3.0, 1.0)), polygons_at(full, (5.0, 1.0))
    assert a and b and comp[a[0]] == comp[b[0]]
    # without prone there is no way through
    no_prone = bake(v, t, STANCES.with_values(prone_enabled=False))
    comp = connected_components(no_prone)
    a, b = polygons_at(no_prone, (-3.0, 1.0)), polygons_at(no_prone, (5.0, 1.0))
    assert not polygons_at(no_prone, (1.0, 1.2))
    assert comp[a[0]] != comp[b[0]]


@pytest.mark.parametrize("upper_z,below", [(2.2, 0), (1.5, 1)])
def test_two_floors(upper_z, below):
    sc = Scene().floor(-1, -1, 13, 9)
    sc.box(4, -1, upper_z, 13, 9, upper_z + 0.2)  # upper floor, its underside the ceiling
    v, t = sc.arrays()
    nm = bake(v, t, STANCES)
    assert_stances_match_clearance(nm, v, t)
    polys = polygons_at(nm, (8.0, 4.0))
    low = [p for p in polys if nm.polygon_vertices(p)[:, 2].mean() < 0.5]
    high = [p for p in polys if nm.polygon_vertices(p)[:, 2].mean() > upper_z]
    assert low and all(nm.polygon_stance[p] == below for p in low)
    assert high and all(nm.polygon_stance[p] == 0 for p in high)


def test_only_stand_equals_plain_bake_at_stand_height():
    v, t = corridor([2.4, 1.5, 0.9, None]).arrays()
    only_stand = bake(v, t, STANCES.with_values(crouch_enabled=False, prone_enabled=False))
    plain = bake(v, t, BakeSettings(agent_height=1.8))
    assert np.array_equal(only_stand.polygons, plain.polygons)
    assert np.array_equal(only_stand.vertices, plain.vertices)
    assert np.array_equal(only_stand.polygon_stance, plain.polygon_stance)


def test_single_noisy_voxel_makes_no_sliver():
    sc = corridor([2.4, 1.5])
    sc.box(1.95, 1.95, 1.7, 2.05, 2.05, 2.4)  # a thin lamp hanging into the stand area
    v, t = sc.arrays()
    nm = bake(v, t, STANCES)
    assert_stances_match_clearance(nm, v, t)
    for p in range(nm.polygon_count):
        pts = nm.polygon_vertices(p)[:, :2]
        n = len(pts)
        # thickness: for each edge, the farthest vertex from its line
        widths = []
        for i in range(n):
            a, b = pts[i], pts[(i + 1) % n]
            d = b - a
            ln = np.hypot(*d)
            if ln < 1e-9:
                continue
            widths.append(max(abs(d[0] * (q[1] - a[1]) - d[1] * (q[0] - a[0])) / ln
                              for q in pts))
        assert min(widths) >= CS - 1e-6, f"polygon {p} is a sliver ({min(widths):.3f} m)"


def test_stance_stats_and_settings_validation():
    v, t = corridor([2.4, 1.5]).arrays()
    nm = bake(v, t, STANCES)
    by = nm.stats["polygons_by_stance"]
    assert by["stand"] > 0 and by["crouch"] > 0 and by["prone"] == 0
    assert sum(nm.stats["area_by_stance_m2"].values()) == pytest.approx(
        nm.stats["walkable_area_m2"])
    from blender_navjump.core import SettingsError

    with pytest.raises(SettingsError, match="prone < crouch < stand"):
        bake(v, t, STANCES.with_values(prone_height=1.3))
    with pytest.raises(SettingsError, match="at least one stance"):
        bake(v, t, STANCES.with_values(stand_enabled=False, crouch_enabled=False,
                                       prone_enabled=False))
