"""Geometry kernels shared by the climb graph (``climb.py``) and the ledge finder
(``ledges.py``): vector helpers, segment-triangle crossings over query/spatial.py's grid of
triangles, and the closest point of a triangle in XY. numpy + numba only."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .query.spatial import _cell_range, fill_grid

# Horizontal reach from a climb node to walkable ground, beyond the agent radius (metres).
GROUND_REACH = 0.5


@njit(cache=True)
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def _segment_hits(a, b, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start, grid_items):
    """True for each probe segment a[k]-b[k] that crosses a triangle (Moller-Trumbore),
    testing only the triangles binned (query/spatial.py's grid) in the cells it spans."""
    return _segment_walk(a, b, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
                         grid_items, True)[1] >= 0


@njit(cache=True)
def _segment_first_hits(a, b, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
                        grid_items):
    """For each segment a[k]-b[k]: (param in [0, 1] of its first triangle crossing, that
    triangle), or (inf, -1) when it crosses none."""
    return _segment_walk(a, b, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
                         grid_items, False)


@njit(cache=True)
def _segment_walk(a, b, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start, grid_items,
                  any_hit):
    """The one grid walk of the probe segments: for each a[k]-b[k] the triangles binned in
    the cells it spans, bounds first, then the exact crossing. (param, triangle) of the
    first crossing along the segment, or (inf, -1); with ``any_hit`` the walk stops at the
    first crossing met (any one: the caller only asks whether there is one)."""
    n = a.shape[0]
    first = np.full(n, np.inf)
    which = np.full(n, -1, np.int64)
    stamp = np.full(tris.shape[0], -1, np.int64)
    for k in range(n):
        w, t = _walk_one(a[k, 0], a[k, 1], a[k, 2], b[k, 0], b[k, 1], b[k, 2], tris, tri_lo,
                         tri_hi, origin, cell, nx, ny, grid_start, grid_items, any_hit, stamp,
                         k)
        first[k] = w
        which[k] = t
    return first, which


@njit(cache=True)
def _walk_one(ax, ay, az, bx, by, bz, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
              grid_items, any_hit, stamp, mark):
    """(param, triangle) of segment a-b's first crossing (any crossing with ``any_hit``), or
    (inf, -1); ``stamp`` (one slot per triangle) marks the triangles seen with ``mark``,
    which must differ from every earlier call's on that stamp array."""
    lo0, hi0 = min(ax, bx), max(ax, bx)
    lo1, hi1 = min(ay, by), max(ay, by)
    lo2, hi2 = min(az, bz), max(az, bz)
    dx, dy, dz = bx - ax, by - ay, bz - az
    best = np.inf
    which = -1
    x0, x1, y0, y1 = _cell_range(lo0, hi0, lo1, hi1, origin, cell, nx, ny)
    for iy in range(y0, y1 + 1):
        for ix in range(x0, x1 + 1):
            c = iy * nx + ix
            for m in range(grid_start[c], grid_start[c + 1]):
                t = grid_items[m]
                if stamp[t] == mark:
                    continue
                stamp[t] = mark
                if tri_lo[t, 0] > hi0 or tri_lo[t, 1] > hi1 or tri_lo[t, 2] > hi2 \
                        or tri_hi[t, 0] < lo0 or tri_hi[t, 1] < lo1 or tri_hi[t, 2] < lo2:
                    continue
                w = _crossing(ax, ay, az, dx, dy, dz, tris, t)
                if w < best or (w == best and w < np.inf and t < which):
                    best = w
                    which = t
                    if any_hit:
                        return best, which
    return best, which


@njit(cache=True)
def _crossing(ax, ay, az, dx, dy, dz, tris, t):
    """Where (param along d) the segment a -> a + d crosses triangle ``tris[t]``
    (Moller-Trumbore, on scalars); inf when it does not."""
    v0x, v0y, v0z = tris[t, 0, 0], tris[t, 0, 1], tris[t, 0, 2]
    e1x, e1y, e1z = tris[t, 1, 0] - v0x, tris[t, 1, 1] - v0y, tris[t, 1, 2] - v0z
    e2x, e2y, e2z = tris[t, 2, 0] - v0x, tris[t, 2, 1] - v0y, tris[t, 2, 2] - v0z
    px = dy * e2z - dz * e2y  # d x e2
    py = dz * e2x - dx * e2z
    pz = dx * e2y - dy * e2x
    det = e1x * px + e1y * py + e1z * pz
    if abs(det) < 1e-12:
        return np.inf
    inv = 1.0 / det
    tx, ty, tz = ax - v0x, ay - v0y, az - v0z
    u = (tx * px + ty * py + tz * pz) * inv
    if u < 0.0 or u > 1.0:
        return np.inf
    qx = ty * e1z - tz * e1y  # t x e1
    qy = tz * e1x - tx * e1z
    qz = tx * e1y - ty * e1x
    v = (dx * qx + dy * qy + dz * qz) * inv
    if v < 0.0 or u + v > 1.0:
        return np.inf
    w = (e2x * qx + e2y * qy + e2z * qz) * inv
    if 0.0 <= w <= 1.0:
        return w
    return np.inf


class TriangleGrid(NamedTuple):
    """Scene triangles binned in query/spatial.py's uniform XY grid (collision probes)."""

    tris: np.ndarray  # (T, 3, 3)
    lo: np.ndarray  # (T, 3) bounds
    hi: np.ndarray
    origin: np.ndarray
    cell: float
    nx: int
    ny: int
    start: np.ndarray
    items: np.ndarray


def triangle_bounds(tris) -> tuple[np.ndarray, np.ndarray]:
    """(T, 3) lower and upper bounds of triangles (T, 3, 3) (elementwise over the corners:
    several times faster than numpy's reduction along the short axis)."""
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    return np.minimum(np.minimum(a, b), c), np.maximum(np.maximum(a, b), c)


def triangle_grid(vertices, triangles) -> TriangleGrid:
    tris = np.ascontiguousarray(np.asarray(vertices, np.float64).reshape(-1, 3)[
        np.asarray(triangles, np.int64).reshape(-1, 3)])
    lo, hi, origin, cell, nx, ny, start, items = bounds_grid(tris)
    return TriangleGrid(tris, lo, hi, origin, float(cell), int(nx), int(ny), start, items)


@njit(cache=True)
def bounds_grid(tris):
    """(lo, hi, origin, cell, nx, ny, start, items): the (T, 3) bounds of triangles (T, 3, 3)
    and query/spatial.py's uniform XY grid over them, in one numba call (the grid is
    ``spatial.build_grid``'s: the same origin, cell and binning)."""
    n = tris.shape[0]
    lo = np.empty((n, 3))
    hi = np.empty((n, 3))
    for t in range(n):
        for a in range(3):
            lo[t, a] = min(tris[t, 0, a], tris[t, 1, a], tris[t, 2, a])
            hi[t, a] = max(tris[t, 0, a], tris[t, 1, a], tris[t, 2, a])
    if n == 0:
        return lo, hi, np.zeros(2), 1.0, 1, 1, np.zeros(2, np.int64), np.zeros(0, np.int64)
    origin = np.empty(2)
    top = np.empty(2)
    for a in range(2):
        origin[a] = lo[:, a].min() - 1e-3
        top[a] = hi[:, a].max() + 1e-3
    span0, span1 = top[0] - origin[0], top[1] - origin[1]
    sizes = np.empty(n)
    for t in range(n):
        sizes[t] = max(hi[t, 0] - lo[t, 0], hi[t, 1] - lo[t, 1])
    # about one triangle per cell; never more than ~4 cells per triangle over the grid
    cell = max(float(np.median(sizes)), 0.25)
    cell = max(cell, math.sqrt(span0 * span1 / (4.0 * n + 16.0)))
    nx = int(span0 / cell) + 1
    ny = int(span1 / cell) + 1
    start, items = fill_grid(lo, hi, origin, cell, nx, ny)
    return lo, hi, origin, cell, nx, ny, start, items


def segment_first_hits(a, b, grid: TriangleGrid):
    """(param, triangle) of each segment a[k]-b[k]'s first crossing; (inf, -1) for none."""
    a = np.ascontiguousarray(a, np.float64).reshape(-1, 3)
    b = np.ascontiguousarray(b, np.float64).reshape(-1, 3)
    if a.shape[0] == 0 or grid.tris.shape[0] == 0:
        return np.full(a.shape[0], np.inf), np.full(a.shape[0], -1, np.int64)
    return _segment_first_hits(a, b, grid.tris, grid.lo, grid.hi, grid.origin, grid.cell,
                               grid.nx, grid.ny, grid.start, grid.items)

@njit(cache=True)
def _closest_on_triangle_xy(px, py, tris, t):
    """Closest point (x, y, z on the triangle's plane) of triangle ``tris[t]`` to (px, py) in
    XY, and its XY distance (scalar indexing: no view of the triangle is made)."""
    best_d = np.inf
    bx, by, bz = 0.0, 0.0, 0.0
    ax, ay = tris[t, 0, 0], tris[t, 0, 1]
    e1x, e1y = tris[t, 1, 0] - ax, tris[t, 1, 1] - ay
    e2x, e2y = tris[t, 2, 0] - ax, tris[t, 2, 1] - ay
    det = e1x * e2y - e1y * e2x
    if abs(det) > 1e-14:
        u = ((px - ax) * e2y - (py - ay) * e2x) / det
        v = (e1x * (py - ay) - e1y * (px - ax)) / det
        if u >= 0.0 and v >= 0.0 and u + v <= 1.0:
            z = tris[t, 0, 2] + u * (tris[t, 1, 2] - tris[t, 0, 2]) \
                + v * (tris[t, 2, 2] - tris[t, 0, 2])
            return px, py, z, 0.0
    for k in range(3):
        k1 = (k + 1) % 3
        p0, p1, p2 = tris[t, k, 0], tris[t, k, 1], tris[t, k, 2]
        dx, dy = tris[t, k1, 0] - p0, tris[t, k1, 1] - p1
        ll = dx * dx + dy * dy
        s = 0.0
        if ll > 0.0:
            s = min(max(((px - p0) * dx + (py - p1) * dy) / ll, 0.0), 1.0)
        cx, cy = p0 + s * dx, p1 + s * dy
        dd = (cx - px) ** 2 + (cy - py) ** 2
        if dd < best_d:
            best_d = dd
            bx, by, bz = cx, cy, p2 + s * (tris[t, k1, 2] - p2)
    return bx, by, bz, np.sqrt(best_d)


class SurfaceGrid(NamedTuple):
    """A navmesh's surface triangles (``NavMesh.surface_triangles``), the polygon of each
    and their XY grid (query/spatial.py): built once per navmesh and shared by the ledge
    finder and the navmesh join."""

    start: np.ndarray  # (P + 1,) polygon p owns tris[start[p]:start[p + 1]]
    tris: np.ndarray  # (T, 3, 3)
    poly: np.ndarray  # (T,) int64
    origin: np.ndarray
    cell: float
    nx: int
    ny: int
    grid_start: np.ndarray
    grid_items: np.ndarray


def surface_grid(navmesh) -> SurfaceGrid:
    """The :class:`SurfaceGrid` of ``navmesh``."""
    start, tris = navmesh.surface_triangles()
    tris = np.ascontiguousarray(tris, np.float64)
    poly = np.repeat(np.arange(navmesh.polygon_count, dtype=np.int64), np.diff(start))
    _lo, _hi, origin, cell, nx, ny, gstart, gitems = bounds_grid(tris)
    return SurfaceGrid(start, tris, poly, origin, float(cell), int(nx), int(ny), gstart,
                       gitems)
