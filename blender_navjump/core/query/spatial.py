"""Point-to-polygon geometry and the nearest-polygon search.

Polygons are convex and counter-clockwise seen from +Z, so "inside" is a 2D (XY) test;
heights come from each polygon's surface triangles (its detail mesh when the bake made
one, else a fan over the polygon), so points land on the refined surface.

The spatial index is a uniform XY grid over polygon bounds (CSR: ``grid_start`` /
``grid_items``); a box query visits only the cells the box overlaps.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .jit import hot_kernel

# Points this close (metres, XY) to a polygon edge count as inside it.
INSIDE_EPS = 1e-6


def build_grid(poly_bmin: np.ndarray, poly_bmax: np.ndarray):
    """Uniform XY grid over polygon bounds: (origin (2,), cell, nx, ny, start, items)."""
    n = poly_bmin.shape[0]
    if n == 0:
        return np.zeros(2), 1.0, 1, 1, np.zeros(2, np.int64), np.zeros(0, np.int64)
    origin = poly_bmin[:, :2].min(axis=0) - 1e-3
    span = poly_bmax[:, :2].max(axis=0) + 1e-3 - origin
    sizes = np.maximum(poly_bmax[:, 0] - poly_bmin[:, 0], poly_bmax[:, 1] - poly_bmin[:, 1])
    # About one polygon per cell; never more than ~4 cells per polygon over the whole grid.
    cell = max(float(np.median(sizes)), 0.25)
    min_cell = math.sqrt(float(span[0] * span[1]) / (4.0 * n + 16.0))
    cell = max(cell, min_cell)
    nx = int(span[0] / cell) + 1
    ny = int(span[1] / cell) + 1
    start, items = fill_grid(poly_bmin, poly_bmax, origin, cell, nx, ny)
    return origin, cell, nx, ny, start, items


@njit(cache=True, nogil=True)
def fill_grid(bmin, bmax, origin, cell, nx, ny):
    """CSR lists (start, items) of the items whose xy bounds rows (bmin, bmax) overlap each
    cell of an nx x ny grid of ``cell`` cells from ``origin``: cell i + j nx holds
    ``items[start[c]:start[c + 1]]``. The one grid binning of the core (navmesh queries,
    link look-ups)."""
    counts = np.zeros(nx * ny + 1, np.int64)
    n = bmin.shape[0]
    for p in range(n):
        x0, x1, y0, y1 = _cell_range(bmin[p, 0], bmax[p, 0], bmin[p, 1], bmax[p, 1],
                                     origin, cell, nx, ny)
        for iy in range(y0, y1 + 1):
            for ix in range(x0, x1 + 1):
                counts[iy * nx + ix + 1] += 1
    start = np.cumsum(counts)
    fill = start[:-1].copy()
    items = np.empty(start[-1], np.int64)
    for p in range(n):
        x0, x1, y0, y1 = _cell_range(bmin[p, 0], bmax[p, 0], bmin[p, 1], bmax[p, 1],
                                     origin, cell, nx, ny)
        for iy in range(y0, y1 + 1):
            for ix in range(x0, x1 + 1):
                c = iy * nx + ix
                items[fill[c]] = p
                fill[c] += 1
    return start, items


@njit(cache=True)
def _cell_range(xmin, xmax, ymin, ymax, origin, cell, nx, ny):
    x0 = int(math.floor((xmin - origin[0]) / cell))
    x1 = int(math.floor((xmax - origin[0]) / cell))
    y0 = int(math.floor((ymin - origin[1]) / cell))
    y1 = int(math.floor((ymax - origin[1]) / cell))
    return max(x0, 0), min(x1, nx - 1), max(y0, 0), min(y1, ny - 1)


@hot_kernel
def point_in_polygon_xy(vertices, row, nv, x, y):
    """True when (x, y) is inside the convex CCW polygon (edges count as inside)."""
    for i in range(nv):
        a = row[i]
        b = row[(i + 1) % nv]
        ax = vertices[a, 0]
        ay = vertices[a, 1]
        ex = vertices[b, 0] - ax
        ey = vertices[b, 1] - ay
        cross = ex * (y - ay) - ey * (x - ax)
        # outside by more than INSIDE_EPS: cross / |e| < -eps, compared squared
        if cross < 0.0 and cross * cross > INSIDE_EPS * INSIDE_EPS * (ex * ex + ey * ey):
            return False
    return True


@hot_kernel
def closest_point_on_polygon_xy(vertices, row, nv, x, y):
    """The point of the polygon (in XY) closest to (x, y): itself when inside."""
    if point_in_polygon_xy(vertices, row, nv, x, y):
        return x, y
    best = np.inf
    bx = x
    by = y
    for i in range(nv):
        a = row[i]
        b = row[(i + 1) % nv]
        ax = vertices[a, 0]
        ay = vertices[a, 1]
        ex = vertices[b, 0] - ax
        ey = vertices[b, 1] - ay
        ll = ex * ex + ey * ey
        t = 0.0
        if ll > 0.0:
            t = ((x - ax) * ex + (y - ay) * ey) / ll
            t = min(max(t, 0.0), 1.0)
        cx = ax + t * ex
        cy = ay + t * ey
        d = (cx - x) ** 2 + (cy - y) ** 2
        if d < best:
            best = d
            bx = cx
            by = cy
    return bx, by


@hot_kernel
def surface_height(surf_tris, t0, t1, x, y):
    """Height of the surface triangles ``surf_tris[t0:t1]`` at (x, y).

    Uses the triangle containing the point; if none does (a point on a border, up to
    rounding), the triangle nearest in XY with its barycentric weights clamped.
    """
    best = np.inf
    best_z = np.nan
    for t in range(t0, t1):
        ax = surf_tris[t, 0, 0]
        ay = surf_tris[t, 0, 1]
        v0x = surf_tris[t, 1, 0] - ax
        v0y = surf_tris[t, 1, 1] - ay
        v1x = surf_tris[t, 2, 0] - ax
        v1y = surf_tris[t, 2, 1] - ay
        den = v0x * v1y - v0y * v1x
        if abs(den) < 1e-12:
            continue
        px = x - ax
        py = y - ay
        u = (px * v1y - py * v1x) / den
        v = (v0x * py - v0y * px) / den
        w = 1.0 - u - v
        outside = max(0.0, -u) + max(0.0, -v) + max(0.0, -w)
        if outside < best:
            if outside > 0.0:
                # clamp to the triangle so the height stays within its z range
                u = max(u, 0.0)
                v = max(v, 0.0)
                s = u + v
                if s > 1.0:
                    u /= s
                    v /= s
            best = outside
            z0 = surf_tris[t, 0, 2]
            best_z = z0 + u * (surf_tris[t, 1, 2] - z0) + v * (surf_tris[t, 2, 2] - z0)
            if outside == 0.0:
                break
    return best_z


@hot_kernel
def closest_point_on_polygon_arrays(vertices, polygons, poly_nv, surf_start, surf_tris, p,
                                    x, y):
    """Closest point of polygon p to (x, y), measured in XY, with its surface height."""
    row = polygons[p]
    cx, cy = closest_point_on_polygon_xy(vertices, row, poly_nv[p], x, y)
    cz = surface_height(surf_tris, surf_start[p], surf_start[p + 1], cx, cy)
    if not math.isfinite(cz):
        cz = vertices[row[0], 2]
    return cx, cy, cz


@hot_kernel
def closest_point_on_polygon(d, p, x, y, z):
    """Closest point of polygon p's surface to (x, y, z), measured in XY, height on surface."""
    return closest_point_on_polygon_arrays(d.vertices, d.polygons, d.poly_nv, d.surf_start,
                                           d.surf_tris, p, x, y)


