"""Convex polygon mesh from contours (Recast's poly-mesh stage, Z up).

Each contour is ear-clipped into triangles (shortest diagonal first), its vertices are
welded into one shared vertex table, and its triangles are greedily merged into convex
polygons of at most ``nvp`` vertices. Finally polygons sharing an edge are linked.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .contours import area2, intersect_proper, intersect_segments
from .stage_data import ContourSet, PolyMesh

# Two contour vertices at the same (x, y) weld when their heights differ by at most this.
WELD_HEIGHT_TOLERANCE = 2


# ----------------------------------------------------------------------- triangulation
@njit(cache=True, nogil=True)
def _in_cone(i, j, ind, m, x, y, loose):
    """Diagonal from polygon position i to j leaves vertex i into the polygon's inside."""
    pi = ind[i]
    pj = ind[j]
    pn = ind[(i + 1) % m]
    pp = ind[(i + m - 1) % m]
    if area2(x[pi], y[pi], x[pn], y[pn], x[pp], y[pp]) >= 0:  # convex corner
        a = area2(x[pi], y[pi], x[pj], y[pj], x[pp], y[pp])
        b = area2(x[pj], y[pj], x[pi], y[pi], x[pn], y[pn])
        if loose:
            return a >= 0 and b >= 0
        return a > 0 and b > 0
    return not (area2(x[pi], y[pi], x[pj], y[pj], x[pn], y[pn]) >= 0
                and area2(x[pj], y[pj], x[pi], y[pi], x[pp], y[pp]) >= 0)


@njit(cache=True, nogil=True)
def _clear_of_edges(i, j, ind, m, x, y, loose):
    """Segment (i, j) meets no polygon edge, ignoring edges that touch its end points
    (by position, so the repeated corners of a bridged hole do not block it)."""
    d0 = ind[i]
    d1 = ind[j]
    xmin = min(x[d0], x[d1])
    xmax = max(x[d0], x[d1])
    ymin = min(y[d0], y[d1])
    ymax = max(y[d0], y[d1])
    for k in range(m):
        k1 = (k + 1) % m
        if k == i or k1 == i or k == j or k1 == j:
            continue
        p0 = ind[k]
        p1 = ind[k1]
        # Cheap reject: the edge's bounding box misses the diagonal's.
        if ((x[p0] < xmin and x[p1] < xmin) or (x[p0] > xmax and x[p1] > xmax)
                or (y[p0] < ymin and y[p1] < ymin) or (y[p0] > ymax and y[p1] > ymax)):
            continue
        if ((x[d0] == x[p0] and y[d0] == y[p0]) or (x[d1] == x[p0] and y[d1] == y[p0])
                or (x[d0] == x[p1] and y[d0] == y[p1])
                or (x[d1] == x[p1] and y[d1] == y[p1])):
            continue
        if loose:
            hit = intersect_proper(x[d0], y[d0], x[d1], y[d1], x[p0], y[p0], x[p1], y[p1])
        else:
            hit = intersect_segments(x[d0], y[d0], x[d1], y[d1], x[p0], y[p0], x[p1], y[p1])
        if hit:
            return False
    return True


@njit(cache=True, nogil=True)
def _diagonal(i, j, ind, m, x, y, loose):
    return (_in_cone(i, j, ind, m, x, y, loose) and _in_cone(j, i, ind, m, x, y, loose)
            and _clear_of_edges(i, j, ind, m, x, y, loose))


