"""Detail height mesh on hand-built compact heightfields and polygon meshes."""

from __future__ import annotations

import numpy as np
import pytest

from blender_navjump.core.detail import (
    DETAIL_EDGE_BOUNDARY,
    MAX_DETAIL_TRIS,
    MAX_DETAIL_VERTS,
    build_detail_mesh,
)
from blender_navjump.core.stage_data import DIR_DX, DIR_DY, OPEN_SKY, CompactHeightfield, PolyMesh

CS, CH = 0.3, 0.2
BMIN = np.array([-3.0, 1.5, 0.7])


# ----------------------------------------------------------------------------- helpers
def make_chf(levels, regions, climb=4, cs=CS, ch=CH, bmin=BMIN):
    """Compact heightfield from layered grids: levels[layer, y, x] (-1 = no span)."""
    levels = np.asarray(levels)
    regions = np.asarray(regions)
    if levels.ndim == 2:
        levels, regions = levels[None], regions[None]
    _, h, w = levels.shape
    cell_index = np.zeros(w * h, np.int32)
    cell_count = np.zeros(w * h, np.int32)
    span_y, span_reg, span_x, span_cy = [], [], [], []
    for y in range(h):
        for x in range(w):
            c = x + y * w
            cell_index[c] = len(span_y)
            col = sorted((int(levels[k, y, x]), int(regions[k, y, x]))
                         for k in range(levels.shape[0]) if levels[k, y, x] >= 0)
            for lv, rg in col:
                span_y.append(lv)
                span_reg.append(rg)
                span_x.append(x)
                span_cy.append(y)
            cell_count[c] = len(col)
    n = len(span_y)
    span_y = np.array(span_y, np.int32)
    span_con = np.full((n, 4), -1, np.int32)
    for s in range(n):
        for d in range(4):
            nx, ny = span_x[s] + DIR_DX[d], span_cy[s] + DIR_DY[d]
            if not (0 <= nx < w and 0 <= ny < h):
                continue
            c = nx + ny * w
            cand = range(cell_index[c], cell_index[c] + cell_count[c])
            best = min(cand, key=lambda t: abs(int(span_y[t]) - int(span_y[s])), default=-1)
            if best >= 0 and abs(int(span_y[best]) - int(span_y[s])) <= climb:
                span_con[s, d] = best
    return CompactHeightfield(
        width=w, height=h, bmin=np.asarray(bmin, float), cs=cs, ch=ch, walkable_height=10,
        walkable_climb=climb, cell_index=cell_index, cell_count=cell_count, span_y=span_y,
        span_h=np.full(n, OPEN_SKY, np.int32), span_area=np.ones(n, np.uint8),
        span_con=span_con, span_x=np.array(span_x, np.int32),
        span_cy=np.array(span_cy, np.int32), span_reg=np.array(span_reg, np.int32),
        max_region=int(max(span_reg, default=0)))


def corner_level(levels, gx, gy):
    """Contour-style corner height: the highest floor of the (up to 4) cells at the corner."""
    h, w = levels.shape
    vals = [levels[y, x] for y in (gy - 1, gy) for x in (gx - 1, gx)
            if 0 <= x < w and 0 <= y < h]
    return int(max(vals))


def make_pmesh(polys_xy, levels, regs, nvp=6, cs=CS, ch=CH, bmin=BMIN):
    """PolyMesh from CCW polygons given as grid corners; corner heights from ``levels``."""
    verts, index, rows = [], {}, []
    for poly in polys_xy:
        row = []
        for gx, gy in poly:
            if (gx, gy) not in index:
                index[(gx, gy)] = len(verts)
                verts.append((gx, gy, corner_level(levels, gx, gy)))
            row.append(index[(gx, gy)])
        rows.append(row + [-1] * (nvp - len(row)))
    p = len(rows)
    return PolyMesh(verts=np.array(verts, np.int32), polys=np.array(rows, np.int32),
                    neighbours=np.full((p, nvp), -1, np.int32),
                    regs=np.array(regs, np.int32), areas=np.ones(p, np.uint8), nvp=nvp,
                    bmin=np.asarray(bmin, float), cs=cs, ch=ch)


def poly_world_xy(pmesh, p):
    row = pmesh.polys[p]
    v = pmesh.verts[row[row >= 0]]
    return np.column_stack([pmesh.bmin[0] + v[:, 0] * pmesh.cs,
                            pmesh.bmin[1] + v[:, 1] * pmesh.cs])


