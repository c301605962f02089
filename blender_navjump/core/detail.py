"""Detail height mesh: per polygon, a small triangle mesh that follows the floor heights.

The idea is Recast's ``rcBuildPolyMeshDetail``; the code is our own. For each polygon:

1. **Height patch.** The cells under the polygon's bounding box (plus one cell of margin)
   get the floor level of the span that belongs to the polygon's region (when a column
   holds several, the one nearest the polygon's height range). Cells still unknown are
   filled by a breadth-first flood through span connections, so cells just outside the
   region (where the polygon's upper/right edges sample) carry the real height of the
   connected neighbour span. Without region data the flood is seeded at the polygon
   corners with the span nearest each corner's height.
2. **Edge samples.** Each polygon edge is sampled every ``sample_dist``; points whose
   height is more than ``sample_max_error`` (vertical distance) from the current edge
   polyline are inserted, worst first (recursive split). Edges are always walked in the
   same canonical direction so the two polygons sharing an edge produce identical points;
   an edge gets at most ``(MAX_DETAIL_VERTS - nvp) // nvp`` points, so the vertex cap never
   cuts one polygon's edge short of its neighbour's.
3. **Hull triangulation** of the polygon and its edge points (ear clipping, never
   degenerate even with collinear points), then Lawson flips to the Delaunay
   triangulation constrained by the hull.
4. **Interior samples** on a world grid of spacing ``sample_dist``, kept at least
   ``sample_dist / 2`` inside the polygon: the sample farthest (vertically) from the mesh is
   inserted and the mesh re-legalised, until every sample is within ``sample_max_error``
   or the vertex cap (``MAX_DETAIL_VERTS``) is reached. Skipped for slivers narrower than
   ``2 * sample_dist``, as in Recast.

``sample_dist == 0`` turns steps 1, 2 and 4 off: the polygon itself is triangulated.

Polygon vertices keep the PolyMesh heights (contour corner heights); refining them per
polygon could give a shared vertex two heights and crack the detail mesh. Heights are the
span floor levels ``bmin.z + level * ch`` (Recast adds one extra ``ch``; we do not).

Triangle flags follow Detour: bits ``2*k`` (value ``DETAIL_EDGE_BOUNDARY << 2*k``) are set
when triangle edge k (from corner k to corner k+1) lies on the polygon boundary.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .stage_data import DIR_DX, DIR_DY, CompactHeightfield, PolyMesh

MAX_DETAIL_VERTS = 127  # per polygon, as Recast
MAX_DETAIL_TRIS = 255  # per polygon; a triangulation of 127 points never needs more
MAX_EDGE_POINTS = 32  # sample points along one polygon edge, both ends included
DETAIL_EDGE_BOUNDARY = 0x1

_UNSET = -(2**31) + 1  # patch cell with no known height
_STACK_SIZE = 8192  # pending edge checks during legalisation
_EPS_AREA = 1e-6  # degenerate-triangle threshold, in cell areas (cs^2)
_EPS_DIST = 1e-6  # "on an edge" threshold, in cells


# --------------------------------------------------------------------------- geometry
@njit(cache=True, nogil=True)
def _cross(ax, ay, bx, by, cx, cy):
    """Twice the signed area of triangle abc (> 0 when counter-clockwise)."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(cache=True, nogil=True)
def _in_circumcircle(ax, ay, bx, by, cx, cy, dx, dy):
    """True when d lies strictly inside the circumcircle of counter-clockwise abc."""
    adx, ady = ax - dx, ay - dy
    bdx, bdy = bx - dx, by - dy
    cdx, cdy = cx - dx, cy - dy
    ad = adx * adx + ady * ady
    bd = bdx * bdx + bdy * bdy
    cd = cdx * cdx + cdy * cdy
    det = (adx * (bdy * cd - bd * cdy) - ady * (bdx * cd - bd * cdx)
           + ad * (bdx * cdy - bdy * cdx))
    s = max(abs(adx), abs(ady), abs(bdx), abs(bdy), abs(cdx), abs(cdy))
    # Grid samples are often exactly co-circular: only flip on a clear margin.
    return det > 1e-10 * s * s * s * s


@njit(cache=True, nogil=True)
def _edge_distances(lx, ly, a, b, c, px, py):
    """Signed distances of p to the lines ab, bc, ca (positive inside a CCW triangle)."""
    lab = math.hypot(lx[b] - lx[a], ly[b] - ly[a])
    lbc = math.hypot(lx[c] - lx[b], ly[c] - ly[b])
    lca = math.hypot(lx[a] - lx[c], ly[a] - ly[c])
    d0 = _cross(lx[a], ly[a], lx[b], ly[b], px, py) / max(lab, 1e-300)
    d1 = _cross(lx[b], ly[b], lx[c], ly[c], px, py) / max(lbc, 1e-300)
    d2 = _cross(lx[c], ly[c], lx[a], ly[a], px, py) / max(lca, 1e-300)
    return d0, d1, d2


