"""Contours and convex polygon mesh on hand-made region grids (``regions[y, x]``)."""

from __future__ import annotations

import numpy as np
import pytest

from blender_navjump.core.contours import build_contours
from blender_navjump.core.polymesh import build_poly_mesh, triangulate
from blender_navjump.core.stage_data import (
    AREA_BORDER,
    CONTOUR_REG_MASK,
    DIR_DX,
    DIR_DY,
    OPEN_SKY,
    CompactHeightfield,
)


def chf_from_region_grid(regions: np.ndarray, areas=None, heights=None,
                         max_climb: int | None = None) -> CompactHeightfield:
    """A one-span-per-cell CompactHeightfield from a 2D region grid.

    ``regions[y, x]`` is the region id of cell (x, y) (0 = none). ``areas[y, x]`` defaults
    to 1 where the region is > 0, else 0; ``heights[y, x]`` (floor level) defaults to 0.
    Every cell gets a span; 4-neighbours are connected when their floors differ by at most
    ``max_climb`` (None = always). Grid origin 0, cs = ch = 1.
    """
    regions = np.asarray(regions, dtype=np.int32)
    if regions.ndim != 2:
        raise ValueError("regions must be a 2D array indexed [y, x]")
    h, w = regions.shape
    if areas is None:
        areas = (regions > 0).astype(np.uint8)
    areas = np.asarray(areas, dtype=np.uint8).reshape(h, w)
    heights = (np.zeros((h, w), np.int32) if heights is None
               else np.asarray(heights, dtype=np.int32).reshape(h, w))
    n = w * h
    ys, xs = np.divmod(np.arange(n, dtype=np.int32), w)  # span index = x + y*w
    con = np.full((n, 4), -1, np.int32)
    flat_h = heights.reshape(-1)
    for d in range(4):
        nx = xs + DIR_DX[d]
        ny = ys + DIR_DY[d]
        ok = (nx >= 0) & (nx < w) & (ny >= 0) & (ny < h)
        nb = np.where(ok, nx + ny * w, 0)
        if max_climb is not None:
            ok &= np.abs(flat_h[nb] - flat_h) <= max_climb
        con[:, d] = np.where(ok, nb, -1)
    return CompactHeightfield(
        width=w,
        height=h,
        bmin=np.zeros(3),
        cs=1.0,
        ch=1.0,
        walkable_height=1,
        walkable_climb=int(max_climb) if max_climb is not None else 1 << 20,
        cell_index=np.arange(n, dtype=np.int32),
        cell_count=np.ones(n, np.int32),
        span_y=flat_h.astype(np.int32).copy(),
        span_h=np.full(n, OPEN_SKY, np.int32),
        span_area=areas.reshape(-1).copy(),
        span_con=con,
        span_x=xs.astype(np.int32),
        span_cy=ys.astype(np.int32),
        span_reg=regions.reshape(-1).copy(),
        max_region=int(regions.max()) if regions.size else 0,
    )

EXACT = 0.01  # simplification error small enough to keep every corner of a grid outline
# Irrational-ish offset from cell centres so sample points never sit on a polygon edge.
JITTER = (0.5 + 0.0137, 0.5 + 0.0291)


# ------------------------------------------------------------------------------ helpers
def bake(regions, areas=None, heights=None, max_error=EXACT, max_edge_len=0, nvp=6):
    chf = chf_from_region_grid(regions, areas, heights)
    cset = build_contours(chf, max_error, max_edge_len)
    pmesh = build_poly_mesh(cset, nvp, np.zeros(3), 1.0, 1.0)
    check_contours(cset)
    check_mesh(pmesh, nvp)
    return cset, pmesh


def contour(cset, i):
    return cset.verts[cset.start[i]:cset.start[i + 1]]


def signed_area(xy) -> float:
    x, y = np.asarray(xy, float).T
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def poly_xy(pmesh, p):
    row = pmesh.polys[p]
    return pmesh.verts[row[row >= 0], :2].astype(np.int64)


def check_contours(cset):
    for i in range(cset.reg.shape[0]):
        c = contour(cset, i)
        assert c.shape[0] >= 3
        assert signed_area(c[:, :2]) > 0, "contour must wind counter-clockwise"
        nxt = np.roll(c[:, :2], -1, axis=0)
        assert np.any(c[:, :2] != nxt, axis=1).all(), "zero-length contour edge"


