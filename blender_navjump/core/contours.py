"""Region outlines: walk span edges, simplify, merge holes (Recast's contour stage, Z up).

Every region of a :class:`CompactHeightfield` becomes one closed outline of cell corners,
counter-clockwise from +Z with the region on the left. Holes (outlines that wind the
other way) are bridged into their region's outer outline, so a region with holes still
yields a single, weakly simple contour.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .stage_data import (
    AREA_BORDER,
    CONTOUR_REG_MASK,
    CompactHeightfield,
    ContourSet,
)

# Flag bits that take part in simplification (neighbour region + area change).
_EDGE_KEY = CONTOUR_REG_MASK | AREA_BORDER


# --------------------------------------------------------------------------- geometry
@njit(cache=True, nogil=True)
def area2(ax, ay, bx, by, cx, cy):
    """Twice the signed area of triangle abc; > 0 when c is left of a->b (CCW)."""
    return (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)


@njit(cache=True, nogil=True)
def _between(ax, ay, bx, by, cx, cy):
    """c lies on the closed segment ab (collinear and within its extent)."""
    if area2(ax, ay, bx, by, cx, cy) != 0:
        return False
    if ax != bx:
        return (ax <= cx <= bx) or (ax >= cx >= bx)
    return (ay <= cy <= by) or (ay >= cy >= by)


@njit(cache=True, nogil=True)
def intersect_proper(ax, ay, bx, by, cx, cy, dx, dy):
    """Segments ab and cd cross at a point interior to both."""
    abc = area2(ax, ay, bx, by, cx, cy)
    abd = area2(ax, ay, bx, by, dx, dy)
    cda = area2(cx, cy, dx, dy, ax, ay)
    cdb = area2(cx, cy, dx, dy, bx, by)
    if abc == 0 or abd == 0 or cda == 0 or cdb == 0:
        return False
    return ((abc > 0) != (abd > 0)) and ((cda > 0) != (cdb > 0))


@njit(cache=True, nogil=True)
def intersect_segments(ax, ay, bx, by, cx, cy, dx, dy):
    """Closed segments ab and cd share any point."""
    if intersect_proper(ax, ay, bx, by, cx, cy, dx, dy):
        return True
    return (_between(ax, ay, bx, by, cx, cy) or _between(ax, ay, bx, by, dx, dy)
            or _between(cx, cy, dx, dy, ax, ay) or _between(cx, cy, dx, dy, bx, by))


@njit(cache=True, nogil=True)
def _loop_area2(v):
    """Twice the signed area of a closed loop of (x, y, ...) rows."""
    n = v.shape[0]
    s = np.int64(0)
    for i in range(n):
        j = (i + 1) % n
        s += np.int64(v[i, 0]) * np.int64(v[j, 1]) - np.int64(v[j, 0]) * np.int64(v[i, 1])
    return s


@njit(cache=True, nogil=True)
def _dist_pt_seg_sq(px, py, ax, ay, bx, by):
    dx = float(bx - ax)
    dy = float(by - ay)
    qx = float(px - ax)
    qy = float(py - ay)
    d = dx * dx + dy * dy
    t = qx * dx + qy * dy
    if d > 0.0:
        t /= d
    t = min(max(t, 0.0), 1.0)
    ex = ax + t * dx - px
    ey = ay + t * dy - py
    return ex * ex + ey * ey


# --------------------------------------------------------------------------- walking
@njit(cache=True, nogil=True)
def _boundary_flags(span_con, span_reg):
    """Bit d set when edge d of a region span borders another region or nothing."""
    n = span_reg.shape[0]
    flags = np.zeros(n, np.uint8)
    for s in range(n):
        r = span_reg[s]
        if r == 0:
            continue
        f = 0
        for d in range(4):
            nb = span_con[s, d]
            if nb < 0 or span_reg[nb] != r:
                f |= 1 << d
        flags[s] = f
    return flags


@njit(cache=True, nogil=True)
def _corner_height(s, d, span_y, span_con):
    """Highest floor among the spans around the corner where edge d of span s starts.

    Walking counter-clockwise, that corner is shared with edge (d + 1) & 3 of the span.
    """
    d2 = (d + 1) & 3
    h = span_y[s]
    a = span_con[s, d]
    if a >= 0:
        h = max(h, span_y[a])
        ad = span_con[a, d2]
        if ad >= 0:
            h = max(h, span_y[ad])
    b = span_con[s, d2]
    if b >= 0:
        h = max(h, span_y[b])
        bd = span_con[b, d]
        if bd >= 0:
            h = max(h, span_y[bd])
    return h


@njit(cache=True, nogil=True)
def _walk_outlines(span_y, span_area, span_con, span_x, span_cy, span_reg):
    """Trace every boundary loop. Returns raw (K, 4) int64 rows, loop starts (L+1,),
    loop region ids (L,) and loop area ids (L,).

    Each boundary edge gives one vertex: the corner where the edge starts when walking
    counter-clockwise (region on the left), flagged with the region across that edge.
    """
    n = span_reg.shape[0]
    flags = _boundary_flags(span_con, span_reg)
    total = 0
    for s in range(n):
        f = flags[s]
        while f:
            total += f & 1
            f >>= 1
    raw = np.empty((total, 4), np.int64)
    start = np.zeros(total // 4 + 2, np.int64)
    loop_reg = np.zeros(total // 4 + 1, np.int64)
    loop_area = np.zeros(total // 4 + 1, np.int64)
    k = 0
    c = 0
    max_steps = 4 * total + 16
    for s0 in range(n):
        while flags[s0] != 0:
            d0 = 0
            while not (flags[s0] >> d0) & 1:
                d0 += 1
            s = s0
            d = d0
            begin = k
            for _ in range(max_steps):
                if (flags[s] >> d) & 1:
                    # Start corner of edge d: d=0 (x, y+1), 1 (x+1, y+1), 2 (x+1, y), 3 (x, y).
                    cx = span_x[s] + (1 if (d == 1 or d == 2) else 0)
                    cy = span_cy[s] + (1 if (d == 0 or d == 1) else 0)
                    nb = span_con[s, d]
                    f = 0
                    if nb >= 0:
                        f = span_reg[nb] & CONTOUR_REG_MASK
                        if span_area[nb] != span_area[s]:
                            f |= AREA_BORDER
                    raw[k, 0] = cx
                    raw[k, 1] = cy
                    raw[k, 2] = _corner_height(s, d, span_y, span_con)
                    raw[k, 3] = f
                    k += 1
                    flags[s] = flags[s] & (15 ^ (1 << d))
                    d = (d + 3) & 3  # next edge of the same cell, counter-clockwise
                else:
                    s = span_con[s, d]
                    d = (d + 1) & 3
                if s == s0 and d == d0:
                    break
            if k - begin >= 3:
                loop_reg[c] = span_reg[s0]
                loop_area[c] = span_area[s0]
                c += 1
                start[c] = k
            else:
                k = begin
    return raw[:k], start[:c + 1], loop_reg[:c], loop_area[:c]


@njit(cache=True, nogil=True)
def _mark_tile_edges(raw, raw_start, x0, y0, x1, y1):
    """Flag every raw edge lying on a side of the tile box as a portal: the low bits get
    ``0xFFFF - side`` (side 0..3: left, bottom, right, top; tile regions stay below), nothing
    else, so simplification keeps its ends, never splits it, and keeps the tile's corners
    (the side changes there)."""
    for c in range(raw_start.shape[0] - 1):
        b = raw_start[c]
        n = raw_start[c + 1] - b
        for i in range(n):
            j = b + (i + 1) % n
            k = b + i
            side = -1
            if raw[k, 0] == raw[j, 0]:
                if raw[k, 0] == x0:
                    side = 0
                elif raw[k, 0] == x1:
                    side = 2
            elif raw[k, 1] == raw[j, 1]:
                if raw[k, 1] == y0:
                    side = 1
                elif raw[k, 1] == y1:
                    side = 3
            if side >= 0:
                raw[k, 3] = CONTOUR_REG_MASK - side


# Largest error (cells) of the wall edges of a region along a tile's sides (a tile-edge
# strip region, core/tiles.py, or a piece of region one cell wide between a strip and a
# wall): a one-cell corner strays from the chord of its two legs by 0.89 cells and more
# when one leg is two cells long or more (kept, as the long outline of a solo bake keeps
# it), by 0.71 cells when both are one cell (a voxel step of a slanted wall: dropped).
# With the usual error (1.3 cells) the short wall runs of such narrow regions lost their
# corners: the outline cut across a ledge's corner where a solo outline keeps it.
STRIP_MAX_ERROR = 0.75


@njit(cache=True, nogil=True)
def _strip_loops_error(raw, raw_start, x0, y0, x1, y1, w, err, loop_error):
    """``err`` for each loop lying wholly within ``w`` + 1 cells of the tile box's sides
    (the outline of a tile-edge strip region ``w`` cells wide, or of a region one cell
    wide beside it)."""
    w = w + 1
    for c in range(raw_start.shape[0] - 1):
        inside = True
        for k in range(raw_start[c], raw_start[c + 1]):
            x = raw[k, 0]
            y = raw[k, 1]
            if x0 + w < x < x1 - w and y0 + w < y < y1 - w:
                inside = False
                break
        if inside:
            loop_error[c] = err


# ---------------------------------------------------------------------- simplifying
@njit(cache=True, nogil=True)
def _insert(idx, m, pos, value):
    for j in range(m, pos, -1):
        idx[j] = idx[j - 1]
    idx[pos] = value


@njit(cache=True, nogil=True)
def _simplify_loop(raw, max_error, max_edge_len):
    """Simplified loop (M, 4) int64 from a raw loop; flags describe the edge from each
    vertex to the next."""
    n = raw.shape[0]
    idx = np.empty(n, np.int64)
    m = 0
    has_links = False
    for i in range(n):
        if raw[i, 3] & CONTOUR_REG_MASK:
            has_links = True
            break
    if has_links:
        # Keep every corner where the neighbour region or the area changes.
        for i in range(n):
            p = (i + n - 1) % n
            if (raw[i, 3] & _EDGE_KEY) != (raw[p, 3] & _EDGE_KEY):
                idx[m] = i
                m += 1
    refine_all = False
    if m == 0:
        # No portal corners: start from the lower-left and upper-right corners.
        ll = 0
        ur = 0
        for i in range(1, n):
            x = raw[i, 0]
            y = raw[i, 1]
            if x < raw[ll, 0] or (x == raw[ll, 0] and y < raw[ll, 1]):
                ll = i
            if x > raw[ur, 0] or (x == raw[ur, 0] and y > raw[ur, 1]):
                ur = i
        if ll < ur:
            idx[0] = ll
            idx[1] = ur
        else:
            idx[0] = ur
            idx[1] = ll
        m = 2
        # A region entirely enclosed by one other region: refine its outline (both sides
        # refine the same corners, so they still match) instead of collapsing it.
        refine_all = has_links

    max_err_sq = max_error * max_error
    i = 0
    while i < m:
        ii = (i + 1) % m
        ai = idx[i]
        bi = idx[ii]
        ax = raw[ai, 0]
        ay = raw[ai, 1]
        bx = raw[bi, 0]
        by = raw[bi, 1]
        f = raw[ai, 3]
        maxd = 0.0
        maxi = -1
        if refine_all or (f & CONTOUR_REG_MASK) == 0 or (f & AREA_BORDER) != 0:
            # Visit the raw corners in lexicographic segment order so the two regions
            # sharing an area-border edge pick the same corners.
            if bx > ax or (bx == ax and by > ay):
                ci = (ai + 1) % n
                endi = bi
                step = 1
                sx, sy, ex, ey = ax, ay, bx, by
            else:
                ci = (bi + n - 1) % n
                endi = ai
                step = n - 1
                sx, sy, ex, ey = bx, by, ax, ay
            while ci != endi:
                dd = _dist_pt_seg_sq(raw[ci, 0], raw[ci, 1], sx, sy, ex, ey)
                if dd > maxd:
                    maxd = dd
                    maxi = ci
                ci = (ci + step) % n
        if maxi != -1 and maxd > max_err_sq:
            _insert(idx, m, i + 1, maxi)
            m += 1
        else:
            i += 1

    if max_edge_len > 0:
        lim = np.int64(max_edge_len) * np.int64(max_edge_len)
        i = 0
        while i < m:
            ii = (i + 1) % m
            ai = idx[i]
            bi = idx[ii]
            ax = raw[ai, 0]
            ay = raw[ai, 1]
            bx = raw[bi, 0]
            by = raw[bi, 1]
            maxi = -1
            if (raw[ai, 3] & CONTOUR_REG_MASK) == 0:  # walls only
                ddx = bx - ax
                ddy = by - ay
                if ddx * ddx + ddy * ddy > lim:
                    nseg = bi - ai if bi > ai else bi + n - ai
                    if nseg > 1:
                        # Round the same way from both ends of the edge.
                        if bx > ax or (bx == ax and by > ay):
                            maxi = (ai + nseg // 2) % n
                        else:
                            maxi = (ai + (nseg + 1) // 2) % n
            if maxi != -1:
                _insert(idx, m, i + 1, maxi)
                m += 1
            else:
                i += 1

    out = np.empty((m, 4), np.int64)
    for j in range(m):
        r = idx[j]
        out[j, 0] = raw[r, 0]
        out[j, 1] = raw[r, 1]
        out[j, 2] = raw[r, 2]
        out[j, 3] = raw[r, 3]
    # Drop zero-length edges (repeated corners).
    i = 0
    while i < m and m > 1:
        ni = (i + 1) % m
        if out[i, 0] == out[ni, 0] and out[i, 1] == out[ni, 1]:
            for j in range(i, m - 1):
                out[j] = out[j + 1]
            m -= 1
        else:
            i += 1
    return out[:m].copy()


@njit(cache=True, nogil=True)
def _simplify_all(raw, raw_start, max_error, max_edge_len, loop_error):
    """``loop_error``: per loop, a smaller max_error for it (below 0: max_error)."""
    n_loops = raw_start.shape[0] - 1
    parts = []
    total = 0
    for c in range(n_loops):
        err = max_error if loop_error[c] < 0.0 else min(max_error, loop_error[c])
        s = _simplify_loop(raw[raw_start[c]:raw_start[c + 1]], err, max_edge_len)
        parts.append(s)
        total += s.shape[0]
    verts = np.empty((total, 4), np.int64)
    start = np.zeros(n_loops + 1, np.int64)
    k = 0
    for c in range(n_loops):
        s = parts[c]
        verts[k:k + s.shape[0]] = s
        k += s.shape[0]
        start[c + 1] = k
    return verts, start


# ---------------------------------------------------------------------- hole merging
@njit(cache=True, nogil=True)
def _in_cone(poly, n, j, px, py):
    """Point p lies strictly inside the interior angle of CCW loop ``poly`` at vertex j."""
    a0 = (j + n - 1) % n
    a1 = (j + 1) % n
    jx = poly[j, 0]
    jy = poly[j, 1]
    if area2(jx, jy, poly[a1, 0], poly[a1, 1], poly[a0, 0], poly[a0, 1]) >= 0:
        # Convex corner.
        return (area2(jx, jy, px, py, poly[a0, 0], poly[a0, 1]) > 0
                and area2(px, py, jx, jy, poly[a1, 0], poly[a1, 1]) > 0)
    # Reflex corner: inside unless inside the outer (complementary) cone.
    return not (area2(jx, jy, px, py, poly[a1, 0], poly[a1, 1]) >= 0
                and area2(px, py, jx, jy, poly[a0, 0], poly[a0, 1]) >= 0)


@njit(cache=True, nogil=True)
def _segment_hits_loop(ax, ay, bx, by, poly, n):
    """Segment ab touches an edge of the loop not sharing an end point with ab."""
    xmin = min(ax, bx)
    xmax = max(ax, bx)
    ymin = min(ay, by)
    ymax = max(ay, by)
    for k in range(n):
        k1 = (k + 1) % n
        px = poly[k, 0]
        py = poly[k, 1]
        qx = poly[k1, 0]
        qy = poly[k1, 1]
        if ((px < xmin and qx < xmin) or (px > xmax and qx > xmax)
                or (py < ymin and qy < ymin) or (py > ymax and qy > ymax)):
            continue
        if ((px == ax and py == ay) or (px == bx and py == by)
                or (qx == ax and qy == ay) or (qx == bx and qy == by)):
            continue
        if intersect_segments(ax, ay, bx, by, px, py, qx, qy):
            return True
    return False


@njit(cache=True, nogil=True)
def _point_in_loop(px2, py2, poly):
    """Even-odd test for the doubled point (px2/2, py2/2) against a loop."""
    n = poly.shape[0]
    inside = False
    j = n - 1
    for i in range(n):
        xi = 2 * poly[i, 0]
        yi = 2 * poly[i, 1]
        xj = 2 * poly[j, 0]
        yj = 2 * poly[j, 1]
        if (yi > py2) != (yj > py2):
            # x of the crossing compared without division (sign of yj - yi matters)
            lhs = (px2 - xi) * (yj - yi)
            rhs = (xj - xi) * (py2 - yi)
            if (yj - yi) > 0:
                if lhs < rhs:
                    inside = not inside
            else:
                if lhs > rhs:
                    inside = not inside
        j = i
    return inside


@njit(cache=True, nogil=True)
def _leftmost(poly):
    b = 0
    for i in range(1, poly.shape[0]):
        if poly[i, 0] < poly[b, 0] or (poly[i, 0] == poly[b, 0] and poly[i, 1] < poly[b, 1]):
            b = i
    return b


@njit(cache=True, nogil=True)
def _bridge_hole(outline, hole, first, pending, verts, start):
    """Merge ``hole`` into ``outline`` through the shortest diagonal that crosses neither
    the outline nor any hole still pending. Returns the merged loop, or the outline
    unchanged when no diagonal is found."""
    n = outline.shape[0]
    m = hole.shape[0]
    dist = np.empty(n, np.int64)
    cand = np.empty(n, np.int64)
    for it in range(m):
        hv = (first + it) % m
        hx = hole[hv, 0]
        hy = hole[hv, 1]
        nc = 0
        for j in range(n):
            if _in_cone(outline, n, j, hx, hy):
                dx = outline[j, 0] - hx
                dy = outline[j, 1] - hy
                dist[nc] = dx * dx + dy * dy
                cand[nc] = j
                nc += 1
        # Closest candidates first; usually the first one is clear, so pick minima
        # one at a time instead of sorting them all.
        for _q in range(nc):
            bq = -1
            for q in range(nc):
                if dist[q] >= 0 and (bq == -1 or dist[q] < dist[bq]):
                    bq = q
            dist[bq] = -1
            j = cand[bq]
            ox = outline[j, 0]
            oy = outline[j, 1]
            blocked = _segment_hits_loop(ox, oy, hx, hy, outline, n)
            for p in range(pending.shape[0]):
                if blocked:
                    break
                c = pending[p]
                blocked = _segment_hits_loop(ox, oy, hx, hy, verts[start[c]:start[c + 1]],
                                             start[c + 1] - start[c])
            if not blocked:
                merged = np.empty((n + m + 2, 4), np.int64)
                k = 0
                for t in range(n + 1):
                    merged[k] = outline[(j + t) % n]
                    k += 1
                for t in range(m + 1):
                    merged[k] = hole[(hv + t) % m]
                    k += 1
                return merged, True
    return outline, False


@njit(cache=True, nogil=True)
def _merge_holes(verts, start, reg):
    """Group loops per region, bridge every hole into the outer loop that contains it.

    Returns (verts, start, owner): the merged contours and, for each input loop, the
    index of the output contour it ended up in (-1 = dropped).
    """
    n_loops = start.shape[0] - 1
    area = np.zeros(n_loops, np.int64)
    for c in range(n_loops):
        if start[c + 1] - start[c] >= 3:
            area[c] = _loop_area2(verts[start[c]:start[c + 1]])
    owner = np.full(n_loops, -1, np.int64)
    # Outer loops become output contours in input order.
    n_out = 0
    for c in range(n_loops):
        if area[c] > 0:
            owner[c] = n_out
            n_out += 1
    outer_of = np.full(n_loops, -1, np.int64)
    for h in range(n_loops):
        if area[h] >= 0:
            continue
        hole = verts[start[h]:start[h + 1]]
        lm = _leftmost(hole)
        # The hole's leftmost corner nudged a quarter cell right: inside its outline.
        px2 = 2 * hole[lm, 0] + 1
        py2 = 2 * hole[lm, 1] + 1
        best = -1
        for c in range(n_loops):
            if area[c] > 0 and reg[c] == reg[h]:
                if best == -1:
                    best = c
                if _point_in_loop(px2, py2, verts[start[c]:start[c + 1]]):
                    best = c
                    break
        outer_of[h] = best
    parts = []
    total = 0
    for c in range(n_loops):
        if area[c] <= 0:
            continue
        outline = verts[start[c]:start[c + 1]].copy()
        # Holes of this outline, ordered by their leftmost corner (x, then y).
        hs = np.where(outer_of == c)[0]
        nh = hs.shape[0]
        if nh:
            keys = np.empty(nh, np.int64)
            for q in range(nh):
                h = hs[q]
                hole = verts[start[h]:start[h + 1]]
                lm = _leftmost(hole)
                keys[q] = hole[lm, 0] * (1 << 32) + hole[lm, 1]
            hs = hs[np.argsort(keys, kind="mergesort")]
            for q in range(nh):
                h = hs[q]
                hole = verts[start[h]:start[h + 1]]
                outline, ok = _bridge_hole(outline, hole, _leftmost(hole), hs[q:], verts,
                                           start)
                if ok:
                    owner[h] = owner[c]
        parts.append(outline)
        total += outline.shape[0]
    out = np.empty((total, 4), np.int64)
    out_start = np.zeros(len(parts) + 1, np.int64)
    k = 0
    for i in range(len(parts)):
        p = parts[i]
        out[k:k + p.shape[0]] = p
        k += p.shape[0]
        out_start[i + 1] = k
    return out, out_start, owner


@njit(cache=True, nogil=True)
def _pack_raw(raw, raw_start, owner, loop_reg, loop_area, n_out):
    """The raw loops grouped under the contour they were merged into (``owner``; -1:
    none), in loop order: (region and area of each contour, raw vertices, their CSR
    starts)."""
    reg = np.zeros(n_out, np.int32)
    area = np.zeros(n_out, np.uint8)
    out_start = np.zeros(n_out + 1, np.int32)
    for c in range(owner.shape[0]):
        o = owner[c]
        if o >= 0:
            out_start[o + 1] += raw_start[c + 1] - raw_start[c]
            reg[o] = loop_reg[c]
            area[o] = loop_area[c]
    for o in range(n_out):
        out_start[o + 1] += out_start[o]
    out = np.empty((out_start[n_out], 4), np.int32)
    fill = out_start[:n_out].copy()
    for c in range(owner.shape[0]):
        o = owner[c]
        if o < 0:
            continue
        k = fill[o]
        for i in range(raw_start[c], raw_start[c + 1]):
            for j in range(4):
                out[k, j] = raw[i, j]
            k += 1
        fill[o] = k
    return reg, area, out, out_start


# ---------------------------------------------------------------------------- public
def build_contours(chf: CompactHeightfield, max_error: float, max_edge_len: int,
                   tile_box: tuple[int, int, int, int] | None = None,
                   strip_cells: int = 0) -> ContourSet:
    """Outline every region of ``chf`` (``span_reg`` must be filled).

    ``tile_box`` (x0, y0, x1, y1), cell corners, for a tile of a tiled bake (core/tiles.py):
    outline edges on its sides are portals to the neighbour tiles (see
    ``_mark_tile_edges``), so both tiles keep the same corners there.

    ``max_error``: largest distance (cells) a simplified wall or area-border edge may stray
    from the raw outline. ``max_edge_len``: longest wall edge in cells (0 = no limit).
    Raw contours of merged holes are stored after their outline's raw loop.
    """
    n = int(chf.span_y.shape[0])
    if chf.span_reg is None:
        raise ValueError("build_contours: chf.span_reg is not filled (run build_regions)")
    if n == 0:
        return _empty_contour_set()
    # the span arrays as they are (no int64 copies: ~24 B a span at the peak of a bake)
    raw, raw_start, loop_reg, loop_area = _walk_outlines(
        chf.span_y, chf.span_area, chf.span_con, chf.span_x, chf.span_cy, chf.span_reg)
    if loop_reg.shape[0] == 0:
        return _empty_contour_set()
    loop_error = np.full(raw_start.shape[0] - 1, -1.0)
    if tile_box is not None:
        _mark_tile_edges(raw, raw_start, *(int(v) for v in tile_box))
        if strip_cells > 0:
            _strip_loops_error(raw, raw_start, *(int(v) for v in tile_box), int(strip_cells),
                               STRIP_MAX_ERROR, loop_error)
    simp, simp_start = _simplify_all(raw, raw_start, float(max_error), int(max_edge_len),
                                     loop_error)
    verts, start, owner = _merge_holes(simp, simp_start, loop_reg)
    reg, area, raw_out, raw_out_start = _pack_raw(raw, raw_start, owner, loop_reg, loop_area,
                                                  start.shape[0] - 1)
    return ContourSet(
        verts=verts.astype(np.int32),
        start=start.astype(np.int32),
        reg=reg,
        area=area,
        raw_verts=raw_out,
        raw_start=raw_out_start,
    )


def _empty_contour_set() -> ContourSet:
    return ContourSet(
        verts=np.zeros((0, 4), np.int32),
        start=np.zeros(1, np.int32),
        reg=np.zeros(0, np.int32),
        area=np.zeros(0, np.uint8),
        raw_verts=np.zeros((0, 4), np.int32),
        raw_start=np.zeros(1, np.int32),
    )