@njit(cache=True, nogil=True)
def _locate(lx, ly, tv, ntris, px, py):
    """Triangle containing p (the one p is deepest inside), and that depth."""
    best, best_depth = -1, -np.inf
    for t in range(ntris):
        d0, d1, d2 = _edge_distances(lx, ly, tv[t, 0], tv[t, 1], tv[t, 2], px, py)
        depth = min(d0, d1, d2)
        if depth > best_depth:
            best_depth, best = depth, t
    return best, best_depth


@njit(cache=True, nogil=True)
def _walk_locate(lx, ly, tv, tn, ntris, start, px, py):
    """Triangle holding p, walking from ``start`` towards p across the edges p lies beyond.

    The visibility walk ends in a Delaunay triangulation; a step cap and the exhaustive
    search guard the rest (p outside the hull, numerical ties).
    """
    t = start
    if t < 0 or t >= ntris:
        return _locate(lx, ly, tv, ntris, px, py)[0]
    for _ in range(4 * ntris + 8):
        worst_k, worst = -1, 0.0
        for k in range(3):
            a, b = tv[t, k], tv[t, (k + 1) % 3]
            cr = _cross(lx[a], ly[a], lx[b], ly[b], px, py)
            if cr < worst:
                worst_k, worst = k, cr
        if worst_k < 0:
            return t
        nxt = tn[t, worst_k]
        if nxt < 0:
            break
        t = nxt
    return _locate(lx, ly, tv, ntris, px, py)[0]


@njit(cache=True, nogil=True)
def _height_in_triangle(lx, ly, lz, tv, t, px, py):
    a, b, c = tv[t, 0], tv[t, 1], tv[t, 2]
    wa = _cross(lx[b], ly[b], lx[c], ly[c], px, py)
    wb = _cross(lx[c], ly[c], lx[a], ly[a], px, py)
    wc = _cross(lx[a], ly[a], lx[b], ly[b], px, py)
    s = wa + wb + wc
    if s <= 0.0:
        return (lz[a] + lz[b] + lz[c]) / 3.0
    return (wa * lz[a] + wb * lz[b] + wc * lz[c]) / s


# ------------------------------------------------------------------------ height patch
@njit(cache=True, nogil=True)
def _fill_patch(patch, queue, px0, py0, pw, ph, gverts, poly, nv, region, use_regions,
                width, cell_index, cell_count, span_y, span_con, span_reg, span_x, span_cy):
    """Fill patch[:pw*ph] (row-major, x fastest) with floor levels under the polygon."""
    for i in range(pw * ph):
        patch[i] = _UNSET
    zlo, zhi = gverts[poly[0], 2], gverts[poly[0], 2]
    for i in range(1, nv):
        zlo = min(zlo, gverts[poly[i], 2])
        zhi = max(zhi, gverts[poly[i], 2])
    nq = 0
    if use_regions and region != 0:
        for cy in range(ph):
            for cx in range(pw):
                c = (px0 + cx) + (py0 + cy) * width
                best, best_d = -1, 1 << 30
                for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                    if span_reg[s] != region:
                        continue
                    y = span_y[s]
                    d = zlo - y if y < zlo else (y - zhi if y > zhi else 0)
                    if d < best_d:
                        best, best_d = s, d
                if best >= 0:
                    patch[cy * pw + cx] = span_y[best]
                    queue[nq] = best
                    nq += 1
    if nq == 0:
        # No region data: seed at the corners with the span nearest the corner height.
        for i in range(nv):
            gx, gy, gz = gverts[poly[i], 0], gverts[poly[i], 1], gverts[poly[i], 2]
            best, best_d = -1, 1 << 30
            for cy in range(gy - 1 - py0, gy + 1 - py0):
                for cx in range(gx - 1 - px0, gx + 1 - px0):
                    if cx < 0 or cy < 0 or cx >= pw or cy >= ph:
                        continue
                    c = (px0 + cx) + (py0 + cy) * width
                    for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                        d = abs(span_y[s] - gz)
                        if d < best_d:
                            best, best_d = s, d
            if best >= 0:
                k = (span_cy[best] - py0) * pw + (span_x[best] - px0)
                if patch[k] == _UNSET:
                    patch[k] = span_y[best]
                    queue[nq] = best
                    nq += 1
    # Flood the unknown cells from the known ones, through span connections.
    head = 0
    while head < nq:
        s = queue[head]
        head += 1
        sx, sy = span_x[s] - px0, span_cy[s] - py0
        for d in range(4):
            n = span_con[s, d]
            if n < 0:
                continue
            nx, ny = sx + DIR_DX[d], sy + DIR_DY[d]
            if nx < 0 or ny < 0 or nx >= pw or ny >= ph:
                continue
            k = ny * pw + nx
            if patch[k] != _UNSET:
                continue
            patch[k] = span_y[n]
            queue[nq] = n
            nq += 1