def check_mesh(pmesh, nvp):
    polys, nb = pmesh.polys, pmesh.neighbours
    assert polys.shape[1] == nvp and nb.shape == polys.shape
    assert pmesh.regs.shape[0] == polys.shape[0] == pmesh.areas.shape[0]
    edges = {}
    for p in range(polys.shape[0]):
        row = polys[p]
        n = int((row >= 0).sum())
        assert 3 <= n <= nvp
        assert (row[:n] >= 0).all() and (row[n:] == -1).all() and (nb[p, n:] == -1).all()
        assert len(set(row[:n].tolist())) == n, "repeated vertex in a polygon"
        xy = pmesh.verts[row[:n], :2].astype(np.int64)
        a, b, c = xy, np.roll(xy, -1, axis=0), np.roll(xy, -2, axis=0)
        turn = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (b[:, 1] - a[:, 1])
        assert (turn > 0).all(), f"polygon {p} is not strictly convex and CCW"
        for i in range(n):
            edges[(int(row[i]), int(row[(i + 1) % n]))] = (p, i)
    # Neighbour links: symmetric, across the reversed edge, and present for every twin edge.
    for (v0, v1), (p, i) in edges.items():
        q = nb[p, i]
        twin = edges.get((v1, v0))
        if q >= 0:
            assert twin is not None and twin[0] == q and nb[q, twin[1]] == p
        else:
            assert twin is None, f"edge {v0}-{v1} of polygon {p} has an unlinked twin"


def cell_points(shape):
    ys, xs = np.mgrid[0:shape[0], 0:shape[1]]
    return np.stack([xs + JITTER[0], ys + JITTER[1]], axis=-1).reshape(-1, 2)


def coverage(pmesh, points, polys=None) -> np.ndarray:
    """How many polygons (of ``polys``, default all) strictly contain each point."""
    count = np.zeros(points.shape[0], np.int32)
    for p in range(pmesh.polys.shape[0]) if polys is None else polys:
        xy = poly_xy(pmesh, p).astype(float)
        inside = np.ones(points.shape[0], bool)
        for a, b in zip(xy, np.roll(xy, -1, axis=0), strict=True):
            cross = (b[0] - a[0]) * (points[:, 1] - a[1]) - (points[:, 0] - a[0]) * (b[1] - a[1])
            inside &= cross > 0
        count += inside
    return count


def mesh_area(pmesh, polys=None) -> float:
    idx = range(pmesh.polys.shape[0]) if polys is None else polys
    return sum(signed_area(poly_xy(pmesh, p)) for p in idx)


def assert_exact_cover(pmesh, regions):
    """Polygons of region r cover exactly the cells of region r, each once."""
    pts = cell_points(regions.shape)
    flat = regions.reshape(-1)
    assert np.array_equal(coverage(pmesh, pts), (flat > 0).astype(np.int32))
    for r in np.unique(flat[flat > 0]):
        mine = np.flatnonzero(pmesh.regs == r)
        assert np.array_equal(coverage(pmesh, pts, mine), (flat == r).astype(np.int32))
    assert mesh_area(pmesh) == pytest.approx(float((regions > 0).sum()))


def edge_length(a, b) -> float:
    return float(np.hypot(*(np.asarray(b[:2], float) - np.asarray(a[:2], float))))


# ----------------------------------------------------------------------- single shapes
def test_rectangle_gives_one_quad():
    g = np.zeros((10, 16), np.int32)
    g[2:8, 3:13] = 7
    cset, pmesh = bake(g)
    assert cset.reg.tolist() == [7] and cset.area.tolist() == [1]
    corners = {tuple(v) for v in contour(cset, 0)[:, :2].tolist()}
    assert corners == {(3, 2), (13, 2), (13, 8), (3, 8)}
    # Raw outline: one vertex per boundary cell edge.
    assert cset.raw_start[-1] == 2 * (10 + 6)
    assert pmesh.polys.shape[0] == 1 and (pmesh.polys[0] >= 0).sum() == 4
    assert pmesh.regs.tolist() == [7] and pmesh.areas.tolist() == [1]
    assert (pmesh.neighbours == -1).all()
    assert_exact_cover(pmesh, g)


def test_rectangle_with_triangles_only():
    g = np.zeros((8, 8), np.int32)
    g[1:7, 1:6] = 1
    _, pmesh = bake(g, nvp=3)
    assert pmesh.polys.shape == (2, 3)
    assert_exact_cover(pmesh, g)


def test_l_shape():
    g = np.zeros((14, 14), np.int32)
    g[2:12, 2:6] = 1
    g[2:6, 6:12] = 1
    cset, pmesh = bake(g)
    assert len(cset.reg) == 1
    corners = {tuple(v) for v in contour(cset, 0)[:, :2].tolist()}
    assert corners == {(2, 2), (12, 2), (12, 6), (6, 6), (6, 12), (2, 12)}
    assert pmesh.polys.shape[0] >= 2  # an L is not convex
    assert_exact_cover(pmesh, g)


