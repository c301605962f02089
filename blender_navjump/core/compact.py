"""Compact heightfield: the open space above every walkable span, with neighbour links."""

from __future__ import annotations

import numpy as np
from numba import njit

from .parallel import run_banded
from .stage_data import OPEN_SKY, CompactHeightfield, Heightfield


@njit(cache=True, nogil=True)
def _fill_spans(column_head, span_min, span_max, span_area, span_next, width, cell_index,
                cell_count, span_y, span_h, area, span_x, span_cy):
    """One pass over the columns in order: each column's walkable spans appended to the
    compact arrays, its first index and count written; returns the span count."""
    i = 0
    for c in range(column_head.shape[0]):
        cell_index[c] = i
        s = column_head[c]
        if s == -1:
            cell_count[c] = 0
            continue
        x = c % width
        y = c // width
        while s != -1:
            nxt = span_next[s]
            if span_area[s] != 0:
                bot = span_max[s]
                top = span_min[nxt] if nxt != -1 else bot + OPEN_SKY
                span_y[i] = bot
                span_h[i] = min(top - bot, OPEN_SKY)
                area[i] = span_area[s]
                span_x[i] = x
                span_cy[i] = y
                i += 1
            s = nxt
        cell_count[c] = i - cell_index[c]
    return i


@njit(cache=True, nogil=True)
def _link_neighbours(width, height, cell_index, cell_count, span_y, span_h, con,
                     walkable_height, walkable_climb, row_lo, row_hi):
    for y in range(row_lo, row_hi):
        for x in range(width):
            c = x + y * width
            for i in range(cell_index[c], cell_index[c] + cell_count[c]):
                bot = span_y[i]
                top = bot + span_h[i]
                for d in range(4):  # the neighbours (-x, +y, +x, -y), unrolled
                    con[i, d] = -1  # written here once (no separate fill of the array)
                    if d == 0:
                        if x == 0:
                            continue
                        nc = c - 1
                    elif d == 1:
                        if y == height - 1:
                            continue
                        nc = c + width
                    elif d == 2:
                        if x == width - 1:
                            continue
                        nc = c + 1
                    else:
                        if y == 0:
                            continue
                        nc = c - width
                    for k in range(cell_index[nc], cell_index[nc] + cell_count[nc]):
                        nbot = span_y[k]
                        # Connected when the step between the floors is climbable and the
                        # agent fits through the shared opening. Floors rise up a column:
                        # past bot + climb no floor can be climbed to.
                        if nbot > bot + walkable_climb:
                            break
                        if nbot < bot - walkable_climb:
                            continue
                        ntop = nbot + span_h[k]
                        if min(top, ntop) - max(bot, nbot) >= walkable_height:
                            con[i, d] = k
                            break


def build_compact_heightfield(hf: Heightfield, walkable_height: int,
                              walkable_climb: int,
                              release_solid: bool = False) -> CompactHeightfield:
    """The compact heightfield of ``hf``'s walkable spans. ``release_solid``: nothing needs
    the solid spans afterwards, so ``hf``'s span arrays are emptied as soon as they are
    read (before the neighbour links are allocated), lowering the bake's peak memory."""
    cells = hf.column_head.shape[0]
    index = np.empty(cells, np.int32)
    counts = np.empty(cells, np.int32)
    # room for every walkable span (a tile's cropped columns hold a few it never reaches)
    room = int(np.count_nonzero(hf.span_area))
    span_y = np.empty(room, np.int32)
    span_h = np.empty(room, np.int32)
    area = np.empty(room, np.uint8)
    sx = np.empty(room, np.int32)
    sy = np.empty(room, np.int32)
    total = int(_fill_spans(hf.column_head, hf.span_min, hf.span_max, hf.span_area,
                            hf.span_next, hf.width, index, counts, span_y, span_h, area, sx,
                            sy))
    if total < room:
        span_y, span_h, area = span_y[:total].copy(), span_h[:total].copy(), area[:total].copy()
        sx, sy = sx[:total].copy(), sy[:total].copy()
    if release_solid:
        empty = np.zeros(0, np.int32)
        hf.column_head = hf.span_min = hf.span_max = hf.span_next = empty
        hf.span_area = np.zeros(0, np.uint8)
    con = np.empty((total, 4), np.int32)
    run_banded(_link_neighbours, hf.height, hf.width, hf.height, index, counts, span_y, span_h,
               con, walkable_height, walkable_climb)
    return CompactHeightfield(width=hf.width, height=hf.height, bmin=hf.bmin, cs=hf.cs,
                              ch=hf.ch, walkable_height=walkable_height,
                              walkable_climb=walkable_climb, cell_index=index,
                              cell_count=counts, span_y=span_y, span_h=span_h,
                              span_area=area, span_con=con, span_x=sx, span_cy=sy)