@njit(cache=True, nogil=True)
def triangulate(x, y):
    """Ear-clip a CCW polygon. Returns (tris (T, 3) int64 local indices, failed).

    Ears are cut shortest diagonal first. When no proper ear exists (self-touching or
    degenerate outlines), a loose ear test is tried, then any convex corner; ``failed``
    is True if the polygon could not be finished.
    """
    n = x.shape[0]
    tris = np.empty((max(n - 2, 0), 3), np.int64)
    if n < 3:
        return tris[:0], n != 0
    ind = np.arange(n)
    ear = np.zeros(n, np.bool_)
    for i in range(n):
        i1 = (i + 1) % n
        ear[i1] = _diagonal(i, (i1 + 1) % n, ind, n, x, y, False)
    t = 0
    m = n
    failed = False
    while m > 3:
        best = -1
        best_len = np.int64(-1)
        for i in range(m):
            i1 = (i + 1) % m
            if ear[i1]:
                p0 = ind[i]
                p2 = ind[(i1 + 1) % m]
                dx = x[p2] - x[p0]
                dy = y[p2] - y[p0]
                d = dx * dx + dy * dy
                if best == -1 or d < best_len:
                    best = i
                    best_len = d
        if best == -1:
            for i in range(m):
                i1 = (i + 1) % m
                i2 = (i1 + 1) % m
                if _diagonal(i, i2, ind, m, x, y, True):
                    p0 = ind[i]
                    p2 = ind[i2]
                    dx = x[p2] - x[p0]
                    dy = y[p2] - y[p0]
                    d = dx * dx + dy * dy
                    if best == -1 or d < best_len:
                        best = i
                        best_len = d
        if best == -1:
            # Last resort on broken outlines: any strictly convex corner.
            failed = True
            for i in range(m):
                i1 = (i + 1) % m
                i2 = (i1 + 1) % m
                p0 = ind[i]
                p1 = ind[i1]
                p2 = ind[i2]
                if area2(x[p0], y[p0], x[p1], y[p1], x[p2], y[p2]) > 0:
                    dx = x[p2] - x[p0]
                    dy = y[p2] - y[p0]
                    d = dx * dx + dy * dy
                    if best == -1 or d < best_len:
                        best = i
                        best_len = d
            if best == -1:
                return tris[:t], True
        i = best
        i1 = (i + 1) % m
        i2 = (i1 + 1) % m
        tris[t, 0] = ind[i]
        tris[t, 1] = ind[i1]
        tris[t, 2] = ind[i2]
        t += 1
        # Remove vertex i1.
        for k in range(i1, m - 1):
            ind[k] = ind[k + 1]
            ear[k] = ear[k + 1]
        m -= 1
        if i1 >= m:
            i1 = 0
        i = (i1 + m - 1) % m
        ear[i] = _diagonal((i + m - 1) % m, i1, ind, m, x, y, False)
        ear[i1] = _diagonal(i, (i1 + 1) % m, ind, m, x, y, False)
    tris[t, 0] = ind[0]
    tris[t, 1] = ind[1]
    tris[t, 2] = ind[2]
    t += 1
    return tris[:t], failed


# ---------------------------------------------------------------------------- merging
@njit(cache=True, nogil=True)
def _merge_value(pa, na, pb, nb, vx, vy, nvp):
    """Squared length of the edge polygons a and b share if merging them keeps a convex
    polygon of at most nvp vertices; else -1. Also returns the shared edge positions."""
    if na + nb - 2 > nvp:
        return -1, -1, -1
    ea = -1
    eb = -1
    for i in range(na):
        a0 = pa[i]
        a1 = pa[(i + 1) % na]
        for j in range(nb):
            if pb[j] == a1 and pb[(j + 1) % nb] == a0:
                ea = i
                eb = j
                break
        if ea != -1:
            break
    if ea == -1:
        return -1, -1, -1
    # Convex at both ends of the removed edge (strictly: no collinear corners).
    va = pa[(ea + na - 1) % na]
    vb = pa[ea]
    vc = pb[(eb + 2) % nb]
    if area2(vx[va], vy[va], vx[vb], vy[vb], vx[vc], vy[vc]) <= 0:
        return -1, -1, -1
    va = pb[(eb + nb - 1) % nb]
    vb = pb[eb]
    vc = pa[(ea + 2) % na]
    if area2(vx[va], vy[va], vx[vb], vy[vb], vx[vc], vy[vc]) <= 0:
        return -1, -1, -1
    dx = vx[pa[ea]] - vx[pa[(ea + 1) % na]]
    dy = vy[pa[ea]] - vy[pa[(ea + 1) % na]]
    return dx * dx + dy * dy, ea, eb


