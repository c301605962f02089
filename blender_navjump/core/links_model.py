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
``settings.LINK_COLLISION_TOLERANCE`` for voxel rounding.

Parameters travel to the kernels as one named tuple, ``settings.LinkParams`` (``prm``),
built by ``settings.voxel_config``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .kinds import LINK_DROP, LINK_JUMP_ACROSS, LINK_JUMP_UP
from .links_geom import (
    bin_range,
    box_overlaps,
    ground_height,
    has_ground,
    pt_seg_d2,
    set_quad,
    swept_body_hits_triangles,
    triangle_near_quad,
)
from .query.jit import hot_kernel, ifloor

# The link stage's rows, as structured arrays (numba reads and writes their fields by name).
# A border sample (``links._sample_edges``): point on a border edge (its height measured on
# the triangles), the edge's unit direction, outward normal, polygon, border edge (index in
# the chained order), the sample spacing on its edge, border chain.
SAMPLE = np.dtype([("x", np.float64), ("y", np.float64), ("z", np.float64),
                   ("ex", np.float64), ("ey", np.float64), ("nx", np.float64),
                   ("ny", np.float64), ("poly", np.int64), ("edge", np.int64),
                   ("step", np.float64), ("chain", np.int64)])
# A sample's landing for one link kind (``links_search.search_landings``; whether it has
# one is ``found_at``): search direction and march step, landing point and polygon, mode,
# take-off and touch-down distances s_T and s_L, path length.
LANDING = np.dtype([("dir", np.int64), ("step", np.int64), ("x", np.float64),
                    ("y", np.float64), ("z", np.float64), ("poly", np.int64),
                    ("mode", np.int64), ("s_t", np.float64), ("s_l", np.float64),
                    ("length", np.float64)])
# A fitted link (``links_search.validate_groups``): first and last sample, kind, mode, start
# and end polygons, mean path length, start and end segments (two xyz points each).
LINK = np.dtype([("i0", np.int64), ("i1", np.int64), ("kind", np.int64), ("mode", np.int64),
                 ("start_poly", np.int64), ("end_poly", np.int64), ("length", np.float64),
                 ("start", np.float64, (2, 3)), ("end", np.float64, (2, 3))])


class Reach(NamedTuple):
    """``flight_ok``'s answer: within the reach rules, and then the flight time and the
    horizontal speed."""

    ok: bool
    t_f: float
    vx: float


class Flight(NamedTuple):
    """``check_flight``'s answer: valid, and the length of the flight plus the run-out."""

    ok: bool
    length: float


class Path(NamedTuple):
    """``check_path``'s answer: valid, the take-off and touch-down distances s_T and s_L,
    the path length (run-up + arc + run-out)."""

    ok: bool
    s_t: float
    s_l: float
    length: float


class Frame(NamedTuple):
    """A border sample's take-off frame: its point, edge direction and outward normal."""

    x: float
    y: float
    z: float
    ex: float
    ey: float
    nx: float
    ny: float


@hot_kernel
def sample_frame(s):
    """A sample row's take-off frame (``Frame``)."""
    return Frame(s.x, s.y, s.z, s.ex, s.ey, s.nx, s.ny)

# Bisection steps that refine a ground edge between two profile samples: one cell / 64
# (5 mm at 0.3 m cells), far below the voxel and the collision tolerance; the kept side is
# the supported one, so a measured gap is never shorter than the real one.
EDGE_BISECTIONS = 6

MODE_WALK_OFF = 0
MODE_JUMP = 1
# Tolerance of the height limits, metres: a landing exactly at max_jump_height (or a drop of
# exactly max_drop_height) is allowed whatever the rounding of the heights.
HEIGHT_EPS = 1e-9



@hot_kernel
def flight_time(dz, mode, prm):
    """Airborne time to land dz above the take-off height, or -1 when impossible."""
    g = prm.gravity
    if mode == MODE_JUMP:
        vz = prm.vz
        if vz <= 0.0:
            return -1.0
        disc = vz * vz - 2.0 * g * dz
        if disc < 0.0:
            # a landing at the apex itself (dz = max_jump_height) is allowed up to the
            # limit's own tolerance: rounding must not decide it
            if dz > prm.jump_height + HEIGHT_EPS:
                return -1.0
            disc = 0.0
        return (vz + math.sqrt(disc)) / g
    if dz >= 0.0:
        return -1.0
    return math.sqrt(-2.0 * dz / g)


