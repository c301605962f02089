"""The hanging agent's body for the climb graph's collision probe (docs/climbing.md,
"Collision probe"). numpy + numba only.

1. **Hanging side** (:func:`hang_fronts`): each element gets a *front*, the horizontal unit
   direction from its hand line to the hanging body's centre (zero: the body hangs right
   below the hands).

   * A found ledge (``core/ledges.py``) knows its wall: its front is the wall's front.
   * An authored ledge is tested on both sides (``n`` = up x its axis, and ``-n``) at three
     points (its centre and two points ``FIT_INSET`` in from its ends), ``FIT_DEPTH`` below
     the hands: a side loses a point when a horizontal segment from ``FIT_START`` to two
     body radii plus ``BODY_GAP`` out crosses a triangle. On a tie (a ledge on a solid
     block's edge: room in front, nothing met inside either), the first triangle that a
     horizontal segment across the ledge's middle (from ``n`` to ``-n``, as long) meets
     decides: the body hangs on the side its normal faces (the wall's outside). The front
     is the side that loses fewer; a tie still (a bar with nothing around) gives ``n``.
   * Only elements with an implicit link or a corner to test get a front
     (``climb._element_fronts``).
   * A ladder or pipe: of ``VERTICAL_RAYS`` horizontal rays from the middle of its axis,
     ``2 radius + BODY_GAP`` long, the one that meets a triangle first gives the wall; the
     front is that triangle's horizontal normal turned to point at the axis. No wall
     within reach: zero (the body hangs on the axis).

2. **Body sweep** (:func:`body_blocked`): the body is a box of half-width ``radius`` from
   ``BODY_TOP`` below the hands down to ``hang_height`` below them (or to ``BODY_FLOOR``
   above the first triangle under its centre, so a low hang stands on the floor), centred
   ``radius + BODY_GAP`` in front of the hands. A move from hold a to hold b sweeps it from
   its place at a to its place at b; the sweep is sampled by straight lines from a's box to
   b's box, at the centre and at both sides (``+-radius`` across the move, horizontally)
   and at levels at most ``BODY_STEP`` apart. The move is blocked when a line crosses a
   scene triangle (the triangles binned in query/spatial.py's grid,
   ``climb_geom.TriangleGrid``). Sampled, so an obstacle thinner than the line spacing in
   both directions can slip through; walls and boxes cannot.

Everything depends on the geometry only (no world axis is preferred beyond the ray fan of
a ladder without a wall face), so turning or moving the scene leaves the result unchanged.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .climb_geom import (
    TriangleGrid,
    _crossing,
    _walk_one,
    segment_first_hits,
    triangle_grid,
)
from .geometry import triangle_normal
from .kinds import CLIMB_LEDGE
from .query.spatial import _cell_range

# The body's top lies this far below the hands (metres; the arms are above it, and the
# line between the hands has its own probe).
BODY_TOP = 0.3
# The body's centre is radius + BODY_GAP in front of the hands (room between it and a wall).
BODY_GAP = 0.05
# A low hang's body ends this far above the first triangle under it (feet on the floor).
BODY_FLOOR = 0.1
# Sample levels of the swept body at most this far apart (metres).
BODY_STEP = 0.5
# Hanging side of an authored ledge: probes this far below the hands, starting this far out
# from the hand line, at points this far in from the ledge's ends (at most a quarter of it).
FIT_DEPTH = 0.3
FIT_START = 0.02
FIT_INSET = 0.25
# Rays from a ladder's or pipe's middle looking for its wall.
VERTICAL_RAYS = 8
# no triangles (hang_fronts without a scene)
_EMPTY_GRID = triangle_grid(np.zeros((0, 3)), np.zeros((0, 3), np.int64))


def _unit_xy(v):
    v = np.array(v, np.float64, copy=True)
    v[..., 2] = 0.0
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.where(n > 1e-9, v / np.maximum(n, 1e-12), 0.0), n[..., 0]


def hang_fronts(kind, ends, grid: TriangleGrid | None, radius: float,
                known=None) -> np.ndarray:
    """(E, 3) front of each element (module doc); ``known`` (E, 3): fronts already known
    (a found ledge's wall front), zero rows where not."""
    kind = np.asarray(kind)
    ends = np.asarray(ends, np.float64).reshape(-1, 2, 3)
    n_el = ends.shape[0]
    fronts = np.zeros((n_el, 3))
    if known is not None:
        fronts[:] = np.asarray(known, np.float64).reshape(n_el, 3)
    todo = np.linalg.norm(fronts, axis=1) < 0.5
    ledge = np.nonzero(todo & (kind == CLIMB_LEDGE))[0]
    vertical = np.nonzero(todo & (kind != CLIMB_LEDGE))[0]
    reach = 2.0 * radius + BODY_GAP
    if ledge.size:
        g = grid if grid is not None and grid.tris.shape[0] else _EMPTY_GRID
        fronts[ledge] = _ledge_fronts(np.ascontiguousarray(ends[ledge]), reach, g.tris, g.lo,
                                      g.hi, g.origin, g.cell, g.nx, g.ny, g.start, g.items)
    if vertical.size and grid is not None and grid.tris.shape[0]:
        fronts[vertical] = _vertical_fronts(np.ascontiguousarray(ends[vertical]), _RAY_DIRS,
                                            reach, grid.tris, grid.lo, grid.hi, grid.origin,
                                            grid.cell, grid.nx, grid.ny, grid.start,
                                            grid.items)
    return fronts


# the horizontal directions of a ladder's or pipe's fan of rays
_RAY_ANGLES = 2.0 * math.pi * np.arange(VERTICAL_RAYS) / VERTICAL_RAYS
_RAY_DIRS = np.stack([np.cos(_RAY_ANGLES), np.sin(_RAY_ANGLES), np.zeros(VERTICAL_RAYS)],
                     axis=1)


@njit(cache=True)
def _vertical_fronts(ends, dirs, reach, tris, tri_lo, tri_hi, origin, cell, nx, ny,
                     grid_start, grid_items):
    """(k, 3) front of each ladder or pipe ``ends[k]`` (module doc): of the rays ``dirs``
    from the middle of its axis, ``reach`` long, the first to meet a triangle (least
    param, then the first ray) gives its wall, the front is that triangle's horizontal
    normal turned to point at the axis (a flat triangle: back along the ray); none met:
    zero. One numba pass (the arithmetic of the numpy form, step by step)."""
    n, n_ray = ends.shape[0], dirs.shape[0]
    a = np.empty((n * n_ray, 3))
    b = np.empty((n * n_ray, 3))
    for k in range(n):
        for r in range(n_ray):
            for q in range(3):
                m = (ends[k, 0, q] + ends[k, 1, q]) / 2.0
                a[k * n_ray + r, q] = m
                b[k * n_ray + r, q] = m + dirs[r, q] * reach
    param, tri = _fan_first_hits(a, b, n_ray, tris, tri_lo, tri_hi, origin, cell, nx, ny,
                                 grid_start, grid_items)
    out = np.zeros((n, 3))
    for k in range(n):
        best = 0
        for r in range(1, n_ray):
            if param[k * n_ray + r] < param[k * n_ray + best]:
                best = r
        if not param[k * n_ray + best] < np.inf:
            continue
        t = tri[k * n_ray + best]
        vx, vy, _vz = triangle_normal(tris[t], 0, 1, 2)  # the normal, flattened
        size = math.sqrt(vx * vx + vy * vy + 0.0)
        if size > 1e-9:
            ux, uy, uz = vx / max(size, 1e-12), vy / max(size, 1e-12), 0.0 / max(size, 1e-12)
        else:
            ux, uy, uz = 0.0, 0.0, 0.0
        if math.sqrt(ux * ux + uy * uy + uz * uz) < 0.5:  # a flat triangle: back along the ray
            ux, uy, uz = -dirs[best, 0], -dirs[best, 1], -dirs[best, 2]
        if ux * dirs[best, 0] + uy * dirs[best, 1] + uz * dirs[best, 2] > 0.0:
            ux, uy, uz = ux * -1.0, uy * -1.0, uz * -1.0
        out[k, 0], out[k, 1], out[k, 2] = ux, uy, uz
    return out


@njit(cache=True)
def _ledge_fronts(ends, reach, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
                  grid_items):
    """(k, 3) front of each authored ledge ``ends[k]`` (module doc): its side ``n`` = up x
    its axis or ``-n``, whichever loses fewer of the horizontal probes at its middle and
    ``FIT_INSET`` in from its ends, ``FIT_DEPTH`` below the hands, from ``FIT_START`` to
    ``reach`` out; on a tie, the side the normal of the first triangle met across its middle
    faces; still tied, ``n``. One numba pass (the arithmetic of the numpy form, step by
    step)."""
    k_n = ends.shape[0]
    out = np.zeros((k_n, 3))
    stamp = np.full(tris.shape[0], -1, np.int64)
    mark = 0
    pts = np.empty((3, 3))
    for k in range(k_n):
        ax = ends[k, 1, 0] - ends[k, 0, 0]
        ay = ends[k, 1, 1] - ends[k, 0, 1]
        az = ends[k, 1, 2] - ends[k, 0, 2]
        length = math.sqrt(ax * ax + ay * ay + az * az)
        den = max(length, 1e-12)
        ux, uy, uz = ax / den, ay / den, az / den
        vx, vy = -uy, ux  # n = up x axis, made a horizontal unit vector
        nn = math.sqrt(vx * vx + vy * vy + 0.0)
        if nn > 1e-9:
            nx_, ny_ = vx / max(nn, 1e-12), vy / max(nn, 1e-12)
        else:
            nx_, ny_ = 0.0, 0.0
        inset = min(FIT_INSET, 0.25 * length)
        for a in range(3):
            pts[0, a] = 0.5 * (ends[k, 0, a] + ends[k, 1, a])
        pts[1, 0] = ends[k, 0, 0] + ux * inset
        pts[1, 1] = ends[k, 0, 1] + uy * inset
        pts[1, 2] = ends[k, 0, 2] + uz * inset
        pts[2, 0] = ends[k, 1, 0] - ux * inset
        pts[2, 1] = ends[k, 1, 1] - uy * inset
        pts[2, 2] = ends[k, 1, 2] - uz * inset
        for q in range(3):
            pts[q, 2] = pts[q, 2] - FIT_DEPTH
        lost0, lost1 = 0, 0
        for side in range(2):
            s = 1.0 if side == 0 else -1.0
            ox, oy = s * nx_, s * ny_
            for q in range(3):
                _w, t = _walk_one(pts[q, 0] + ox * FIT_START, pts[q, 1] + oy * FIT_START,
                                  pts[q, 2] + 0.0 * FIT_START, pts[q, 0] + ox * reach,
                                  pts[q, 1] + oy * reach, pts[q, 2] + 0.0 * reach, tris,
                                  tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
                                  grid_items, True, stamp, mark)
                mark += 1
                if t >= 0:
                    if side == 0:
                        lost0 += 1
                    else:
                        lost1 += 1
        if lost0 == lost1:
            # a tie: the first face met across the middle decides (its normal's side)
            w, t = _walk_one(pts[0, 0] + nx_ * reach, pts[0, 1] + ny_ * reach,
                             pts[0, 2] + 0.0 * reach, pts[0, 0] - nx_ * reach,
                             pts[0, 1] - ny_ * reach, pts[0, 2] - 0.0 * reach, tris, tri_lo,
                             tri_hi, origin, cell, nx, ny, grid_start, grid_items, False,
                             stamp, mark)
            mark += 1
            if w < np.inf:
                fx, fy, _fz = triangle_normal(tris[t], 0, 1, 2)
                facing = fx * nx_ + fy * ny_
                if facing < 0.0:
                    lost0 += 1
                elif facing > 0.0:
                    lost1 += 1
        sign = 1.0 if lost0 <= lost1 else -1.0
        out[k, 0], out[k, 1], out[k, 2] = sign * nx_, sign * ny_, sign * 0.0
    return out


def _floors(top, bottom, grid: TriangleGrid):
    """Lowest point of each body column: ``bottom``, or ``BODY_FLOOR`` above the first
    triangle met going down from ``top`` (not above ``top``)."""
    param, _ = segment_first_hits(top, bottom, grid)
    hit = np.isfinite(param)
    z = bottom[:, 2].copy()
    ground = top[:, 2] + np.where(hit, param, 1.0) * (bottom[:, 2] - top[:, 2])
    z = np.where(hit, np.minimum(ground + BODY_FLOOR, top[:, 2]), z)
    return z


def body_blocked(a, b, front_a, front_b, grid: TriangleGrid | None, radius: float,
                 hang_height: float) -> np.ndarray:
    """Whether the hanging body swept from hold a[k] (front ``front_a[k]``) to hold b[k]
    crosses a triangle (module doc). ``hang_height`` <= ``BODY_TOP``: no body, never
    blocked."""
    a = np.asarray(a, np.float64).reshape(-1, 3)
    b = np.asarray(b, np.float64).reshape(-1, 3)
    n = a.shape[0]
    if n == 0 or grid is None or grid.tris.shape[0] == 0 or hang_height <= BODY_TOP:
        return np.zeros(n, np.bool_)
    off = radius + BODY_GAP
    ca = a + np.asarray(front_a, np.float64).reshape(-1, 3) * off
    cb = b + np.asarray(front_b, np.float64).reshape(-1, 3) * off
    top = np.array([0.0, 0.0, BODY_TOP])
    low = np.array([0.0, 0.0, hang_height])
    floor_z = _floors(np.concatenate([ca - top, cb - top]),
                      np.concatenate([ca - low, cb - low]), grid)
    za_top, zb_top = ca[:, 2] - BODY_TOP, cb[:, 2] - BODY_TOP
    za_bot, zb_bot = floor_z[:n], floor_z[n:]
    # across the move (horizontally); a vertical move: across the fronts, else x
    u, size = _unit_xy(cb - ca)
    fallback, fsize = _unit_xy(np.asarray(front_a, np.float64).reshape(-1, 3)
                               + np.asarray(front_b, np.float64).reshape(-1, 3))
    fallback[fsize <= 1e-9] = (1.0, 0.0, 0.0)
    u = np.where((size > 1e-9)[:, None], u, fallback)
    across = np.stack([-u[:, 1], u[:, 0], np.zeros(n)], axis=1)
    levels = max(2, int(math.ceil((hang_height - BODY_TOP) / BODY_STEP)) + 1)
    # the middle level's lines first: an obstacle is met soonest there
    order = np.argsort(np.abs(np.arange(levels) - (levels - 1) / 2.0), kind="stable")
    frac = np.linspace(0.0, 1.0, levels)[order]
    return _sweep_blocked(ca, cb, za_top, za_bot, zb_top, zb_bot,
                          np.ascontiguousarray(across), float(radius), frac, grid.tris,
                          grid.lo, grid.hi, grid.origin, grid.cell, grid.nx, grid.ny,
                          grid.start, grid.items)


@njit(cache=True)
def _sweep_blocked(ca, cb, za_top, za_bot, zb_top, zb_bot, across, radius, frac, tris,
                   tri_lo, tri_hi, origin, cell, nx, ny, grid_start, grid_items):
    """For each move k: whether a line of its swept body crosses a triangle. The lines run
    from box a (centre ``ca[k]``, heights ``za_top[k]``..``za_bot[k]``) to box b, at the
    centre and ``+-radius`` along ``across[k]``, at the levels ``frac`` (0: top, 1:
    bottom; in the order tested); the first crossing ends the move's test."""
    n = ca.shape[0]
    out = np.zeros(n, np.bool_)
    stamp = np.full(tris.shape[0], -1, np.int64)
    cand = np.empty(_MAX_CANDIDATES, np.int64)
    mark = 0
    for k in range(n):
        out[k], mark = _box_lines_hit(ca[k, 0], ca[k, 1], za_top[k], za_bot[k], cb[k, 0],
                                      cb[k, 1], zb_top[k], zb_bot[k], across[k, 0],
                                      across[k, 1], radius, frac, tris, tri_lo, tri_hi, origin,
                                      cell, nx, ny, grid_start, grid_items, stamp, mark,
                                      cand)
    return out


@njit(cache=True)
def _box_lines_hit(ax, ay, az_top, az_bot, bx, by, bz_top, bz_bot, across_x, across_y,
                   radius, frac, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
                   grid_items, stamp, mark, cand):
    """Whether a line of the body swept from box a (centre (ax, ay), heights az_top..az_bot)
    to box b crosses a triangle: lines at the centre and ``+-radius`` along ``across``, at
    the levels ``frac`` (0: top, 1: bottom; in the order tested), stopping at the first
    crossing. Returns (hit, the next walk mark). The triangles whose bounds meet the
    bounds of all those lines are listed once (``cand``, scratch), and each line tests
    those instead of walking the grid: the same answers (a line's walk tests exactly the
    triangles whose bounds meet its own). None (the usual free move: the wall beside the
    body, the floor below it): no line is tested."""
    rx = abs(across_x) * radius + _BOX_PAD
    ry = abs(across_y) * radius + _BOX_PAD
    n_cand = _box_candidates(min(ax, bx) - rx, max(ax, bx) + rx, min(ay, by) - ry,
                             max(ay, by) + ry, min(az_top, az_bot, bz_top, bz_bot) - _BOX_PAD,
                             max(az_top, az_bot, bz_top, bz_bot) + _BOX_PAD, tri_lo, tri_hi,
                             origin, cell, nx, ny, grid_start, grid_items, cand, stamp, mark)
    mark += 1
    if n_cand == 0:
        return False, mark
    for f in frac:
        az = az_top + f * (az_bot - az_top)
        bz = bz_top + f * (bz_bot - bz_top)
        for side in (0.0, 1.0, -1.0):
            ox = across_x * (side * radius)
            oy = across_y * (side * radius)
            if n_cand < 0:  # too many to list: walk the grid
                _w, t = _walk_one(ax + ox, ay + oy, az, bx + ox, by + oy, bz, tris, tri_lo,
                                  tri_hi, origin, cell, nx, ny, grid_start, grid_items, True,
                                  stamp, mark)
                mark += 1
                if t >= 0:
                    return True, mark
            elif _line_hits_any(ax + ox, ay + oy, az, bx + ox, by + oy, bz, tris, tri_lo,
                                tri_hi, cand, n_cand):
                return True, mark
    return False, mark


@njit(cache=True)
def _line_hits_any(ax, ay, az, bx, by, bz, tris, tri_lo, tri_hi, cand, n_cand):
    """Whether segment a-b crosses one of the triangles ``cand[:n_cand]``: each tested as
    ``climb_geom._walk_one`` tests a triangle (its bounds against the segment's, then the
    crossing), so the answer is the walk's for any list holding every triangle whose
    bounds meet the segment's."""
    lo0, hi0 = min(ax, bx), max(ax, bx)
    lo1, hi1 = min(ay, by), max(ay, by)
    lo2, hi2 = min(az, bz), max(az, bz)
    dx, dy, dz = bx - ax, by - ay, bz - az
    for i in range(n_cand):
        t = cand[i]
        if tri_lo[t, 0] > hi0 or tri_lo[t, 1] > hi1 or tri_lo[t, 2] > hi2 \
                or tri_hi[t, 0] < lo0 or tri_hi[t, 1] < lo1 or tri_hi[t, 2] < lo2:
            continue
        if _crossing(ax, ay, az, dx, dy, dz, tris, t) < np.inf:
            return True
    return False


# Margin (metres) of the bounds of a swept body's lines in :func:`_box_candidates` (above
# rounding: the bounds must hold every line), and the most triangles listed for a move
# (more: its lines walk the grid).
_BOX_PAD = 1e-6
_MAX_CANDIDATES = 256


@njit(cache=True)
def _fan_first_hits(a, b, group, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
                    grid_items):
    """``segment_first_hits`` of the segments a[k]-b[k], taken ``group`` at a time (a
    ladder's fan of rays): each group lists once the triangles whose bounds meet all its
    segments' bounds and its segments test those, the same (param, triangle) as their
    walks (least param, then lowest triangle)."""
    n = a.shape[0]
    first = np.full(n, np.inf)
    which = np.full(n, -1, np.int64)
    stamp = np.full(tris.shape[0], -1, np.int64)
    cand = np.empty(_MAX_CANDIDATES, np.int64)
    mark = 0
    for g0 in range(0, n, group):
        g1 = min(g0 + group, n)
        x0 = y0 = z0 = np.inf
        x1 = y1 = z1 = -np.inf
        for k in range(g0, g1):
            x0, x1 = min(x0, a[k, 0], b[k, 0]), max(x1, a[k, 0], b[k, 0])
            y0, y1 = min(y0, a[k, 1], b[k, 1]), max(y1, a[k, 1], b[k, 1])
            z0, z1 = min(z0, a[k, 2], b[k, 2]), max(z1, a[k, 2], b[k, 2])
        n_cand = _box_candidates(x0 - _BOX_PAD, x1 + _BOX_PAD, y0 - _BOX_PAD, y1 + _BOX_PAD,
                                 z0 - _BOX_PAD, z1 + _BOX_PAD, tri_lo, tri_hi, origin, cell,
                                 nx, ny, grid_start, grid_items, cand, stamp, mark)
        mark += 1
        for k in range(g0, g1):
            if n_cand < 0:
                first[k], which[k] = _walk_one(a[k, 0], a[k, 1], a[k, 2], b[k, 0], b[k, 1],
                                               b[k, 2], tris, tri_lo, tri_hi, origin, cell, nx,
                                               ny, grid_start, grid_items, False, stamp, mark)
                mark += 1
                continue
            lo0, hi0 = min(a[k, 0], b[k, 0]), max(a[k, 0], b[k, 0])
            lo1, hi1 = min(a[k, 1], b[k, 1]), max(a[k, 1], b[k, 1])
            lo2, hi2 = min(a[k, 2], b[k, 2]), max(a[k, 2], b[k, 2])
            dx, dy, dz = b[k, 0] - a[k, 0], b[k, 1] - a[k, 1], b[k, 2] - a[k, 2]
            best = np.inf
            bt = -1
            for i in range(n_cand):
                t = cand[i]
                if tri_lo[t, 0] > hi0 or tri_lo[t, 1] > hi1 or tri_lo[t, 2] > hi2 \
                        or tri_hi[t, 0] < lo0 or tri_hi[t, 1] < lo1 or tri_hi[t, 2] < lo2:
                    continue
                w = _crossing(a[k, 0], a[k, 1], a[k, 2], dx, dy, dz, tris, t)
                if w < best or (w == best and w < np.inf and t < bt):
                    best = w
                    bt = t
            first[k] = best
            which[k] = bt
    return first, which


@njit(cache=True)
def _first_crossing(ax, ay, az, bx, by, bz, tris, tri_lo, tri_hi, cand, n_cand):
    """The least crossing parameter of segment a-b with the triangles ``cand[:n_cand]``
    (inf: none), each tested as ``climb_geom._walk_one`` tests it: the walk's answer for
    any list holding every triangle whose bounds meet the segment's."""
    lo0, hi0 = min(ax, bx), max(ax, bx)
    lo1, hi1 = min(ay, by), max(ay, by)
    lo2, hi2 = min(az, bz), max(az, bz)
    dx, dy, dz = bx - ax, by - ay, bz - az
    best = np.inf
    for i in range(n_cand):
        t = cand[i]
        if tri_lo[t, 0] > hi0 or tri_lo[t, 1] > hi1 or tri_lo[t, 2] > hi2 \
                or tri_hi[t, 0] < lo0 or tri_hi[t, 1] < lo1 or tri_hi[t, 2] < lo2:
            continue
        best = min(best, _crossing(ax, ay, az, dx, dy, dz, tris, t))
    return best


@njit(cache=True)
def _box_candidates(x0, x1, y0, y1, z0, z1, tri_lo, tri_hi, origin, cell, nx, ny,
                    grid_start, grid_items, cand, stamp, mark):
    """The triangles binned in the grid cells over [x0, x1] x [y0, y1] whose bounds meet
    the box [x0, x1] x [y0, y1] x [z0, z1], each once (``stamp`` marked with ``mark``),
    into ``cand``: their count, or -1 when more than ``cand`` holds."""
    i0, i1, j0, j1 = _cell_range(x0, x1, y0, y1, origin, cell, nx, ny)
    n = 0
    for iy in range(j0, j1 + 1):
        for ix in range(i0, i1 + 1):
            c = iy * nx + ix
            for m in range(grid_start[c], grid_start[c + 1]):
                t = grid_items[m]
                if stamp[t] == mark:
                    continue
                stamp[t] = mark
                if tri_lo[t, 0] <= x1 and tri_lo[t, 1] <= y1 and tri_lo[t, 2] <= z1 \
                        and tri_hi[t, 0] >= x0 and tri_hi[t, 1] >= y0 and tri_hi[t, 2] >= z0:
                    if n == cand.shape[0]:
                        return -1
                    cand[n] = t
                    n += 1
    return n


def chain_blocked(hold, front, start, grid: TriangleGrid | None, radius: float,
                  hang_height: float) -> np.ndarray:
    """Whether the hanging body crosses a triangle along each chain of holds: chain k is
    the holds ``hold[start[k]:start[k+1]]`` (hands, (S, 3)) with their fronts, and its body
    is swept from each hold to the next exactly as :func:`body_blocked` sweeps one move
    (so a chain of two holds is one move). One numba call; a chain's test ends at its
    first crossing."""
    start = np.asarray(start, np.int64)
    n = start.shape[0] - 1
    if n <= 0 or grid is None or grid.tris.shape[0] == 0 or hang_height <= BODY_TOP:
        return np.zeros(max(n, 0), np.bool_)
    levels = max(2, int(math.ceil((hang_height - BODY_TOP) / BODY_STEP)) + 1)
    order = np.argsort(np.abs(np.arange(levels) - (levels - 1) / 2.0), kind="stable")
    frac = np.linspace(0.0, 1.0, levels)[order]
    return _chain_sweep(np.ascontiguousarray(hold, np.float64).reshape(-1, 3),
                        np.ascontiguousarray(front, np.float64).reshape(-1, 3), start,
                        float(radius), float(hang_height), frac, grid.tris, grid.lo, grid.hi,
                        grid.origin, grid.cell, grid.nx, grid.ny, grid.start, grid.items)


@njit(cache=True)
def _chain_sweep(hold, front, start, radius, hang_height, frac, tris, tri_lo, tri_hi, origin,
                 cell, nx, ny, grid_start, grid_items):
    """:func:`chain_blocked`'s kernel: per hold, the body's centre and its top and bottom
    heights (the bottom cut ``BODY_FLOOR`` above the first triangle under it, as
    ``_floors``), then per pair of consecutive holds the lines of ``_sweep_blocked``."""
    n = start.shape[0] - 1
    out = np.zeros(n, np.bool_)
    stamp = np.full(tris.shape[0], -1, np.int64)
    mark = 0
    off = radius + BODY_GAP
    n_hold = hold.shape[0]
    centre = np.empty((n_hold, 3))
    z_top = np.empty(n_hold)
    z_bot = np.empty(n_hold)
    cand = np.empty(_MAX_CANDIDATES, np.int64)
    for k in range(n):
        # the chain's floor rays test the triangles listed once for all of them (as
        # _box_lines_hit's lines; the same first crossings as their walks)
        x0 = y0 = z0 = np.inf
        x1 = y1 = z1 = -np.inf
        for s in range(start[k], start[k + 1]):
            for a in range(3):
                centre[s, a] = hold[s, a] + front[s, a] * off
            x0, x1 = min(x0, centre[s, 0]), max(x1, centre[s, 0])
            y0, y1 = min(y0, centre[s, 1]), max(y1, centre[s, 1])
            z0 = min(z0, centre[s, 2] - hang_height)
            z1 = max(z1, centre[s, 2] - BODY_TOP)
        n_cand = _box_candidates(x0 - _BOX_PAD, x1 + _BOX_PAD, y0 - _BOX_PAD, y1 + _BOX_PAD,
                                 z0 - _BOX_PAD, z1 + _BOX_PAD, tri_lo, tri_hi, origin, cell,
                                 nx, ny, grid_start, grid_items, cand, stamp, mark)
        mark += 1
        for s in range(start[k], start[k + 1]):
            top = centre[s, 2] - BODY_TOP
            low = centre[s, 2] - hang_height
            if n_cand >= 0:
                w = _first_crossing(centre[s, 0], centre[s, 1], top, centre[s, 0], centre[s, 1],
                                    low, tris, tri_lo, tri_hi, cand, n_cand)
            else:
                w, _t = _walk_one(centre[s, 0], centre[s, 1], top, centre[s, 0], centre[s, 1],
                                  low, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
                                  grid_items, False, stamp, mark)
                mark += 1
            z_top[s] = top
            z_bot[s] = min(top + w * (low - top) + BODY_FLOOR, top) if w < np.inf else low
        for s in range(start[k], start[k + 1] - 1):
            dx = centre[s + 1, 0] - centre[s, 0]
            dy = centre[s + 1, 1] - centre[s, 1]
            size = math.sqrt(dx * dx + dy * dy)
            if size > 1e-9:
                ux, uy = dx / size, dy / size
            else:  # a vertical move: across the fronts, else x
                fx = front[s, 0] + front[s + 1, 0]
                fy = front[s, 1] + front[s + 1, 1]
                fsize = math.sqrt(fx * fx + fy * fy)
                if fsize > 1e-9:
                    ux, uy = fx / fsize, fy / fsize
                else:
                    ux, uy = 1.0, 0.0
            hit, mark = _box_lines_hit(centre[s, 0], centre[s, 1], z_top[s], z_bot[s],
                                       centre[s + 1, 0], centre[s + 1, 1], z_top[s + 1],
                                       z_bot[s + 1], -uy, ux, radius, frac, tris, tri_lo,
                                       tri_hi, origin, cell, nx, ny, grid_start, grid_items,
                                       stamp, mark, cand)
            if hit:
                out[k] = True
                break
    return out
