"""Compact heightfield: the open space above every walkable span, with neighbour links."""

from __future__ import annotations

import numpy as np
from numba import njit

from .parallel import run_banded
from .stage_data import OPEN_SKY, CompactHeightfield, Heightfield

_DX = (-1, 0, 1, 0)
_DY = (0, 1, 0, -1)


@njit(cache=True, nogil=True)
def _count_walkable(column_head, span_area, span_next):
    counts = np.zeros(column_head.shape[0], np.int32)
    for c in range(column_head.shape[0]):
        s = column_head[c]
        n = 0
        while s != -1:
            if span_area[s] != 0:
                n += 1
            s = span_next[s]
        counts[c] = n
    return counts


@njit(cache=True, nogil=True)
def _fill_spans(column_head, span_min, span_max, span_area, span_next, width, cell_index,
                span_y, span_h, area, span_x, span_cy, row_lo, row_hi):
    for y in range(row_lo, row_hi):
        for x in range(width):
            c = x + y * width
            i = cell_index[c]
            s = column_head[c]
            while s != -1:
                if span_area[s] != 0:
                    bot = span_max[s]
                    top = span_min[span_next[s]] if span_next[s] != -1 else bot + OPEN_SKY
                    span_y[i] = bot
                    span_h[i] = min(top - bot, OPEN_SKY)
                    area[i] = span_area[s]
                    span_x[i] = x
                    span_cy[i] = y
                    i += 1
                s = span_next[s]


@njit(cache=True, nogil=True)
def _link_neighbours(width, height, cell_index, cell_count, span_y, span_h, con,
                     walkable_height, walkable_climb, row_lo, row_hi):
    dx = np.array(_DX)
    dy = np.array(_DY)
    for y in range(row_lo, row_hi):
        for x in range(width):
            c = x + y * width
            for i in range(cell_index[c], cell_index[c] + cell_count[c]):
                bot = span_y[i]
                top = bot + span_h[i]
                for d in range(4):
                    con[i, d] = -1  # written here once (no separate fill of the array)
                    nx = x + dx[d]
                    ny = y + dy[d]
                    if nx < 0 or ny < 0 or nx >= width or ny >= height:
                        continue
                    nc = nx + ny * width
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
    counts = _count_walkable(hf.column_head, hf.span_area, hf.span_next)
    index = np.zeros(counts.shape[0], np.int32)
    if counts.shape[0] > 1:
        np.cumsum(counts[:-1], out=index[1:])
    total = int(counts.sum())
    span_y = np.empty(total, np.int32)
    span_h = np.empty(total, np.int32)
    area = np.empty(total, np.uint8)
    sx = np.empty(total, np.int32)
    sy = np.empty(total, np.int32)
    run_banded(_fill_spans, hf.height, hf.column_head, hf.span_min, hf.span_max, hf.span_area,
               hf.span_next, hf.width, index, span_y, span_h, area, sx, sy)
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