@njit(cache=True, nogil=True)
def _best_merge(p, polys, cnt, nbr, vx, vy, nvp):
    """Best merge partner of polygon p among its neighbours: (value, partner)."""
    best = np.int64(0)
    partner = -1
    for i in range(cnt[p]):
        q = nbr[p, i]
        if q < 0:
            continue
        v, _ea, _eb = _merge_value(polys[p], cnt[p], polys[q], cnt[q], vx, vy, nvp)
        if v > best or (v == best and v > 0 and q < partner):
            best = v
            partner = q
    return best, partner


@njit(cache=True, nogil=True)
def _replace_ref(nbr, cnt, p, old, new):
    for i in range(cnt[p]):
        if nbr[p, i] == old:
            nbr[p, i] = new


@njit(cache=True, nogil=True)
def _merge_polys(polys, cnt, npolys, vx, vy, nvp, nverts):
    """Greedily merge the pair sharing the longest edge until no merge keeps a convex
    polygon of at most nvp vertices. Works in place on the first ``npolys`` rows and
    returns the new count. Each polygon keeps its neighbours and best partner, so a merge
    only revisits the polygons around it."""
    if npolys < 2:
        return npolys
    nbr = build_adjacency(polys[:npolys], nverts)
    best_val = np.zeros(npolys, np.int64)
    best_nb = np.full(npolys, -1, np.int64)
    for p in range(npolys):
        best_val[p], best_nb[p] = _best_merge(p, polys, cnt, nbr, vx, vy, nvp)
    tmp = np.empty(nvp, np.int64)
    tmp_nb = np.empty(nvp, np.int64)
    while True:
        a = -1
        for p in range(npolys):
            if best_val[p] > 0 and (a == -1 or best_val[p] > best_val[a]):
                a = p
        if a == -1:
            return npolys
        b = best_nb[a]
        _v, ea, eb = _merge_value(polys[a], cnt[a], polys[b], cnt[b], vx, vy, nvp)
        na = cnt[a]
        nb = cnt[b]
        # a from the shared edge's end round to just before its start, then b from the
        # shared edge's end (a's start) round to just before its start. Edge slots follow
        # the same pattern, so neighbour links carry over.
        k = 0
        for t in range(na - 1):
            tmp[k] = polys[a, (ea + 1 + t) % na]
            tmp_nb[k] = nbr[a, (ea + 1 + t) % na]
            k += 1
        for t in range(nb - 1):
            tmp[k] = polys[b, (eb + 1 + t) % nb]
            tmp_nb[k] = nbr[b, (eb + 1 + t) % nb]
            k += 1
        polys[a, :k] = tmp[:k]
        polys[a, k:] = -1
        nbr[a, :k] = tmp_nb[:k]
        nbr[a, k:] = -1
        cnt[a] = k
        for i in range(k):
            q = nbr[a, i]
            if q >= 0:
                _replace_ref(nbr, cnt, q, b, a)
        # Fill the hole left by b with the last polygon.
        last = npolys - 1
        if b != last:
            polys[b] = polys[last]
            cnt[b] = cnt[last]
            nbr[b] = nbr[last]
            best_val[b] = best_val[last]
            best_nb[b] = best_nb[last]
            for i in range(cnt[b]):
                q = nbr[b, i]
                if q >= 0:
                    _replace_ref(nbr, cnt, q, last, b)
            for p in range(last):
                if best_nb[p] == last:
                    best_nb[p] = b
            if a == last:
                a = b
        npolys -= 1
        best_val[a], best_nb[a] = _best_merge(a, polys, cnt, nbr, vx, vy, nvp)
        for i in range(cnt[a]):
            q = nbr[a, i]
            if q >= 0:
                best_val[q], best_nb[q] = _best_merge(q, polys, cnt, nbr, vx, vy, nvp)