@hot_kernel
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
            best = min(best, pt_seg_d2(cx, cy, qx[k], qy[k], qx[(k + 1) % 4],
                                        qy[(k + 1) % 4]))
    return best


@hot_kernel
def column_range(xlo, xhi, ylo, yhi, prm):
    """Columns (x0, x1, y0, y1, inclusive, clipped to the grid) covering a world xy box."""
    cs = prm.cs
    x0 = max(ifloor((xlo - prm.bx) / cs), 0)
    x1 = min(ifloor((xhi - prm.bx) / cs), int(prm.grid_w) - 1)
    y0 = max(ifloor((ylo - prm.by) / cs), 0)
    y1 = min(ifloor((yhi - prm.by) / cs), int(prm.grid_h) - 1)
    return x0, x1, y0, y1


@hot_kernel
def _swept_corners(x0, y0, ux, uy, s0, s1, ex, ey, lat):
    """Corners (x tuple, y tuple), in order, of the walked segment s0..s1 along the ray
    widened by +-lat along (ex, ey); tuples, so no heap allocation on this hot path."""
    ax = x0 + ux * s0
    ay = y0 + uy * s0
    bx = x0 + ux * s1
    by = y0 + uy * s1
    return ((ax - lat * ex, bx - lat * ex, bx + lat * ex, ax + lat * ex),
            (ay - lat * ey, by - lat * ey, by + lat * ey, ay + lat * ey))


@hot_kernel
def walk_blocked(x0, y0, ux, uy, s0, s1, z, ex, ey, prm, vox):
    """The cylinder walking from s0 to s1 along the ray, feet at height z, widened sideways
    by +-lateral along (ex, ey): one exact test of the whole swept area (a parallelogram
    grown by the radius) against the columns."""
    qx, qy = _swept_corners(x0, y0, ux, uy, s0, s1, ex, ey, prm.lateral)
    return columns_near(qx, qy, z + prm.climb, z + prm.top, prm.body_radius, prm, vox)


@hot_kernel
def columns_near(qx, qy, zlo, zhi, r, prm, vox):
    """A solid span overlapping the heights (zlo, zhi) in a column whose cell comes closer
    than r to the convex quadrilateral (qx, qy: 4 corners in order). The heightfield holds
    every input triangle (each span reaches from the floor to the ceiling of the
    triangles' heights in its cell), so where this is False no triangle comes that close
    at those heights (``links_geom.swept_body_hits_triangles`` is False too)."""
    cs = prm.cs
    ch = prm.ch
    bx = prm.bx
    by = prm.by
    bz = prm.bz
    width = int(prm.grid_w)
    c0, c1, r0, r1 = column_range(min(qx[0], qx[1], qx[2], qx[3]) - r,
                                  max(qx[0], qx[1], qx[2], qx[3]) + r,
                                  min(qy[0], qy[1], qy[2], qy[3]) - r,
                                  max(qy[0], qy[1], qy[2], qy[3]) + r, prm)
    lo_lvl = (zlo - bz) / ch
    hi_lvl = (zhi - bz) / ch
    r2 = r * r
    for y in range(r0, r1 + 1):
        ry0 = by + y * cs
        for x in range(c0, c1 + 1):
            c = x + y * width
            if not spans_overlap(c, lo_lvl, hi_lvl, vox):
                continue
            rx0 = bx + x * cs
            d2 = _quad_rect_dist2(qx, qy, rx0, ry0, rx0 + cs, ry0 + cs)
            if d2 < r2 or (r == 0.0 and d2 == 0.0):
                return True
    return False


@hot_kernel
def _feet_range(ta, tb, z0, vz, g):
    """Lowest and highest feet height of the arc z0 + vz t - g t^2 / 2 over [ta, tb]."""
    za = z0 + vz * ta - 0.5 * g * ta * ta
    zb = z0 + vz * tb - 0.5 * g * tb * tb
    hi = max(za, zb)
    t_apex = vz / g
    if ta < t_apex < tb:
        hi = z0 + 0.5 * vz * t_apex
    return min(za, zb), hi


