"""Multi-stance layers: tag each walkable span stand / crouch / prone by its free height.

Area ids are ordered by decreasing clearance (stand 1 < crouch 2 < prone 3), so "lower
stance" means a larger id. The noise filter only ever lowers a span's stance: a span is
never tagged with a stance its own clearance does not allow.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .navmesh import AREA_CROUCH, AREA_PRONE, AREA_STAND
from .stage_data import CompactHeightfield


@njit(cache=True, nogil=True)
def _classify(span_h, span_area, stand_h, crouch_h, prone_h):
    for i in range(span_h.shape[0]):
        if span_area[i] == 0:
            continue
        h = span_h[i]
        if stand_h > 0 and h >= stand_h:
            span_area[i] = AREA_STAND
        elif crouch_h > 0 and h >= crouch_h:
            span_area[i] = AREA_CROUCH
        elif prone_h > 0:
            span_area[i] = AREA_PRONE
        elif crouch_h > 0:
            span_area[i] = AREA_CROUCH
        else:
            span_area[i] = AREA_STAND


def classify_stances(chf: CompactHeightfield, stance_heights) -> None:
    """Set ``span_area`` of walkable spans to the highest stance their clearance allows.

    ``stance_heights`` are voxel heights [stand, crouch, prone], 0 where disabled. A span
    below every enabled stance (only possible with the low-height filter off) gets the
    lowest enabled stance.
    """
    s = np.asarray(stance_heights, dtype=np.int32)
    _classify(chf.span_h, chf.span_area, int(s[0]), int(s[1]), int(s[2]))


@njit(cache=True, nogil=True)
def _lowering_median(span_con, span_area):
    # For each span, the median area of itself and its 8 neighbours (missing neighbours
    # count as itself), then keep the larger of (own, median): noise may only be lowered.
    # Area ids are tiny (1..3), so the median comes from a count, not a sort.
    n = span_area.shape[0]
    out = span_area.copy()
    for i in range(n):
        a = span_area[i]
        if a == 0:
            continue
        c1 = 0
        c2 = 0
        c3 = 0
        higher = 0  # neighbours with a larger id (lower stance) than this span
        for d in range(4):
            j = span_con[i, d]
            v = a
            v2 = a
            if j >= 0 and span_area[j] != 0:
                v = span_area[j]
                j2 = span_con[j, (d + 1) & 3]
                if j2 >= 0 and span_area[j2] != 0:
                    v2 = span_area[j2]
            for w in (v, v2):
                if w > a:
                    higher += 1
                if w == 1:
                    c1 += 1
                elif w == 2:
                    c2 += 1
                else:
                    c3 += 1
        if higher < 4:
            continue  # the median cannot exceed the own id: nothing to lower
        if a == 1:
            c1 += 1
        elif a == 2:
            c2 += 1
        else:
            c3 += 1
        if c1 >= 5:
            med = 1
        elif c1 + c2 >= 5:
            med = 2
        else:
            med = 3
        if med > a:
            out[i] = med
    return out


def filter_stance_noise(chf: CompactHeightfield) -> None:
    """Remove single-voxel stance islands so boundaries do not make sliver polygons."""
    if chf.span_area.shape[0]:
        chf.span_area[:] = _lowering_median(chf.span_con, chf.span_area)


AREA_FOR_STANCE = np.array([AREA_STAND, AREA_CROUCH, AREA_PRONE], np.uint8)