def test_ring_merges_hole_into_one_contour():
    g = np.zeros((16, 18), np.int32)
    g[2:14, 2:16] = 3
    g[5:10, 6:12] = 0
    cset, pmesh = bake(g)
    assert cset.reg.tolist() == [3], "a region with a hole yields a single contour"
    c = contour(cset, 0)
    # Outer corners + hole corners + the two repeated bridge ends.
    assert c.shape[0] == 4 + 4 + 2
    assert signed_area(c[:, :2]) == pytest.approx(12 * 14 - 5 * 6)
    assert cset.raw_start[-1] == 2 * (12 + 14) + 2 * (5 + 6)
    hole_pts = cell_points(g.shape)[(g == 0).reshape(-1)]
    assert (coverage(pmesh, hole_pts) == 0).all()
    assert_exact_cover(pmesh, g)


def test_region_with_several_holes():
    g = np.zeros((20, 30), np.int32)
    g[1:19, 1:29] = 1
    for y0, x0 in ((3, 3), (3, 20), (12, 8), (11, 18), (6, 12)):
        g[y0:y0 + 4, x0:x0 + 5] = 0
    cset, pmesh = bake(g)
    assert len(cset.reg) == 1
    assert_exact_cover(pmesh, g)


def test_island_region_inside_another():
    g = np.zeros((14, 14), np.int32)
    g[1:13, 1:13] = 1
    g[5:9, 4:10] = 2
    for err in (EXACT, 1.3):
        cset, pmesh = bake(g, max_error=err)
        assert sorted(cset.reg.tolist()) == [1, 2]
        assert_exact_cover(pmesh, g)
        inner = np.flatnonzero(cset.reg == 2)[0]
        assert (contour(cset, inner)[:, 3] & CONTOUR_REG_MASK == 1).all()


# ---------------------------------------------------------------------- region borders
def shared_edge_length(pmesh, ra, rb) -> float:
    total = 0.0
    for p in np.flatnonzero(pmesh.regs == ra):
        row = pmesh.polys[p]
        n = int((row >= 0).sum())
        for i in range(n):
            q = pmesh.neighbours[p, i]
            if q >= 0 and pmesh.regs[q] == rb:
                total += edge_length(pmesh.verts[row[i]], pmesh.verts[row[(i + 1) % n]])
    return total


def test_two_adjacent_regions_link_up():
    g = np.zeros((12, 20), np.int32)
    g[2:10, 2:9] = 1
    g[4:11, 9:18] = 2  # shares x = 9 for y in 4..10 (6 cells)
    cset, pmesh = bake(g)
    assert sorted(cset.reg.tolist()) == [1, 2]
    for i in range(2):
        c = contour(cset, i)
        other = 3 - cset.reg[i]
        nxt = np.roll(c, -1, axis=0)
        portal = (c[:, 3] & CONTOUR_REG_MASK) == other
        assert portal.any()
        assert ((c[portal, 3] & AREA_BORDER) == 0).all(), "same area: no area border"
        # Walls face the unwalkable (area 0) cells around: an area change, as in Recast.
        assert ((c[~portal, 3] & AREA_BORDER) != 0).all()
        # Portal edges lie on the shared line x = 9.
        assert (c[portal, 0] == 9).all() and (nxt[portal, 0] == 9).all()
    assert shared_edge_length(pmesh, 1, 2) == pytest.approx(6.0)
    assert shared_edge_length(pmesh, 2, 1) == pytest.approx(6.0)
    assert_exact_cover(pmesh, g)