@njit(cache=True, nogil=True)
def _patch_level(patch, px0, py0, pw, ph, x, y, ref, cs):
    """Floor level (voxels) under bmin-relative point (x, y); ``ref`` if nothing is known.

    Unknown cells take the nearest known ring of cells, picking the level nearest ``ref``.
    """
    if pw <= 0 or ph <= 0:
        return ref
    ix = min(max(int(math.floor(x / cs + 1e-4)) - px0, 0), pw - 1)
    iy = min(max(int(math.floor(y / cs + 1e-4)) - py0, 0), ph - 1)
    h = patch[iy * pw + ix]
    if h != _UNSET:
        return float(h)
    for r in range(1, max(pw, ph)):
        best, best_d = _UNSET, np.inf
        for dy in range(-r, r + 1):
            yy = iy + dy
            if yy < 0 or yy >= ph:
                continue
            step = 1 if (dy == -r or dy == r) else 2 * r
            dx = -r
            while dx <= r:
                xx = ix + dx
                if 0 <= xx < pw:
                    v = patch[yy * pw + xx]
                    if v != _UNSET and abs(v - ref) < best_d:
                        best, best_d = v, abs(v - ref)
                dx += step
        if best != _UNSET:
            return float(best)
    return ref


# ----------------------------------------------------------------------- triangulation
@njit(cache=True, nogil=True)
def _triangulate_hull(lx, ly, hull, nhull, ring, tv, eps_area):
    """Ear-clip the hull polygon (CCW) into tv; returns the triangle count.

    An ear is taken only when it is strictly convex, holds no other hull point and leaves
    a remainder of non-zero area, so collinear edge points never make a flat triangle.
    The shortest new diagonal is clipped first (the flips later fix the shapes anyway).
    """
    m = nhull
    for i in range(m):
        ring[i] = hull[i]
    area2 = 0.0
    for i in range(m):
        a, b = ring[i], ring[(i + 1) % m]
        area2 += lx[a] * ly[b] - lx[b] * ly[a]
    nt = 0
    while m > 3:
        best, best_len = -1, np.inf
        best_cr = 0.0
        for i in range(m):
            a, b, c = ring[(i - 1 + m) % m], ring[i], ring[(i + 1) % m]
            cr = _cross(lx[a], ly[a], lx[b], ly[b], lx[c], ly[c])
            if cr <= eps_area or area2 - cr <= eps_area:
                continue
            diag = (lx[c] - lx[a]) ** 2 + (ly[c] - ly[a]) ** 2
            if diag >= best_len:
                continue
            blocked = False
            for j in range(m):
                q = ring[j]
                if q == a or q == b or q == c:
                    continue
                if (_cross(lx[a], ly[a], lx[b], ly[b], lx[q], ly[q]) > -eps_area
                        and _cross(lx[b], ly[b], lx[c], ly[c], lx[q], ly[q]) > -eps_area
                        and _cross(lx[c], ly[c], lx[a], ly[a], lx[q], ly[q]) > -eps_area):
                    blocked = True
                    break
            if not blocked:
                best, best_len, best_cr = i, diag, cr
        if best < 0:
            break  # degenerate remainder: nothing with area left to cover
        tv[nt, 0] = ring[(best - 1 + m) % m]
        tv[nt, 1] = ring[best]
        tv[nt, 2] = ring[(best + 1) % m]
        nt += 1
        area2 -= best_cr
        for j in range(best, m - 1):
            ring[j] = ring[j + 1]
        m -= 1
    if m == 3 and _cross(lx[ring[0]], ly[ring[0]], lx[ring[1]], ly[ring[1]],
                         lx[ring[2]], ly[ring[2]]) > eps_area:
        tv[nt, 0], tv[nt, 1], tv[nt, 2] = ring[0], ring[1], ring[2]
        nt += 1
    return nt


