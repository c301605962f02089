"""Heightfield filters that remove spans an agent cannot really stand on (Recast's three),
applied in one pass over the columns.

- **low-hanging obstacles**: a non-walkable span whose top is within climb of the walkable
  span just below it (a kerb, a step's riser) becomes walkable: the agent steps onto it;
- **ledges**: a walkable span is a ledge when a neighbour's reachable floor drops more than
  climb below it, or when the floors it can reach differ by more than climb (too steep);
- **low height**: a walkable span with less than the agent's height free above it.

One pass gives the same spans as the three filters one after another: the low-hanging
filter reads only its own column's areas as they were (kept in locals while walking up the
column), and the other two read the neighbours' heights, never their areas, and only clear.
"""

from __future__ import annotations

from numba import njit

from .parallel import run_banded
from .stage_data import Heightfield

_TOP = 1 << 30  # "nothing above"


@njit(cache=True, nogil=True)
def _filter_columns(column_head, span_min, span_max, span_area, span_next, width, height,
                    walkable_height, walkable_climb, low_hanging, ledges, low_height,
                    row_lo, row_hi):
    """The three filters on the columns of rows [row_lo, row_hi). The ledge test (one body
    with the column walk: measured faster than a separate inlined function) marks a
    walkable span with floor ``bot`` and ceiling ``top`` when some neighbour's reachable
    floor drops more than climb below it, or the reachable floors lie more than climb
    apart; the lowest drop only falls, so the first drop found decides."""
    for y in range(row_lo, row_hi):
        for x in range(width):
            c = x + y * width
            s = column_head[c]
            if s == -1:
                continue
            on_edge = x == 0 or y == 0 or x == width - 1 or y == height - 1
            prev_walkable = False
            prev_area = 0
            prev_max = 0
            while s != -1:
                area = span_area[s]
                bot = span_max[s]
                walkable = area != 0
                if low_hanging and not walkable and prev_walkable:
                    if abs(bot - prev_max) <= walkable_climb:
                        area = prev_area
                prev_walkable = walkable
                prev_area = area
                prev_max = bot
                nxt = span_next[s]
                if area != 0:
                    top = span_min[nxt] if nxt != -1 else _TOP
                    if low_height and top - bot < walkable_height:
                        area = 0
                    elif ledges:
                        min_h = _TOP
                        if on_edge:
                            # a neighbour outside the grid: a floor at -climb, nothing above
                            min_h = -walkable_climb - bot
                        acc_min = bot
                        acc_max = bot
                        for d in range(4):  # the neighbours, unrolled (no index tables)
                            if min_h < -walkable_climb:
                                break  # a drop is found: a ledge whatever else is near
                            if d == 0:
                                if x == 0:
                                    continue
                                ns = column_head[c - 1]
                            elif d == 1:
                                if y == height - 1:
                                    continue
                                ns = column_head[c + width]
                            elif d == 2:
                                if x == width - 1:
                                    continue
                                ns = column_head[c + 1]
                            else:
                                if y == 0:
                                    continue
                                ns = column_head[c - width]
                            # the "floor" below the neighbour's first span
                            nbot = -walkable_climb
                            ntop = span_min[ns] if ns != -1 else _TOP
                            if min(top, ntop) - max(bot, nbot) > walkable_height:
                                min_h = min(min_h, nbot - bot)
                            while ns != -1:
                                nbot = span_max[ns]
                                if nbot >= top:
                                    break  # this and every higher floor is above our ceiling
                                n_next = span_next[ns]
                                ntop = span_min[n_next] if n_next != -1 else _TOP
                                if min(top, ntop) - max(bot, nbot) > walkable_height:
                                    min_h = min(min_h, nbot - bot)
                                    if abs(nbot - bot) <= walkable_climb:
                                        acc_min = min(acc_min, nbot)
                                        acc_max = max(acc_max, nbot)
                                ns = n_next
                        if min_h < -walkable_climb or acc_max - acc_min > walkable_climb:
                            area = 0
                    span_area[s] = area
                s = nxt


def filter_heightfield(hf: Heightfield, walkable_height: int, walkable_climb: int,
                       low_hanging: bool = True, ledges: bool = True,
                       low_height: bool = True) -> None:
    """Apply the enabled filters to ``hf.span_area`` in place (see module doc)."""
    if not (low_hanging or ledges or low_height):
        return
    run_banded(_filter_columns, hf.height, hf.column_head, hf.span_min, hf.span_max,
               hf.span_area, hf.span_next, hf.width, hf.height, walkable_height,
               walkable_climb, low_hanging, ledges, low_height)

