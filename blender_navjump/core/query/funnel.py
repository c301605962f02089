"""String pulling (the funnel algorithm) through a chain of portals, in XY.

Portal i is the edge between corridor polygons i and i+1, as (left, right) seen when
walking forward. The funnel keeps an apex and the two edges apex->left and apex->right;
each new portal narrows them; when one side crosses the other, that side's point
becomes a corner of the path and the new apex.
"""

from __future__ import annotations

from numba import njit

from .jit import hot_kernel

_SAME_EPS2 = 1e-12


@njit(cache=True)
def _cross(ax, ay, bx, by, cx, cy):
    """> 0 when c is left of the line a->b (counter-clockwise seen from +Z)."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(cache=True)
def _same(ax, ay, bx, by):
    return (ax - bx) ** 2 + (ay - by) ** 2 < _SAME_EPS2


@hot_kernel
def _append(out, out_idx, n, x, y, z, idx):
    if n > 0 and _same(out[n - 1, 0], out[n - 1, 1], x, y):
        return n
    out[n, 0] = x
    out[n, 1] = y
    out[n, 2] = z
    out_idx[n] = idx
    return n + 1


@hot_kernel
def string_pull(start, end, left, right, first, k, out, out_idx, out_first):
    """Corners of the shortest XY path from start to end through k portals.

    Portals are ``left[first + i]``, ``right[first + i]`` for i < k. Corners are written to
    ``out[out_first:]`` with ``out_idx`` = the portal each corner lies on (-1 for start,
    k for end). Returns the corner count (at least 1).
    """
    o = out[out_first:]
    oi = out_idx[out_first:]
    n = _append(o, oi, 0, start[0], start[1], start[2], -1)
    ax, ay, az = start[0], start[1], start[2]
    lx, ly, lz = ax, ay, az
    rx, ry, rz = ax, ay, az
    apex_i = -1
    left_i = -1
    right_i = -1
    i = 0
    guard = 0
    limit = 4 * (k + 2) * (k + 2)
    while i <= k and guard < limit:
        guard += 1
        if i < k:
            plx, ply, plz = left[first + i, 0], left[first + i, 1], left[first + i, 2]
            prx, pry, prz = right[first + i, 0], right[first + i, 1], right[first + i, 2]
        else:
            plx, ply, plz = end[0], end[1], end[2]
            prx, pry, prz = plx, ply, plz
        # Right edge: move it in when the new right point narrows the funnel.
        if _cross(ax, ay, rx, ry, prx, pry) >= 0.0:
            if _same(ax, ay, rx, ry) or _cross(ax, ay, lx, ly, prx, pry) < 0.0:
                rx, ry, rz = prx, pry, prz
                right_i = i
            else:
                n = _append(o, oi, n, lx, ly, lz, left_i)
                ax, ay, az = lx, ly, lz
                apex_i = left_i
                rx, ry, rz = ax, ay, az
                right_i = apex_i
                i = apex_i + 1
                continue
        # Left edge, mirrored.
        if _cross(ax, ay, lx, ly, plx, ply) <= 0.0:
            if _same(ax, ay, lx, ly) or _cross(ax, ay, rx, ry, plx, ply) > 0.0:
                lx, ly, lz = plx, ply, plz
                left_i = i
            else:
                n = _append(o, oi, n, rx, ry, rz, right_i)
                ax, ay, az = rx, ry, rz
                apex_i = right_i
                lx, ly, lz = ax, ay, az
                left_i = apex_i
                i = apex_i + 1
                continue
        i += 1
    if _same(o[n - 1, 0], o[n - 1, 1], end[0], end[1]) and n > 1:
        n -= 1  # a corner on the end point itself: the end replaces it
    o[n, 0] = end[0]
    o[n, 1] = end[1]
    o[n, 2] = end[2]
    oi[n] = k
    return n + 1