@njit(cache=True)
def nearest_polygon(d, x, y, z, ext, stance_allowed, stamp, stamp_id):
    """Nearest usable polygon whose closest point lies inside the box ``(x,y,z) +- ext``.

    Returns (poly, cx, cy, cz, distance); poly is -1 when none. ``stamp`` (P,) with the
    fresh ``stamp_id`` avoids testing a polygon listed in several grid cells twice.
    """
    return nearest_polygon_arrays(d.vertices, d.polygons, d.poly_nv, d.poly_stance,
                                  d.poly_bmin, d.poly_bmax, d.surf_start, d.surf_tris,
                                  d.grid_origin, d.grid_cell, d.grid_nx, d.grid_ny,
                                  d.grid_start, d.grid_items, x, y, z, ext, stance_allowed,
                                  stamp, stamp_id)


@hot_kernel
def nearest_polygon_arrays(vertices, polygons, poly_nv, poly_stance, bmin, bmax, surf_start,
                           surf_tris, grid_origin, cell, nx, ny, grid_start, grid_items,
                           x, y, z, ext, stance_allowed, stamp, stamp_id):
    """:func:`nearest_polygon` on the QueryData arrays, passed one by one (the batch
    kernel takes them out of the tuple once per batch).

    The cell holding the point is searched first: the polygon under the point is usually
    the answer, and its distance then rejects most other candidates by their bounds."""
    best = -1
    best_d2 = np.inf
    bx = x
    by = y
    bz = z
    ox = grid_origin[0]
    oy = grid_origin[1]
    x0 = max(int(math.floor((x - ext[0] - ox) / cell)), 0)
    x1 = min(int(math.floor((x + ext[0] - ox) / cell)), nx - 1)
    y0 = max(int(math.floor((y - ext[1] - oy) / cell)), 0)
    y1 = min(int(math.floor((y + ext[1] - oy) / cell)), ny - 1)
    # the point's own cell (when inside the box's range of cells), then the others
    home = -1
    hx = int(math.floor((x - ox) / cell))
    hy = int(math.floor((y - oy) / cell))
    if x0 <= hx <= x1 and y0 <= hy <= y1:
        home = hy * nx + hx
    n_cells = (y1 - y0 + 1) * (x1 - x0 + 1) if x0 <= x1 and y0 <= y1 else 0  # box off the grid
    for i in range(-1, n_cells):
        if i < 0:
            if home < 0:
                continue
            c = home
        else:
            c = (y0 + i // (x1 - x0 + 1)) * nx + x0 + i % (x1 - x0 + 1)
            if c == home:
                continue
        for k in range(grid_start[c], grid_start[c + 1]):
            p = grid_items[k]
            if stamp[p] == stamp_id:
                continue
            stamp[p] = stamp_id
            if not stance_allowed[poly_stance[p]]:
                continue
            # Distance from the point to the polygon's bounds: a lower bound.
            dx = max(bmin[p, 0] - x, 0.0, x - bmax[p, 0])
            dy = max(bmin[p, 1] - y, 0.0, y - bmax[p, 1])
            dz = max(bmin[p, 2] - z, 0.0, z - bmax[p, 2])
            if dx > ext[0] or dy > ext[1] or dz > ext[2]:
                continue
            if dx * dx + dy * dy + dz * dz >= best_d2:
                continue
            cx, cy, cz = closest_point_on_polygon_arrays(vertices, polygons, poly_nv,
                                                         surf_start, surf_tris, p, x, y)
            if (abs(cx - x) > ext[0] or abs(cy - y) > ext[1] or abs(cz - z) > ext[2]):
                continue
            d2 = (cx - x) ** 2 + (cy - y) ** 2 + (cz - z) ** 2
            if d2 < best_d2:
                best_d2 = d2
                best = p
                bx = cx
                by = cy
                bz = cz
    return best, bx, by, bz, math.sqrt(best_d2)


@njit(cache=True)
def nearest_polygon_anywhere(d, x, y, z, stance_allowed):
    """Linear scan without a search box (error messages only): (poly, distance)."""
    best = -1
    best_d = np.inf
    vertices = d.vertices
    polygons = d.polygons
    poly_nv = d.poly_nv
    surf_start = d.surf_start
    surf_tris = d.surf_tris
    for p in range(polygons.shape[0]):
        if not stance_allowed[d.poly_stance[p]]:
            continue
        cx, cy, cz = closest_point_on_polygon_arrays(vertices, polygons, poly_nv, surf_start,
                                                     surf_tris, p, x, y)
        dist = math.sqrt((cx - x) ** 2 + (cy - y) ** 2 + (cz - z) ** 2)
        if dist < best_d:
            best_d = dist
            best = p
    return best, best_d
