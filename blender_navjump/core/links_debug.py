"""Why a link candidate was refused (debug data, issue 14): the reason and, for a blocked
trajectory, where it is blocked.

Called by the landing search (``links_search.search_landings``) only when the bake asked
for debug data; a bake without it never reaches this module's kernels (one boolean test
at each refusal).
"""

from __future__ import annotations

import math

from numba import njit

from .debug import REJECT_BLOCKED, REJECT_TOO_FAR, REJECT_TOO_HIGH
from .kinds import LINK_DROP
from .links_model import MODE_JUMP, body_walk_blocked, flight_time, tri_arc_blocked

# columns of one refusal in the search's per-sample, per-kind record
(J_REASON, J_X, J_Y, J_Z, J_BX, J_BY, J_BZ) = range(7)
N_REJECT = 7
# halvings of the flight time (or run-out) that locate a blocking point: to 1/256
BLOCK_HALVINGS = 8


@njit(cache=True)
def _arc_point(tx, ty, z0, ux, uy, vx, vz, t, g):
    return tx + ux * vx * t, ty + uy * vx * t, z0 + vz * t - 0.5 * g * t * t


@njit(cache=True)
def explain_flight(x0, y0, z0, ux, uy, dist, z1, kind, mode, s_t, s_l, ex, ey, prm, tri,
                   vox):
    """The reason ``links_model.check_flight`` refuses a flight, and where: returns
    (reason, bx, by, bz); the point is NaN unless the reason is REJECT_BLOCKED (then it is
    the body's feet when it first meets a triangle, to 1/256 of the flight, or on the
    run-out)."""
    nan = math.nan
    dz = z1 - z0
    d_air = s_l - s_t
    if kind == LINK_DROP:
        if -dz > prm.drop_height + 1e-9:
            return REJECT_TOO_HIGH, nan, nan, nan
    elif dz > prm.jump_height + 1e-9 or mode != MODE_JUMP:
        return REJECT_TOO_HIGH, nan, nan, nan
    if d_air > prm.jump_distance * (1.0 + 1e-9) + 1e-9:
        return REJECT_TOO_FAR, nan, nan, nan
    t_f = flight_time(dz, mode, prm)
    if t_f <= 0.0:
        return REJECT_TOO_HIGH, nan, nan, nan
    vx = d_air / t_f
    if vx > prm.vx_max * (1.0 + 1e-9):
        return REJECT_TOO_FAR, nan, nan, nan
    vz = prm.vz if mode == MODE_JUMP else 0.0
    tx = x0 + ux * s_t
    ty = y0 + uy * s_t
    g = prm.gravity
    if tri_arc_blocked(tx, ty, z0, ux, uy, vx, vz, t_f, ex, ey, prm, tri):
        # the same arc cut short at t is its first part: halve to the first contact
        lo = 0.0
        hi = t_f
        for _ in range(BLOCK_HALVINGS):
            mid = 0.5 * (lo + hi)
            if tri_arc_blocked(tx, ty, z0, ux, uy, vx, vz, mid, ex, ey, prm, tri):
                hi = mid
            else:
                lo = mid
        bx, by, bz = _arc_point(tx, ty, z0, ux, uy, vx, vz, hi, g)
        return REJECT_BLOCKED, bx, by, bz
    if dist > s_l:
        lo = s_l
        hi = dist
        for _ in range(BLOCK_HALVINGS):
            mid = 0.5 * (lo + hi)
            if body_walk_blocked(x0, y0, ux, uy, s_l, mid, z1, ex, ey, prm, tri, vox):
                hi = mid
            else:
                lo = mid
        return REJECT_BLOCKED, x0 + ux * hi, y0 + uy * hi, z1
    return REJECT_BLOCKED, nan, nan, nan


@njit(cache=True)
def record_reject(rej, i, kind, reason, x, y, z, bx, by, bz):
    """Keep the refusal of sample i's candidate of ``kind``: the first one seen (along
    the edge normal first, nearest first), the one a designer looks for."""
    r = rej[i, kind]
    if r[J_REASON] != 0:
        return
    r[J_REASON] = reason
    r[J_X] = x
    r[J_Y] = y
    r[J_Z] = z
    r[J_BX] = bx
    r[J_BY] = by
    r[J_BZ] = bz


def rejected_candidates(samples, res, found_at, rej, narrow_groups, narrow_starts,
                        narrow_ends, narrow_kinds):
    """The refused candidates as ``debug.LINK_REJECT`` rows: the search's record (per
    sample and kind not found, the last refusal), the groups of samples too narrow to
    become a link (at their middle sample) and the fitted links dropped as narrower than
    ``min_link_width`` (at their segments' midpoints)."""
    import numpy as np

    from .debug import LINK_REJECT, REJECT_NO_LANDING, REJECT_NONE, REJECT_TOO_NARROW
    from .links_search import G_I0, G_I1, G_KIND, R_X, R_Y, R_Z, S_X, S_Y, S_Z

    nan = np.float32(np.nan)
    reason = rej[:, :, J_REASON].astype(np.int64) if rej.shape[0] else \
        np.zeros((0, found_at.shape[1]), np.int64)
    si, sk = np.nonzero((reason != REJECT_NONE) & ~found_at[:reason.shape[0]])
    mid = (narrow_groups[:, G_I0] + narrow_groups[:, G_I1]) // 2
    gk = narrow_groups[:, G_KIND]
    n1, n2, n3 = si.size, mid.size, narrow_kinds.shape[0]
    out = np.zeros(n1 + n2 + n3, LINK_REJECT)
    for name, col in (("x", S_X), ("y", S_Y), ("z", S_Z)):
        out[name][:n1] = samples[si, col]
        out[name][n1:n1 + n2] = samples[mid, col]
    for name, col in (("tx", J_X), ("ty", J_Y), ("tz", J_Z)):
        out[name][:n1] = rej[si, sk, col]
    for name, col in (("tx", R_X), ("ty", R_Y), ("tz", R_Z)):
        out[name][n1:n1 + n2] = res[mid, gk, col]
    for name, col in (("bx", J_BX), ("by", J_BY), ("bz", J_BZ)):
        out[name][:n1] = rej[si, sk, col]
        out[name][n1:] = nan
    r = reason[si, sk]
    out["reason"][:n1] = r
    out["kind"][:n1] = np.where(r == REJECT_NO_LANDING, -1, sk)
    out["reason"][n1:] = REJECT_TOO_NARROW
    out["kind"][n1:n1 + n2] = gk
    out["kind"][n1 + n2:] = narrow_kinds
    if n3:
        s_mid = narrow_starts.mean(axis=1)
        e_mid = narrow_ends.mean(axis=1)
        for k, (a, b) in enumerate((("x", "tx"), ("y", "ty"), ("z", "tz"))):
            out[a][n1 + n2:] = s_mid[:, k]
            out[b][n1 + n2:] = e_mid[:, k]
    return out