def test_area_change_sets_area_border_and_matches_both_sides():
    # Two regions filling the grid, split by a staircase; different areas.
    h, w = 24, 24
    ys, xs = np.mgrid[0:h, 0:w]
    g = np.where(xs + ys < 23, 1, 2).astype(np.int32)
    areas = g.astype(np.uint8)  # region 1 -> area 1, region 2 -> area 2
    for err in (EXACT, 1.3):
        cset, pmesh = bake(g, areas, max_error=err)
        borders = []
        for i in range(2):
            c = contour(cset, i)
            nxt = np.roll(c, -1, axis=0)
            flagged = (c[:, 3] & AREA_BORDER) != 0
            assert flagged.any()
            # Area border exactly on the edges towards the other region (grid walls: none).
            assert np.array_equal(flagged, (c[:, 3] & CONTOUR_REG_MASK) == 3 - cset.reg[i])
            borders.append({(tuple(a[:2]), tuple(b[:2]))
                            for a, b in zip(c[flagged].tolist(), nxt[flagged].tolist(),
                                            strict=True)})
        # Both sides simplified the staircase to the same vertices.
        assert borders[0] == {(b, a) for a, b in borders[1]}
        # At 1.3 cells, DP may cut the 1-cell wall ends at (24, 0) and (0, 24).
        assert mesh_area(pmesh) == pytest.approx(h * w, rel=0 if err == EXACT else 0.05)
        assert sorted(set(zip(pmesh.regs.tolist(), pmesh.areas.tolist(), strict=True))) == [
            (1, 1), (2, 2)]
        length = sum(edge_length(a, b) for a, b in borders[0])
        assert shared_edge_length(pmesh, 1, 2) == pytest.approx(length)
        if err == EXACT:
            assert_exact_cover(pmesh, g)
        else:
            assert len(borders[0]) < 2 * 22, "the staircase was simplified"