# ---------------------------------------------------------------------------- welding
@njit(cache=True, nogil=True)
def _weld_vertex(x, y, z, verts, nverts, bucket_first, vert_next, tol):
    """Index of a welded vertex at (x, y) with height within tol, adding one if needed."""
    mask = bucket_first.shape[0] - 1
    h = ((x * 73856093) ^ (y * 19349663)) & mask
    v = bucket_first[h]
    while v != -1:
        if verts[v, 0] == x and verts[v, 1] == y and abs(verts[v, 2] - z) <= tol:
            return v, nverts
        v = vert_next[v]
    verts[nverts, 0] = x
    verts[nverts, 1] = y
    verts[nverts, 2] = z
    vert_next[nverts] = bucket_first[h]
    bucket_first[h] = nverts
    return nverts, nverts + 1


@njit(cache=True, nogil=True)
def _build_polys(cverts, cstart, creg, carea, nvp, tol):
    n_cont = cstart.shape[0] - 1
    total = cverts.shape[0]
    verts = np.empty((total, 3), np.int64)
    nbuckets = 1
    while nbuckets < 2 * total:
        nbuckets *= 2
    bucket_first = np.full(nbuckets, -1, np.int64)
    vert_next = np.full(total, -1, np.int64)
    nverts = 0
    max_polys = 0
    for c in range(n_cont):
        max_polys += max(cstart[c + 1] - cstart[c] - 2, 0)
    polys = np.full((max_polys, nvp), -1, np.int64)
    preg = np.zeros(max_polys, np.int64)
    parea = np.zeros(max_polys, np.int64)
    npolys = 0
    n_failed = 0
    for c in range(n_cont):
        b = cstart[c]
        n = cstart[c + 1] - b
        if n < 3:
            continue
        x = cverts[b:b + n, 0].copy()
        y = cverts[b:b + n, 1].copy()
        tris, failed = triangulate(x, y)
        if failed:
            n_failed += 1
        gid = np.empty(n, np.int64)
        for i in range(n):
            v, nverts = _weld_vertex(x[i], y[i], cverts[b + i, 2], verts, nverts,
                                     bucket_first, vert_next, tol)
            gid[i] = v
        nt = tris.shape[0]
        local = np.full((max(nt, 1), nvp), -1, np.int64)
        cnt = np.zeros(max(nt, 1), np.int64)
        nl = 0
        for t in range(nt):
            a = gid[tris[t, 0]]
            bb = gid[tris[t, 1]]
            cc = gid[tris[t, 2]]
            if a == bb or a == cc or bb == cc:
                continue
            if area2(verts[a, 0], verts[a, 1], verts[bb, 0], verts[bb, 1],
                     verts[cc, 0], verts[cc, 1]) <= 0:
                continue
            local[nl, 0] = a
            local[nl, 1] = bb
            local[nl, 2] = cc
            cnt[nl] = 3
            nl += 1
        if nvp > 3:
            nl = _merge_polys(local, cnt, nl, verts[:, 0], verts[:, 1], nvp, nverts)
        for p in range(nl):
            polys[npolys] = local[p]
            preg[npolys] = creg[c]
            parea[npolys] = carea[c]
            npolys += 1
    return verts[:nverts], polys[:npolys], preg[:npolys], parea[:npolys], n_failed


