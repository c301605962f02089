"""Geometry look-ups for the jump-link generator (see ``links.py`` and docs/jump-links.md).

* ``TriangleIndex``: the input triangles with their bounds, binned on one xy grid
  (``query.spatial.fill_grid``, the grid the navmesh queries use): the up-facing walkable
  ones (*ground support*: is there a triangle right under a point with its surface inside a
  height window, exact) and all of them (exact body tests);
* ``PolygonIndex``: which standing navmesh polygons contain a point, and their surface
  height there (``query.spatial``'s point-in-polygon and surface height).

Everything is numba; the indexes are named tuples of arrays.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .contours import intersect_proper
from .geometry import faces_up
from .query.jit import hot_kernel, ifloor
from .query.spatial import fill_grid, point_in_polygon_xy, surface_height

# Barycentric slack of the point-in-triangle tests: points on a shared edge count for both
# triangles, so a ray between two floor triangles never falls through a crack.
BARY_EPS = 1e-9
# Slack of the bounds tests that come before the exact ones, metres.
BOX_EPS = 1e-6
# A triangle's bounds (``TriangleIndex.box`` rows; numba reads the fields by name).
BOUNDS = np.dtype([("xmin", np.float64), ("ymin", np.float64), ("zmin", np.float64),
                   ("xmax", np.float64), ("ymax", np.float64), ("zmax", np.float64)],
                  align=True)
# A polygon's plan bounds (``PolygonIndex.box`` rows).
XY_BOUNDS = np.dtype([("xmin", np.float64), ("ymin", np.float64), ("xmax", np.float64),
                      ("ymax", np.float64)], align=True)


class Grid(NamedTuple):
    """A uniform xy grid: bin (i, j) covers [ox + i size, ox + (i + 1) size) x [oy + j size,
    ...); bin id i + j nx."""

    ox: float
    oy: float
    size: float
    nx: int
    ny: int


class TriangleIndex(NamedTuple):
    """The input triangles for the exact tests: bounds rows (``BOUNDS``), CSR bin
    lists of all triangles (solid) on ``grid`` (crowded bins highest triangle first) and of
    the support triangles (facing up, walkable slope) on ``support_grid``. Ground look-ups
    test one point, body tests a box: the support bins are finer (about the support
    triangles' size, ``support_bin_size``), so that a point look-up on a finely modelled
    floor visits few triangles."""

    vertices: np.ndarray  # (V, 3) float64
    triangles: np.ndarray  # (T, 3) int32
    box: np.ndarray  # (T,) BOUNDS
    grid: Grid
    support_start: np.ndarray
    support_items: np.ndarray
    solid_start: np.ndarray
    solid_items: np.ndarray
    support_grid: Grid
    # the first solid bin (column, row) each triangle is listed in: a box test visiting
    # several bins tests a triangle in the first one it shares with the box only
    first_bin_x: np.ndarray  # (T,) int32
    first_bin_y: np.ndarray  # (T,) int32
    # each solid bin lists its highest triangles first (``_sort_bins_by_top``): only where
    # bins are crowded (finely modelled levels), elsewhere sorting costs more than it saves
    by_top: bool


# Support bins: twice the support triangles' median xy size (a point look-up then visits
# about ten triangles, each listed in about two bins), at least SUPPORT_BIN_MIN_SHARE and
# at most SUPPORT_BIN_SHARE of the solid bins' size.
SUPPORT_BIN_EXTENTS = 2.0
SUPPORT_BIN_SHARE = 0.5
SUPPORT_BIN_MIN_SHARE = 0.125


def support_bin_size(box, up, solid_size: float) -> float:
    """The support bins' size for triangles with bounds ``box`` (``up``: support ones):
    twice their median xy extent (from every 16th), within the shares of ``solid_size``."""
    ids = np.nonzero(up[::16])[0] * 16
    if ids.size == 0:
        return solid_size * SUPPORT_BIN_SHARE
    b = box[ids]
    ext = np.maximum(b["xmax"] - b["xmin"], b["ymax"] - b["ymin"])
    return float(np.clip(SUPPORT_BIN_EXTENTS * np.median(ext),
                         SUPPORT_BIN_MIN_SHARE * solid_size, SUPPORT_BIN_SHARE * solid_size))


class PolygonIndex(NamedTuple):
    """The standing navmesh polygons for point look-ups: polygons, plan bounds rows
    (``XY_BOUNDS``), surface triangles (``surf_tris[surf_start[p]:surf_start[p + 1]]``),
    CSR bin lists on ``grid`` of the polygons with ``usable``."""

    vertices: np.ndarray
    polygons: np.ndarray
    nv: np.ndarray
    box: np.ndarray
    usable: np.ndarray
    surf_tris: np.ndarray
    surf_start: np.ndarray
    grid: Grid
    start: np.ndarray
    items: np.ndarray


def make_grid(bmin, bmax, size: float) -> Grid:
    """A grid of ``size`` bins over the xy box bmin..bmax."""
    nx = int(math.ceil((float(bmax[0]) - float(bmin[0])) / size)) + 1
    ny = int(math.ceil((float(bmax[1]) - float(bmin[1])) / size)) + 1
    return Grid(float(bmin[0]), float(bmin[1]), float(size), nx, ny)


def _bin_lists(lo, hi, ids, grid: Grid):
    """CSR lists of items ``ids`` (their xy bounds rows lo, hi) over the grid's bins."""
    start, items = fill_grid(np.ascontiguousarray(lo[ids]), np.ascontiguousarray(hi[ids]),
                             np.array([grid.ox, grid.oy]), grid.size, grid.nx, grid.ny)
    return start, ids[items]


@njit(cache=True, nogil=True)
def triangle_bounds(vertices, triangles, slope_cos):
    """Bounds rows (``BOUNDS``) of the triangles, and which ones an agent can
    stand on (facing up with normal.z / |normal| > slope_cos)."""
    m = triangles.shape[0]
    box = np.empty(m, BOUNDS)
    up = np.zeros(m, np.bool_)
    for t in range(m):
        ia = triangles[t, 0]
        ib = triangles[t, 1]
        ic = triangles[t, 2]
        a = vertices[ia]
        b = vertices[ib]
        c = vertices[ic]
        r = box[t]
        r.xmin = min(a[0], min(b[0], c[0]))
        r.ymin = min(a[1], min(b[1], c[1]))
        r.zmin = min(a[2], min(b[2], c[2]))
        r.xmax = max(a[0], max(b[0], c[0]))
        r.ymax = max(a[1], max(b[1], c[1]))
        r.zmax = max(a[2], max(b[2], c[2]))
        up[t] = faces_up(vertices, ia, ib, ic, slope_cos)
    return box, up


def triangle_index(vertices, triangles, slope_cos: float, grid: Grid) -> TriangleIndex:
    """Bounds and bin lists of the input triangles (support: normal.z / |normal| >
    slope_cos). Two passes over the triangles in nogil kernels (``triangle_bounds``,
    ``_bin_triangles``: one counting sort per grid)."""
    v = np.ascontiguousarray(vertices, np.float64)
    t = np.ascontiguousarray(triangles, np.int32)
    box, up = triangle_bounds(v, t, float(slope_cos))
    ssize = support_bin_size(box, up, grid.size)
    sgrid = make_grid((grid.ox, grid.oy), (grid.ox + grid.nx * grid.size,
                                          grid.oy + grid.ny * grid.size), ssize)
    sol_start, sol_items, sup_start, sup_items, first_x, first_y = TriangleBins(
        *_bin_triangles(box, up, grid, sgrid))
    busy = int(np.count_nonzero(np.diff(sol_start)))
    by_top = sol_items.size >= SORT_MIN_MEAN * max(busy, 1)
    if by_top:
        _sort_bins_by_top(sol_start, sol_items, box)
    return TriangleIndex(v, t, box, grid, sup_start, sup_items, sol_start, sol_items, sgrid,
                         first_x, first_y, by_top)


class TriangleBins(NamedTuple):
    """``_bin_triangles``' answer: CSR bin lists of all triangles (solid) and of the support
    ones, and each triangle's first solid bin (column, row).

    The kernel returns a plain tuple: a kernel that returns a named tuple to Python refers
    to its class by module name, and a shipped kernel compiled under ``blender_navjump``
    then imports that name inside Blender's ``bl_ext...`` copy (a crash where it is absent;
    ``tests/core/test_kernel_cache.py::test_kernels_load_under_the_extension_name``)."""

    solid_start: np.ndarray
    solid_items: np.ndarray
    support_start: np.ndarray
    support_items: np.ndarray
    first_x: np.ndarray
    first_y: np.ndarray


@njit(cache=True, nogil=True)
def _bin_triangles(box, up, grid, sgrid):
    """CSR bin lists of all triangles on ``grid`` and of the support ones (``up``) on
    ``sgrid`` (items in triangle order within a bin, as ``query.spatial.fill_grid``), and
    each triangle's first solid bin (column, row; not clipped to the grid: ``bin_range``
    clips the boxes, the tests compare with max)."""
    n = box.shape[0]
    nb = grid.nx * grid.ny
    snb = sgrid.nx * sgrid.ny
    sol_start = np.zeros(nb + 1, np.int64)
    sup_start = np.zeros(snb + 1, np.int64)
    first_x = np.empty(n, np.int32)
    first_y = np.empty(n, np.int32)
    for t in range(n):
        fx = ifloor((box[t].xmin - grid.ox) / grid.size)
        fy = ifloor((box[t].ymin - grid.oy) / grid.size)
        first_x[t] = fx
        first_y[t] = fy
        x1 = min(ifloor((box[t].xmax - grid.ox) / grid.size), grid.nx - 1)
        y1 = min(ifloor((box[t].ymax - grid.oy) / grid.size), grid.ny - 1)
        for iy in range(max(fy, 0), y1 + 1):
            for ix in range(max(fx, 0), x1 + 1):
                sol_start[iy * grid.nx + ix + 1] += 1
        if up[t]:
            i0, i1, j0, j1 = _support_bins(box, t, sgrid)
            for iy in range(j0, j1 + 1):
                for ix in range(i0, i1 + 1):
                    sup_start[iy * sgrid.nx + ix + 1] += 1
    for b in range(nb):
        sol_start[b + 1] += sol_start[b]
    for b in range(snb):
        sup_start[b + 1] += sup_start[b]
    sol_items = np.empty(sol_start[nb], np.int32)
    sup_items = np.empty(sup_start[snb], np.int32)
    sol_fill = sol_start[:-1].copy()
    sup_fill = sup_start[:-1].copy()
    for t in range(n):
        x1 = min(ifloor((box[t].xmax - grid.ox) / grid.size), grid.nx - 1)
        y1 = min(ifloor((box[t].ymax - grid.oy) / grid.size), grid.ny - 1)
        for iy in range(max(first_y[t], 0), y1 + 1):
            for ix in range(max(first_x[t], 0), x1 + 1):
                c = iy * grid.nx + ix
                sol_items[sol_fill[c]] = t
                sol_fill[c] += 1
        if up[t]:
            i0, i1, j0, j1 = _support_bins(box, t, sgrid)
            for iy in range(j0, j1 + 1):
                for ix in range(i0, i1 + 1):
                    c = iy * sgrid.nx + ix
                    sup_items[sup_fill[c]] = t
                    sup_fill[c] += 1
    return sol_start, sol_items, sup_start, sup_items, first_x, first_y


@hot_kernel
def _support_bins(box, t, sgrid):
    """The support bins that list triangle t: those within BOX_EPS of its bounds. A ground
    look-up visits the one bin of its point (``bin_of``), and a point on the triangle's
    edge can lie a rounding error on the other side of a bin boundary (a link position
    on the line where two boxes of a level built on a 2.5 m grid meet, 0.3 m bins)."""
    return bin_range(box[t].xmin - BOX_EPS, box[t].xmax + BOX_EPS, box[t].ymin - BOX_EPS,
                     box[t].ymax + BOX_EPS, sgrid)


# bins up to this many triangles are sorted by insertion, larger ones by argsort
SORT_INSERTION_MAX = 48
# the solid bins are sorted when they hold at least this many triangles on average
SORT_MIN_MEAN = 64


@njit(cache=True, nogil=True)
def _sort_bins_by_top(start, items, box):
    """Order each bin's triangles by their highest point, highest first (in place; ties
    keep their order): a body test stops at the first triangle entirely below the body."""
    most = 0
    for b in range(start.shape[0] - 1):
        most = max(most, start[b + 1] - start[b])
    key = np.empty(most)
    val = np.empty(most, items.dtype)
    for b in range(start.shape[0] - 1):
        lo = start[b]
        k = start[b + 1] - lo
        if k < 2:
            continue
        for q in range(k):
            val[q] = items[lo + q]
            key[q] = -box[val[q]].zmax
        if k > SORT_INSERTION_MAX:
            order = np.argsort(key[:k], kind="mergesort")
            for q in range(k):
                items[lo + q] = val[order[q]]
            continue
        for q in range(1, k):  # insertion sort, stable
            kq = key[q]
            vq = val[q]
            r = q
            while r > 0 and key[r - 1] > kq:
                key[r] = key[r - 1]
                val[r] = val[r - 1]
                r -= 1
            key[r] = kq
            val[r] = vq
        for q in range(k):
            items[lo + q] = val[q]


def polygon_index(vertices, polygons, nv, usable, surf_tris, surf_start,
                  grid: Grid) -> PolygonIndex:
    """Bounds and bin lists of the ``usable`` navmesh polygons."""
    pverts = np.ascontiguousarray(vertices, np.float64)
    polys = np.ascontiguousarray(polygons, np.int32)
    pv = pverts[np.where(polys >= 0, polys, 0)]
    big = np.where((polys >= 0)[:, :, None], pv, np.nan)
    lo = np.stack([np.nanmin(big[:, :, 0], 1), np.nanmin(big[:, :, 1], 1)], axis=1)
    hi = np.stack([np.nanmax(big[:, :, 0], 1), np.nanmax(big[:, :, 1], 1)], axis=1)
    box = np.empty(polys.shape[0], XY_BOUNDS)
    box["xmin"], box["ymin"] = lo[:, 0], lo[:, 1]
    box["xmax"], box["ymax"] = hi[:, 0], hi[:, 1]
    # listed in every bin within BOX_EPS of its bounds: a look-up visits the point's bin
    # only, and a point up to INSIDE_EPS outside a polygon's edge counts as inside it
    start, items = _bin_lists(lo - BOX_EPS, hi + BOX_EPS, np.nonzero(usable)[0], grid)
    return PolygonIndex(pverts, polys, np.ascontiguousarray(nv, np.int32), box,
                        np.ascontiguousarray(usable, np.bool_), surf_tris, surf_start, grid,
                        start, items.astype(np.int32))


@hot_kernel
def bin_of(x, y, grid):
    i = ifloor((x - grid.ox) / grid.size)
    j = ifloor((y - grid.oy) / grid.size)
    if i < 0 or j < 0 or i >= grid.nx or j >= grid.ny:
        return -1
    return i + j * grid.nx


@hot_kernel
def bin_range(xlo, xhi, ylo, yhi, grid):
    """Bins (i0, i1, j0, j1, inclusive, clipped to the grid) covering an xy box."""
    i0 = max(ifloor((xlo - grid.ox) / grid.size), 0)
    i1 = min(ifloor((xhi - grid.ox) / grid.size), grid.nx - 1)
    j0 = max(ifloor((ylo - grid.oy) / grid.size), 0)
    j1 = min(ifloor((yhi - grid.oy) / grid.size), grid.ny - 1)
    return i0, i1, j0, j1


@hot_kernel
def support_height(x, y, t, vertices, triangles):
    """Height of the up-facing triangle t over (x, y), NaN when (x, y) is not over it."""
    a = vertices[triangles[t, 0]]
    bb = vertices[triangles[t, 1]]
    c = vertices[triangles[t, 2]]
    d = (bb[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (bb[1] - a[1])
    if d <= 0.0:
        return np.nan
    w1 = ((x - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (y - a[1])) / d
    w2 = ((bb[0] - a[0]) * (y - a[1]) - (x - a[0]) * (bb[1] - a[1])) / d
    w0 = 1.0 - w1 - w2
    if w0 < -BARY_EPS or w1 < -BARY_EPS or w2 < -BARY_EPS:
        return np.nan
    return w0 * a[2] + w1 * bb[2] + w2 * c[2]


@hot_kernel
def has_ground(x, y, zlo, zhi, ti):
    """True when a support triangle lies under (x, y) with its surface height in [zlo,
    zhi]."""
    b = bin_of(x, y, ti.support_grid)
    if b < 0:
        return False
    box = ti.box
    vertices = ti.vertices
    triangles = ti.triangles
    items = ti.support_items
    start = ti.support_start
    for k in range(start[b], start[b + 1]):
        t = items[k]
        if x < box[t].xmin - BOX_EPS or x > box[t].xmax + BOX_EPS \
                or y < box[t].ymin - BOX_EPS or y > box[t].ymax + BOX_EPS:
            continue
        z = support_height(x, y, t, vertices, triangles)
        if zlo <= z <= zhi:
            return True
    return False


@hot_kernel
def ground_height(x, y, zref, tol, ti):
    """Height of the support triangle surface under (x, y) closest to ``zref`` within
    ``tol``; NaN when there is none. Links measure heights here (on the input triangles),
    not on the voxel-rounded navmesh."""
    b = bin_of(x, y, ti.support_grid)
    if b < 0:
        return np.nan
    box = ti.box
    vertices = ti.vertices
    triangles = ti.triangles
    items = ti.support_items
    start = ti.support_start
    best = np.nan
    best_d = tol
    for k in range(start[b], start[b + 1]):
        t = items[k]
        if x < box[t].xmin - BOX_EPS or x > box[t].xmax + BOX_EPS \
                or y < box[t].ymin - BOX_EPS or y > box[t].ymax + BOX_EPS:
            continue
        z = support_height(x, y, t, vertices, triangles)
        if math.isnan(z):
            continue
        if abs(z - zref) <= best_d:
            best_d = abs(z - zref)
            best = z
    return best


@hot_kernel
def polygon_height(pi, p, x, y):
    """Surface height of polygon p at (x, y) (``query.spatial.surface_height``)."""
    return surface_height(pi.surf_tris, pi.surf_start[p], pi.surf_start[p + 1], x, y)


@hot_kernel
def locate(x, y, zlo, zhi, exclude, pi, out_poly, out_z):
    """Usable polygons of ``pi`` containing (x, y) whose surface there is within [zlo, zhi].

    Writes up to ``out_poly.shape[0]`` hits sorted by height; returns their number.
    Polygon ``exclude`` is skipped.
    """
    b = bin_of(x, y, pi.grid)
    if b < 0:
        return 0
    n = 0
    cap = out_poly.shape[0]
    pbox = pi.box
    items = pi.items
    start = pi.start
    vertices = pi.vertices
    polygons = pi.polygons
    nv = pi.nv
    for k in range(start[b], start[b + 1]):
        p = items[k]
        if p == exclude:
            continue
        r = pbox[p]
        if x < r.xmin - BOX_EPS or x > r.xmax + BOX_EPS or y < r.ymin - BOX_EPS \
                or y > r.ymax + BOX_EPS:
            continue
        if not point_in_polygon_xy(vertices, polygons[p], nv[p], x, y):
            continue
        z = polygon_height(pi, p, x, y)
        if not (zlo <= z <= zhi):
            continue
        # insertion by height; a point on a shared edge finds both polygons at one height:
        # keep the lower id only.
        dup = False
        for i in range(n):
            if abs(out_z[i] - z) < 1e-6:
                dup = True
                if p < out_poly[i]:
                    out_poly[i] = p
                break
        if dup or n >= cap:
            continue
        i = n
        while i > 0 and out_z[i - 1] > z:
            out_z[i] = out_z[i - 1]
            out_poly[i] = out_poly[i - 1]
            i -= 1
        out_z[i] = z
        out_poly[i] = p
        n += 1
    return n


@hot_kernel
def _clip_slab(src, n, z, keep_above, dst):
    """Clip polygon src[:n] (rows x, y, z) by the plane z; returns the vertex count."""
    m = 0
    for i in range(n):
        j = (i + 1) % n
        ina = src[i, 2] >= z if keep_above else src[i, 2] <= z
        inb = src[j, 2] >= z if keep_above else src[j, 2] <= z
        if ina:
            dst[m, 0] = src[i, 0]
            dst[m, 1] = src[i, 1]
            dst[m, 2] = src[i, 2]
            m += 1
        if ina != inb:
            t = (z - src[i, 2]) / (src[j, 2] - src[i, 2])
            dst[m, 0] = src[i, 0] + t * (src[j, 0] - src[i, 0])
            dst[m, 1] = src[i, 1] + t * (src[j, 1] - src[i, 1])
            dst[m, 2] = z
            m += 1
    return m


@hot_kernel
def pt_seg_d2(px, py, ax, ay, bx, by):
    """Squared distance from point p to 2D segment ab."""
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    t = 0.0
    if ll > 0.0:
        t = min(max(((px - ax) * dx + (py - ay) * dy) / ll, 0.0), 1.0)
    ex = ax + t * dx - px
    ey = ay + t * dy - py
    return ex * ex + ey * ey


@hot_kernel
def _inside_convex(px, py, poly, n):
    """(px, py) inside or on the convex polygon poly[:n] (either winding, nonzero area)."""
    pos = True
    neg = True
    for e in range(n):
        f = (e + 1) % n
        cr = (poly[f, 0] - poly[e, 0]) * (py - poly[e, 1]) - (poly[f, 1] - poly[e, 1]) \
            * (px - poly[e, 0])
        if cr < 0.0:
            pos = False
        if cr > 0.0:
            neg = False
    return pos or neg


@hot_kernel
def triangle_near_quad(t, qx, qy, quad, quad_area, zlo, zhi, r2, vertices, triangles, p0, p1,
                       p2):
    """Does triangle t, clipped to the heights strictly between zlo and zhi, come closer
    than sqrt(r2) (horizontally) to the convex quadrilateral (qx, qy: 4 corners in order;
    ``quad`` the same as (4, 3) rows, ``quad_area`` twice its area)? ``p0..p2`` are (8, 3)
    scratch arrays. Exact."""
    va = vertices[triangles[t, 0]]
    vb = vertices[triangles[t, 1]]
    vc = vertices[triangles[t, 2]]
    if min(va[2], min(vb[2], vc[2])) >= zhi or max(va[2], max(vb[2], vc[2])) <= zlo:
        return False
    for k in range(3):
        p0[0, k] = va[k]
        p0[1, k] = vb[k]
        p0[2, k] = vc[k]
    n = _clip_slab(p0, 3, zlo, True, p1)
    if n < 3:
        return False
    n = _clip_slab(p1, n, zhi, False, p2)
    if n < 3:
        return False
    area = 0.0
    for e in range(n):
        f = (e + 1) % n
        area += p2[e, 0] * p2[f, 1] - p2[f, 0] * p2[e, 1]
    # overlap: a corner of one inside the other
    if abs(area) > 1e-12 and _inside_convex(qx[0], qy[0], p2, n):
        return True
    if quad_area > 1e-12:
        for e in range(n):
            if _inside_convex(p2[e, 0], p2[e, 1], quad, 4):
                return True
    # else the closest edges: two segments are within sqrt(r2) when an end of one is
    # within it of the other or they cross; over all edge pairs, every corner of one
    # outline against every edge of the other (each distance once), then crossings
    # (only away from the ends by now: contours.intersect_proper)
    for e in range(n):
        f = (e + 1) % n
        for k in range(4):
            if pt_seg_d2(qx[k], qy[k], p2[e, 0], p2[e, 1], p2[f, 0], p2[f, 1]) < r2:
                return True
    for e in range(n):
        for k in range(4):
            m = (k + 1) % 4
            if pt_seg_d2(p2[e, 0], p2[e, 1], qx[k], qy[k], qx[m], qy[m]) < r2:
                return True
    if r2 > 0.0:
        for e in range(n):
            f = (e + 1) % n
            for k in range(4):
                m = (k + 1) % 4
                if intersect_proper(qx[k], qy[k], qx[m], qy[m], p2[e, 0], p2[e, 1], p2[f, 0],
                                    p2[f, 1]):
                    return True
    return False


@hot_kernel
def set_quad(qx, qy, quad):
    """``quad`` rows from the corner tuples; returns twice the quadrilateral's area."""
    for k in range(4):
        quad[k, 0] = qx[k]
        quad[k, 1] = qy[k]
        quad[k, 2] = 0.0
    return abs((qx[2] - qx[0]) * (qy[3] - qy[1]) - (qx[3] - qx[1]) * (qy[2] - qy[0]))


@hot_kernel
def swept_body_hits_triangles(qx, qy, zlo, zhi, rad, ti, p0, p1, p2, quad):
    """Does any input triangle come within ``rad`` (horizontally) of the convex
    quadrilateral (qx, qy: 4 corners in order) at heights strictly between zlo and zhi?
    The area a body sweeps walking at one height: one exact pass over the triangles.
    ``p0..p2`` are (8, 3) scratch arrays, ``quad`` a (4, 3) one."""
    quad_area = set_quad(qx, qy, quad)
    xlo = min(qx[0], qx[1], qx[2], qx[3]) - rad
    xhi = max(qx[0], qx[1], qx[2], qx[3]) + rad
    ylo = min(qy[0], qy[1], qy[2], qy[3]) - rad
    yhi = max(qy[0], qy[1], qy[2], qy[3]) + rad
    i0, i1, j0, j1 = bin_range(xlo, xhi, ylo, yhi, ti.grid)
    nx = ti.grid.nx
    first_x = ti.first_bin_x
    first_y = ti.first_bin_y
    by_top = ti.by_top
    box = ti.box
    start = ti.solid_start
    items = ti.solid_items
    vertices = ti.vertices
    triangles = ti.triangles
    r2 = rad * rad
    for j in range(j0, j1 + 1):
        for i in range(i0, i1 + 1):
            b = i + j * nx
            for q in range(start[b], start[b + 1]):
                t = items[q]
                if box[t].zmax <= zlo and by_top:
                    break  # highest first: the rest of the bin is below the box
                if not box_overlaps(box, t, xlo, xhi, ylo, yhi, zlo, zhi):
                    continue
                # listed in several bins: tested in the first one this box visits
                if max(first_x[t], i0) != i or max(first_y[t], j0) != j:
                    continue
                if triangle_near_quad(t, qx, qy, quad, quad_area, zlo, zhi, r2, vertices,
                                      triangles, p0, p1, p2):
                    return True
    return False


@hot_kernel
def box_overlaps(box, t, xlo, xhi, ylo, yhi, zlo, zhi):
    """Triangle t's bounds overlap the open box (xlo, xhi) x (ylo, yhi) x (zlo, zhi)?"""
    return not (box[t].zmin >= zhi or box[t].zmax <= zlo or box[t].xmin >= xhi
                or box[t].xmax <= xlo or box[t].ymin >= yhi or box[t].ymax <= ylo)
