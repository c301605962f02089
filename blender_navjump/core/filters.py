"""Heightfield filters that remove spans an agent cannot really stand on (Recast's three)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .parallel import run_banded
from .stage_data import Heightfield

_DX = (-1, 0, 1, 0)
_DY = (0, 1, 0, -1)
_TOP = 1 << 30  # "nothing above"


@njit(cache=True, nogil=True)
def _filter_low_hanging(column_head, span_max, span_area, span_next, walkable_climb, width,
                        row_lo, row_hi):
    # A non-walkable span whose top is within climb of the walkable span just below it
    # (a kerb, a step's riser) becomes walkable: the agent steps onto it.
    for c in range(row_lo * width, row_hi * width):
        prev_walkable = False
        prev_area = 0
        prev_max = 0
        s = column_head[c]
        while s != -1:
            walkable = span_area[s] != 0
            if not walkable and prev_walkable:
                if abs(span_max[s] - prev_max) <= walkable_climb:
                    span_area[s] = prev_area
            prev_walkable = walkable
            prev_area = span_area[s]
            prev_max = span_max[s]
            s = span_next[s]


def filter_low_hanging_obstacles(hf: Heightfield, walkable_climb: int) -> None:
    run_banded(_filter_low_hanging, hf.height, hf.column_head, hf.span_max, hf.span_area,
               hf.span_next, walkable_climb, hf.width)


@njit(cache=True, nogil=True)
def _filter_ledges(column_head, span_min, span_max, span_area, span_next, width, height,
                   walkable_height, walkable_climb, row_lo, row_hi):
    # A walkable span is a ledge when a neighbour's reachable floor drops more than climb
    # below it, or when the floors it can reach differ by more than climb (too steep).
    dx = np.array(_DX)
    dy = np.array(_DY)
    for y in range(row_lo, row_hi):
        for x in range(width):
            s = column_head[x + y * width]
            while s != -1:
                if span_area[s] == 0:
                    s = span_next[s]
                    continue
                bot = span_max[s]
                top = span_min[span_next[s]] if span_next[s] != -1 else _TOP
                min_h = _TOP
                acc_min = bot
                acc_max = bot
                for d in range(4):
                    if min_h < -walkable_climb:
                        break  # a drop is found: the span is a ledge whatever else is near
                    nx = x + dx[d]
                    ny = y + dy[d]
                    if nx < 0 or ny < 0 or nx >= width or ny >= height:
                        min_h = min(min_h, -walkable_climb - bot)
                        continue
                    ns = column_head[nx + ny * width]
                    # the "floor" below the neighbour's first span
                    nbot = -walkable_climb
                    ntop = span_min[ns] if ns != -1 else _TOP
                    if min(top, ntop) - max(bot, nbot) > walkable_height:
                        min_h = min(min_h, nbot - bot)
                    while ns != -1:
                        nbot = span_max[ns]
                        if nbot >= top:
                            break  # this and every higher neighbour floor is above our ceiling
                        ntop = span_min[span_next[ns]] if span_next[ns] != -1 else _TOP
                        if min(top, ntop) - max(bot, nbot) > walkable_height:
                            min_h = min(min_h, nbot - bot)
                            if abs(nbot - bot) <= walkable_climb:
                                acc_min = min(acc_min, nbot)
                                acc_max = max(acc_max, nbot)
                        ns = span_next[ns]
                if min_h < -walkable_climb:
                    span_area[s] = 0
                elif acc_max - acc_min > walkable_climb:
                    span_area[s] = 0
                s = span_next[s]


def filter_ledge_spans(hf: Heightfield, walkable_height: int, walkable_climb: int) -> None:
    run_banded(_filter_ledges, hf.height, hf.column_head, hf.span_min, hf.span_max,
               hf.span_area, hf.span_next, hf.width, hf.height, walkable_height,
               walkable_climb)


@njit(cache=True, nogil=True)
def _filter_low_height(column_head, span_min, span_max, span_area, span_next,
                       walkable_height, width, row_lo, row_hi):
    for c in range(row_lo * width, row_hi * width):
        s = column_head[c]
        while s != -1:
            top = span_min[span_next[s]] if span_next[s] != -1 else _TOP
            if top - span_max[s] < walkable_height:
                span_area[s] = 0
            s = span_next[s]


def filter_low_height_spans(hf: Heightfield, walkable_height: int) -> None:
    run_banded(_filter_low_height, hf.height, hf.column_head, hf.span_min, hf.span_max,
               hf.span_area, hf.span_next, walkable_height, hf.width)