@njit(cache=True, nogil=True)
def _link_triangles(tv, tn, nt):
    """tn[t, k] = triangle across edge k (corner k -> k+1) of t, or -1."""
    for t in range(nt):
        tn[t, 0] = tn[t, 1] = tn[t, 2] = -1
    for t in range(nt):
        for k in range(3):
            if tn[t, k] >= 0:
                continue
            a, b = tv[t, k], tv[t, (k + 1) % 3]
            for u in range(t + 1, nt):
                for m in range(3):
                    if tv[u, m] == b and tv[u, (m + 1) % 3] == a:
                        tn[t, k] = u
                        tn[u, m] = t


@njit(cache=True, nogil=True)
def _relink(tn, t, old, new):
    if t >= 0:
        for k in range(3):
            if tn[t, k] == old:
                tn[t, k] = new
                return


@njit(cache=True, nogil=True)
def _legalise(lx, ly, tv, tn, tstamp, stamp, stack, top, eps_area):
    """Lawson flips from the pending edges on the stack until the mesh is Delaunay.

    Hull edges have no neighbour and are never flipped (constrained Delaunay).
    """
    flips = 0
    while top > 0 and flips < 200000:
        top -= 1
        t, k = stack[top, 0], stack[top, 1]
        u = tn[t, k]
        if u < 0:
            continue
        k1, k2 = (k + 1) % 3, (k + 2) % 3
        a, b, c = tv[t, k], tv[t, k1], tv[t, k2]
        m = -1
        for j in range(3):
            if tv[u, j] == b and tv[u, (j + 1) % 3] == a:
                m = j
        if m < 0:
            continue
        m1, m2 = (m + 1) % 3, (m + 2) % 3
        d = tv[u, m2]
        if not _in_circumcircle(lx[a], ly[a], lx[b], ly[b], lx[c], ly[c], lx[d], ly[d]):
            continue
        if (_cross(lx[a], ly[a], lx[d], ly[d], lx[c], ly[c]) <= eps_area
                or _cross(lx[d], ly[d], lx[b], ly[b], lx[c], ly[c]) <= eps_area):
            continue
        n_bc, n_ca = tn[t, k1], tn[t, k2]
        n_ad, n_db = tn[u, m1], tn[u, m2]
        # Quad a, d, b, c (CCW): replace diagonal ab by cd.
        tv[t, 0], tv[t, 1], tv[t, 2] = a, d, c
        tn[t, 0], tn[t, 1], tn[t, 2] = n_ad, u, n_ca
        tv[u, 0], tv[u, 1], tv[u, 2] = d, b, c
        tn[u, 0], tn[u, 1], tn[u, 2] = n_db, n_bc, t
        _relink(tn, n_ad, u, t)
        _relink(tn, n_bc, t, u)
        tstamp[t] = stamp[0]
        tstamp[u] = stamp[0] + 1
        stamp[0] += 2
        flips += 1
        if top + 4 <= stack.shape[0]:
            stack[top, 0], stack[top, 1] = t, 0
            stack[top + 1, 0], stack[top + 1, 1] = t, 2
            stack[top + 2, 0], stack[top + 2, 1] = u, 0
            stack[top + 3, 0], stack[top + 3, 1] = u, 1
            top += 4


@njit(cache=True, nogil=True)
def _legalise_all(lx, ly, tv, tn, nt, tstamp, stamp, stack, eps_area):
    top = 0
    for t in range(nt):
        for k in range(3):
            if tn[t, k] > t and top < stack.shape[0]:
                stack[top, 0], stack[top, 1] = t, k
                top += 1
    _legalise(lx, ly, tv, tn, tstamp, stamp, stack, top, eps_area)


