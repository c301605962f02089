"""Erode the walkable area by the agent radius, so the agent can be treated as a point."""

from __future__ import annotations

import numpy as np
from numba import njit

from .stage_data import CompactHeightfield


@njit(cache=True, nogil=True)
def chamfer_distance(span_con, walkable, boundary_seed, span_x, span_cy, width, height,
                     cell_index, cell_count):
    """Two-pass 3-4 chamfer distance (in half-cells: 2 per straight step, 3 diagonal)
    from the boundary spans over the connected spans. Returns uint16 distances."""
    n = span_con.shape[0]
    big = 0xFFFF
    dist = np.full(n, big, np.int32)
    for i in range(n):
        if not walkable[i] or boundary_seed[i]:
            dist[i] = 0
    # forward pass: neighbours at -x (dir 0) and -y (dir 3), diagonals through them
    for y in range(height):
        for x in range(width):
            c = x + y * width
            for i in range(cell_index[c], cell_index[c] + cell_count[c]):
                a = span_con[i, 0]
                if a >= 0:
                    dist[i] = min(dist[i], dist[a] + 2)
                    b = span_con[a, 3]
                    if b >= 0:
                        dist[i] = min(dist[i], dist[b] + 3)
                a = span_con[i, 3]
                if a >= 0:
                    dist[i] = min(dist[i], dist[a] + 2)
                    b = span_con[a, 2]
                    if b >= 0:
                        dist[i] = min(dist[i], dist[b] + 3)
    # backward pass: +x (dir 2) and +y (dir 1)
    for y in range(height - 1, -1, -1):
        for x in range(width - 1, -1, -1):
            c = x + y * width
            for i in range(cell_index[c], cell_index[c] + cell_count[c]):
                a = span_con[i, 2]
                if a >= 0:
                    dist[i] = min(dist[i], dist[a] + 2)
                    b = span_con[a, 1]
                    if b >= 0:
                        dist[i] = min(dist[i], dist[b] + 3)
                a = span_con[i, 1]
                if a >= 0:
                    dist[i] = min(dist[i], dist[a] + 2)
                    b = span_con[a, 0]
                    if b >= 0:
                        dist[i] = min(dist[i], dist[b] + 3)
    out = np.empty(n, np.uint16)
    for i in range(n):
        out[i] = min(dist[i], big)
    return out


@njit(cache=True, nogil=True)
def _wall_spans(span_con, span_area):
    """Spans next to a wall: a missing connection or a non-walkable neighbour."""
    n = span_con.shape[0]
    seed = np.zeros(n, np.bool_)
    for i in range(n):
        if span_area[i] == 0:
            continue
        for d in range(4):
            a = span_con[i, d]
            if a < 0 or span_area[a] == 0:
                seed[i] = True
                break
    return seed


@njit(cache=True, nogil=True)
def _erode(span_con, span_area, span_x, span_cy, width, height, cell_index, cell_count,
           radius):
    walkable = np.empty(span_area.shape[0], np.bool_)
    for i in range(span_area.shape[0]):
        walkable[i] = span_area[i] != 0
    seed = _wall_spans(span_con, span_area)
    dist = chamfer_distance(span_con, walkable, seed, span_x, span_cy, width, height,
                            cell_index, cell_count)
    for i in range(span_area.shape[0]):
        if dist[i] < radius * 2:
            span_area[i] = 0


def erode_walkable_area(chf: CompactHeightfield, radius: int) -> None:
    """Mark spans closer than ``radius`` cells to a wall as not walkable (in place)."""
    if radius <= 0 or chf.span_area.shape[0] == 0:
        return
    _erode(chf.span_con, chf.span_area, chf.span_x, chf.span_cy, chf.width, chf.height,
           chf.cell_index, chf.cell_count, int(radius))
