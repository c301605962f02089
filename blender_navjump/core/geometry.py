"""Checks over the input triangles in one pass each, with no per-triangle temporaries
(a 1 M-triangle scene would otherwise allocate ~170 MB of edge and normal arrays)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def triangle_normal(vertices, ia, ib, ic):
    """The unnormalised normal (b - a) x (c - a) of triangle (ia, ib, ic): its length is
    twice the triangle's area."""
    e0x = vertices[ib, 0] - vertices[ia, 0]
    e0y = vertices[ib, 1] - vertices[ia, 1]
    e0z = vertices[ib, 2] - vertices[ia, 2]
    e1x = vertices[ic, 0] - vertices[ia, 0]
    e1y = vertices[ic, 1] - vertices[ia, 1]
    e1z = vertices[ic, 2] - vertices[ia, 2]
    return e0y * e1z - e0z * e1y, e0z * e1x - e0x * e1z, e0x * e1y - e0y * e1x


@njit(cache=True, nogil=True)
def faces_up(vertices, ia, ib, ic, slope_cos):
    """Whether triangle (ia, ib, ic) faces up steeply enough to stand on: its normal's z
    over the normal's length above ``slope_cos`` (the one slope test of the rasteriser
    and the link generator)."""
    nx, ny, nz = triangle_normal(vertices, ia, ib, ic)
    ln = math.sqrt(nx * nx + ny * ny + nz * nz)
    return ln > 0.0 and nz / ln > slope_cos


@njit(cache=True, nogil=True)
def _length2(vertices, a, b):
    dx = vertices[b, 0] - vertices[a, 0]
    dy = vertices[b, 1] - vertices[a, 1]
    dz = vertices[b, 2] - vertices[a, 2]
    return dx * dx + dy * dy + dz * dz


@njit(cache=True, nogil=True)
def degenerate_triangles(vertices, triangles, ratio):
    """True where a triangle's height over its longest edge is at most ``ratio`` times that
    edge: no area to bake. Relative to each triangle's own size (its own edge vectors), so
    it does not depend on how far from the origin the triangle sits."""
    m = triangles.shape[0]
    out = np.empty(m, np.bool_)
    r2 = ratio * ratio
    for i in range(m):
        a = triangles[i, 0]
        b = triangles[i, 1]
        c = triangles[i, 2]
        nx, ny, nz = triangle_normal(vertices, a, b, c)
        area2 = nx * nx + ny * ny + nz * nz  # (2 * area)^2
        longest2 = max(_length2(vertices, a, b), _length2(vertices, a, c),
                       _length2(vertices, b, c))
        out[i] = area2 <= r2 * longest2 * longest2
    return out


@njit(cache=True, nogil=True)
def used_vertex_bounds(vertices, triangles):
    """Bounds of the vertices some triangle uses, in one pass without a mask or a copy:
    (bmin (3,), bmax (3,), all_finite). A NaN or infinite used coordinate makes
    ``all_finite`` False (the bounds are then meaningless)."""
    lo0 = lo1 = lo2 = np.inf
    hi0 = hi1 = hi2 = -np.inf
    nan_probe = 0.0  # x * 0 is NaN for an infinite or NaN x: one check at the end
    for i in range(triangles.shape[0]):
        for k in range(3):
            v = triangles[i, k]
            x = vertices[v, 0]
            y = vertices[v, 1]
            z = vertices[v, 2]
            nan_probe += x * 0.0 + y * 0.0 + z * 0.0
            lo0 = min(lo0, x)
            lo1 = min(lo1, y)
            lo2 = min(lo2, z)
            hi0 = max(hi0, x)
            hi1 = max(hi1, y)
            hi2 = max(hi2, z)
    bmin = np.array([lo0, lo1, lo2])
    bmax = np.array([hi0, hi1, hi2])
    finite = nan_probe == 0.0
    return bmin, bmax, finite


@njit(cache=True, nogil=True)
def footprint_cell_bound(vertices, triangles, cs):
    """Sum over the triangles of the grid cells each footprint can touch: its XY area
    plus twice its perimeter in cells, plus four (see settings.raster_span_bound)."""
    total = 0.0
    inv = 1.0 / cs
    for i in range(triangles.shape[0]):
        a = triangles[i, 0]
        b = triangles[i, 1]
        c = triangles[i, 2]
        abx = vertices[b, 0] - vertices[a, 0]
        aby = vertices[b, 1] - vertices[a, 1]
        acx = vertices[c, 0] - vertices[a, 0]
        acy = vertices[c, 1] - vertices[a, 1]
        bcx = vertices[c, 0] - vertices[b, 0]
        bcy = vertices[c, 1] - vertices[b, 1]
        area = 0.5 * abs(abx * acy - aby * acx)
        perim = (np.sqrt(abx * abx + aby * aby) + np.sqrt(bcx * bcx + bcy * bcy)
                 + np.sqrt(acx * acx + acy * acy))
        total += area * inv * inv + 2.0 * perim * inv + 4.0
    return total


@njit(cache=True, nogil=True)
def detail_surface_areas(detail_meshes, detail_vertices, detail_triangles):
    """3D area of each polygon's detail triangles (``NavMesh`` detail arrays), summed
    triangle by triangle in order."""
    out = np.zeros(detail_meshes.shape[0])
    for p in range(detail_meshes.shape[0]):
        base = detail_meshes[p, 0]
        t0 = detail_meshes[p, 2]
        total = 0.0
        for t in range(t0, t0 + detail_meshes[p, 3]):
            a = base + detail_triangles[t, 0]
            b = base + detail_triangles[t, 1]
            c = base + detail_triangles[t, 2]
            e0x = detail_vertices[b, 0] - detail_vertices[a, 0]
            e0y = detail_vertices[b, 1] - detail_vertices[a, 1]
            e0z = detail_vertices[b, 2] - detail_vertices[a, 2]
            e1x = detail_vertices[c, 0] - detail_vertices[a, 0]
            e1y = detail_vertices[c, 1] - detail_vertices[a, 1]
            e1z = detail_vertices[c, 2] - detail_vertices[a, 2]
            nx = e0y * e1z - e0z * e1y
            ny = e0z * e1x - e0x * e1z
            nz = e0x * e1y - e0y * e1x
            total += 0.5 * np.sqrt(nx * nx + ny * ny + nz * nz)
        out[p] = total
    return out
