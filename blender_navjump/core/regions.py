"""Partition the walkable spans into regions that later become simple polygons.

Two partitions, as in Recast:
- **watershed**: a distance field from the area borders, flooded from its peaks down in
  steps of two, gives round regions and the nicest polygons;
- **monotone**: row sweeps, faster, longer thinner polygons.
Both never join spans of different areas (stances), then remove islands smaller than the
minimum region area and merge small regions into a neighbour.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .erode import chamfer_distance
from .stage_data import CompactHeightfield


# ------------------------------------------------------------------ distance field
@njit(cache=True, nogil=True)
def _area_boundary(span_con, span_area):
    n = span_con.shape[0]
    seed = np.zeros(n, np.bool_)
    for i in range(n):
        for d in range(4):
            a = span_con[i, d]
            if a < 0 or span_area[a] != span_area[i]:
                seed[i] = True
                break
    return seed


@njit(cache=True, nogil=True)
def _box_blur(span_con, span_area, dist, threshold):
    # Smooth the field so the watershed does not split on one-cell dents.
    n = dist.shape[0]
    out = np.empty(n, np.uint16)
    thr = threshold * 2
    for i in range(n):
        cd = np.int32(dist[i])
        if cd <= thr:
            out[i] = cd
            continue
        total = cd
        for d in range(4):
            a = span_con[i, d]
            if a >= 0 and span_area[a] == span_area[i]:
                total += dist[a]
                a2 = span_con[a, (d + 1) & 3]
                if a2 >= 0 and span_area[a2] == span_area[i]:
                    total += dist[a2]
                else:
                    total += cd
            else:
                total += cd * 2
        out[i] = (total + 5) // 9
    return out


def build_distance_field(chf: CompactHeightfield) -> None:
    """Fill ``chf.span_dist``: distance (half cells) to the nearest area border."""
    walkable = chf.span_area != 0
    seed = _area_boundary(chf.span_con, chf.span_area)
    dist = chamfer_distance(chf.span_con, walkable, seed, chf.span_x, chf.span_cy, chf.width,
                            chf.height, chf.cell_index, chf.cell_count)
    chf.span_dist = _box_blur(chf.span_con, chf.span_area, dist, 1)


# ------------------------------------------------------------------------ watershed
@njit(cache=True, nogil=True)
def _order_by_distance(span_dist, span_area):
    """Walkable span indices by decreasing distance (counting sort, stable)."""
    top = 0
    for i in range(span_dist.shape[0]):
        if span_area[i] != 0 and span_dist[i] > top:
            top = span_dist[i]
    count = np.zeros(top + 2, np.int64)
    for i in range(span_dist.shape[0]):
        if span_area[i] != 0:
            count[top - span_dist[i] + 1] += 1
    for k in range(1, top + 2):
        count[k] += count[k - 1]
    order = np.empty(count[top + 1], np.int32)
    for i in range(span_dist.shape[0]):
        if span_area[i] != 0:
            k = top - span_dist[i]
            order[count[k]] = i
            count[k] += 1
    return order


@njit(cache=True, nogil=True)
def _flood_region(start, level, region, span_con, span_area, span_dist, reg, reg_dist,
                  stack):
    area = span_area[start]
    reg[start] = region
    reg_dist[start] = 0
    low = level - 2 if level >= 2 else 0
    top = 0
    stack[top] = start
    top += 1
    count = 0
    while top > 0:
        top -= 1
        s = stack[top]
        # If any (8-)neighbour already belongs to another region, this span is on the
        # seam between two basins: leave it for expansion instead.
        other = 0
        for d in range(4):
            a = span_con[s, d]
            if a < 0 or span_area[a] != area:
                continue
            r = reg[a]
            if r != 0 and r != region:
                other = r
                break
            a2 = span_con[a, (d + 1) & 3]
            if a2 >= 0 and span_area[a2] == area:
                r2 = reg[a2]
                if r2 != 0 and r2 != region:
                    other = r2
                    break
        if other != 0:
            reg[s] = 0
            continue
        count += 1
        for d in range(4):
            a = span_con[s, d]
            if a >= 0 and span_area[a] == area and span_dist[a] >= low and reg[a] == 0:
                reg[a] = region
                reg_dist[a] = 0
                stack[top] = a
                top += 1
    return count > 0


@njit(cache=True, nogil=True)
def _expand_regions(pending, n_pending, max_iter, span_con, span_area, reg, reg_dist,
                    dirty_s, dirty_r, dirty_d):
    # Grow existing regions into the pending spans, one ring per iteration.
    it = 0
    while True:
        failed = 0
        n_dirty = 0
        for k in range(n_pending):
            s = pending[k]
            if s < 0:
                failed += 1
                continue
            if reg[s] != 0:
                pending[k] = -1
                failed += 1
                continue
            best_r = 0
            best_d = 0xFFFF
            area = span_area[s]
            for d in range(4):
                a = span_con[s, d]
                if a < 0 or span_area[a] != area:
                    continue
                if reg[a] > 0 and reg_dist[a] + 2 < best_d:
                    best_r = reg[a]
                    best_d = reg_dist[a] + 2
            if best_r != 0:
                pending[k] = -1
                dirty_s[n_dirty] = s
                dirty_r[n_dirty] = best_r
                dirty_d[n_dirty] = best_d
                n_dirty += 1
            else:
                failed += 1
        for k in range(n_dirty):
            reg[dirty_s[k]] = dirty_r[k]
            reg_dist[dirty_s[k]] = dirty_d[k]
        if failed == n_pending or n_dirty == 0:
            break
        if max_iter > 0:
            it += 1
            if it >= max_iter:
                break


@njit(cache=True, nogil=True)
def _watershed(span_con, span_area, span_dist, order):
    n = span_con.shape[0]
    reg = np.zeros(n, np.int32)
    reg_dist = np.zeros(n, np.int32)
    stack = np.empty(n + 1, np.int32)
    pending = np.empty(n + 1, np.int32)
    dirty_s = np.empty(n + 1, np.int32)
    dirty_r = np.empty(n + 1, np.int32)
    dirty_d = np.empty(n + 1, np.int32)
    n_order = order.shape[0]
    if n_order == 0:
        return reg, 0
    max_dist = np.int32(span_dist[order[0]])
    # at least one pass (level 0): a grid whose walkable spans all lie on a border (a
    # strip one cell wide, as at a tile's edge) still gets its regions
    level = (max_dist + 1) & ~1
    if level < 2:
        level = 2
    next_region = 1
    taken = 0  # order[:taken] have dist >= current level
    n_pending = 0
    while level > 0:
        level = level - 2 if level >= 2 else 0
        while taken < n_order and span_dist[order[taken]] >= level:
            pending[n_pending] = order[taken]
            n_pending += 1
            taken += 1
        # compact pending: drop assigned spans
        m = 0
        for k in range(n_pending):
            s = pending[k]
            if s >= 0 and reg[s] == 0:
                pending[m] = s
                m += 1
        n_pending = m
        _expand_regions(pending, n_pending, 8, span_con, span_area, reg, reg_dist,
                        dirty_s, dirty_r, dirty_d)
        for k in range(n_pending):
            s = pending[k]
            if s >= 0 and reg[s] == 0:
                if _flood_region(s, level, next_region, span_con, span_area, span_dist, reg,
                                 reg_dist, stack):
                    next_region += 1
    # whatever is left: expand without limit
    m = 0
    for k in range(n_pending):
        s = pending[k]
        if s >= 0 and reg[s] == 0:
            pending[m] = s
            m += 1
    _expand_regions(pending, m, 0, span_con, span_area, reg, reg_dist, dirty_s, dirty_r,
                    dirty_d)
    return reg, next_region - 1


# ------------------------------------------------------------------------- monotone
@njit(cache=True, nogil=True)
def _monotone(span_con, span_area, cell_index, cell_count, width, height):
    """Row sweeps: a sweep is a connected run of same-area spans along +x within one row;
    it continues the region below it (the -y neighbours') when it touches only that one
    region and that region's top row touches only this sweep, else it starts a region.
    Returns (region per span, region count). Per-row state only (the sweep of each span
    of the row, the candidate region of each sweep), so it stays in cache."""
    n = span_con.shape[0]
    reg = np.zeros(n, np.int32)
    next_region = 1
    widest = 1
    for y in range(height):
        last_c = y * width + width - 1
        widest = max(widest, cell_index[last_c] + cell_count[last_c] - cell_index[y * width])
    sweep_of = np.empty(widest, np.int32)  # sweep of each span of the row, -1 = none
    cap = width + 1
    sweep_reg = np.zeros(cap, np.int32)  # region below the sweep; 0 none, -1 not unique
    sweep_final = np.zeros(cap, np.int32)
    region_hits = np.zeros(16, np.int32)
    for y in range(height):
        n_sweeps = 0
        row_first = cell_index[y * width]
        last_c = y * width + width - 1
        row_end = cell_index[last_c] + cell_count[last_c]
        for i in range(row_first, row_end):
            area = span_area[i]
            if area == 0:
                sweep_of[i - row_first] = -1
                continue
            a = span_con[i, 0]  # -x neighbour: the same row, already swept
            sid = -1
            if a >= 0 and span_area[a] == area:
                sid = sweep_of[a - row_first]
            if sid < 0:
                if n_sweeps >= sweep_reg.shape[0]:
                    new_cap = sweep_reg.shape[0] * 2
                    t1 = np.zeros(new_cap, np.int32)
                    t1[:n_sweeps] = sweep_reg[:n_sweeps]
                    sweep_reg = t1
                    sweep_final = np.zeros(new_cap, np.int32)
                sid = n_sweeps
                n_sweeps += 1
                sweep_reg[sid] = 0
            sweep_of[i - row_first] = sid
            b = span_con[i, 3]  # -y neighbour (previous row)
            if b >= 0 and span_area[b] == area:
                r = reg[b]
                if r != 0:
                    cur = sweep_reg[sid]
                    if cur == 0:
                        sweep_reg[sid] = r
                    elif cur != r:
                        sweep_reg[sid] = -1
        # a sweep continues the region below when it touches only that one region and
        # that region's whole top row touches only this sweep
        if next_region + 1 > region_hits.shape[0]:
            t = np.zeros(max(region_hits.shape[0] * 2, next_region + 1), np.int32)
            t[: region_hits.shape[0]] = region_hits
            region_hits = t
        for s in range(n_sweeps):
            r = sweep_reg[s]
            if r > 0:
                region_hits[r] += 1
        for s in range(n_sweeps):
            r = sweep_reg[s]
            if r > 0 and region_hits[r] == 1:
                sweep_final[s] = r
            else:
                sweep_final[s] = next_region
                next_region += 1
                if next_region + 1 > region_hits.shape[0]:
                    t = np.zeros(region_hits.shape[0] * 2, np.int32)
                    t[: region_hits.shape[0]] = region_hits
                    region_hits = t
        for s in range(n_sweeps):
            r = sweep_reg[s]
            if r > 0:
                region_hits[r] = 0
        for i in range(row_first, row_end):
            sid = sweep_of[i - row_first]
            if sid >= 0:
                reg[i] = sweep_final[sid]
    return reg, next_region - 1


# --------------------------------------------------------------- merge and filter
@njit(cache=True, nogil=True)
def _dedupe_csr(rows, cols, n_rows, n_cols):
    """CSR of the distinct cols per row: (start (n_rows+1,), items), each row's items in
    first-seen order. rows/cols: parallel pair arrays, duplicates allowed."""
    start = np.zeros(n_rows + 1, np.int64)
    for k in range(rows.shape[0]):
        start[rows[k] + 1] += 1
    for r in range(n_rows):
        start[r + 1] += start[r]
    fill = start[:-1].copy()
    items = np.empty(rows.shape[0], np.int32)
    for k in range(rows.shape[0]):
        items[fill[rows[k]]] = cols[k]
        fill[rows[k]] += 1
    # distinct per row: a stamp per column value says which row saw it last
    stamp = np.full(n_cols, -1, np.int64)
    out = np.zeros(n_rows + 1, np.int64)
    m = 0
    for r in range(n_rows):
        for k in range(start[r], start[r + 1]):
            o = items[k]
            if stamp[o] != r:
                stamp[o] = r
                items[m] = o
                m += 1
        out[r + 1] = m
    return out, items[:m]


@njit(cache=True, nogil=True)
def _region_graph(reg, span_con, cell_index, cell_count, n_regions):
    """Distinct neighbours of every region (0 = a wall; symmetric between regions) and the
    distinct regions stacked with it in some column (floors), as two CSR lists over region
    ids 0..n_regions."""
    n = reg.shape[0]
    rows = np.empty(n * 8 + 1, np.int32)
    cols = np.empty(n * 8 + 1, np.int32)
    last = np.full(n_regions + 1, -1, np.int32)  # drops most repeats along a border
    na = 0
    for i in range(n):
        r = reg[i]
        if r == 0:
            continue
        for d in range(4):
            a = span_con[i, d]
            o = reg[a] if a >= 0 else 0
            if o != r and last[r] != o:
                last[r] = o
                rows[na] = r
                cols[na] = o
                na += 1
                if o != 0:
                    # both ways: span links need not be mutual (a span links to the first
                    # fitting span of a column, which may link elsewhere), region links are
                    rows[na] = o
                    cols[na] = r
                    na += 1
    frows = np.empty(16, np.int32)
    fcols = np.empty(16, np.int32)
    nf = 0
    for c in range(cell_index.shape[0]):
        b = cell_index[c]
        e = b + cell_count[c]
        for i in range(b, e):
            ri = reg[i]
            if ri == 0:
                continue
            for j in range(i + 1, e):
                rj = reg[j]
                if rj == 0 or rj == ri:
                    continue
                if nf + 2 > frows.shape[0]:
                    t1 = np.empty(frows.shape[0] * 2, np.int32)
                    t1[:nf] = frows[:nf]
                    frows = t1
                    t2 = np.empty(fcols.shape[0] * 2, np.int32)
                    t2[:nf] = fcols[:nf]
                    fcols = t2
                frows[nf] = ri
                fcols[nf] = rj
                frows[nf + 1] = rj
                fcols[nf + 1] = ri
                nf += 2
    a_start, a_items = _dedupe_csr(rows[:na], cols[:na], n_regions + 1, n_regions + 1)
    f_start, f_items = _dedupe_csr(frows[:nf], fcols[:nf], n_regions + 1, n_regions + 1)
    return a_start, a_items, f_start, f_items


@njit(cache=True, nogil=True)
def _lists_from_csr(start, items, n_regions, skip_zero):
    """Growable per-region id lists in one pool: list r is ``pool[head[r]:head[r]+size[r]]``
    with room for ``room[r]`` items (a list that outgrows it moves to the pool's end)."""
    n = n_regions + 1
    head = np.zeros(n, np.int64)
    size = np.zeros(n, np.int64)
    room = np.zeros(n, np.int64)
    pool = np.empty(max(2 * items.shape[0], 16), np.int32)
    used = 0
    for r in range(n):
        head[r] = used
        for k in range(start[r], start[r + 1]):
            o = items[k]
            if skip_zero and o == 0:
                continue
            pool[used] = o
            used += 1
        size[r] = used - head[r]
        room[r] = size[r]
    return head, size, room, pool, used


@njit(cache=True, nogil=True)
def _list_has(pool, head, size, r, o):
    for k in range(head[r], head[r] + size[r]):
        if pool[k] == o:
            return True
    return False


@njit(cache=True, nogil=True)
def _list_add(pool, used, head, size, room, r, o):
    """Add o to list r unless present; returns the (possibly new) pool and its fill."""
    if _list_has(pool, head, size, r, o):
        return pool, used
    if size[r] == room[r]:
        new_room = max(2 * room[r], 4)
        if used + new_room > pool.shape[0]:
            grown = np.empty(max(2 * pool.shape[0], used + new_room), np.int32)
            grown[:used] = pool[:used]
            pool = grown
        pool[used:used + size[r]] = pool[head[r]:head[r] + size[r]]
        head[r] = used
        room[r] = new_room
        used += new_room
    pool[head[r] + size[r]] = o
    size[r] += 1
    return pool, used


@njit(cache=True, nogil=True)
def _list_remove(pool, head, size, r, o):
    for k in range(head[r], head[r] + size[r]):
        if pool[k] == o:
            pool[k] = pool[head[r] + size[r] - 1]
            size[r] -= 1
            return


@njit(cache=True, nogil=True)
def _find(parent, r):
    while parent[r] != r:
        parent[r] = parent[parent[r]]
        r = parent[r]
    return r


@njit(cache=True, nogil=True)
def _merge_regions(reg, span_area, span_con, cell_index, cell_count, n_regions,
                   min_region_area, merge_region_area):
    """Renumber ``reg`` in place; return the new region count.

    Regions stacked in one column (floors) never merge. 1) islands (connected groups of
    regions) smaller than min_region_area are removed; 2) until nothing changes, every
    region that is small (<= merge_region_area spans) or touches no wall merges into its
    smallest neighbour of the same area id that is not stacked on it (ties: lowest id);
    3) ids are made consecutive in the order of the old ids.
    """
    n = n_regions + 1
    count = np.zeros(n, np.int64)
    area_of = np.zeros(n, np.int32)
    for i in range(reg.shape[0]):
        count[reg[i]] += 1
        area_of[reg[i]] = span_area[i]
    a_start, a_items, f_start, f_items = _region_graph(reg, span_con, cell_index, cell_count,
                                                       n_regions)
    touches_wall = np.zeros(n, np.bool_)
    for r in range(n):
        for k in range(a_start[r], a_start[r + 1]):
            if a_items[k] == 0:
                touches_wall[r] = True
    head, size, room, pool, used = _lists_from_csr(a_start, a_items, n_regions, True)
    fhead, fsize, froom, fpool, fused = _lists_from_csr(f_start, f_items, n_regions, False)

    # 1) islands
    removed = np.zeros(n, np.bool_)
    seen = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int32)
    group = np.empty(n, np.int32)
    for r0 in range(1, n):
        if seen[r0] or count[r0] == 0:
            continue
        seen[r0] = True
        stack[0] = r0
        top = 1
        n_group = 0
        total = 0
        while top > 0:
            top -= 1
            r = stack[top]
            group[n_group] = r
            n_group += 1
            total += count[r]
            for k in range(head[r], head[r] + size[r]):
                o = pool[k]
                if not seen[o]:
                    seen[o] = True
                    stack[top] = o
                    top += 1
        if total < min_region_area:
            for g in range(n_group):
                r = group[g]
                removed[r] = True
                count[r] = 0
            for g in range(n_group):
                size[group[g]] = 0

    # 2) merge small regions into their smallest mergeable neighbour, until stable
    parent = np.arange(n).astype(np.int32)
    changed = True
    while changed:
        changed = False
        for r in range(1, n):
            if parent[r] != r or count[r] == 0:
                continue
            if count[r] > merge_region_area and touches_wall[r]:
                continue
            best = -1
            for k in range(head[r], head[r] + size[r]):
                o = pool[k]
                if area_of[o] != area_of[r] or _list_has(fpool, fhead, fsize, r, o):
                    continue
                if best < 0 or count[o] < count[best] or (count[o] == count[best]
                                                          and o < best):
                    best = o
            if best < 0:
                continue
            parent[r] = best
            touches_wall[best] |= touches_wall[r]
            count[best] += count[r]
            count[r] = 0
            for k in range(head[r], head[r] + size[r]):
                o = pool[k]
                _list_remove(pool, head, size, o, r)
                if o != best:
                    pool, used = _list_add(pool, used, head, size, room, o, best)
                    pool, used = _list_add(pool, used, head, size, room, best, o)
            _list_remove(pool, head, size, best, best)
            size[r] = 0
            for k in range(fhead[r], fhead[r] + fsize[r]):
                o = fpool[k]
                fpool, fused = _list_add(fpool, fused, fhead, fsize, froom, best, o)
                fpool, fused = _list_add(fpool, fused, fhead, fsize, froom, o, best)
            changed = True

    # 3) consecutive ids
    final = np.zeros(n, np.int32)
    next_id = 1
    for r in range(1, n):
        if removed[r]:
            continue
        root = _find(parent, r)
        if final[root] == 0:
            final[root] = next_id
            next_id += 1
        final[r] = final[root]
    for i in range(reg.shape[0]):
        reg[i] = final[reg[i]]
    return next_id - 1


def merge_and_filter_regions(chf: CompactHeightfield, reg: np.ndarray, n_regions: int,
                             min_region_area: int, merge_region_area: int) -> int:
    """Remove small islands and merge small regions (in place); return the region count."""
    if n_regions == 0:
        return 0
    return int(_merge_regions(reg, chf.span_area, chf.span_con, chf.cell_index,
                              chf.cell_count, n_regions, min_region_area, merge_region_area))


def build_regions(chf: CompactHeightfield, partition: str, min_region_area: int,
                  merge_region_area: int) -> None:
    """Fill ``chf.span_reg`` and ``chf.max_region``."""
    n = chf.span_area.shape[0]
    if n == 0:
        chf.span_reg = np.zeros(0, np.int32)
        chf.max_region = 0
        return
    if partition == "watershed":
        build_distance_field(chf)
        order = _order_by_distance(chf.span_dist, chf.span_area)
        reg, count = _watershed(chf.span_con, chf.span_area, chf.span_dist, order)
    elif partition == "monotone":
        reg, count = _monotone(chf.span_con, chf.span_area, chf.cell_index, chf.cell_count,
                               chf.width, chf.height)
    else:
        raise ValueError(f"partition: unknown kind {partition!r}")
    count = merge_and_filter_regions(chf, reg, count, min_region_area, merge_region_area)
    chf.span_reg = reg
    chf.max_region = count