@njit(cache=True, nogil=True)
def _insert_point(v, start, lx, ly, tv, tn, nt, tstamp, stamp, stack, eps_area, eps_dist):
    """Insert vertex v (searching from triangle ``start``); returns the new triangle count,
    or -1 when v cannot be inserted (outside, on the hull, or on an existing vertex)."""
    px, py = lx[v], ly[v]
    t = _walk_locate(lx, ly, tv, tn, nt, start, px, py)
    if t < 0:
        return -1
    d0, d1, d2 = _edge_distances(lx, ly, tv[t, 0], tv[t, 1], tv[t, 2], px, py)
    if min(d0, d1, d2) < -eps_dist:
        return -1
    near = 0
    k = -1
    if d0 < eps_dist:
        near, k = near + 1, 0
    if d1 < eps_dist:
        near, k = near + 1, 1
    if d2 < eps_dist:
        near, k = near + 1, 2
    if near >= 2:
        return -1
    if nt + 2 > tv.shape[0]:
        return -1
    if near == 0:
        a, b, c = tv[t, 0], tv[t, 1], tv[t, 2]
        n_ab, n_bc, n_ca = tn[t, 0], tn[t, 1], tn[t, 2]
        t1, t2 = nt, nt + 1
        tv[t, 0], tv[t, 1], tv[t, 2] = a, b, v
        tn[t, 0], tn[t, 1], tn[t, 2] = n_ab, t1, t2
        tv[t1, 0], tv[t1, 1], tv[t1, 2] = b, c, v
        tn[t1, 0], tn[t1, 1], tn[t1, 2] = n_bc, t2, t
        tv[t2, 0], tv[t2, 1], tv[t2, 2] = c, a, v
        tn[t2, 0], tn[t2, 1], tn[t2, 2] = n_ca, t, t1
        _relink(tn, n_bc, t, t1)
        _relink(tn, n_ca, t, t2)
        tstamp[t], tstamp[t1], tstamp[t2] = stamp[0], stamp[0] + 1, stamp[0] + 2
        stamp[0] += 3
        stack[0, 0], stack[0, 1] = t, 0
        stack[1, 0], stack[1, 1] = t1, 0
        stack[2, 0], stack[2, 1] = t2, 0
        _legalise(lx, ly, tv, tn, tstamp, stamp, stack, 3, eps_area)
        return nt + 2
    # v lies on edge k (a -> b) of t: split t and its neighbour u in two each.
    u = tn[t, k]
    if u < 0:
        return -1  # on the polygon boundary
    k1, k2 = (k + 1) % 3, (k + 2) % 3
    a, b, c = tv[t, k], tv[t, k1], tv[t, k2]
    n_bc, n_ca = tn[t, k1], tn[t, k2]
    m = -1
    for j in range(3):
        if tv[u, j] == b and tv[u, (j + 1) % 3] == a:
            m = j
    if m < 0:
        return -1
    d = tv[u, (m + 2) % 3]
    n_ad, n_db = tn[u, (m + 1) % 3], tn[u, (m + 2) % 3]
    t1, u2 = nt, nt + 1
    tv[t, 0], tv[t, 1], tv[t, 2] = c, a, v
    tn[t, 0], tn[t, 1], tn[t, 2] = n_ca, u2, t1
    tv[t1, 0], tv[t1, 1], tv[t1, 2] = b, c, v
    tn[t1, 0], tn[t1, 1], tn[t1, 2] = n_bc, t, u
    tv[u, 0], tv[u, 1], tv[u, 2] = d, b, v
    tn[u, 0], tn[u, 1], tn[u, 2] = n_db, t1, u2
    tv[u2, 0], tv[u2, 1], tv[u2, 2] = a, d, v
    tn[u2, 0], tn[u2, 1], tn[u2, 2] = n_ad, u, t
    _relink(tn, n_bc, t, t1)
    _relink(tn, n_ad, u, u2)
    tstamp[t], tstamp[t1], tstamp[u], tstamp[u2] = (stamp[0], stamp[0] + 1, stamp[0] + 2,
                                                     stamp[0] + 3)
    stamp[0] += 4
    stack[0, 0], stack[1, 0], stack[2, 0], stack[3, 0] = t, t1, u, u2
    stack[0, 1] = stack[1, 1] = stack[2, 1] = stack[3, 1] = 0
    _legalise(lx, ly, tv, tn, tstamp, stamp, stack, 4, eps_area)
    return nt + 2