@njit(cache=True, nogil=True)
def _drop_unused_vertices(verts, polys):
    """Packing: the vertices some polygon uses, in their order, and the polygons
    renumbered to them (both int32)."""
    remap = np.full(verts.shape[0], -1, np.int64)
    for p in range(polys.shape[0]):
        for i in range(polys.shape[1]):
            if polys[p, i] >= 0:
                remap[polys[p, i]] = 0
    n = 0
    for v in range(verts.shape[0]):
        if remap[v] == 0:
            remap[v] = n
            n += 1
    out_v = np.empty((n, verts.shape[1]), np.int32)
    for v in range(verts.shape[0]):
        if remap[v] >= 0:
            for k in range(verts.shape[1]):
                out_v[remap[v], k] = verts[v, k]
    out_p = np.empty(polys.shape, np.int32)
    for p in range(polys.shape[0]):
        for i in range(polys.shape[1]):
            out_p[p, i] = remap[polys[p, i]] if polys[p, i] >= 0 else -1
    return out_v, out_p


# -------------------------------------------------------------------------- adjacency
@njit(cache=True, nogil=True)
def build_adjacency(polys, nverts):
    """``neighbours[p, i]``: the polygon whose edge runs opposite to edge i of p, or -1."""
    npolys, nvp = polys.shape
    nb = np.full((npolys, nvp), -1, np.int64)
    ne = 0
    for p in range(npolys):
        for i in range(nvp):
            if polys[p, i] >= 0:
                ne += 1
    key = np.empty(ne, np.int64)
    epoly = np.empty(ne, np.int64)
    eslot = np.empty(ne, np.int64)
    efwd = np.empty(ne, np.bool_)
    k = 0
    for p in range(npolys):
        n = 0
        while n < nvp and polys[p, n] >= 0:
            n += 1
        for i in range(n):
            v0 = polys[p, i]
            v1 = polys[p, (i + 1) % n]
            lo = min(v0, v1)
            hi = max(v0, v1)
            key[k] = lo * nverts + hi
            epoly[k] = p
            eslot[k] = i
            efwd[k] = v0 < v1
            k += 1
    order = np.argsort(key, kind="mergesort")
    g = 0
    while g < ne:
        h = g
        while h < ne and key[order[h]] == key[order[g]]:
            h += 1
        # Pair each edge with an unmatched opposite-direction edge of another polygon.
        for a in range(g, h):
            ea = order[a]
            if not efwd[ea]:
                continue
            for b in range(g, h):
                eb = order[b]
                if efwd[eb] or epoly[eb] == epoly[ea] or nb[epoly[eb], eslot[eb]] != -1:
                    continue
                nb[epoly[ea], eslot[ea]] = epoly[eb]
                nb[epoly[eb], eslot[eb]] = epoly[ea]
                break
        g = h
    return nb


# ----------------------------------------------------------------------------- public
def build_poly_mesh(cset: ContourSet, nvp: int, bmin, cs, ch) -> PolyMesh:
    """Convex polygons (at most ``nvp`` vertices, CCW from +Z) covering every contour.

    Vertices are in voxel units (grid x, grid y, level z); ``bmin``/``cs``/``ch`` are
    carried along for conversion to world units. Unused vertices are dropped.
    """
    nvp = int(nvp)
    if nvp < 3:
        raise ValueError(f"build_poly_mesh: nvp must be at least 3, got {nvp}")
    cverts = np.asarray(cset.verts, dtype=np.int64).reshape(-1, 4)
    verts, polys, preg, parea, _n_failed = _build_polys(
        cverts, np.asarray(cset.start, np.int64), np.asarray(cset.reg, np.int64),
        np.asarray(cset.area, np.int64), nvp, WELD_HEIGHT_TOLERANCE)
    verts, polys = _drop_unused_vertices(verts, polys)
    neighbours = build_adjacency(polys, max(verts.shape[0], 1))
    return PolyMesh(
        verts=verts,
        polys=polys,
        neighbours=neighbours.astype(np.int32),
        regs=preg.astype(np.int32),
        areas=parea.astype(np.uint8),
        nvp=nvp,
        bmin=np.asarray(bmin, dtype=np.float64).copy(),
        cs=float(cs),
        ch=float(ch),
    )