@hot_kernel
def spans_overlap(c, lo_lvl, hi_lvl, vox):
    """A solid span of column c overlaps the levels (lo_lvl, hi_lvl)?"""
    column_head, span_min, span_max, span_next = vox
    s = column_head[c]
    while s != -1:
        if span_min[s] >= hi_lvl:
            return False
        if span_max[s] > lo_lvl:
            return True
        s = span_next[s]
    return False


@hot_kernel
def arc_length(z0, vx, vz, t_f, prm):
    """Length of the flight arc: a polyline every arc_step of its length bound."""
    g = prm.gravity
    d_air = vx * t_f
    apex = vz * vz / (2.0 * g)
    z1 = z0 + vz * t_f - 0.5 * g * t_f * t_f
    est = d_air + 2.0 * apex + abs(z1 - z0)
    n = max(1, int(math.ceil(est / prm.arc_step)))
    length = 0.0
    pz = z0
    for i in range(1, n + 1):
        tau = t_f * i / n
        bz_ = z0 + vz * tau - 0.5 * g * tau * tau
        length += math.sqrt((d_air / n) ** 2 + (bz_ - pz) ** 2)
        pz = bz_
    return length


# Finest stretch of a flight the triangle test splits down to (metres of travel, each way,
# horizontally and vertically): a triangle still within reach of the body swept over such
# a stretch blocks the flight. The swept body is at most this much larger than the body
# at some instant of the stretch.
TRI_SWEEP = 0.04
# Depth of a flight test's stack of halved stretches (``Scratch.stack``): a hit not refined
# to TRI_SWEEP before it is full blocks the flight.
ARC_STACK = 128


class Scratch(NamedTuple):
    """Work arrays of the triangle tests, made once per kernel call (``new_scratch``) and
    handed down, so that the tests themselves allocate nothing and run as ``hot_kernel``s
    (no reference counting per call: on dungeon.obj the increfs and decrefs of the arrays
    passed to every test took 12 % of the link stage). ``p0..p2``: clipped polygons (8, 3);
    ``quad``: the swept quadrilateral (4, 3); ``win``: a flight's time windows (2, 2);
    ``stack``: its halved stretches (128, 2). One per thread."""

    p0: np.ndarray
    p1: np.ndarray
    p2: np.ndarray
    quad: np.ndarray
    win: np.ndarray
    stack: np.ndarray


@njit(cache=True)
def new_scratch():
    """A ``Scratch`` (inside a kernel or from Python)."""
    return Scratch(np.empty((8, 3)), np.empty((8, 3)), np.empty((8, 3)), np.empty((4, 3)),
                   np.empty((2, 2)), np.empty((ARC_STACK, 2)))


@hot_kernel
def tri_walk_blocked(x0, y0, ux, uy, s0, s1, z, ex, ey, prm, tri, wk):
    """``walk_blocked`` on the input triangles, exact: the area the body sweeps (the
    walked segment widened sideways by +-lateral, grown by the radius) against every
    triangle clipped to the body's heights. ``wk``: a ``Scratch``."""
    qx, qy = _swept_corners(x0, y0, ux, uy, s0, s1, ex, ey, prm.lateral)
    return swept_body_hits_triangles(qx, qy, z + prm.climb, z + prm.top, prm.body_radius,
                                     tri, wk.p0, wk.p1, wk.p2, wk.quad)


@hot_kernel
def _feet_band(lo, hi, z0, vz, g, t_f, win):
    """Times in [0, t_f] when the feet z0 + vz t - g t^2 / 2 lie between lo and hi (a
    concave parabola: at most two intervals), written to ``win`` rows; returns their
    number. Slightly widened (1e-9 s): conservative."""
    # feet > lo on [a1, a2]
    d = vz * vz - 2.0 * g * (lo - z0)
    if d <= 0.0:
        return 0
    sq = math.sqrt(d)
    a1 = max((vz - sq) / g - 1e-9, 0.0)
    a2 = min((vz + sq) / g + 1e-9, t_f)
    if a1 > a2:
        return 0
    # feet >= hi on [b1, b2] (nothing when the apex stays below hi)
    d = vz * vz - 2.0 * g * (hi - z0)
    if d <= 0.0:
        win[0, 0] = a1
        win[0, 1] = a2
        return 1
    sq = math.sqrt(d)
    b1 = (vz - sq) / g + 1e-9
    b2 = (vz + sq) / g - 1e-9
    n = 0
    if a1 < min(b1, a2):
        win[n, 0] = a1
        win[n, 1] = min(b1, a2)
        n += 1
    if max(b2, a1) < a2:
        win[n, 0] = max(b2, a1)
        win[n, 1] = a2
        n += 1
    return n