# ------------------------------------------------------------------------- per polygon
@njit(cache=True, nogil=True)
def _sample_edge(i, j, gverts, poly, px, py, pz, nverts, hull, nhull, patch, px0, py0, pw, ph,
                 cs, ch, sample_dist, max_err, edge_cap, ex, ey, ez, idx):
    """Append the edge points of polygon edge i -> j to the vertex and hull lists.

    Returns the new (nverts, nhull). Points are computed walking the edge in a canonical
    direction (lower grid x, then lower grid y first) so neighbours agree bit for bit.
    """
    vi, vj = poly[i], poly[j]
    swapped = (gverts[vi, 0] > gverts[vj, 0]
               or (gverts[vi, 0] == gverts[vj, 0] and gverts[vi, 1] > gverts[vj, 1]))
    a, b = (j, i) if swapped else (i, j)
    dx, dy = px[b] - px[a], py[b] - py[a]
    length = math.hypot(dx, dy)
    nn = 1 + int(math.floor(length / sample_dist))
    nn = min(nn, MAX_EDGE_POINTS - 1)
    za, zb = pz[a] / ch, pz[b] / ch  # voxel levels
    for k in range(nn + 1):
        u = k / nn
        ex[k] = px[a] + dx * u
        ey[k] = py[a] + dy * u
        if k == 0:
            ez[k] = za
        elif k == nn:
            ez[k] = zb
        else:
            ez[k] = _patch_level(patch, px0, py0, pw, ph, ex[k], ey[k], za + (zb - za) * u, cs)
    # Recursive split, worst point first, as a sorted index list.
    idx[0], idx[1] = 0, nn
    nidx = 2
    k = 0
    while k < nidx - 1:
        ia, ib = idx[k], idx[k + 1]
        worst, worst_d = -1, 0.0
        for q in range(ia + 1, ib):
            s = (q - ia) / (ib - ia)
            dev = abs(ez[q] - (ez[ia] + (ez[ib] - ez[ia]) * s)) * ch
            if dev > worst_d:
                worst, worst_d = q, dev
        if worst >= 0 and worst_d > max_err and nidx - 2 < edge_cap:
            for q in range(nidx, k + 1, -1):
                idx[q] = idx[q - 1]
            idx[k + 1] = worst
            nidx += 1
        else:
            k += 1
    for q in range(1, nidx - 1):
        e = idx[nidx - 1 - q] if swapped else idx[q]
        px[nverts], py[nverts], pz[nverts] = ex[e], ey[e], ez[e] * ch
        hull[nhull] = nverts
        nverts += 1
        nhull += 1
    return nverts, nhull


@njit(cache=True, nogil=True)
def _min_extent(lx, ly, n):
    """Smallest width of the polygon: min over edges of the farthest vertex from it."""
    best = np.inf
    for i in range(n):
        j = (i + 1) % n
        length = math.hypot(lx[j] - lx[i], ly[j] - ly[i])
        if length <= 0.0:
            continue
        far = 0.0
        for k in range(n):
            d = abs(_cross(lx[i], ly[i], lx[j], ly[j], lx[k], ly[k])) / length
            far = max(far, d)
        best = min(best, far)
    return best


