"""Rasterise triangles into a solid span heightfield (Recast's rcRasterizeTriangles idea).

Each triangle is clipped against the rows and columns of the grid; each cell it covers
gets a solid span from the lowest to the highest point of the clipped piece. Spans in a
column are kept sorted and overlapping spans merge. A span's top is walkable when the
triangle that made it is flat enough (normal.z >= cos(max slope)) and the triangle is
walkable at all (obstacles never are).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .geometry import faces_up
from .parallel import map_banded, worker_count
from .stage_data import Heightfield

WALKABLE = 1
# Row bands on threads pay off only on big scenes (measured: slower below ~50 k triangles)
# and only with cores to spare: on 2 busy cores the 1 M-triangle scene took a third more
# CPU and ~110 MB more peak memory in bands (each band's spans, then the joined copy) than
# in one pass, for no wall-time gain. So bands need at least this many workers.
BAND_MIN_TRIANGLES = 50_000
BAND_MIN_ROWS = 512
BAND_MIN_WORKERS = 4
MAX_SPAN_LEVEL = 1 << 30
# the columns of the rasteriser's span rows
_MIN, _MAX, _NEXT, _AREA = 0, 1, 2, 3
MAX_SPAN_SLOTS = 2**31 - 1  # span indices are int32


@njit(cache=True, nogil=True)
def mark_walkable_triangles(vertices, triangles, slope_cos, walkable_mask):
    """Area id per triangle: WALKABLE (1) when flat enough and allowed, else 0."""
    m = triangles.shape[0]
    out = np.zeros(m, np.uint8)
    for t in range(m):
        if walkable_mask[t] and faces_up(vertices, triangles[t, 0], triangles[t, 1],
                                         triangles[t, 2], slope_cos):
            out[t] = WALKABLE
    return out


# which parts _split_polygon writes: both, or only the one it is asked for (a cut whose
# other part is thrown away)
BOTH_PARTS = 0
BELOW_ONLY = 1
ABOVE_ONLY = 2


@njit(cache=True, nogil=True)
def _split_polygon(src, n_src, below, above, axis, offset, parts=BOTH_PARTS):
    """Split polygon src by the plane coord[axis] = offset in one pass.

    Writes the part with coord <= offset to ``below`` and the rest to ``above``; returns
    both vertex counts. ``parts`` (``BELOW_ONLY``/``ABOVE_ONLY``): write only that part
    (the other's count is 0; the same arithmetic either way).
    """
    keep_below = parts != ABOVE_ONLY
    keep_above = parts != BELOW_ONLY
    nb = 0
    na = 0
    j = n_src - 1
    dj = src[j, axis] - offset
    for i in range(n_src):
        di = src[i, axis] - offset
        if (dj <= 0.0) != (di <= 0.0):
            s = dj / (dj - di)
            for k in range(3):
                v = src[j, k] + (src[i, k] - src[j, k]) * s
                if keep_below:
                    below[nb, k] = v
                if keep_above:
                    above[na, k] = v
            nb += keep_below
            na += keep_above
        if di <= 0.0:
            if keep_below:
                for k in range(3):
                    below[nb, k] = src[i, k]
                nb += 1
        elif keep_above:
            for k in range(3):
                above[na, k] = src[i, k]
            na += 1
        j = i
        dj = di
    return nb, na


@njit(cache=True, nogil=True)
def rasterize_kernel(vertices, triangles, tri_area, bmin, bmax, cs, ch, width, height,
                     merge_threshold, row_lo, row_hi, span_capacity=0, col_lo=0, col_hi=-1):
    """Rasterise all triangles into rows [row_lo, row_hi) of the grid.

    ``span_capacity``: an upper bound of the spans (``settings.raster_span_bound``) that
    caps the first guess of the room (0: no bound); the room doubles when full.
    ``col_lo``/``col_hi``: only the columns [col_lo, col_hi) of the grid are kept (a tile's
    window of the level's frame; -1: every column). A row is still cut left to right from
    the triangle's own first column, so a column's spans do not depend on the window: two
    windows sharing a column compute it to the last bit, and as the whole grid does.

    Returns (column_head, span_min, span_max, span_area, span_next, n_spans): exact-size
    arrays, spans column by column (``_column_order``). Columns are indexed
    (x - col_lo) + (y - row_lo) * (col_hi - col_lo).
    """
    rows = row_hi - row_lo
    if col_hi < 0:
        col_hi = width
    cols = col_hi - col_lo
    column_head = np.full(cols * rows, -1, np.int32)
    # a column's worth per cell or four per triangle, and never more than the bound: a
    # fresh mmap of the whole bound faulted in more pages than growing once costs
    cap = max(1024, triangles.shape[0] * 4, cols * rows)
    if span_capacity > 0:
        cap = min(cap, span_capacity, MAX_SPAN_SLOTS)
    # while rasterising, one row per span (min, max, next, area): a span's fields share a
    # cache line when the insertion walks a column
    spans = np.empty((cap, 4), np.int32)
    n_spans = 0
    free_head = -1

    inv_cs = 1.0 / cs
    inv_ch = 1.0 / ch
    z_range = bmax[2] - bmin[2]
    poly_in = np.empty((12, 3), np.float64)
    buf_a = np.empty((12, 3), np.float64)
    row_a = np.empty((12, 3), np.float64)
    row_b = np.empty((12, 3), np.float64)
    cell_poly = np.empty((12, 3), np.float64)

    for t in range(triangles.shape[0]):
        area = tri_area[t]
        tmin_y = tmin_z = 1e300
        tmax_y = tmax_z = -1e300
        for k in range(3):
            vi = triangles[t, k]
            for c in range(3):
                poly_in[k, c] = vertices[vi, c] - bmin[c]
            tmin_y = min(tmin_y, poly_in[k, 1])
            tmax_y = max(tmax_y, poly_in[k, 1])
            tmin_z = min(tmin_z, poly_in[k, 2])
            tmax_z = max(tmax_z, poly_in[k, 2])
        if tmax_z < 0.0 or tmin_z > z_range:
            continue
        y0 = int(math.floor(tmin_y * inv_cs))
        y_last = int(math.floor(tmax_y * inv_cs))  # the triangle's own last row
        y0 = max(y0, row_lo)
        y1 = min(y_last, row_hi - 1)
        if y0 > y1:
            continue
        y_first = int(math.floor(tmin_y * inv_cs))
        for y in range(y0, y1 + 1):
            # Cut this row's slab from the original triangle, so the result does not
            # depend on which rows were cut before (row bands give identical spans).
            row = row_a
            row_spare = row_b
            if y > y_first:
                _nb, nup = _split_polygon(poly_in, 3, buf_a, buf_a, 1, y * cs, ABOVE_ONLY)
                src = buf_a
            else:
                nup = 3
                src = poly_in
            if nup < 3:
                continue
            if y < y_last:
                nrow, _na = _split_polygon(src, nup, row, row, 1, (y + 1) * cs, BELOW_ONLY)
            else:
                nrow = nup
                for i in range(nup):
                    for c in range(3):
                        row[i, c] = src[i, c]
            if nrow < 3:
                continue
            rmin_x = 1e300
            rmax_x = -1e300
            for i in range(nrow):
                rmin_x = min(rmin_x, row[i, 0])
                rmax_x = max(rmax_x, row[i, 0])
            x0 = max(int(math.floor(rmin_x * inv_cs)), 0)
            x_last = int(math.floor(rmax_x * inv_cs))
            x1 = min(x_last, col_hi - 1)
            if max(x0, col_lo) > x1:
                continue
            for x in range(x0, x1 + 1):
                if nrow < 3:
                    break
                if x < col_lo:
                    # cut off on the way to the window, not kept: only the rest is
                    # computed (the same arithmetic as the split's; x < x_last here)
                    _nb, nrow = _split_polygon(row, nrow, row_spare, row_spare, 0, (x + 1) * cs,
                                              ABOVE_ONLY)
                    row, row_spare = row_spare, row
                    continue
                if x == x_last:
                    cell = row
                    ncell = nrow
                    nrow = 0
                else:
                    ncell, nr = _split_polygon(row, nrow, cell_poly, row_spare, 0,
                                               (x + 1) * cs)
                    cell = cell_poly
                    row, row_spare = row_spare, row
                    nrow = nr
                if ncell < 3:
                    continue
                smin = cell[0, 2]
                smax = cell[0, 2]
                for i in range(1, ncell):
                    smin = min(smin, cell[i, 2])
                    smax = max(smax, cell[i, 2])
                if smax < 0.0 or smin > z_range:
                    continue
                smin = max(smin, 0.0)
                smax = min(smax, z_range)
                lo = int(math.floor(smin * inv_ch))
                hi = int(math.ceil(smax * inv_ch))
                if hi <= lo:
                    hi = lo + 1
                col = (x - col_lo) + (y - row_lo) * cols
                # --- insert span (lo, hi, area) into the column, merging overlaps ---
                prev = -1
                cur = column_head[col]
                new_area = area
                while cur != -1:
                    cur_min = spans[cur, _MIN]
                    if cur_min > hi:
                        break
                    cur_max = spans[cur, _MAX]
                    if cur_max < lo:
                        prev = cur
                        cur = spans[cur, _NEXT]
                        continue
                    if cur_min < lo:
                        lo = cur_min
                    if cur_max > hi:
                        hi = cur_max
                    if abs(hi - cur_max) <= merge_threshold:
                        if spans[cur, _AREA] > new_area:
                            new_area = spans[cur, _AREA]
                    nxt = spans[cur, _NEXT]
                    # release cur to the free list
                    spans[cur, _NEXT] = free_head
                    free_head = cur
                    if prev != -1:
                        spans[prev, _NEXT] = nxt
                    else:
                        column_head[col] = nxt
                    cur = nxt
                if free_head != -1:
                    s = free_head
                    free_head = spans[s, _NEXT]
                else:
                    if n_spans >= spans.shape[0]:
                        grown = np.empty((spans.shape[0] * 2, 4), np.int32)
                        grown[:n_spans] = spans[:n_spans]
                        spans = grown
                    s = n_spans
                    n_spans += 1
                spans[s, _MIN] = lo
                spans[s, _MAX] = hi
                spans[s, _AREA] = new_area
                if prev != -1:
                    spans[s, _NEXT] = spans[prev, _NEXT]
                    spans[prev, _NEXT] = s
                else:
                    spans[s, _NEXT] = column_head[col]
                    column_head[col] = s
    return _column_order(column_head, spans, n_spans, free_head)


@njit(cache=True, nogil=True)
def _column_order(column_head, spans, n_slots, free_head):
    """The live spans of the rasteriser's rows as exact-size arrays lying column by column
    (each column's spans contiguous and bottom-up, ``span_next`` the next index or -1), so
    the filters and the compact heightfield walk memory in order; ``column_head`` is
    rewritten in place. Returns (column_head, span_min, span_max, span_area, span_next,
    n_spans)."""
    live = n_slots
    s = free_head
    while s != -1:
        live -= 1
        s = spans[s, _NEXT]
    span_min = np.empty(live, np.int32)
    span_max = np.empty(live, np.int32)
    span_area = np.empty(live, np.uint8)
    span_next = np.empty(live, np.int32)
    k = 0
    for c in range(column_head.shape[0]):
        s = column_head[c]
        if s == -1:
            continue
        column_head[c] = k
        while s != -1:
            span_min[k] = spans[s, _MIN]
            span_max[k] = spans[s, _MAX]
            span_area[k] = spans[s, _AREA]
            span_next[k] = k + 1
            k += 1
            s = spans[s, _NEXT]
        span_next[k - 1] = -1
    return column_head, span_min, span_max, span_area, span_next, k


def _band_rows(vertices, triangles, cfg, n_bands):
    """Row boundaries that give each band about the same rasterisation work."""
    ys = vertices[triangles, 1]
    r0 = np.clip(((ys.min(axis=1) - cfg.bmin[1]) / cfg.cs).astype(np.int64), 0, cfg.height - 1)
    r1 = np.clip(((ys.max(axis=1) - cfg.bmin[1]) / cfg.cs).astype(np.int64), 0, cfg.height - 1)
    xs = vertices[triangles, 0]
    widths = (xs.max(axis=1) - xs.min(axis=1)) / cfg.cs + 1.0
    work = np.zeros(cfg.height + 1)
    np.add.at(work, r0, widths)
    np.add.at(work, r1 + 1, -widths)
    cum = np.cumsum(np.cumsum(work)[: cfg.height])
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, n_bands) / n_bands)
    bounds = np.unique(np.concatenate([[0], cuts, [cfg.height]])).astype(np.int64)
    return bounds, r0, r1


def rasterize_triangles(vertices, triangles, walkable_mask, cfg, threads=None,
                        span_capacity: int = 0) -> Heightfield:
    """Build the solid heightfield for a scene (see module doc).

    Large scenes on machines with ``BAND_MIN_WORKERS`` workers or more (or an explicit
    ``threads`` > 1) are cut into row bands rasterised on parallel threads (the kernel
    releases the GIL); each band keeps its own spans and the bands are joined afterwards.
    ``span_capacity``: see :func:`rasterize_kernel`.
    """
    tri_area = mark_walkable_triangles(vertices, triangles, cfg.walkable_slope_cos,
                                       walkable_mask)
    if threads is None:
        threads = worker_count()
        if threads < BAND_MIN_WORKERS:
            threads = 1
    if threads <= 1 or triangles.shape[0] < BAND_MIN_TRIANGLES or cfg.height < BAND_MIN_ROWS:
        head, smin, smax, sarea, snext, n = rasterize_kernel(
            vertices, triangles, tri_area, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch, cfg.width,
            cfg.height, cfg.walkable_climb, 0, cfg.height, span_capacity)
        return Heightfield(width=cfg.width, height=cfg.height, bmin=cfg.bmin, cs=cfg.cs,
                           ch=cfg.ch, column_head=head, span_min=smin, span_max=smax,
                           span_area=sarea, span_next=snext)
    bounds, r0, r1 = _band_rows(vertices, triangles, cfg, threads * 2)

    def run_band(k):
        lo, hi = int(bounds[k]), int(bounds[k + 1])
        # one row of slack: the kernel rounds rows itself and clips to [lo, hi)
        sel = np.nonzero((r1 + 1 >= lo) & (r0 - 1 < hi))[0]
        return rasterize_kernel(vertices, np.ascontiguousarray(triangles[sel]),
                                np.ascontiguousarray(tri_area[sel]), cfg.bmin, cfg.bmax,
                                cfg.cs, cfg.ch, cfg.width, cfg.height, cfg.walkable_climb,
                                lo, hi, span_capacity)

    parts = map_banded(run_band, list(range(len(bounds) - 1)))
    # Join the bands into one heightfield whose spans lie column by column (the filters,
    # the compact heightfield and the links then walk memory in order).
    total = sum(int(p[5]) for p in parts)
    head = np.full(cfg.width * cfg.height, -1, np.int32)
    smin = np.empty(total, np.int32)
    smax = np.empty(total, np.int32)
    sarea = np.empty(total, np.uint8)
    snext = np.empty(total, np.int32)
    filled = 0
    for k in range(len(parts)):
        bhead, bmin, bmax, barea, bnext, _n = parts[k]
        parts[k] = None  # each band's buffers go as soon as they are copied
        filled = _gather_columns(bhead, bmin, bmax, barea, bnext, int(bounds[k]) * cfg.width,
                                 head, smin, smax, sarea, snext, filled)
    return Heightfield(width=cfg.width, height=cfg.height, bmin=cfg.bmin, cs=cfg.cs, ch=cfg.ch,
                       column_head=head, span_min=smin, span_max=smax, span_area=sarea,
                       span_next=snext)


@njit(cache=True, nogil=True)
def _gather_columns(bhead, bmin, bmax, barea, bnext, first_column, head, smin, smax, sarea,
                    snext, filled):
    """Copy one band's spans into the joined arrays, column by column from ``filled`` on
    (a column's spans contiguous and bottom-up, ``snext`` the next slot or -1); returns the
    new fill."""
    k = filled
    for c in range(bhead.shape[0]):
        s = bhead[c]
        if s == -1:
            continue
        head[first_column + c] = k
        while s != -1:
            smin[k] = bmin[s]
            smax[k] = bmax[s]
            sarea[k] = barea[s]
            snext[k] = k + 1
            k += 1
            s = bnext[s]
        snext[k - 1] = -1
    return k