# A flight's triangles are listed per stretch of about this many cells of travel
# (horizontal or vertical), at most ARC_STRETCHES_MAX stretches: each stretch's box is
# tight around the body there, so a triangle is looked at only where the body comes near it
# (the landing ledge's top, below the body for most of a jump up, is listed only for the
# stretches that reach down to it). Only where the solid bins are crowded (``by_top``):
# large triangles would be listed and tested again in every stretch (Recast's meshes: twice
# the time).
ARC_STRETCH_CELLS = 2.0
ARC_STRETCHES_MAX = 8


@hot_kernel
def tri_arc_blocked(tx, ty, z0, ux, uy, vx, vz, t_f, ex, ey, prm, tri, wk):
    """``arc_blocked`` on the input triangles: does any triangle meet the body (the
    cylinder widened sideways by +-lateral) at some instant of the flight? ``wk``: a
    ``Scratch``.

    The flight is cut into a few stretches of time; the triangles near each stretch
    (bounds against the body's box over the stretch) are taken bin by bin, each once. For
    each, only the times within the stretch when the body's heights reach the triangle's
    height range are looked at (``_feet_band``); over such a stretch the body sweeps a
    parallelogram (grown by the radius) at the union of its heights, tested exactly
    against the triangle (``triangle_near_quad``); a hit is refined by halving the
    stretch, down to TRI_SWEEP of travel each way."""
    g = prm.gravity
    lat = prm.lateral
    rc = prm.body_radius
    d_air = vx * t_f
    zmin_all, zmax_all = _feet_range(0.0, t_f, z0, vz, g)
    travel = max(d_air, 2.0 * (zmax_all - zmin_all))
    n_parts = 1
    if tri.by_top:
        n_parts = min(max(int(math.ceil(travel / (ARC_STRETCH_CELLS * prm.cs))), 1),
                      ARC_STRETCHES_MAX)
    box = tri.box
    nx = tri.grid.nx
    first_x = tri.first_bin_x
    first_y = tri.first_bin_y
    start = tri.solid_start
    items = tri.solid_items
    for part in range(n_parts):
        pa = t_f * part / n_parts
        pb = t_f * (part + 1) / n_parts if part + 1 < n_parts else t_f
        plo, phi = _feet_range(pa, pb, z0, vz, g)
        qx, qy = _swept_corners(tx, ty, ux, uy, vx * pa, vx * pb, ex, ey, lat)
        xlo = min(qx[0], qx[1], qx[2], qx[3]) - rc
        xhi = max(qx[0], qx[1], qx[2], qx[3]) + rc
        ylo = min(qy[0], qy[1], qy[2], qy[3]) - rc
        yhi = max(qy[0], qy[1], qy[2], qy[3]) + rc
        zlo = plo + prm.climb
        zhi = phi + prm.top
        # the triangles whose bounds overlap the stretch's box, each in the first of its
        # bins the box visits (as ``links_geom.swept_body_hits_triangles`` takes them)
        i0, i1, j0, j1 = bin_range(xlo, xhi, ylo, yhi, tri.grid)
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                b = i + j * nx
                for q in range(start[b], start[b + 1]):
                    t = items[q]
                    if box[t].zmax <= zlo and tri.by_top:
                        break  # highest first: the rest of the bin is below the box
                    if not box_overlaps(box, t, xlo, xhi, ylo, yhi, zlo, zhi):
                        continue
                    if max(first_x[t], i0) != i or max(first_y[t], j0) != j:
                        continue
                    if _flight_meets(t, pa, pb, tx, ty, z0, ux, uy, vx, vz, t_f, ex, ey,
                                     prm, tri, wk):
                        return True
    return False


