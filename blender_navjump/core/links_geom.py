"""Geometry look-ups for the jump-link generator (see ``links.py`` and docs/jump-links.md).

* a bin grid (CSR) over the xy bounding boxes of items (triangles, polygons);
* *ground support*: is there an upward-facing, walkable-slope triangle right under a point,
  with its surface inside a height window (exact, on the input triangles);
* polygon location: which navmesh polygons contain a point, and their surface height
  there (from the detail triangles).

Everything is numba, plain arrays in and out.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# Barycentric slack of the point-in-triangle tests: points on a shared edge count for both
# triangles, so a ray between two floor triangles never falls through a crack.
BARY_EPS = 1e-9


@njit(cache=True)
def _bins_from_boxes(box, nx, ny):
    """CSR lists from per-item bin ranges ``box`` rows (i0, i1, j0, j1), inclusive; an item
    with i0 > i1 is in no bin."""
    counts = np.zeros(nx * ny + 1, np.int64)
    for k in range(box.shape[0]):
        for j in range(box[k, 2], box[k, 3] + 1):
            for i in range(box[k, 0], box[k, 1] + 1):
                counts[i + j * nx + 1] += 1
    start = np.cumsum(counts)
    fill = start[:-1].copy()
    items = np.empty(start[-1], np.int32)
    for k in range(box.shape[0]):
        for j in range(box[k, 2], box[k, 3] + 1):
            for i in range(box[k, 0], box[k, 1] + 1):
                b = i + j * nx
                items[fill[b]] = k
                fill[b] += 1
    return start, items


@njit(cache=True)
def _set_box(box, k, xmin, ymin, xmax, ymax, ox, oy, size, nx, ny):
    box[k, 0] = max(int(math.floor((xmin - ox) / size)), 0)
    box[k, 1] = min(int(math.floor((xmax - ox) / size)), nx - 1)
    box[k, 2] = max(int(math.floor((ymin - oy) / size)), 0)
    box[k, 3] = min(int(math.floor((ymax - oy) / size)), ny - 1)


@njit(cache=True)
def build_bins(xmin, ymin, xmax, ymax, keep, ox, oy, size, nx, ny):
    """CSR lists of the items whose xy box overlaps each bin of a grid.

    Bin (i, j) covers ``[ox + i*size, ox + (i+1)*size) x [oy + j*size, ...)``; its items are
    ``items[start[i + j*nx] : start[i + j*nx + 1]]``. Items with ``keep`` False are left out.
    """
    n = xmin.shape[0]
    box = np.empty((n, 4), np.int32)
    for k in range(n):
        if keep[k]:
            _set_box(box, k, xmin[k], ymin[k], xmax[k], ymax[k], ox, oy, size, nx, ny)
        else:
            box[k, 0], box[k, 1], box[k, 2], box[k, 3] = 1, 0, 1, 0  # in no bin
    return _bins_from_boxes(box, nx, ny)


@njit(cache=True, nogil=True)
def support_triangle_bins(vertices, triangles, slope_cos, ox, oy, size, nx, ny):
    """CSR bin lists (as ``build_bins``) of the triangles an agent can stand on: facing up
    with normal.z / |normal| > slope_cos."""
    m = triangles.shape[0]
    box = np.empty((m, 4), np.int32)
    for t in range(m):
        a = vertices[triangles[t, 0]]
        b = vertices[triangles[t, 1]]
        c = vertices[triangles[t, 2]]
        e0x, e0y, e0z = b[0] - a[0], b[1] - a[1], b[2] - a[2]
        e1x, e1y, e1z = c[0] - a[0], c[1] - a[1], c[2] - a[2]
        nx_ = e0y * e1z - e0z * e1y
        ny_ = e0z * e1x - e0x * e1z
        nz_ = e0x * e1y - e0y * e1x
        ln = math.sqrt(nx_ * nx_ + ny_ * ny_ + nz_ * nz_)
        if not (ln > 0.0 and nz_ / ln > slope_cos):
            box[t, 0], box[t, 1], box[t, 2], box[t, 3] = 1, 0, 1, 0  # in no bin
            continue
        _set_box(box, t, min(a[0], min(b[0], c[0])), min(a[1], min(b[1], c[1])),
                 max(a[0], max(b[0], c[0])), max(a[1], max(b[1], c[1])), ox, oy, size, nx, ny)
    return _bins_from_boxes(box, nx, ny)


@njit(cache=True)
def bin_of(x, y, ox, oy, size, nx, ny):
    i = int(math.floor((x - ox) / size))
    j = int(math.floor((y - oy) / size))
    if i < 0 or j < 0 or i >= nx or j >= ny:
        return -1
    return i + j * nx


@njit(cache=True)
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


@njit(cache=True)
def has_ground(x, y, zlo, zhi, vertices, triangles, tbin_start, tbin_items, grid):
    """True when a support triangle lies under (x, y) with its surface height in [zlo, zhi].

    ``grid`` = (ox, oy, bin size, nx, ny) as float64.
    """
    b = bin_of(x, y, grid[0], grid[1], grid[2], int(grid[3]), int(grid[4]))
    if b < 0:
        return False
    for k in range(tbin_start[b], tbin_start[b + 1]):
        z = support_height(x, y, tbin_items[k], vertices, triangles)
        if math.isnan(z):
            continue
        if zlo <= z <= zhi:
            return True
    return False


@njit(cache=True)
def polygon_height(p, x, y, dtris, dstart):
    """Surface height of polygon p at (x, y) from its detail triangles (``dtris`` (T, 3, 3),
    polygon p owns ``dtris[dstart[p]:dstart[p+1]]``). Outside every triangle: the plane of
    the nearest one (the one whose smallest barycentric weight is largest)."""
    best = -1e300
    best_z = np.nan
    for k in range(dstart[p], dstart[p + 1]):
        a = dtris[k, 0]
        b = dtris[k, 1]
        c = dtris[k, 2]
        d = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
        if abs(d) < 1e-12:
            continue
        w1 = ((x - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (y - a[1])) / d
        w2 = ((b[0] - a[0]) * (y - a[1]) - (x - a[0]) * (b[1] - a[1])) / d
        w0 = 1.0 - w1 - w2
        w = min(w0, min(w1, w2))
        if w > best:
            best = w
            best_z = w0 * a[2] + w1 * b[2] + w2 * c[2]
            if w >= 0.0:
                break
    return best_z


@njit(cache=True)
def point_in_polygon(p, x, y, pverts, polys, pnv):
    """Inclusive test (1e-7 m slack) of (x, y) against convex CCW polygon p."""
    n = pnv[p]
    for i in range(n):
        a = pverts[polys[p, i]]
        b = pverts[polys[p, (i + 1) % n]]
        ex = b[0] - a[0]
        ey = b[1] - a[1]
        ln = math.sqrt(ex * ex + ey * ey)
        if ln == 0.0:
            continue
        if ex * (y - a[1]) - ey * (x - a[0]) < -1e-7 * ln:
            return False
    return True


@njit(cache=True)
def locate(x, y, zlo, zhi, exclude, pverts, polys, pnv, pbox, pok, dtris, dstart,
           pbin_start, pbin_items, grid, out_poly, out_z):
    """Polygons (with ``pok``) containing (x, y) whose surface there is within [zlo, zhi].

    Writes up to ``out_poly.shape[0]`` hits sorted by height; returns their number.
    ``pbox`` rows are (xmin, ymin, xmax, ymax). Polygon ``exclude`` is skipped.
    """
    b = bin_of(x, y, grid[0], grid[1], grid[2], int(grid[3]), int(grid[4]))
    if b < 0:
        return 0
    n = 0
    cap = out_poly.shape[0]
    for k in range(pbin_start[b], pbin_start[b + 1]):
        p = pbin_items[k]
        if p == exclude or not pok[p]:
            continue
        if x < pbox[p, 0] - 1e-7 or x > pbox[p, 2] + 1e-7 or y < pbox[p, 1] - 1e-7 \
                or y > pbox[p, 3] + 1e-7:
            continue
        if not point_in_polygon(p, x, y, pverts, polys, pnv):
            continue
        z = polygon_height(p, x, y, dtris, dstart)
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


@njit(cache=True)
def ground_height(x, y, zref, tol, vertices, triangles, tbin_start, tbin_items, grid):
    """Height of the support triangle surface under (x, y) closest to ``zref`` within
    ``tol``; NaN when there is none. Links measure heights here (on the input triangles),
    not on the voxel-rounded navmesh."""
    b = bin_of(x, y, grid[0], grid[1], grid[2], int(grid[3]), int(grid[4]))
    if b < 0:
        return np.nan
    best = np.nan
    best_d = tol
    for k in range(tbin_start[b], tbin_start[b + 1]):
        z = support_height(x, y, tbin_items[k], vertices, triangles)
        if math.isnan(z):
            continue
        if abs(z - zref) <= best_d:
            best_d = abs(z - zref)
            best = z
    return best


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _seg_seg_d2(ax, ay, bx, by, cx, cy, dx, dy):
    """Squared distance between 2D segments ab and cd (0 when they cross)."""
    d1x = bx - ax
    d1y = by - ay
    d2x = dx - cx
    d2y = dy - cy
    den = d1x * d2y - d1y * d2x
    if den != 0.0:
        s = ((cx - ax) * d2y - (cy - ay) * d2x) / den
        t = ((cx - ax) * d1y - (cy - ay) * d1x) / den
        if 0.0 <= s <= 1.0 and 0.0 <= t <= 1.0:
            return 0.0
    best = 1e300
    for k in range(4):
        if k == 0:
            px, py, qx, qy, rx, ry = ax, ay, cx, cy, dx, dy
        elif k == 1:
            px, py, qx, qy, rx, ry = bx, by, cx, cy, dx, dy
        elif k == 2:
            px, py, qx, qy, rx, ry = cx, cy, ax, ay, bx, by
        else:
            px, py, qx, qy, rx, ry = dx, dy, ax, ay, bx, by
        best = min(best, pt_seg_d2(px, py, qx, qy, rx, ry))
    return best


@njit(cache=True)
def body_hits_triangles(cx, cy, lx, ly, zlo, zhi, rad, vertices, triangles, sbin_start,
                        sbin_items, grid, p0, p1, p2):
    """Does any input triangle meet the body: every point within ``rad`` (horizontally) of
    the segment (cx, cy) +- (lx, ly), at heights strictly between zlo and zhi? ``p0..p2``
    are (8, 3) scratch arrays. Exact on the triangles (the same test as the oracle's, with
    a segment for the axis)."""
    reach = rad + abs(lx) + abs(ly)
    nx = int(grid[3])
    ny = int(grid[4])
    i0 = max(int(math.floor((cx - reach - grid[0]) / grid[2])), 0)
    i1 = min(int(math.floor((cx + reach - grid[0]) / grid[2])), nx - 1)
    j0 = max(int(math.floor((cy - reach - grid[1]) / grid[2])), 0)
    j1 = min(int(math.floor((cy + reach - grid[1]) / grid[2])), ny - 1)
    r2 = rad * rad
    ax = cx - lx
    ay = cy - ly
    bx = cx + lx
    by = cy + ly
    for j in range(j0, j1 + 1):
        for i in range(i0, i1 + 1):
            b = i + j * nx
            for q in range(sbin_start[b], sbin_start[b + 1]):
                t = sbin_items[q]
                va = vertices[triangles[t, 0]]
                vb = vertices[triangles[t, 1]]
                vc = vertices[triangles[t, 2]]
                if min(va[2], min(vb[2], vc[2])) >= zhi or max(va[2], max(vb[2], vc[2])) <= zlo:
                    continue
                if min(va[0], min(vb[0], vc[0])) >= cx + reach or \
                        max(va[0], max(vb[0], vc[0])) <= cx - reach:
                    continue
                if min(va[1], min(vb[1], vc[1])) >= cy + reach or \
                        max(va[1], max(vb[1], vc[1])) <= cy - reach:
                    continue
                for k in range(3):
                    p0[0, k] = va[k]
                    p0[1, k] = vb[k]
                    p0[2, k] = vc[k]
                n = _clip_slab(p0, 3, zlo, True, p1)
                if n < 3:
                    continue
                n = _clip_slab(p1, n, zhi, False, p2)
                if n < 3:
                    continue
                pos = True
                neg = True
                area = 0.0
                hit = False
                for e in range(n):
                    f = (e + 1) % n
                    ex = p2[f, 0] - p2[e, 0]
                    ey = p2[f, 1] - p2[e, 1]
                    cr = ex * (cy - p2[e, 1]) - ey * (cx - p2[e, 0])
                    if cr < 0.0:
                        pos = False
                    if cr > 0.0:
                        neg = False
                    area += p2[e, 0] * p2[f, 1] - p2[f, 0] * p2[e, 1]
                    if _seg_seg_d2(ax, ay, bx, by, p2[e, 0], p2[e, 1], p2[f, 0],
                                   p2[f, 1]) < r2:
                        hit = True
                        break
                if hit or ((pos or neg) and abs(area) > 1e-12):
                    return True
    return False


@njit(cache=True)
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


@njit(cache=True)
def swept_body_hits_triangles(qx, qy, zlo, zhi, rad, vertices, triangles, sbin_start,
                              sbin_items, grid, p0, p1, p2, quad):
    """Does any input triangle come within ``rad`` (horizontally) of the convex
    quadrilateral (qx, qy: 4 corners in order) at heights strictly between zlo and zhi?
    The area a body sweeps walking at one height: one exact pass over the triangles.
    ``p0..p2`` are (8, 3) scratch arrays, ``quad`` a (4, 3) one."""
    for k in range(4):
        quad[k, 0] = qx[k]
        quad[k, 1] = qy[k]
        quad[k, 2] = 0.0
    xlo = min(qx[0], qx[1], qx[2], qx[3]) - rad
    xhi = max(qx[0], qx[1], qx[2], qx[3]) + rad
    ylo = min(qy[0], qy[1], qy[2], qy[3]) - rad
    yhi = max(qy[0], qy[1], qy[2], qy[3]) + rad
    quad_area = abs((qx[2] - qx[0]) * (qy[3] - qy[1]) - (qx[3] - qx[1]) * (qy[2] - qy[0]))
    nx = int(grid[3])
    ny = int(grid[4])
    i0 = max(int(math.floor((xlo - grid[0]) / grid[2])), 0)
    i1 = min(int(math.floor((xhi - grid[0]) / grid[2])), nx - 1)
    j0 = max(int(math.floor((ylo - grid[1]) / grid[2])), 0)
    j1 = min(int(math.floor((yhi - grid[1]) / grid[2])), ny - 1)
    r2 = rad * rad
    for j in range(j0, j1 + 1):
        for i in range(i0, i1 + 1):
            b = i + j * nx
            for q in range(sbin_start[b], sbin_start[b + 1]):
                t = sbin_items[q]
                va = vertices[triangles[t, 0]]
                vb = vertices[triangles[t, 1]]
                vc = vertices[triangles[t, 2]]
                if min(va[2], min(vb[2], vc[2])) >= zhi or max(va[2], max(vb[2], vc[2])) <= zlo:
                    continue
                if min(va[0], min(vb[0], vc[0])) >= xhi or max(va[0], max(vb[0], vc[0])) <= xlo:
                    continue
                if min(va[1], min(vb[1], vc[1])) >= yhi or max(va[1], max(vb[1], vc[1])) <= ylo:
                    continue
                for k in range(3):
                    p0[0, k] = va[k]
                    p0[1, k] = vb[k]
                    p0[2, k] = vc[k]
                n = _clip_slab(p0, 3, zlo, True, p1)
                if n < 3:
                    continue
                n = _clip_slab(p1, n, zhi, False, p2)
                if n < 3:
                    continue
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
                # else the closest edges
                for e in range(n):
                    f = (e + 1) % n
                    for k in range(4):
                        m = (k + 1) % 4
                        if _seg_seg_d2(qx[k], qy[k], qx[m], qy[m], p2[e, 0], p2[e, 1],
                                       p2[f, 0], p2[f, 1]) < r2:
                            return True
    return False