def test_corner_heights_are_the_highest_touching_floor():
    g = np.zeros((9, 12), np.int32)
    g[1:8, 1:11] = 1
    ys, xs = np.mgrid[0:9, 0:12]
    heights = (xs // 3 + 2 * (ys // 4)).astype(np.int32)
    cset = build_contours(chf_from_region_grid(g, heights=heights), EXACT, 0)
    raw = cset.raw_verts
    assert raw.shape[0] == 2 * (10 + 7)
    for x, y, z, _f in raw.tolist():
        touching = [heights[cy, cx] for cy in (y - 1, y) for cx in (x - 1, x)
                    if 0 <= cy < 9 and 0 <= cx < 12]
        assert z == max(touching)
    pmesh = build_poly_mesh(cset, 6, np.zeros(3), 1.0, 1.0)
    # Every polygon vertex keeps the height of the contour corner it came from.
    corner_z = {(x, y): z for x, y, z, _ in contour(cset, 0).tolist()}
    for x, y, z in pmesh.verts.tolist():
        assert corner_z[(x, y)] == z


# ------------------------------------------------------------------------- edge limits
def test_max_edge_len_splits_wall_edges():
    g = np.zeros((8, 44), np.int32)
    g[1:7, 1:43] = 1
    cset0, _ = bake(g)
    lengths0 = [edge_length(a, b) for a, b in zip(contour(cset0, 0),
                                                  np.roll(contour(cset0, 0), -1, 0),
                                                  strict=True)]
    assert max(lengths0) == 42
    for limit in (5, 8, 12):
        cset, pmesh = bake(g, max_edge_len=limit)
        c = contour(cset, 0)
        for a, b in zip(c, np.roll(c, -1, axis=0), strict=True):
            assert edge_length(a, b) <= limit
        for p in range(pmesh.polys.shape[0]):
            row = pmesh.polys[p]
            n = int((row >= 0).sum())
            for i in range(n):
                if pmesh.neighbours[p, i] < 0:
                    assert edge_length(pmesh.verts[row[i]],
                                       pmesh.verts[row[(i + 1) % n]]) <= limit
        assert_exact_cover(pmesh, g)


def test_max_edge_len_leaves_portals_alone():
    g = np.zeros((30, 10), np.int32)
    g[1:29, 1:5] = 1
    g[1:29, 5:9] = 2
    cset, _ = bake(g, max_edge_len=6)
    for i in range(2):
        c = contour(cset, i)
        nxt = np.roll(c, -1, axis=0)
        portal = (c[:, 3] & CONTOUR_REG_MASK) != 0
        assert portal.sum() == 1
        assert edge_length(c[portal][0], nxt[portal][0]) == 28


# ----------------------------------------------------------------------- triangulation
def test_triangulate_covers_a_comb():
    # Comb-shaped CCW polygon: a bar with 11 teeth, many reflex corners.
    pts = [(0, 0), (21, 0), (21, 10)]
    for k in range(10, 0, -1):
        pts += [(2 * k, 10), (2 * k, 3), (2 * k - 1, 3), (2 * k - 1, 10)]
    pts.append((0, 10))
    xy = np.array(pts, np.int64)
    tris, failed = triangulate(xy[:, 0].copy(), xy[:, 1].copy())
    assert not failed and tris.shape[0] == len(pts) - 2
    areas = [signed_area(xy[t]) for t in tris]
    assert min(areas) > 0
    assert sum(areas) == pytest.approx(signed_area(xy))


@pytest.mark.parametrize("nvp", [3, 4, 5, 6])
def test_vertex_limit(nvp):
    g = np.zeros((20, 20), np.int32)
    yy, xx = np.mgrid[0:20, 0:20]
    g[(xx - 10) ** 2 + (yy - 10) ** 2 < 64] = 1
    g[(xx - 10) ** 2 + (yy - 10) ** 2 < 4] = 0
    _, pmesh = bake(g, max_error=1.3, nvp=nvp)
    assert pmesh.polys.shape[1] == nvp
    assert mesh_area(pmesh) == pytest.approx((g > 0).sum(), rel=0.06)


def test_empty_grid():
    cset, pmesh = bake(np.zeros((5, 6), np.int32))
    assert cset.reg.shape == (0,) and cset.start.tolist() == [0]
    assert pmesh.polys.shape == (0, 6) and pmesh.verts.shape == (0, 3)


# ------------------------------------------------------------------------ random grids
def smooth_blob(rng, h, w, keep):
    z = np.kron(rng.random((h // 4 + 2, w // 4 + 2)), np.ones((4, 4)))[:h, :w]
    for _ in range(6):
        z = (z + np.roll(z, 1, 0) + np.roll(z, -1, 0) + np.roll(z, 1, 1) + np.roll(z, -1, 1)) / 5
    m = z > np.quantile(z, 1.0 - keep)
    m[0, :] = m[-1, :] = m[:, 0] = m[:, -1] = False
    return m


def label_components(g):
    """4-connected components of equal non-zero values, numbered from 1."""
    h, w = g.shape
    lab = np.zeros_like(g)
    n = 0
    for y0 in range(h):
        for x0 in range(w):
            if g[y0, x0] and not lab[y0, x0]:
                n += 1
                lab[y0, x0] = n
                stack = [(y0, x0)]
                while stack:
                    y, x = stack.pop()
                    for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                        if (0 <= ny < h and 0 <= nx < w and g[ny, nx] == g[y, x]
                                and not lab[ny, nx]):
                            lab[ny, nx] = n
                            stack.append((ny, nx))
    return lab


@pytest.mark.parametrize("seed", range(12))
def test_random_single_region_blobs_are_covered_exactly(seed):
    rng = np.random.default_rng(seed)
    m = smooth_blob(rng, 40, 40, rng.uniform(0.3, 0.8))
    g = m.astype(np.int32)  # one region id, possibly several pieces, with holes
    _, pmesh = bake(g, max_edge_len=int(rng.integers(0, 10)))
    assert_exact_cover(pmesh, g)


@pytest.mark.parametrize("seed", range(12))
def test_random_partitioned_blobs(seed):
    rng = np.random.default_rng(100 + seed)
    m = smooth_blob(rng, 48, 48, rng.uniform(0.4, 0.8))
    tile = int(rng.integers(6, 16))
    ys, xs = np.mgrid[0:48, 0:48]
    g = label_components(np.where(m, 1 + xs // tile + (ys // tile) * 10, 0))
    sizes = np.bincount(g.reshape(-1))
    g[sizes[g] < 6] = 0  # like Recast's minimum region size: no slivers
    cells = float((g > 0).sum())
    areas = np.where(g > 0, 1 + (rng.random(g.max() + 1) < 0.3)[g], 0).astype(np.uint8)
    cset, pmesh = bake(g, areas, max_error=EXACT)
    assert mesh_area(pmesh) == pytest.approx(cells)
    cset, pmesh = bake(g, areas, max_error=1.3, max_edge_len=int(rng.integers(0, 12)))
    assert mesh_area(pmesh) == pytest.approx(cells, rel=0.05)
    assert set(np.unique(pmesh.regs)) <= set(np.unique(g[g > 0]))
    # Polygons carry their region's area id.
    region_area = np.zeros(g.max() + 1, np.uint8)
    region_area[g.reshape(-1)] = areas.reshape(-1)
    assert np.array_equal(pmesh.areas, region_area[pmesh.regs])
    # Portals between regions are matched by polygon links both ways.
    pairs = set()
    for p, i in zip(*np.nonzero(pmesh.neighbours >= 0), strict=True):
        q = pmesh.neighbours[p, i]
        if pmesh.regs[p] != pmesh.regs[q]:
            pairs.add((int(pmesh.regs[p]), int(pmesh.regs[q])))
    assert pairs, "partitioned blobs have neighbouring regions"
    for ra, rb in pairs:
        assert shared_edge_length(pmesh, ra, rb) == pytest.approx(
            shared_edge_length(pmesh, rb, ra))