@hot_kernel
def _flight_meets(t, pa, pb, tx, ty, z0, ux, uy, vx, vz, t_f, ex, ey, prm, tri, wk):
    """Does triangle t meet the flying body during the stretch [pa, pb] of the flight
    (``tri_arc_blocked``)?"""
    g = prm.gravity
    climb = prm.climb
    top = prm.top
    lat = prm.lateral
    rc = prm.body_radius
    r2 = rc * rc
    box = tri.box
    win = wk.win
    stack = wk.stack
    tz_lo = box[t].zmin
    tz_hi = box[t].zmax
    # the body (feet + climb, feet + top) reaches into (tz_lo, tz_hi)
    nw = _feet_band(tz_lo - top, tz_hi - climb, z0, vz, g, t_f, win)
    top_s = 0
    for w in range(nw):
        wa = max(win[w, 0], pa)
        wb = min(win[w, 1], pb)
        if wa > wb:
            continue
        stack[top_s, 0] = wa
        stack[top_s, 1] = wb
        top_s += 1
    while top_s > 0:
        top_s -= 1
        ta = stack[top_s, 0]
        tb = stack[top_s, 1]
        sa = vx * ta
        sb = vx * tb
        zlo, zhi = _feet_range(ta, tb, z0, vz, g)
        qx, qy = _swept_corners(tx, ty, ux, uy, sa, sb, ex, ey, lat)
        # bounds first: most triangles near a flight are far from the body while its
        # heights reach theirs (the take-off ground behind the ledge, once fallen)
        if (box[t].xmin >= max(qx[0], qx[1], qx[2], qx[3]) + rc
                or box[t].xmax <= min(qx[0], qx[1], qx[2], qx[3]) - rc
                or box[t].ymin >= max(qy[0], qy[1], qy[2], qy[3]) + rc
                or box[t].ymax <= min(qy[0], qy[1], qy[2], qy[3]) - rc
                or tz_lo >= zhi + top or tz_hi <= zlo + climb):
            continue
        area = set_quad(qx, qy, wk.quad)
        if not triangle_near_quad(t, qx, qy, wk.quad, area, zlo + climb, zhi + top, r2,
                                  tri.vertices, tri.triangles, wk.p0, wk.p1, wk.p2):
            continue
        if (sb - sa <= TRI_SWEEP and zhi - zlo <= TRI_SWEEP) or top_s + 2 > ARC_STACK:
            return True
        tm = 0.5 * (ta + tb)
        stack[top_s, 0] = ta
        stack[top_s, 1] = tm
        stack[top_s + 1, 0] = tm
        stack[top_s + 1, 1] = tb
        top_s += 2
    return False


@hot_kernel
def body_walk_blocked(x0, y0, ux, uy, s0, s1, z, ex, ey, prm, tri, vox, wk):
    """The walk is blocked: the voxel test first (fast, never misses a contact, but voxels
    are up to a cell larger than the walls), a refusal confirmed on the triangles."""
    if not walk_blocked(x0, y0, ux, uy, s0, s1, z, ex, ey, prm, vox):
        return False
    return tri_walk_blocked(x0, y0, ux, uy, s0, s1, z, ex, ey, prm, tri, wk)


@hot_kernel
def support(x, y, zref, prm, tri):
    c = prm.climb
    return has_ground(x, y, zref - c, zref + c, tri)


@hot_kernel
def takeoff_distance(x0, y0, z0, ux, uy, limit, prm, tri):
    """s_T: where the ground under the run-up (within climb of z0) ends, marching every
    profile_step from P0 and bisecting the first gap. -1 when P0 itself has no ground or the
    ground goes on past ``limit``."""
    if not support(x0, y0, z0, prm, tri):
        return -1.0
    d = prm.profile_step
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
            if hi > limit:  # the edge lies somewhere in [lo, hi]: judged at its far end
                return -1.0
            return lo
        j += 1


@hot_kernel
def touchdown_distance(x0, y0, ux, uy, dist, z1, s_t, prm, tri):
    """s_L: start of the landing ground (within climb of z1) that reaches P1, marching back
    from P1 every profile_step and bisecting the last gap; s_t when there is no gap after s_t.
    -1 when P1 has no ground or the run-out would be longer than run_max."""
    return ground_begins(x0, y0, ux, uy, dist, z1, s_t, prm.run_max, prm, tri)