@njit(cache=True, nogil=True)
def _grow_rows(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def _detail_kernel(gverts, polys, regs, use_regions, width, height, cell_index, cell_count,
                   span_y, span_con, span_reg, span_x, span_cy, cs, ch, sample_dist, max_err):
    npolys, nvp = polys.shape
    sampling = sample_dist > 0.0
    # Work buffer sizes: the largest patch and sample grid over all polygons.
    max_cells, max_samples = 1, 1
    for p in range(npolys):
        x0, y0, x1, y1 = 1 << 30, 1 << 30, -(1 << 30), -(1 << 30)
        for i in range(nvp):
            v = polys[p, i]
            if v < 0:
                break
            x0, x1 = min(x0, gverts[v, 0]), max(x1, gverts[v, 0])
            y0, y1 = min(y0, gverts[v, 1]), max(y1, gverts[v, 1])
        max_cells = max(max_cells, (x1 - x0 + 2) * (y1 - y0 + 2))
        if sampling:
            nx = int(math.ceil((x1 - x0) * cs / sample_dist)) + 2
            ny = int(math.ceil((y1 - y0) * cs / sample_dist)) + 2
            max_samples = max(max_samples, nx * ny)
    patch = np.empty(max_cells, np.int32)
    queue = np.empty(max_cells, np.int32)
    px = np.empty(MAX_DETAIL_VERTS)  # bmin-relative world x, y, z
    py = np.empty(MAX_DETAIL_VERTS)
    pz = np.empty(MAX_DETAIL_VERTS)
    lx = np.empty(MAX_DETAIL_VERTS)  # polygon-relative x, y for the geometry tests
    ly = np.empty(MAX_DETAIL_VERTS)
    hull = np.empty(MAX_DETAIL_VERTS, np.int32)
    hull_pos = np.empty(MAX_DETAIL_VERTS, np.int32)
    ring = np.empty(MAX_DETAIL_VERTS, np.int32)
    tv = np.empty((MAX_DETAIL_TRIS, 3), np.int32)
    tn = np.empty((MAX_DETAIL_TRIS, 3), np.int32)
    tstamp = np.zeros(MAX_DETAIL_TRIS, np.int64)
    stamp = np.ones(1, np.int64)
    stack = np.empty((_STACK_SIZE, 2), np.int32)
    ex = np.empty(MAX_EDGE_POINTS)
    ey = np.empty(MAX_EDGE_POINTS)
    ez = np.empty(MAX_EDGE_POINTS)
    idx = np.empty(MAX_EDGE_POINTS + 1, np.int32)
    sx = np.empty(max_samples)
    sy = np.empty(max_samples)
    sz = np.empty(max_samples)
    s_tri = np.empty(max_samples, np.int64)
    s_stamp = np.empty(max_samples, np.int64)
    s_err = np.empty(max_samples)
    s_done = np.empty(max_samples, np.bool_)
    edge_cap = min(MAX_EDGE_POINTS - 2, (MAX_DETAIL_VERTS - nvp) // nvp)
    eps_area = _EPS_AREA * cs * cs
    eps_dist = _EPS_DIST * cs

    meshes = np.zeros((npolys, 4), np.int32)
    out_v = np.empty((max(16, npolys * 8), 3))
    out_t = np.empty((max(16, npolys * 8), 4), np.int32)
    nv_out, nt_out = 0, 0

    for p in range(npolys):
        poly = polys[p]
        n = 0
        while n < nvp and poly[n] >= 0:
            n += 1
        gx0, gy0, gx1, gy1 = 1 << 30, 1 << 30, -(1 << 30), -(1 << 30)
        for i in range(n):
            v = poly[i]
            px[i] = gverts[v, 0] * cs
            py[i] = gverts[v, 1] * cs
            pz[i] = gverts[v, 2] * ch
            gx0, gx1 = min(gx0, gverts[v, 0]), max(gx1, gverts[v, 0])
            gy0, gy1 = min(gy0, gverts[v, 1]), max(gy1, gverts[v, 1])
        nverts, nhull, nt = n, 0, 0
        if n >= 3:
            ox, oy = gx0 * cs, gy0 * cs
            px0, py0 = max(0, gx0 - 1), max(0, gy0 - 1)
            pw = min(width, gx1 + 1) - px0
            ph = min(height, gy1 + 1) - py0
            if sampling and pw > 0 and ph > 0:
                _fill_patch(patch, queue, px0, py0, pw, ph, gverts, poly, n, regs[p],
                            use_regions, width, cell_index, cell_count, span_y, span_con,
                            span_reg, span_x, span_cy)
            if sampling:
                for i in range(n):
                    hull[nhull] = i
                    nhull += 1
                    nverts, nhull = _sample_edge(
                        i, (i + 1) % n, gverts, poly, px, py, pz, nverts, hull, nhull,
                        patch, px0, py0, pw, ph, cs, ch, sample_dist, max_err, edge_cap,
                        ex, ey, ez, idx)
            else:
                for i in range(n):
                    hull[i] = i
                nhull = n
            for i in range(nverts):
                lx[i] = px[i] - ox
                ly[i] = py[i] - oy
                hull_pos[i] = -1
            for i in range(nhull):
                hull_pos[hull[i]] = i
            nt = _triangulate_hull(lx, ly, hull, nhull, ring, tv, eps_area)
            _link_triangles(tv, tn, nt)
            _legalise_all(lx, ly, tv, tn, nt, tstamp, stamp, stack, eps_area)

            if sampling and nt > 0 and _min_extent(lx, ly, n) >= 2.0 * sample_dist:
                # Interior samples on the world grid, at least sample_dist/2 inside.
                ns = 0
                ix0 = int(math.floor(gx0 * cs / sample_dist))
                ix1 = int(math.ceil(gx1 * cs / sample_dist))
                iy0 = int(math.floor(gy0 * cs / sample_dist))
                iy1 = int(math.ceil(gy1 * cs / sample_dist))
                margin = 0.5 * sample_dist
                last = 0
                for iy in range(iy0, iy1 + 1):
                    for ix in range(ix0, ix1 + 1):
                        wx, wy = ix * sample_dist, iy * sample_dist
                        qx, qy = wx - ox, wy - oy
                        inside = True
                        for i in range(n):
                            j = (i + 1) % n
                            length = math.hypot(lx[j] - lx[i], ly[j] - ly[i])
                            if length <= 0.0:
                                continue
                            if _cross(lx[i], ly[i], lx[j], ly[j], qx, qy) < margin * length:
                                inside = False
                                break
                        if not inside or ns >= max_samples:
                            continue
                        last = _walk_locate(lx, ly, tv, tn, nt, last, qx, qy)
                        ref = _height_in_triangle(lx, ly, pz, tv, last, qx, qy) / ch
                        sx[ns], sy[ns] = wx, wy
                        sz[ns] = _patch_level(patch, px0, py0, pw, ph, wx, wy, ref, cs) * ch
                        s_tri[ns] = -1
                        s_done[ns] = False
                        ns += 1
                while nverts < MAX_DETAIL_VERTS:
                    best, best_err = -1, 0.0
                    for s in range(ns):
                        if s_done[s]:
                            continue
                        t = s_tri[s]
                        if t < 0 or tstamp[t] != s_stamp[s]:
                            qx, qy = sx[s] - ox, sy[s] - oy
                            t = _walk_locate(lx, ly, tv, tn, nt, t, qx, qy)
                            s_tri[s], s_stamp[s] = t, tstamp[t]
                            s_err[s] = abs(sz[s] - _height_in_triangle(lx, ly, pz, tv, t,
                                                                       qx, qy))
                        if s_err[s] > best_err:
                            best, best_err = s, s_err[s]
                    if best < 0 or best_err <= max_err:
                        break
                    s_done[best] = True
                    px[nverts], py[nverts], pz[nverts] = sx[best], sy[best], sz[best]
                    lx[nverts], ly[nverts] = sx[best] - ox, sy[best] - oy
                    hull_pos[nverts] = -1
                    r = _insert_point(nverts, s_tri[best], lx, ly, tv, tn, nt, tstamp, stamp,
                                      stack, eps_area, eps_dist)
                    if r >= 0:
                        nt = r
                        nverts += 1

        # Append this polygon's block.
        out_v = _grow_rows(out_v, nv_out + nverts)
        out_t = _grow_rows(out_t, nt_out + nt)
        meshes[p, 0], meshes[p, 1], meshes[p, 2], meshes[p, 3] = nv_out, nverts, nt_out, nt
        for i in range(nverts):
            out_v[nv_out + i, 0] = px[i]
            out_v[nv_out + i, 1] = py[i]
            out_v[nv_out + i, 2] = pz[i]
        for t in range(nt):
            flags = 0
            for k in range(3):
                ha, hb = hull_pos[tv[t, k]], hull_pos[tv[t, (k + 1) % 3]]
                if ha >= 0 and hb >= 0 and (hb - ha) % nhull == 1:
                    flags |= DETAIL_EDGE_BOUNDARY << (2 * k)
            out_t[nt_out + t, 0] = tv[t, 0]
            out_t[nt_out + t, 1] = tv[t, 1]
            out_t[nt_out + t, 2] = tv[t, 2]
            out_t[nt_out + t, 3] = flags
        nv_out += nverts
        nt_out += nt
    return meshes, out_v[:nv_out].copy(), out_t[:nt_out].copy()


def build_detail_mesh(pmesh: PolyMesh, chf: CompactHeightfield, sample_dist: float,
                      sample_max_error: float):
    """Detail triangles following the floor under each polygon of ``pmesh``.

    ``sample_dist`` and ``sample_max_error`` are world units (``VoxelConfig``);
    ``sample_dist == 0`` triangulates the polygons without sampling. Returns
    ``(detail_meshes (P, 4) int32, detail_vertices (Dv, 3) float64 world,
    detail_triangles (Dt, 4) int32)`` in the layout described in :mod:`.navmesh`.
    """
    polys = np.ascontiguousarray(pmesh.polys, dtype=np.int32)
    npolys = polys.shape[0]
    if npolys == 0:
        return (np.zeros((0, 4), np.int32), np.zeros((0, 3), np.float64),
                np.zeros((0, 4), np.int32))
    use_regions = chf.span_reg is not None
    nspans = chf.span_y.shape[0]
    span_reg = (np.ascontiguousarray(chf.span_reg, dtype=np.int32) if use_regions
                else np.zeros(nspans, np.int32))
    sample_dist = float(sample_dist)
    if not np.isfinite(sample_dist) or sample_dist < 0.0:
        raise ValueError(f"sample_dist must be >= 0, got {sample_dist!r}")
    meshes, verts, tris = _detail_kernel(
        np.ascontiguousarray(pmesh.verts, dtype=np.int32), polys,
        np.ascontiguousarray(pmesh.regs, dtype=np.int32), use_regions,
        int(chf.width), int(chf.height),
        np.ascontiguousarray(chf.cell_index, dtype=np.int32),
        np.ascontiguousarray(chf.cell_count, dtype=np.int32),
        np.ascontiguousarray(chf.span_y, dtype=np.int32),
        np.ascontiguousarray(chf.span_con, dtype=np.int32).reshape(nspans, 4),
        span_reg,
        np.ascontiguousarray(chf.span_x, dtype=np.int32),
        np.ascontiguousarray(chf.span_cy, dtype=np.int32),
        float(pmesh.cs), float(pmesh.ch), sample_dist, float(max(sample_max_error, 0.0)))
    bmin = np.asarray(pmesh.bmin, dtype=np.float64)
    verts = bmin[None, :] + verts
    return meshes, verts, tris
