"""Why a link candidate was refused (debug data, issue 14): the reason and, for a blocked
trajectory, where it is blocked.

Called by the landing search (``links_search.search_landings``) only when the bake asked
for debug data; a bake without it never reaches this module's kernels (one boolean test
at each refusal).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .debug import REJECT_BLOCKED, REJECT_NONE, REJECT_TOO_FAR, REJECT_TOO_HIGH
from .kinds import LINK_DROP
from .links_model import MODE_JUMP, body_walk_blocked, flight_time, tri_arc_blocked

# One refusal in the search's per-sample, per-kind record (``search_landings``' ``rej``,
# (N, 3) rows): the reason (``debug.REJECT_*``, REJECT_NONE when nothing was refused),
# the refused landing point and, for a blocked trajectory, where it is blocked (NaN else).
REFUSAL = np.dtype([("reason", np.int64), ("x", np.float64), ("y", np.float64),
                    ("z", np.float64), ("bx", np.float64), ("by", np.float64),
                    ("bz", np.float64)])


class Refused(NamedTuple):
    """``explain_flight``'s answer: the reason (``debug.REJECT_*``) and, for a blocked
    trajectory, where it is blocked (NaN else)."""

    reason: int
    bx: float
    by: float
    bz: float


# halvings of the flight time (or run-out) that locate a blocking point: to 1/256
BLOCK_HALVINGS = 8


@njit(cache=True)
def _arc_point(tx, ty, z0, ux, uy, vx, vz, t, g):
    return tx + ux * vx * t, ty + uy * vx * t, z0 + vz * t - 0.5 * g * t * t


@njit(cache=True)
def explain_flight(x0, y0, z0, ux, uy, dist, z1, kind, mode, s_t, s_l, ex, ey, prm, tri,
                   vox, wk):
    """The reason ``links_model.check_flight`` refuses a flight, and where: returns a
    ``Refused``; the point is NaN unless the reason is REJECT_BLOCKED (then it is
    the body's feet when it first meets a triangle, to 1/256 of the flight, or on the
    run-out). ``wk``: a ``links_model.Scratch``."""
    nan = math.nan
    dz = z1 - z0
    d_air = s_l - s_t
    if kind == LINK_DROP:
        if -dz > prm.drop_height + 1e-9:
            return Refused(REJECT_TOO_HIGH, nan, nan, nan)
    elif dz > prm.jump_height + 1e-9 or mode != MODE_JUMP:
        return Refused(REJECT_TOO_HIGH, nan, nan, nan)
    if d_air > prm.jump_distance * (1.0 + 1e-9) + 1e-9:
        return Refused(REJECT_TOO_FAR, nan, nan, nan)
    t_f = flight_time(dz, mode, prm)
    if t_f <= 0.0:
        return Refused(REJECT_TOO_HIGH, nan, nan, nan)
    vx = d_air / t_f
    if vx > prm.vx_max * (1.0 + 1e-9):
        return Refused(REJECT_TOO_FAR, nan, nan, nan)
    vz = prm.vz if mode == MODE_JUMP else 0.0
    tx = x0 + ux * s_t
    ty = y0 + uy * s_t
    g = prm.gravity
    if tri_arc_blocked(tx, ty, z0, ux, uy, vx, vz, t_f, ex, ey, prm, tri, wk):
        # the same arc cut short at t is its first part: halve to the first contact
        lo = 0.0
        hi = t_f
        for _ in range(BLOCK_HALVINGS):
            mid = 0.5 * (lo + hi)
            if tri_arc_blocked(tx, ty, z0, ux, uy, vx, vz, mid, ex, ey, prm, tri, wk):
                hi = mid
            else:
                lo = mid
        bx, by, bz = _arc_point(tx, ty, z0, ux, uy, vx, vz, hi, g)
        return Refused(REJECT_BLOCKED, bx, by, bz)
    if dist > s_l:
        lo = s_l
        hi = dist
        for _ in range(BLOCK_HALVINGS):
            mid = 0.5 * (lo + hi)
            if body_walk_blocked(x0, y0, ux, uy, s_l, mid, z1, ex, ey, prm, tri, vox, wk):
                hi = mid
            else:
                lo = mid
        return Refused(REJECT_BLOCKED, x0 + ux * hi, y0 + uy * hi, z1)
    return Refused(REJECT_BLOCKED, nan, nan, nan)


@njit(cache=True)
def record_reject(rej, i, kind, reason, x, y, z, bx, by, bz):
    """Keep the refusal of sample i's candidate of ``kind``: the first one seen (along
    the edge normal first, nearest first), the one a designer looks for."""
    r = rej[i, kind]
    if r.reason != REJECT_NONE:
        return
    r.reason = reason
    r.x, r.y, r.z = x, y, z
    r.bx, r.by, r.bz = bx, by, bz