@hot_kernel
def ground_begins(x0, y0, ux, uy, dist, z1, s_t, a_max, prm, tri):
    """``touchdown_distance`` with the run-out limited to ``a_max``."""
    if not support(x0 + ux * dist, y0 + uy * dist, z1, prm, tri):
        return -1.0
    d = prm.profile_step
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
            if dist - lo > a_max:  # judged at the far end of [lo, hi]
                return -1.0
            return hi
        j += 1


# A jump across lands at most this many degrees off the landing edge's normal
# (``lands_squarely``, tested in ``links_search.search_landings`` after the flight test).
# The run-out (touch-down to the navmesh point P1) is limited to run_max = agent_radius +
# 3 cells along the flight; the navmesh border lies an agent radius plus 0.5-1.5 cells
# (voxels, erosion, contour simplification: different at every angle and grid offset)
# inside a landing edge, i.e. 0.75-1.05 m at the defaults, and a flight landing phi off
# the edge's normal runs that inset / cos(phi) to reach it: beyond 45 degrees this passes
# run_max in some bakes and not in others. Turned, nav_test got 1.2-1.5 m jumps across
# the concave corners of its pits, landing 53-60 degrees off the far edge's normal (their
# run-outs 1.2-1.6 m), which the unturned bake refused (its border lay further in).
LAND_MAX_ANGLE = 45.0
LAND_MIN_COS = math.sin(math.radians(LAND_MAX_ANGLE))  # |cos| of the chord with u's normal


@hot_kernel
def lands_squarely(x0, y0, ux, uy, dist, z1, s_t, s_l, prm, tri):
    """Whether a jump along u from P0, touching down at s_L (``touchdown_distance``), lands
    within ``LAND_MAX_ANGLE`` of the landing edge's normal, measured on the triangles: the
    landing ground's beginnings along u from the points a cell either side of P0 (across
    u), with s_L, give the edge's two half-chords around L; it passes when either is at
    most that angle off square to u (a curved edge, or L beside a corner, has one), and
    also when neither could be measured (no edge there: s_L = s_T)."""
    if s_l <= s_t:
        return True
    h = prm.cs
    wx = -uy
    wy = ux
    lx = x0 + s_l * ux
    ly = y0 + s_l * uy
    lim = prm.march_max
    measured = False
    for side in (-1.0, 1.0):
        px = x0 + side * h * wx
        py = y0 + side * h * wy
        sl = ground_begins(px, py, ux, uy, dist, z1, s_t, lim, prm, tri)
        if sl <= s_t:
            continue
        cx = px + sl * ux - lx
        cy = py + sl * uy - ly
        ln = math.sqrt(cx * cx + cy * cy)
        if ln <= 0.0:
            continue
        measured = True
        if abs(cx * wx + cy * wy) >= LAND_MIN_COS * ln:
            return True
    return not measured


@hot_kernel
def kind_of(dz, climb):
    """The link kind (``kinds.LINK_*``) of a trajectory rising dz: a drop below -climb, a
    jump across within climb, a jump up above it."""
    if dz < -climb:
        return LINK_DROP
    if dz <= climb:
        return LINK_JUMP_ACROSS
    return LINK_JUMP_UP


@hot_kernel
def ground_kind(x0, y0, z0, x1, y1, z1, prm, tri):
    """The kind of the step from P0 to P1 judged on the ground itself: the heights of the
    support surfaces under both points closest to their heights (within climb, the
    support rule), their difference against climb and the height limits (a drop beyond
    ``max_drop_height``, a jump across or up beyond ``max_jump_height``: -1). -1 where
    either point has no ground, or lies more than ``prm.height_tol`` (two cell heights)
    off it. A link's segments are straight lines fitted to the samples; along a ledge
    whose height changes in steps (terraces, stairs beside a ledge) a point on them could
    float up to climb above or below the ground, and its own heights then gave the wrong
    kind (a 0.25 m step down taken as a 1 m jump up)."""
    g0 = ground_height(x0, y0, z0, prm.climb, tri)
    g1 = ground_height(x1, y1, z1, prm.climb, tri)
    if g0 != g0 or g1 != g1:
        return -1
    if abs(g0 - z0) > prm.height_tol or abs(g1 - z1) > prm.height_tol:
        return -1
    dz = g1 - g0
    kind = kind_of(dz, prm.climb)
    if kind == LINK_DROP:
        if -dz > prm.drop_height + HEIGHT_EPS:
            return -1
    elif dz > prm.jump_height + HEIGHT_EPS:
        return -1
    return kind