def area2d(xy):
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def poly_triangles(meshes, dverts, dtris, p):
    vb, _nv, tb, nt = meshes[p]
    return dverts[dtris[tb:tb + nt, :3] + vb]  # (nt, 3, 3)


def signed_areas(tri):
    a, b, c = tri[:, 0, :2], tri[:, 1, :2], tri[:, 2, :2]
    return 0.5 * ((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1])
                  - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))


def mesh_height(tri, x, y, tol=1e-9):
    """Height of the detail triangles at (x, y), or None if no triangle holds it."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    det = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    wb = ((x - a[:, 0]) * (c[:, 1] - a[:, 1]) - (y - a[:, 1]) * (c[:, 0] - a[:, 0])) / det
    wc = ((b[:, 0] - a[:, 0]) * (y - a[:, 1]) - (b[:, 1] - a[:, 1]) * (x - a[:, 0])) / det
    wa = 1.0 - wb - wc
    inside = (wa >= -tol) & (wb >= -tol) & (wc >= -tol)
    if not inside.any():
        return None
    t = int(np.argmax(inside))
    return float(wa[t] * a[t, 2] + wb[t] * b[t, 2] + wc[t] * c[t, 2])


def floor_z(levels, x, y):
    gx = int(np.floor((x - BMIN[0]) / CS))
    gy = int(np.floor((y - BMIN[1]) / CS))
    return BMIN[2] + levels[gy, gx] * CH


def random_points_in_poly(xy, rng, n, margin=1e-6):
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    out = []
    while len(out) < n:
        q = lo + rng.random(2) * (hi - lo)
        e = np.roll(xy, -1, axis=0) - xy
        cr = e[:, 0] * (q[1] - xy[:, 1]) - e[:, 1] * (q[0] - xy[:, 0])
        if np.all(cr / np.linalg.norm(e, axis=1) > margin):
            out.append(q)
    return np.array(out)


def check_structure(pmesh, meshes, dverts, dtris):
    """Invariants every detail mesh must satisfy; returns nothing, asserts."""
    P = pmesh.polys.shape[0]
    assert meshes.shape == (P, 4) and meshes.dtype == np.int32
    assert dverts.dtype == np.float64 and dverts.shape[1] == 3
    assert dtris.dtype == np.int32 and dtris.shape[1] == 4
    assert np.isfinite(dverts).all()
    assert meshes[:, 1].sum() == dverts.shape[0] and meshes[:, 3].sum() == dtris.shape[0]
    for p in range(P):
        vb, nv, tb, nt = (int(v) for v in meshes[p])
        row = pmesh.polys[p]
        pv = pmesh.verts[row[row >= 0]]
        n = pv.shape[0]
        assert n <= nv <= MAX_DETAIL_VERTS and nt <= MAX_DETAIL_TRIS
        world = pmesh.bmin + pv * np.array([pmesh.cs, pmesh.cs, pmesh.ch])
        np.testing.assert_array_equal(dverts[vb:vb + n], world)
        tris = dtris[tb:tb + nt, :3]
        assert tris.min() >= 0 and tris.max() < nv
        tri = poly_triangles(meshes, dverts, dtris, p)
        sa = signed_areas(tri)
        assert (sa > 1e-6 * pmesh.cs ** 2).all(), "triangles must be CCW and not degenerate"
        xy = poly_world_xy(pmesh, p)
        assert sa.sum() == pytest.approx(area2d(xy), rel=1e-9)
        # Every detail vertex lies inside (or on) its polygon.
        e = np.roll(xy, -1, axis=0) - xy
        loc = dverts[vb:vb + nv, :2]
        cr = e[None, :, 0] * (loc[:, None, 1] - xy[None, :, 1]) \
            - e[None, :, 1] * (loc[:, None, 0] - xy[None, :, 0])
        assert (cr / np.linalg.norm(e, axis=1) > -1e-9).all()
        # Boundary flags mark exactly the triangle edges lying on a polygon edge.
        for t in range(nt):
            for k in range(3):
                pa, pb = tri[t, k, :2], tri[t, (k + 1) % 3, :2]
                on = False
                for i in range(n):
                    a, d = xy[i], e[i]
                    ln = np.linalg.norm(d)
                    ca = (d[0] * (pa[1] - a[1]) - d[1] * (pa[0] - a[0])) / ln
                    cb = (d[0] * (pb[1] - a[1]) - d[1] * (pb[0] - a[0])) / ln
                    if abs(ca) < 1e-9 and abs(cb) < 1e-9:
                        on = True
                flag = (int(dtris[tb + t, 3]) >> (2 * k)) & 0x3
                assert flag == (DETAIL_EDGE_BOUNDARY if on else 0)
        assert_delaunay(tri)


def assert_delaunay(tri):
    """No vertex lies clearly inside the circumcircle of the triangle across an edge."""
    edges = {}
    for t in range(tri.shape[0]):
        for k in range(3):
            a, b = tri[t, k, :2], tri[t, (k + 1) % 3, :2]
            edges[(tuple(a), tuple(b))] = (t, tri[t, (k + 2) % 3, :2])
    for (a, b), (t, _c) in edges.items():
        other = edges.get((b, a))
        if other is None:
            continue
        p = tri[t, :, :2] - other[1]
        sq = (p ** 2).sum(axis=1)
        det = np.linalg.det(np.column_stack([p, sq]))
        scale = np.abs(p).max() ** 4
        assert det <= 1e-6 * scale, "mesh is not Delaunay"


SQUARE = [(2, 2), (18, 2), (18, 18), (2, 18)]
HEXAGON = [(4, 2), (14, 2), (18, 9), (14, 17), (5, 17), (2, 9)]


# ------------------------------------------------------------------------------- tests
def test_flat_square_covers_polygon_at_floor_height():
    levels = np.full((20, 20), 5)
    chf = make_chf(levels, np.ones_like(levels))
    pmesh = make_pmesh([SQUARE], levels, [1])
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, 3 * CS, CH)
    check_structure(pmesh, meshes, dverts, dtris)
    tri = poly_triangles(meshes, dverts, dtris, 0)
    assert signed_areas(tri).sum() == pytest.approx((16 * CS) ** 2, rel=1e-12)
    np.testing.assert_allclose(dverts[:, 2], BMIN[2] + 5 * CH, rtol=0, atol=1e-12)
    assert meshes[0, 1] == 4  # a flat floor needs no extra samples


@pytest.mark.parametrize("shape", [SQUARE, HEXAGON])
def test_ramp_heights_track_the_floor(shape):
    xs = np.arange(20)
    levels = np.tile(xs, (20, 1))  # one voxel up per cell along +x
    chf = make_chf(levels, np.ones_like(levels))
    pmesh = make_pmesh([shape], levels, [1])
    max_err = CH
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, 3 * CS, max_err)
    check_structure(pmesh, meshes, dverts, dtris)
    tri = poly_triangles(meshes, dverts, dtris, 0)
    rng = np.random.default_rng(3)
    for x, y in random_points_in_poly(poly_world_xy(pmesh, 0), rng, 300):
        z = mesh_height(tri, x, y)
        assert z is not None
        assert abs(z - floor_z(levels, x, y)) <= max_err + CH + 1e-9


def test_curved_floor_is_refined_to_the_error_bound_at_every_sample():
    xs = np.arange(24)
    levels = np.tile((xs * xs) // 6, (24, 1))  # a floor curving up along +x
    chf = make_chf(levels, np.ones_like(levels), climb=8)
    poly = [(1, 1), (22, 1), (22, 22), (1, 22)]
    pmesh = make_pmesh([poly], levels, [1])
    sd, max_err = 2 * CS, CH
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, sd, max_err)
    check_structure(pmesh, meshes, dverts, dtris)
    assert meshes[0, 1] > 4
    tri = poly_triangles(meshes, dverts, dtris, 0)
    assert assert_samples_within(tri, poly, levels, sd, max_err) > 0


def assert_samples_within(tri, poly, levels, sd, max_err):
    """Every interior sample point (world grid, sd/2 inside the polygon) is within max_err."""
    g = np.array(poly, float) * CS  # bmin-relative corners
    e = np.roll(g, -1, axis=0) - g
    checked = 0
    for iy in range(int(g[:, 1].min() / sd), int(g[:, 1].max() / sd) + 1):
        for ix in range(int(g[:, 0].min() / sd), int(g[:, 0].max() / sd) + 1):
            q = np.array([ix * sd, iy * sd])
            dist = (e[:, 0] * (q[1] - g[:, 1]) - e[:, 1] * (q[0] - g[:, 0])) \
                / np.linalg.norm(e, axis=1)
            if dist.min() < 0.5 * sd + 1e-9:
                continue
            x, y = q + BMIN[:2]
            z = mesh_height(tri, x, y)
            assert z is not None
            gx = int(np.floor(q[0] / CS + 1e-4))
            gy = int(np.floor(q[1] / CS + 1e-4))
            assert abs(z - (BMIN[2] + levels[gy, gx] * CH)) <= max_err + 1e-9
            checked += 1
    return checked


def test_bump_is_captured_and_error_bounded():
    levels = np.zeros((20, 20), int)
    levels[8:13, 8:13] = 4  # raised block, still walkable (climb 4)
    chf = make_chf(levels, np.ones_like(levels))
    pmesh = make_pmesh([SQUARE], levels, [1])
    sd, max_err = 3 * CS, CH
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, sd, max_err)
    check_structure(pmesh, meshes, dverts, dtris)
    z = dverts[:, 2] - BMIN[2]
    assert z.min() == pytest.approx(0.0, abs=1e-12)
    assert z.max() == pytest.approx(4 * CH, abs=1e-12)  # some vertex sits on the bump
    tri = poly_triangles(meshes, dverts, dtris, 0)
    assert assert_samples_within(tri, SQUARE, levels, sd, max_err) > 0
    # Away from the bump (two sample spacings) the floor is flat again.
    rng = np.random.default_rng(5)
    for x, y in random_points_in_poly(poly_world_xy(pmesh, 0), rng, 200):
        zz = mesh_height(tri, x, y) - BMIN[2]
        assert -1e-9 <= zz <= 4 * CH + 1e-9


def test_region_filter_ignores_spans_of_other_regions_above():
    floor = np.zeros((20, 20), int)
    bridge = np.full((20, 20), -1)
    bridge[:, 6:14] = 15  # a bridge (another region) over the middle of the floor
    levels = np.stack([floor, bridge])
    regions = np.stack([np.ones_like(floor), np.where(bridge >= 0, 2, 0)])
    chf = make_chf(levels, regions)
    pmesh = make_pmesh([SQUARE, [(7, 2), (13, 2), (13, 18), (7, 18)]], floor, [1, 2])
    # The bridge polygon's corners sit at bridge height.
    pmesh.verts[np.isin(pmesh.verts[:, 0], (7, 13)) & (pmesh.verts[:, 1] >= 0), 2] = 15
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, 3 * CS, CH)
    check_structure(pmesh, meshes, dverts, dtris)
    vb, nv = meshes[0, :2]
    np.testing.assert_allclose(dverts[vb:vb + nv, 2], BMIN[2], atol=1e-12)
    vb, nv = meshes[1, :2]
    np.testing.assert_allclose(dverts[vb:vb + nv, 2], BMIN[2] + 15 * CH, atol=1e-12)


def test_region_decides_when_heights_overlap():
    """A ramp (region 2) climbs over a floor (region 1) whose level lies inside the ramp
    polygon's height range: only the region tells which span is the ramp's."""
    ramp = np.tile(5 + np.arange(20), (20, 1))
    low = np.full((20, 20), -1)
    low[:, 10:] = 8
    levels = np.stack([low, ramp])
    regions = np.stack([np.where(low >= 0, 1, 0), np.full((20, 20), 2)])
    chf = make_chf(levels, regions)
    pmesh = make_pmesh([SQUARE], ramp, [2])
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, 2 * CS, CH)
    check_structure(pmesh, meshes, dverts, dtris)
    tri = poly_triangles(meshes, dverts, dtris, 0)
    rng = np.random.default_rng(8)
    for x, y in random_points_in_poly(poly_world_xy(pmesh, 0), rng, 200):
        assert abs(mesh_height(tri, x, y) - floor_z(ramp, x, y)) <= 2 * CH + 1e-9


def test_zero_sample_dist_uses_only_polygon_vertices():
    levels = np.zeros((20, 20), int)
    levels[8:13, 8:13] = 4
    chf = make_chf(levels, np.ones_like(levels))
    pmesh = make_pmesh([HEXAGON, SQUARE], levels, [1, 1])
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, 0.0, CH)
    check_structure(pmesh, meshes, dverts, dtris)
    np.testing.assert_array_equal(meshes[:, 1], [6, 4])
    np.testing.assert_array_equal(meshes[:, 3], [4, 2])


def test_shared_edge_points_match_between_neighbours():
    rng = np.random.default_rng(11)
    levels = rng.integers(0, 6, size=(20, 20))
    regions = np.where(np.arange(20)[None, :] < 10, 1, 2).repeat(20, axis=0)
    chf = make_chf(levels, regions, climb=6)
    left = [(2, 2), (10, 2), (10, 18), (2, 18)]
    right = [(10, 2), (18, 2), (18, 18), (10, 18)]
    pmesh = make_pmesh([left, right], levels, [1, 2])
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, 2 * CS, 0.5 * CH)
    check_structure(pmesh, meshes, dverts, dtris)
    x_edge = BMIN[0] + 10 * CS
    on_edge = []
    for p in range(2):
        vb, nv = meshes[p, :2]
        v = dverts[vb:vb + nv]
        on_edge.append(sorted(map(tuple, v[v[:, 0] == x_edge])))
    assert len(on_edge[0]) > 2  # the rough floor forced points onto the shared edge
    assert on_edge[0] == on_edge[1]


def test_empty_polymesh():
    levels = np.zeros((4, 4), int)
    chf = make_chf(levels, np.ones_like(levels))
    pmesh = make_pmesh([], levels, [])
    pmesh.polys = np.zeros((0, 6), np.int32)
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, 0.9, 0.2)
    assert meshes.shape == (0, 4) and dverts.shape == (0, 3) and dtris.shape == (0, 4)


def test_without_region_data_heights_come_from_spans_near_the_corners():
    levels = np.tile(np.arange(20), (20, 1))
    chf = make_chf(levels, np.ones_like(levels))
    chf.span_reg = None
    pmesh = make_pmesh([HEXAGON], levels, [0])
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, 3 * CS, CH)
    check_structure(pmesh, meshes, dverts, dtris)
    tri = poly_triangles(meshes, dverts, dtris, 0)
    rng = np.random.default_rng(4)
    for x, y in random_points_in_poly(poly_world_xy(pmesh, 0), rng, 100):
        assert abs(mesh_height(tri, x, y) - floor_z(levels, x, y)) <= 2 * CH + 1e-9


def random_convex_polygon(rng, w, h, max_verts):
    pts = rng.integers(1, [w, h], size=(rng.integers(3, 12), 2))
    pts = np.unique(pts, axis=0)
    if len(pts) < 3:
        return None
    # Monotone-chain convex hull, CCW, collinear points dropped.
    pts = sorted(map(tuple, pts))

    def half(seq):
        out = []
        for q in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (q[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (q[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(q)
        return out

    hull = half(pts)[:-1] + half(pts[::-1])[:-1]
    if len(hull) < 3 or len(hull) > max_verts:
        return None
    return [(int(x), int(y)) for x, y in hull]


@pytest.mark.parametrize("seed", range(24))
def test_random_polygons_on_random_floors(seed):
    rng = np.random.default_rng(seed)
    w = h = 26
    # Smooth random floor: a sum of a few sine bumps, in voxels.
    gx, gy = np.meshgrid(np.arange(w), np.arange(h))
    levels = np.zeros((h, w))
    for _ in range(3):
        f = rng.uniform(0.1, 0.6, 2)
        levels += rng.uniform(1, 6) * np.sin(f[0] * gx + rng.uniform(0, 6)) \
            * np.cos(f[1] * gy + rng.uniform(0, 6))
    levels = np.round(levels - levels.min()).astype(int)
    chf = make_chf(levels, np.ones_like(levels), climb=100)
    polys = []
    while len(polys) < 3:
        poly = random_convex_polygon(rng, w, h, 6)
        if poly is not None:
            polys.append(poly)
    pmesh = make_pmesh(polys, levels, [1] * len(polys))
    sd = float(rng.choice([0.0, 0.9 * CS, 2 * CS, 6 * CS]))
    max_err = float(rng.choice([0.0, CH, 3 * CH]))
    meshes, dverts, dtris = build_detail_mesh(pmesh, chf, sd, max_err)
    check_structure(pmesh, meshes, dverts, dtris)
    if sd == 0.0:
        np.testing.assert_array_equal(meshes[:, 1], (pmesh.polys >= 0).sum(axis=1))
        return
    for p, poly in enumerate(polys):
        g = np.array(poly, float) * CS
        e = np.roll(g, -1, axis=0) - g
        extent = min(np.abs(e[i, 0] * (g[:, 1] - g[i, 1]) - e[i, 1] * (g[:, 0] - g[i, 0])).max()
                     / np.linalg.norm(e[i]) for i in range(len(g)))
        if meshes[p, 1] < MAX_DETAIL_VERTS and extent >= 2 * sd:
            tri = poly_triangles(meshes, dverts, dtris, p)
            assert_samples_within(tri, poly, levels, sd, max_err)


def check_navmesh_detail(nm):
    """Per-polygon coverage and winding, and identical points on shared polygon edges."""
    for p in range(nm.polygon_count):
        vb, nv, tb, nt = (int(v) for v in nm.detail_meshes[p])
        pv = nm.polygon_vertices(p)
        n = pv.shape[0]
        np.testing.assert_array_equal(nm.detail_vertices[vb:vb + n], pv)
        tri = nm.detail_vertices[nm.detail_triangles[tb:tb + nt, :3] + vb]
        sa = signed_areas(tri)
        assert (sa > 0).all()
        assert sa.sum() == pytest.approx(area2d(pv[:, :2]), rel=1e-9)
        for i in range(n):
            q = int(nm.neighbours[p, i])
            if q < 0:
                continue
            a, b = pv[i], pv[(i + 1) % n]
            assert edge_points(nm, p, a, b) == edge_points(nm, q, a, b)


def edge_points(nm, p, a, b):
    vb, nv = nm.detail_meshes[p, :2]
    dv = nm.detail_vertices[vb:vb + nv]
    d = b[:2] - a[:2]
    ln = np.linalg.norm(d)
    cr = (d[0] * (dv[:, 1] - a[1]) - d[1] * (dv[:, 0] - a[0])) / ln
    u = ((dv[:, 0] - a[0]) * d[0] + (dv[:, 1] - a[1]) * d[1]) / ln ** 2
    on = (np.abs(cr) < 1e-9) & (u > 1e-9) & (u < 1 - 1e-9)
    return sorted(map(tuple, dv[on]))


# Recast's default solo bake surface area (shared/data/recast/README.md).
RECAST_AREA = {"dungeon.obj": 1636.0, "nav_test.obj": 4097.0}


@pytest.mark.parametrize("name", sorted(RECAST_AREA))
def test_recast_sample_detail_mesh(recast_data, name):
    from blender_navjump.core import BakeSettings, pipeline
    from blender_navjump.core.objio import read_obj

    v, t = read_obj(recast_data / name, up="y")
    nm = pipeline.bake(v, t, BakeSettings())
    assert nm.polygon_count > 0
    check_navmesh_detail(nm)
    assert nm.surface_area() == pytest.approx(RECAST_AREA[name], rel=0.10)
    # Fine sampling with zero tolerance hits the per-polygon caps and stays well formed.
    fine = pipeline.bake(v, t, BakeSettings(detail_sample_dist=1.0,
                                            detail_sample_max_error=0.0))
    check_navmesh_detail(fine)
    assert fine.detail_meshes[:, 1].max() <= MAX_DETAIL_VERTS
    assert fine.detail_meshes[:, 3].max() <= MAX_DETAIL_TRIS


def test_detail_starts_with_the_polygon_vertices_at_their_heights():
    """docs/navjump-json.md: a polygon's first detail vertices are its own vertices, same
    order, same heights (not refined per polygon)."""
    from scenes import Scene

    from blender_navjump.core import BakeSettings, bake

    v, t = Scene().floor(0, 0, 8, 8).ramp(8, 0, 14, 8, 0.0, 15.0).stairs(
        0, 8, 12, 0.0, 0.2, 0.4, 5).arrays()
    nm = bake(v, t, BakeSettings(agent_radius=0.3))
    assert nm.polygon_count >= 2
    heights = set()
    for p in range(nm.polygon_count):
        own = nm.polygons[p][nm.polygons[p] >= 0]
        base, count = nm.detail_meshes[p, 0], nm.detail_meshes[p, 1]
        assert count >= len(own)
        np.testing.assert_array_equal(nm.detail_vertices[base:base + len(own)],
                                      nm.vertices[own])
        heights.update(np.round(nm.vertices[own, 2], 3).tolist())
    assert len(heights) > 2  # the scene has polygons at several heights
