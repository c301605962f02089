"""The jump trajectory model and its validity test (docs/jump-links.md, "Trajectory model").

A link carries the agent from a take-off point P0 to a landing point P1 (both on the
navmesh) along the horizontal direction u = (P1 - P0) / D:

* run-up: walk from P0 along u to the take-off point T (s = s_T), feet at z0;
* flight: a ballistic arc from T (z0) to the touch-down point L (s = s_L, z1) with vertical
  take-off speed vz (``sqrt(2 g max_jump_height)`` for a jump, 0 for walking off a ledge)
  and the constant horizontal speed vx = (s_L - s_T) / flight time;
* run-out: walk from L to P1, feet at z1.

s_T and s_L come from the ground under the path (the input triangles, not voxels): for a
drop or a jump across, T is where the ground the agent stands on ends; for a jump up T is
P0. For a jump (across or up), L is where the landing ground begins (the last gap before
P1); a drop lands on P1 itself.

The agent is a vertical cylinder of radius r and height h (stand height) that may overlap
geometry in its bottom ``climb`` (it steps over what it could walk over). Collisions are
tested against the solid heightfield, which contains every input triangle, with the
cylinder swept conservatively between samples, and its radius reduced by
``COLLISION_TOLERANCE`` for voxel rounding.

Parameters travel to the kernels in one float64 array indexed by the ``P_*`` constants.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .links_geom import has_ground

# Shrink of the agent radius in collision tests, metres: the solid voxels are up to a cell
# larger than the real walls, and the navmesh border itself sits exactly one agent radius
# from those voxels. The test oracle allows the same.
COLLISION_TOLERANCE = 0.1
# Bisection steps that refine a ground edge between two profile samples (one cell / 1024).
EDGE_BISECTIONS = 10

MODE_WALK_OFF = 0
MODE_JUMP = 1

(P_CS, P_CH, P_BX, P_BY, P_BZ, P_RC, P_CLIMB, P_TOP, P_H, P_DMAX, P_DROP, P_G, P_VZ,
 P_VXMAX, P_AMAX, P_DELTA, P_SWEEP, P_LAT, P_DS, P_SMAX, P_W, P_HH, P_SLOPE) = range(23)
N_PARAMS = 23


@njit(cache=True)
def flight_time(dz, mode, prm):
    """Airborne time to land dz above the take-off height, or -1 when impossible."""
    g = prm[P_G]
    if mode == MODE_JUMP:
        vz = prm[P_VZ]
        if vz <= 0.0:
            return -1.0
        disc = vz * vz - 2.0 * g * dz
        if disc < 0.0:
            return -1.0
        return (vz + math.sqrt(disc)) / g
    if dz >= 0.0:
        return -1.0
    return math.sqrt(-2.0 * dz / g)


@njit(cache=True)
def _seg_rect_dist2(px, py, qx, qy, x0, y0, x1, y1):
    """Squared distance between segment pq and the rectangle [x0,x1] x [y0,y1]."""
    # Liang-Barsky: does the segment cross the rectangle?
    dx = qx - px
    dy = qy - py
    t0 = 0.0
    t1 = 1.0
    inside = True
    for k in range(4):
        if k == 0:
            p, q = -dx, px - x0
        elif k == 1:
            p, q = dx, x1 - px
        elif k == 2:
            p, q = -dy, py - y0
        else:
            p, q = dy, y1 - py
        if p == 0.0:
            if q < 0.0:
                inside = False
                break
        else:
            r = q / p
            if p < 0.0:
                if r > t1:
                    inside = False
                    break
                t0 = max(t0, r)
            else:
                if r < t0:
                    inside = False
                    break
                t1 = min(t1, r)
    if inside:
        return 0.0
    best = 1e300
    for k in range(2):
        ex = px if k == 0 else qx
        ey = py if k == 0 else qy
        ddx = max(x0 - ex, 0.0, ex - x1)
        ddy = max(y0 - ey, 0.0, ey - y1)
        best = min(best, ddx * ddx + ddy * ddy)
    ll = dx * dx + dy * dy
    for k in range(4):
        cx = x0 if (k & 1) == 0 else x1
        cy = y0 if (k & 2) == 0 else y1
        t = 0.0
        if ll > 0.0:
            t = min(max(((cx - px) * dx + (cy - py) * dy) / ll, 0.0), 1.0)
        ex = px + t * dx - cx
        ey = py + t * dy - cy
        best = min(best, ex * ex + ey * ey)
    return best


# The highest span top of each column is filled in lazily (most columns are never looked
# at), stored plus TOP_OFFSET so that the zeros of a fresh (calloc'ed, free) array mean
# "not computed yet".
TOP_OFFSET = 1 << 30


@njit(cache=True, inline="always")
def _column_top(c, vox):
    column_head, span_min, span_max, span_next, col_top = vox
    if col_top[c] == 0:
        hi = -(1 << 29)
        s = column_head[c]
        while s != -1:
            hi = max(hi, span_max[s])
            s = span_next[s]
        col_top[c] = hi + TOP_OFFSET
    return col_top[c] - TOP_OFFSET


@njit(cache=True)
def solid_near_segment(px, py, qx, qy, radius, zlo, zhi, prm, vox):
    """True when a solid span overlaps (zlo, zhi) in a column closer than radius to the
    xy segment pq (strictly closer; touching is allowed)."""
    column_head, span_min, span_max, span_next, col_top = vox
    cs = prm[P_CS]
    ch = prm[P_CH]
    bx = prm[P_BX]
    by = prm[P_BY]
    bz = prm[P_BZ]
    width = int(prm[P_W])
    height = int(prm[P_HH])
    r = max(radius, 0.0)
    x0 = max(int(math.floor((min(px, qx) - r - bx) / cs)), 0)
    x1 = min(int(math.floor((max(px, qx) + r - bx) / cs)), width - 1)
    y0 = max(int(math.floor((min(py, qy) - r - by) / cs)), 0)
    y1 = min(int(math.floor((max(py, qy) + r - by) / cs)), height - 1)
    lo_lvl = (zlo - bz) / ch
    hi_lvl = (zhi - bz) / ch
    r2 = r * r
    for y in range(y0, y1 + 1):
        ry0 = by + y * cs
        for x in range(x0, x1 + 1):
            c = x + y * width
            if _column_top(c, vox) <= lo_lvl:
                continue  # everything below the cylinder (the usual floor)
            # heights first (cheap, and most columns are floor below the cylinder)
            s = column_head[c]
            hit = False
            while s != -1:
                if span_min[s] >= hi_lvl:
                    break
                if span_max[s] > lo_lvl:
                    hit = True
                    break
                s = span_next[s]
            if not hit:
                continue
            rx0 = bx + x * cs
            d2 = _seg_rect_dist2(px, py, qx, qy, rx0, ry0, rx0 + cs, ry0 + cs)
            if d2 < r2 or (r == 0.0 and d2 == 0.0):
                return True
    return False


@njit(cache=True)
def step_blocked(ax, ay, az, bx, by, bz, ex, ey, prm, vox):
    """Conservative test of the cylinder moving from feet a to feet b, widened sideways by
    +-P_LAT along (ex, ey) (the spacing of neighbouring samples of a wide link)."""
    mx = 0.5 * (ax + bx)
    my = 0.5 * (ay + by)
    half = 0.5 * math.sqrt((bx - ax) ** 2 + (by - ay) ** 2)
    rad = prm[P_RC] + half
    zlo = min(az, bz) + prm[P_CLIMB]
    zhi = max(az, bz) + prm[P_TOP]
    lat = prm[P_LAT]
    return solid_near_segment(mx - lat * ex, my - lat * ey, mx + lat * ex, my + lat * ey,
                              rad, zlo, zhi, prm, vox)


@njit(cache=True, inline="always")
def _pt_seg_d2(px, py, ax, ay, bx, by):
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    t = 0.0
    if ll > 0.0:
        t = min(max(((px - ax) * dx + (py - ay) * dy) / ll, 0.0), 1.0)
    ex = ax + t * dx - px
    ey = ay + t * dy - py
    return ex * ex + ey * ey


@njit(cache=True)
def _quad_rect_dist2(qx, qy, x0, y0, x1, y1):
    """Squared distance between the convex quadrilateral (qx, qy: 4 corners in order) and
    the rectangle [x0, x1] x [y0, y1]; 0 when they overlap."""
    # separating axis test: the rectangle's axes, then the quad's edge normals
    sep = (max(qx[0], qx[1], qx[2], qx[3]) < x0 or min(qx[0], qx[1], qx[2], qx[3]) > x1
           or max(qy[0], qy[1], qy[2], qy[3]) < y0 or min(qy[0], qy[1], qy[2], qy[3]) > y1)
    if not sep:
        for k in range(4):
            nx = qy[(k + 1) % 4] - qy[k]
            ny = qx[k] - qx[(k + 1) % 4]
            q_lo = 1e300
            q_hi = -1e300
            for m in range(4):
                d = nx * qx[m] + ny * qy[m]
                q_lo = min(q_lo, d)
                q_hi = max(q_hi, d)
            r_lo = 1e300
            r_hi = -1e300
            for m in range(4):
                cx = x0 if (m & 1) == 0 else x1
                cy = y0 if (m & 2) == 0 else y1
                d = nx * cx + ny * cy
                r_lo = min(r_lo, d)
                r_hi = max(r_hi, d)
            if q_hi < r_lo or r_hi < q_lo:
                sep = True
                break
    if not sep:
        return 0.0
    best = 1e300
    for m in range(4):
        dx = max(x0 - qx[m], 0.0, qx[m] - x1)
        dy = max(y0 - qy[m], 0.0, qy[m] - y1)
        best = min(best, dx * dx + dy * dy)
        cx = x0 if (m & 1) == 0 else x1
        cy = y0 if (m & 2) == 0 else y1
        for k in range(4):
            best = min(best, _pt_seg_d2(cx, cy, qx[k], qy[k], qx[(k + 1) % 4],
                                        qy[(k + 1) % 4]))
    return best


@njit(cache=True)
def walk_blocked(x0, y0, ux, uy, s0, s1, z, ex, ey, prm, vox):
    """The cylinder walking from s0 to s1 along the ray, feet at height z, widened sideways
    by +-P_LAT along (ex, ey): one exact test of the whole swept area (a parallelogram
    grown by the radius) against the columns."""
    column_head, span_min, span_max, span_next, col_top = vox
    lat = prm[P_LAT]
    ax = x0 + ux * s0
    ay = y0 + uy * s0
    bx_ = x0 + ux * s1
    by_ = y0 + uy * s1
    qx = np.empty(4)
    qy = np.empty(4)
    qx[0] = ax - lat * ex
    qy[0] = ay - lat * ey
    qx[1] = bx_ - lat * ex
    qy[1] = by_ - lat * ey
    qx[2] = bx_ + lat * ex
    qy[2] = by_ + lat * ey
    qx[3] = ax + lat * ex
    qy[3] = ay + lat * ey
    cs = prm[P_CS]
    ch = prm[P_CH]
    bx = prm[P_BX]
    by = prm[P_BY]
    bz = prm[P_BZ]
    width = int(prm[P_W])
    height = int(prm[P_HH])
    r = prm[P_RC]
    c0 = max(int(math.floor((min(qx[0], qx[1], qx[2], qx[3]) - r - bx) / cs)), 0)
    c1 = min(int(math.floor((max(qx[0], qx[1], qx[2], qx[3]) + r - bx) / cs)), width - 1)
    r0 = max(int(math.floor((min(qy[0], qy[1], qy[2], qy[3]) - r - by) / cs)), 0)
    r1 = min(int(math.floor((max(qy[0], qy[1], qy[2], qy[3]) + r - by) / cs)), height - 1)
    lo_lvl = (z + prm[P_CLIMB] - bz) / ch
    hi_lvl = (z + prm[P_TOP] - bz) / ch
    r2 = r * r
    for y in range(r0, r1 + 1):
        ry0 = by + y * cs
        for x in range(c0, c1 + 1):
            c = x + y * width
            if _column_top(c, vox) <= lo_lvl:
                continue
            s = column_head[c]
            hit = False
            while s != -1:
                if span_min[s] >= hi_lvl:
                    break
                if span_max[s] > lo_lvl:
                    hit = True
                    break
                s = span_next[s]
            if not hit:
                continue
            rx0 = bx + x * cs
            d2 = _quad_rect_dist2(qx, qy, rx0, ry0, rx0 + cs, ry0 + cs)
            if d2 < r2 or (r == 0.0 and d2 == 0.0):
                return True
    return False


@njit(cache=True)
def arc_blocked(tx, ty, z0, ux, uy, vx, vz, t_f, ex, ey, prm, vox):
    """Sweep the flight arc; returns (blocked, arc length)."""
    g = prm[P_G]
    # path length bound: horizontal + climb to the apex + fall from it
    apex = vz * vz / (2.0 * g)
    z1 = z0 + vz * t_f - 0.5 * g * t_f * t_f
    est = vx * t_f + 2.0 * apex + abs(z1 - z0)
    n = max(1, int(math.ceil(est / prm[P_SWEEP])))
    # most arcs that fail hit something big: a sparse look first (a subset of the sweep)
    for i in range(4, n, 4):
        tau = t_f * i / n
        h = vx * tau
        px = tx + ux * h
        py = ty + uy * h
        pz = z0 + vz * tau - 0.5 * g * tau * tau
        if step_blocked(px, py, pz, px, py, pz, ex, ey, prm, vox):
            return True, 0.0
    length = 0.0
    pax, pay, paz = tx, ty, z0
    for i in range(1, n + 1):
        tau = t_f * i / n
        h = vx * tau
        pbx = tx + ux * h
        pby = ty + uy * h
        pbz = z0 + vz * tau - 0.5 * g * tau * tau
        if step_blocked(pax, pay, paz, pbx, pby, pbz, ex, ey, prm, vox):
            return True, length
        length += math.sqrt((pbx - pax) ** 2 + (pby - pay) ** 2 + (pbz - paz) ** 2)
        pax, pay, paz = pbx, pby, pbz
    return False, length


@njit(cache=True)
def support(x, y, zref, prm, tri):
    vertices, triangles, tstart, titems, tgrid = tri
    c = prm[P_CLIMB]
    return has_ground(x, y, zref - c, zref + c, vertices, triangles, tstart, titems, tgrid)


@njit(cache=True)
def takeoff_distance(x0, y0, z0, ux, uy, limit, prm, tri):
    """s_T: where the ground under the run-up (within climb of z0) ends, marching every
    P_DELTA from P0 and bisecting the first gap. -1 when P0 itself has no ground or the
    ground goes on past ``limit``."""
    if not support(x0, y0, z0, prm, tri):
        return -1.0
    d = prm[P_DELTA]
    j = 1
    while True:
        s = j * d
        if s > limit + d:
            return -1.0
        if not support(x0 + ux * s, y0 + uy * s, z0, prm, tri):
            lo = s - d
            hi = s
            for _ in range(EDGE_BISECTIONS):
                mid = 0.5 * (lo + hi)
                if support(x0 + ux * mid, y0 + uy * mid, z0, prm, tri):
                    lo = mid
                else:
                    hi = mid
            if lo > limit:
                return -1.0
            return lo
        j += 1


@njit(cache=True)
def touchdown_distance(x0, y0, ux, uy, dist, z1, s_t, prm, tri):
    """s_L: start of the landing ground (within climb of z1) that reaches P1, marching back
    from P1 every P_DELTA and bisecting the last gap; s_t when there is no gap after s_t.
    -1 when P1 has no ground or the run-out would be longer than P_AMAX."""
    if not support(x0 + ux * dist, y0 + uy * dist, z1, prm, tri):
        return -1.0
    d = prm[P_DELTA]
    a_max = prm[P_AMAX]
    j = 1
    while True:
        s = dist - j * d
        if s <= s_t:
            return s_t if dist - s_t <= a_max else -1.0
        if dist - s > a_max + d:
            return -1.0
        if not support(x0 + ux * s, y0 + uy * s, z1, prm, tri):
            lo = s
            hi = s + d
            for _ in range(EDGE_BISECTIONS):
                mid = 0.5 * (lo + hi)
                if support(x0 + ux * mid, y0 + uy * mid, z1, prm, tri):
                    hi = mid
                else:
                    lo = mid
            if dist - hi > a_max:
                return -1.0
            return hi
        j += 1


@njit(cache=True)
def kind_of(dz, climb):
    """0 drop, 1 jump across, 2 jump up (``navmesh.LINK_*``)."""
    if dz < -climb:
        return 0
    if dz <= climb:
        return 1
    return 2


@njit(cache=True)
def flight_ok(kind, mode, dz, d_air, prm):
    """Reach rules; returns (ok, flight time, vx)."""
    if kind == 0:
        if -dz > prm[P_DROP] + 1e-9:
            return False, 0.0, 0.0
    elif dz > prm[P_H] + 1e-9 or mode != MODE_JUMP:
        return False, 0.0, 0.0
    if d_air > prm[P_DMAX] * (1.0 + 1e-9) + 1e-9:
        return False, 0.0, 0.0
    t_f = flight_time(dz, mode, prm)
    if t_f <= 0.0:
        return False, 0.0, 0.0
    vx = d_air / t_f
    if vx > prm[P_VXMAX] * (1.0 + 1e-9):
        return False, 0.0, 0.0
    return True, t_f, vx


@njit(cache=True)
def check_flight(x0, y0, z0, ux, uy, dist, z1, kind, mode, s_t, s_l, ex, ey, prm, vox):
    """Reach and collision of the flight and run-out (the run-up is tested separately).
    Returns (ok, length of flight + run-out)."""
    dz = z1 - z0
    ok, t_f, vx = flight_ok(kind, mode, dz, s_l - s_t, prm)
    if not ok:
        return False, 0.0
    vz = prm[P_VZ] if mode == MODE_JUMP else 0.0
    blocked, arc_len = arc_blocked(x0 + ux * s_t, y0 + uy * s_t, z0, ux, uy, vx, vz, t_f,
                                   ex, ey, prm, vox)
    if blocked:
        return False, 0.0
    if dist > s_l and walk_blocked(x0, y0, ux, uy, s_l, dist, z1, ex, ey, prm, vox):
        return False, 0.0
    return True, arc_len + (dist - s_l)


@njit(cache=True)
def check_path(x0, y0, z0, x1, y1, z1, kind, mode, ex, ey, prm, tri, vox):
    """Full test of one trajectory P0 -> P1 of a given kind and mode (see module doc).

    Returns (ok, s_T, s_L, path length).
    """
    dx = x1 - x0
    dy = y1 - y0
    dist = math.sqrt(dx * dx + dy * dy)
    if dist <= 1e-9:
        return False, 0.0, 0.0, 0.0
    ux = dx / dist
    uy = dy / dist
    if kind == 2:
        s_t = 0.0
        if not support(x0, y0, z0, prm, tri):
            return False, 0.0, 0.0, 0.0
    else:
        s_t = takeoff_distance(x0, y0, z0, ux, uy, min(prm[P_AMAX], dist), prm, tri)
        if s_t < 0.0 or s_t >= dist:
            return False, 0.0, 0.0, 0.0
    if kind == 0:
        s_l = dist
        if not support(x1, y1, z1, prm, tri):
            return False, 0.0, 0.0, 0.0
    else:
        s_l = touchdown_distance(x0, y0, ux, uy, dist, z1, s_t, prm, tri)
        if s_l < 0.0:
            return False, 0.0, 0.0, 0.0
    if s_t > 0.0 and walk_blocked(x0, y0, ux, uy, 0.0, s_t, z0, ex, ey, prm, vox):
        return False, 0.0, 0.0, 0.0
    ok, rest = check_flight(x0, y0, z0, ux, uy, dist, z1, kind, mode, s_t, s_l, ex, ey, prm,
                            vox)
    if not ok:
        return False, 0.0, 0.0, 0.0
    return True, s_t, s_l, s_t + rest


def make_params(cfg, settings, sample_step: float) -> np.ndarray:
    """The P_* parameter array for a bake (world units)."""
    s = settings
    cs, ch = float(cfg.cs), float(cfg.ch)
    climb = cfg.walkable_climb * ch
    top = float(s.stand_height if s.multi_stance else s.agent_height)
    g = float(s.gravity)
    h = float(s.max_jump_height)
    vz = math.sqrt(2.0 * g * h)
    vx_max = g * float(s.max_jump_distance) / (2.0 * vz) if vz > 0.0 else math.inf
    a_max = float(s.agent_radius) + 3.0 * cs
    prm = np.zeros(N_PARAMS, np.float64)
    prm[P_CS] = cs
    prm[P_CH] = ch
    prm[P_BX], prm[P_BY], prm[P_BZ] = (float(v) for v in cfg.bmin)
    prm[P_RC] = max(float(s.agent_radius) - COLLISION_TOLERANCE, 0.0)
    prm[P_CLIMB] = climb
    prm[P_TOP] = top
    prm[P_H] = h
    prm[P_DMAX] = float(s.max_jump_distance)
    prm[P_DROP] = float(s.max_drop_height)
    prm[P_G] = g
    prm[P_VZ] = vz
    prm[P_VXMAX] = vx_max
    prm[P_AMAX] = a_max
    prm[P_DELTA] = cs
    prm[P_SWEEP] = 0.5 * cs
    prm[P_LAT] = 0.5 * sample_step
    prm[P_DS] = 0.5 * cs
    prm[P_SMAX] = 2.0 * a_max + float(s.max_jump_distance)
    prm[P_W] = cfg.width
    prm[P_HH] = cfg.height
    prm[P_SLOPE] = math.cos(math.radians(float(s.agent_max_slope)))
    return prm