@hot_kernel
def flight_ok(kind, mode, dz, d_air, prm):
    """Reach rules; returns a ``Reach``."""
    if kind == LINK_DROP:
        if -dz > prm.drop_height + HEIGHT_EPS:
            return Reach(False, 0.0, 0.0)
    elif dz > prm.jump_height + HEIGHT_EPS or mode != MODE_JUMP:
        return Reach(False, 0.0, 0.0)
    if d_air > prm.jump_distance * (1.0 + 1e-9) + 1e-9:
        return Reach(False, 0.0, 0.0)
    t_f = flight_time(dz, mode, prm)
    if t_f <= 0.0:
        return Reach(False, 0.0, 0.0)
    vx = d_air / t_f
    if vx > prm.vx_max * (1.0 + 1e-9):
        return Reach(False, 0.0, 0.0)
    return Reach(True, t_f, vx)


@hot_kernel
def check_flight(x0, y0, z0, ux, uy, dist, z1, kind, mode, s_t, s_l, ex, ey, prm, tri, vox,
                 wk):
    """Reach and collision of the flight and run-out (the run-up is tested separately).
    Returns a ``Flight``."""
    dz = z1 - z0
    ok, t_f, vx = flight_ok(kind, mode, dz, s_l - s_t, prm)
    if not ok:
        return Flight(False, 0.0)
    vz = prm.vz if mode == MODE_JUMP else 0.0
    tx = x0 + ux * s_t
    ty = y0 + uy * s_t
    # exact on the triangles (the voxels stick out of slanted walls by up to a cell)
    if tri_arc_blocked(tx, ty, z0, ux, uy, vx, vz, t_f, ex, ey, prm, tri, wk):
        return Flight(False, 0.0)
    arc_len = arc_length(z0, vx, vz, t_f, prm)
    if dist > s_l and body_walk_blocked(x0, y0, ux, uy, s_l, dist, z1, ex, ey, prm, tri, vox,
                                        wk):
        return Flight(False, 0.0)
    return Flight(True, arc_len + (dist - s_l))


@hot_kernel
def check_path(x0, y0, z0, x1, y1, z1, kind, mode, ex, ey, prm, tri, vox, wk):
    """Full test of one trajectory P0 -> P1 of a given kind and mode (see module doc;
    ``wk``: a ``Scratch``).

    Returns a ``Path``.
    """
    dx = x1 - x0
    dy = y1 - y0
    dist = math.sqrt(dx * dx + dy * dy)
    if dist <= 1e-9:
        return Path(False, 0.0, 0.0, 0.0)
    ux = dx / dist
    uy = dy / dist
    if kind == LINK_JUMP_UP:  # no run-up: the agent jumps from P0
        s_t = 0.0
        if not support(x0, y0, z0, prm, tri):
            return Path(False, 0.0, 0.0, 0.0)
    else:
        s_t = takeoff_distance(x0, y0, z0, ux, uy, min(prm.run_max, dist), prm, tri)
        if s_t < 0.0 or s_t >= dist:
            return Path(False, 0.0, 0.0, 0.0)
    if kind == LINK_DROP:  # lands on P1 itself
        s_l = dist
        if not support(x1, y1, z1, prm, tri):
            return Path(False, 0.0, 0.0, 0.0)
    else:
        s_l = touchdown_distance(x0, y0, ux, uy, dist, z1, s_t, prm, tri)
        if s_l < 0.0:
            return Path(False, 0.0, 0.0, 0.0)
    if s_t > 0.0 and body_walk_blocked(x0, y0, ux, uy, 0.0, s_t, z0, ex, ey, prm, tri, vox,
                                       wk):
        return Path(False, 0.0, 0.0, 0.0)
    flight = check_flight(x0, y0, z0, ux, uy, dist, z1, kind, mode, s_t, s_l, ex, ey, prm, tri,
                          vox, wk)
    if not flight.ok:
        return Path(False, 0.0, 0.0, 0.0)
    return Path(True, s_t, s_l, s_t + flight.length)
