"""Jump-link search kernels: landing search per border sample, grouping of neighbouring
samples into wide links, re-validation of the grouped links, reverse test, de-duplication.

Rows are structured arrays defined in ``links_model``: ``SAMPLE`` (border samples),
``LANDING`` (a sample's landing per link kind) and ``LINK`` (fitted links); and here:
``GROUP`` (a run of samples), ``PART`` (a part on the validation stack), ``FIT`` (a
group's fitted lines), ``SEARCH_COUNTS`` and ``VALIDATE_COUNTS`` (operation counters).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .debug import REJECT_NO_LANDING, REJECT_NONE, REJECT_TOO_FAR
from .kinds import AREA_STAND, LINK_DROP, LINK_JUMP_ACROSS, LINK_JUMP_UP
from .links_debug import explain_flight, record_reject
from .links_geom import XY_BOUNDS, ground_height, locate, swept_body_hits_triangles
from .links_model import (
    LANDING,
    MODE_JUMP,
    MODE_WALK_OFF,
    body_walk_blocked,
    check_flight,
    check_path,
    columns_near,
    ground_kind,
    kind_of,
    lands_squarely,
    new_scratch,
    sample_frame,
    spans_overlap,
    support,
    takeoff_distance,
    touchdown_distance,
    tri_walk_blocked,
    walk_blocked,
)
from .parallel import run_banded
from .query.jit import hot_kernel, ifloor
from .settings import LINK_COLLISION_TOLERANCE

# Operation counters per sample (``search_landings``' ``counts`` rows): landing look-ups,
# run-ups, touch-down searches, flights tried per kind, march steps, whether the sample
# was moved clear of a wall (``settle_sample``), whether its wall test ran.
SEARCH_COUNTS = np.dtype([("lookups", np.int32), ("run_ups", np.int32),
                          ("touchdowns", np.int32), ("flights", np.int32, (3,)),
                          ("march", np.int32), ("settled", np.int8),
                          ("wall_tests", np.int8)])
# A group of samples (``group_runs``): first and last sample, link kind.
GROUP = np.dtype([("i0", np.int64), ("i1", np.int64), ("kind", np.int64)])
# A pending part on ``_validate_stack``'s stack: samples, kind, and whether each end may
# reach half a sample beyond its sample.
PART = np.dtype([("i0", np.int64), ("i1", np.int64), ("kind", np.int64),
                 ("ext_lo", np.bool_), ("ext_hi", np.bool_)], align=True)
# Operation counters per group (``validate_groups``' ``vc`` rows): parts fitted, single
# positions tested while growing, positions tested in full tests, full tests failed.
VALIDATE_COUNTS = np.dtype([("parts", np.int64), ("grow", np.int64), ("full", np.int64),
                            ("full_fails", np.int64)], align=True)
# A group's fit (``fit_group``): start line origin (ox, oy) and unit direction (dx, dy),
# extent along it (t_lo..t_hi, metres of t), start height z and landing point ex, ey, ez,
# each as its value at t = 0 and its slope per metre of t (the ``*_s`` fields).
FIT = np.dtype([("ox", np.float64), ("oy", np.float64), ("dx", np.float64),
                ("dy", np.float64), ("t_lo", np.float64), ("t_hi", np.float64),
                ("z", np.float64), ("z_s", np.float64), ("ex", np.float64),
                ("ex_s", np.float64), ("ey", np.float64), ("ey_s", np.float64),
                ("ez", np.float64), ("ez_s", np.float64)], align=True)
# the kinds a landing candidate could be (``_chf_candidate``'s bit mask)
BIT_DROP, BIT_ACROSS, BIT_UP = 1 << LINK_DROP, 1 << LINK_JUMP_ACROSS, 1 << LINK_JUMP_UP
# Jumps tried per kind along one search direction before giving up on that kind (walking
# off a ledge is always tried: it fails cheaply, and the first landing far enough works).
FLIGHT_BUDGET = 8
MAX_LAYERS = 8


@hot_kernel
def _chf_candidate(c, z0, dead, prm, chf):
    """Kinds (bits ``1 << kind``: BIT_DROP, BIT_ACROSS, BIT_UP) still searched (not ``dead``) that a
    standing span of column c could be a landing for. One cell height of slack: the navmesh
    and the compact heightfield round heights differently."""
    cell_index, cell_count, span_y, span_area = chf
    ch = prm.ch
    sl = 2.0 * ch  # slack: voxel-rounded heights against heights on the triangles
    climb = prm.climb
    bz = prm.bz
    mask = 0
    for i in range(cell_index[c], cell_index[c] + cell_count[c]):
        if span_area[i] != AREA_STAND:
            continue
        dz = bz + span_y[i] * ch - z0
        if not dead[LINK_DROP] and -prm.drop_height - sl <= dz <= -climb + sl:
            mask |= BIT_DROP
        if not dead[LINK_JUMP_ACROSS] and -climb - sl <= dz <= climb + sl:
            mask |= BIT_ACROSS
        if not dead[LINK_JUMP_UP] and climb - sl <= dz <= prm.jump_height + sl:
            mask |= BIT_UP
    return mask


@hot_kernel
def _standing_height(c, z, prm, chf):
    """The height of column c's standing span closest to z (a polygon's surface there),
    or z when the column has none. A landing's height is looked up on the triangles near
    this: the detail mesh over a climbable step is a ramp that reaches the step's top a
    cell or more inland, and its shape follows the polygon (tile-edge strips cut the
    polygons differently from a solo bake), while the compact heightfield's spans are
    the same in every bake."""
    cell_index, cell_count, span_y, span_area = chf
    best = z
    best_d = math.inf
    for i in range(cell_index[c], cell_index[c] + cell_count[c]):
        if span_area[i] != AREA_STAND:
            continue
        h = prm.bz + span_y[i] * prm.ch
        if abs(h - z) < best_d:
            best_d = abs(h - z)
            best = h
    return best


@hot_kernel
def _solid_at(c, zlo, zhi, prm, vox):
    """Solid overlapping heights (zlo, zhi) in column c?"""
    if zhi <= zlo:
        return False
    return spans_overlap(c, (zlo - prm.bz) / prm.ch, (zhi - prm.bz) / prm.ch, vox)


@hot_kernel
def _wall_ahead(x0, y0, z0, ux, uy, prm, vox):
    """Quick look for a wall right in front of a border point: solid over the agent's body
    heights in the column one agent radius and half a cell out along u (the navmesh border
    keeps one radius from walls). A shortcut before the full test; it only ever skips a
    hopeless search."""
    d = prm.body_radius + LINK_COLLISION_TOLERANCE + 0.5 * prm.cs
    ix = ifloor((x0 + ux * d - prm.bx) / prm.cs)
    iy = ifloor((y0 + uy * d - prm.by) / prm.cs)
    if ix < 0 or iy < 0 or ix >= int(prm.grid_w) or iy >= int(prm.grid_h):
        return False
    return _solid_at(ix + iy * int(prm.grid_w), z0 + prm.climb, z0 + prm.top, prm, vox)


@hot_kernel
def _first_step_blocked(x0, y0, z0, ux, uy, ex, ey, prm, tri, vox, wk):
    """A wall right in front of a border point: the quick voxel look (``_wall_ahead``, the
    first step's swept test), confirmed on the triangles (voxels stick out of slanted
    walls)."""
    if not (_wall_ahead(x0, y0, z0, ux, uy, prm, vox) or walk_blocked(
            x0, y0, ux, uy, 0.0, prm.profile_step, z0, ex, ey, prm, vox)):
        return False
    return tri_walk_blocked(x0, y0, ux, uy, 0.0, prm.profile_step, z0, ex, ey, prm, tri, wk)


@hot_kernel
def _wall_test(x0, y0, z0, nx, ny, ex, ey, found, prm, tri, vox, counters, wk):
    """Whether a sample stands at a wall (``_first_step_blocked`` along its normal): 1,
    and then its drops and jumps across are not searched (``found``), else -1."""
    counters.wall_tests += 1
    if _first_step_blocked(x0, y0, z0, nx, ny, ex, ey, prm, tri, vox, wk):
        found[LINK_DROP] = True
        found[LINK_JUMP_ACROSS] = True
        return 1
    return -1


@hot_kernel
def _run_up(x0, y0, z0, ux, uy, ex, ey, start_clear, prm, tri, vox, wk):
    """The run-up of one direction, the same for every landing: s_T when the ground ends
    within reach and the walk there is clear, else -1. ``start_clear``: the
    first step out is already known to be clear (the sample's own wall test, along the
    normal)."""
    # the ground's end first: most border samples stand where the ground goes on (walls,
    # slopes), and it costs ground look-ups only
    s_t = takeoff_distance(x0, y0, z0, ux, uy, prm.run_max, prm, tri)
    if s_t < 0.0:
        return -1.0
    if not start_clear and _first_step_blocked(x0, y0, z0, ux, uy, ex, ey, prm, tri, vox, wk):
        return -1.0
    if s_t > 0.0 and body_walk_blocked(x0, y0, ux, uy, 0.0, s_t, z0, ex, ey, prm, tri, vox,
                                       wk):
        return -1.0
    return s_t


@hot_kernel
def _stands_clear(x, y, z, ex, ey, prm, tri, vox, wk):
    """The agent (full ``agent_radius``, from climb above the feet to its top, widened
    sideways by half the sample spacing) standing at (x, y, z) meets no triangle: clear
    of the voxels (``links_model.columns_near``, fast: at an open ledge), else tested on
    the triangles."""
    lat = prm.lateral
    qx = (x - lat * ex, x + lat * ex, x + lat * ex, x - lat * ex)
    qy = (y - lat * ey, y + lat * ey, y + lat * ey, y - lat * ey)
    if not columns_near(qx, qy, z + prm.climb, z + prm.top, prm.radius, prm, vox):
        return True
    return not swept_body_hits_triangles(qx, qy, z + prm.climb, z + prm.top, prm.radius, tri,
                                         wk.p0, wk.p1, wk.p2, wk.quad)


@hot_kernel
def settle_sample(s, settle, prm, tri, vox, wk):
    """Ready a border sample for its search: its navmesh height (voxel-rounded) replaced
    by the closest support-triangle height within ``settle.snap`` (kept where there is
    none); then, where the agent standing there comes closer to a wall than its radius,
    moved inward (against the outward normal), a quarter cell at a time up to
    ``settle.max_move``, to the first point where it stands clear, its height measured
    again on the triangles there. The navmesh border keeps an agent radius from the
    voxelised walls only up to the contour simplification's error (``edge_max_error``
    cells, more or less at every angle and grid offset): a take-off point is where the
    agent really stands, not where the border happened to pass. Kept where no clear
    point lies within reach. Returns whether the sample moved."""
    z = ground_height(s.x, s.y, s.z, settle.snap, tri)
    if z == z:
        s.z = z
    step = 0.25 * prm.cs
    n_steps = ifloor(settle.max_move / step + 1e-9)
    tol = max(prm.climb, 2.0 * prm.ch)
    x0, y0, z0, ex, ey, nx, ny = sample_frame(s)
    if _stands_clear(x0, y0, z0, ex, ey, prm, tri, vox, wk):
        return False
    for k in range(1, n_steps + 1):
        x = x0 - k * step * nx
        y = y0 - k * step * ny
        z = ground_height(x, y, z0, tol, tri)
        if z != z:
            return False  # the ground under the sample ends: no take-off further in
        if _stands_clear(x, y, z, ex, ey, prm, tri, vox, wk):
            s.x = x
            s.y = y
            s.z = z
            return True
    return False


class Settle(NamedTuple):
    """How ``settle_sample`` readies a sample: the height snap tolerance (metres) and the
    longest inward move."""

    snap: float
    max_move: float


@hot_kernel
def _set_landing(r, di, j, x, y, z1, poly, mode, s_t, s_l, length):
    """Fill a ``LANDING`` row."""
    r.dir, r.step, r.poly, r.mode = di, j, poly, mode
    r.x, r.y, r.z = x, y, z1
    r.s_t, r.s_l, r.length = s_t, s_l, length


@hot_kernel
def _record(res, found_at, i, kind, di, j, x, y, z1, poly, mode, s_t, s_l, length):
    found_at[i, kind] = True
    _set_landing(res[i, kind], di, j, x, y, z1, poly, mode, s_t, s_l, length)


@njit(cache=True, nogil=True)
def search_landings(samples, dir_cos, dir_sin, enabled, settle, prm, tri, vox, chf, pidx,
                    res, found_at, counts, rej, which, allow, lo, hi):
    """For samples which[lo..hi-1] and each link kind, the first valid landing along the edge
    normal (then the diagonal directions for kinds the normal did not find), written to
    ``res`` (N, 3; ``LANDING`` rows) and flagged in ``found_at`` (N, 3); operation counts per sample
    to ``counts`` (N; ``SEARCH_COUNTS`` rows). Each sample is first readied
    (``settle_sample``, with ``settle``: a ``Settle``). Bands of samples are independent (they
    run on threads and write only their own samples' rows).

    A sample whose first step out along the normal is blocked stands at a wall: it is
    searched for jumps up along the normal only (tested when its march first meets a
    column that could hold a landing: a sample with none in reach is never tested).
    Drops prefer walking off the ledge: the first landing reached by a jump is kept only
    when no walk-off landing is found.

    ``rej``: (N, 3; ``links_debug.REFUSAL`` rows) to record why candidates were refused (debug data,
    ``links_debug``), or an empty array: then nothing is recorded. ``allow`` (N, 3): the
    kinds searched per sample (besides ``enabled``)."""
    debug_on = rej.shape[0] > 0
    fallback = np.zeros(1, LANDING)[0]
    out_poly = np.empty(MAX_LAYERS, np.int32)
    out_z = np.empty(MAX_LAYERS, np.float64)
    found = np.zeros(3, np.bool_)
    dead = np.zeros(3, np.bool_)
    fail_sl = np.zeros(3)
    fail_z = np.zeros(3)
    tries = np.zeros(3, np.int64)
    climb = prm.climb
    ds = prm.march_step
    a_max = prm.run_max
    d_max = prm.jump_distance
    n_steps = ifloor(prm.march_max / ds)
    # drops land on P1 and jumps up take off at P0: one run-up or run-out at most
    reach_near = a_max + d_max
    up_lo = prm.jump_height + climb
    up_hi = prm.top
    cs = prm.cs
    gw = int(prm.grid_w)
    gh = int(prm.grid_h)
    can_jump = prm.vz > 0.0
    # the navmesh heights of candidates are voxel-rounded: a window two cells wider, the
    # kinds and limits are then judged on the triangles' heights
    slack = 2.0 * prm.ch
    zlo_rel = (-prm.drop_height if enabled[LINK_DROP] else -climb) - slack
    zhi_rel = (max(prm.jump_height, climb) if can_jump else -climb) + slack
    snap = max(climb, slack)
    # a column whose solid covers the body heights of every jump up blocks them all only
    # when the body surely covers the column (radius beyond the cell's diagonal)
    column_stop = prm.body_radius >= 1.4143 * cs
    wk = new_scratch()
    for q in range(lo, hi):
        i = which[q]
        counters = counts[i]
        if settle_sample(samples[i], settle, prm, tri, vox, wk):
            counters.settled = 1
        x0, y0, z0, ex, ey, nx, ny = sample_frame(samples[i])
        sp = samples[i].poly
        for k in range(3):
            found[k] = not (enabled[k] and allow[i, k])
        if found[LINK_DROP] and found[LINK_JUMP_ACROSS] and found[LINK_JUMP_UP]:
            continue
        p0_ground = 0  # ground under P0 (within climb): 0 unknown, 1 yes, -1 no
        # At a wall (the first step out along the normal blocked): 0 unknown, 1 yes, -1 no.
        # Tested when the march first meets a column that could hold a landing (the
        # march's state there does not depend on it), so a sample with nothing to land on
        # in reach is never tested; eagerly with debug data (the record needs it).
        wall = 0
        if debug_on:
            wall = _wall_test(x0, y0, z0, nx, ny, ex, ey, found, prm, tri, vox, counters,
                              wk)
        for di in range(dir_cos.shape[0]):
            if found[LINK_DROP] and found[LINK_JUMP_ACROSS] and found[LINK_JUMP_UP]:
                break
            if di > 0 and wall > 0:
                break  # a sample at a wall is searched along the normal only
            ux = nx * dir_cos[di] - ny * dir_sin[di]
            uy = nx * dir_sin[di] + ny * dir_cos[di]
            for k in range(3):
                dead[k] = found[k]
            have_fallback = False
            runup = 0  # 0 unknown, 1 clear, -1 blocked or no ledge
            s_t_run = -1.0
            for k in range(3):  # last failed flight of a jump kind: its s_L and z1
                fail_sl[k] = -1.0
                tries[k] = 0
            # march in grid units without divisions; a column already found empty is
            # skipped (kinds only ever die, so it stays empty)
            gx0 = (x0 - prm.bx) / cs
            gy0 = (y0 - prm.by) / cs
            gdx = ux * ds / cs
            gdy = uy * ds / cs
            last_c = -1
            last_mask = 0
            for j in range(1, n_steps + 1):
                if dead[LINK_DROP] and dead[LINK_JUMP_ACROSS] and dead[LINK_JUMP_UP]:
                    break
                dist = j * ds
                counters.march += 1
                if dist > reach_near:
                    dead[LINK_DROP] = True
                    dead[LINK_JUMP_UP] = True
                    if dead[LINK_JUMP_ACROSS]:
                        break
                ix = ifloor(gx0 + j * gdx)
                iy = ifloor(gy0 + j * gdy)
                if ix < 0 or iy < 0 or ix >= gw or iy >= gh:
                    break  # left the grid: nothing further out
                c = ix + iy * gw
                if c == last_c:
                    if last_mask == 0:
                        continue
                else:
                    last_c = c
                    if column_stop and not dead[LINK_JUMP_UP] and _solid_at(
                            c, z0 + up_lo + prm.ch, z0 + up_hi - prm.ch, prm, vox):
                        # every jump up from P0 passes this column with its cylinder covering
                        # these heights (feet between z0 and the apex): nothing beyond is
                        # reachable
                        dead[LINK_JUMP_UP] = True
                mask = _chf_candidate(c, z0, dead, prm, chf)
                if mask != 0 and wall == 0:
                    wall = _wall_test(x0, y0, z0, nx, ny, ex, ey, found, prm, tri, vox,
                                      counters, wk)
                    if wall > 0:
                        if di > 0:
                            break
                        dead[LINK_DROP] = True
                        dead[LINK_JUMP_ACROSS] = True
                        mask &= BIT_UP
                last_mask = mask
                if mask == 0:
                    continue
                x = x0 + ux * dist
                y = y0 + uy * dist
                if runup == 0 and (mask & (BIT_DROP | BIT_ACROSS)) != 0:
                    counters.run_ups += 1
                    s_t_run = _run_up(x0, y0, z0, ux, uy, ex, ey, di == 0, prm, tri, vox,
                                      wk)
                    runup = 1 if s_t_run >= 0.0 else -1
                    if runup < 0:
                        dead[LINK_DROP] = True
                        dead[LINK_JUMP_ACROSS] = True
                        mask &= BIT_UP
                        if mask == 0:
                            continue
                counters.lookups += 1
                nh = locate(x, y, z0 + zlo_rel, z0 + zhi_rel, sp, pidx, out_poly, out_z)
                col = last_c
                for c in range(nh - 1, -1, -1):  # highest landing first
                    z1 = ground_height(x, y, _standing_height(col, out_z[c], prm, chf), snap,
                                       tri)
                    if z1 != z1:  # no ground near the navmesh surface
                        continue
                    dz = z1 - z0
                    kind = kind_of(dz, climb)
                    if dead[kind]:
                        continue
                    if kind == LINK_JUMP_UP:
                        if dist - a_max > d_max:
                            dead[LINK_JUMP_UP] = True
                            if debug_on:
                                record_reject(rej, i, kind, REJECT_TOO_FAR, x, y, z1, math.nan,
                                              math.nan, math.nan)
                            continue
                        if p0_ground == 0:
                            p0_ground = 1 if support(x0, y0, z0, prm, tri) else -1
                        if p0_ground < 0:
                            dead[LINK_JUMP_UP] = True
                            continue
                        s_t = 0.0
                    else:
                        if runup == 0:  # a landing the column test did not foresee
                            counters.run_ups += 1
                            s_t_run = _run_up(x0, y0, z0, ux, uy, ex, ey, di == 0, prm,
                                              tri, vox, wk)
                            runup = 1 if s_t_run >= 0.0 else -1
                        if runup < 0:
                            dead[LINK_DROP] = True
                            dead[LINK_JUMP_ACROSS] = True
                            continue
                        s_t = s_t_run
                        if s_t >= dist:
                            continue
                        if dist - s_t - a_max > d_max:
                            dead[kind] = True
                            if debug_on:
                                record_reject(rej, i, kind, REJECT_TOO_FAR, x, y, z1, math.nan,
                                              math.nan, math.nan)
                            continue
                    if kind == LINK_DROP:
                        s_l = dist
                        if not support(x, y, z1, prm, tri):
                            continue
                    else:
                        counters.touchdowns += 1
                        s_l = touchdown_distance(x0, y0, ux, uy, dist, z1, s_t, prm, tri)
                        if s_l < 0.0:
                            continue
                        # same touch-down as a flight that failed: the longer run-out fails
                        # too (it contains the failed one)
                        if abs(s_l - fail_sl[kind]) < 1e-9 and abs(z1 - fail_z[kind]) \
                                < 0.5 * prm.ch:
                            continue
                    counters.flights[kind] += 1
                    if kind == LINK_DROP:
                        flight = check_flight(x0, y0, z0, ux, uy, dist, z1, LINK_DROP,
                                              MODE_WALK_OFF, s_t, s_l, ex, ey, prm, tri, vox,
                                              wk)
                        if flight.ok:
                            _record(res, found_at, i, LINK_DROP, di, j, x, y, z1, out_poly[c],
                                    MODE_WALK_OFF, s_t, s_l, s_t + flight.length)
                            found[LINK_DROP] = True
                            dead[LINK_DROP] = True
                            continue
                        if have_fallback:
                            continue
                    if tries[kind] >= FLIGHT_BUDGET:
                        if kind != LINK_DROP:
                            dead[kind] = True
                        continue
                    tries[kind] += 1
                    flight = check_flight(x0, y0, z0, ux, uy, dist, z1, kind, MODE_JUMP, s_t,
                                          s_l, ex, ey, prm, tri, vox, wk)
                    if not flight.ok:
                        if debug_on:
                            why = explain_flight(x0, y0, z0, ux, uy, dist, z1, kind, MODE_JUMP,
                                                 s_t, s_l, ex, ey, prm, tri, vox, wk)
                            record_reject(rej, i, kind, why.reason, x, y, z1, why.bx, why.by,
                                          why.bz)
                        if kind != LINK_DROP:
                            fail_sl[kind] = s_l
                            fail_z[kind] = z1
                        continue
                    if kind == LINK_JUMP_ACROSS and not lands_squarely(
                            x0, y0, ux, uy, dist, z1, s_t, s_l, prm, tri):
                        continue  # too oblique to the landing edge (links_model)
                    if kind == LINK_DROP:
                        have_fallback = True
                        _set_landing(fallback, di, j, x, y, z1, out_poly[c], MODE_JUMP, s_t,
                                     s_l, s_t + flight.length)
                        continue
                    _record(res, found_at, i, kind, di, j, x, y, z1, out_poly[c], MODE_JUMP,
                            s_t, s_l, s_t + flight.length)
                    found[kind] = True
                    dead[kind] = True
            if not found[LINK_DROP] and have_fallback:
                _record(res, found_at, i, LINK_DROP, di, fallback.step, fallback.x,
                        fallback.y, fallback.z, fallback.poly, MODE_JUMP, fallback.s_t,
                        fallback.s_l, fallback.length)
                found[LINK_DROP] = True
        if debug_on and wall < 0:
            # a sample with no landing at all and no refused candidate: nothing to land on
            nothing = True
            for k in range(3):
                if found_at[i, k] or rej[i, k].reason != REJECT_NONE:
                    nothing = False
            if nothing:
                record_reject(rej, i, LINK_DROP, REJECT_NO_LANDING, x0, y0, z0, math.nan,
                              math.nan, math.nan)


@hot_kernel
def _off_chord(ax, ay, az, bx, by, bz, qx, qy, qz, f):
    """Squared distance of q from the point a fraction f along a -> b."""
    return ((ax + f * (bx - ax) - qx) ** 2 + (ay + f * (by - ay) - qy) ** 2
            + (az + f * (bz - az) - qz) ** 2)


@njit(cache=True, nogil=True)
def group_runs(samples, res, found_at, tol_start, tol_end):
    """Split runs of neighbouring valid samples (one border chain, same kind and mode) into
    groups whose start points lie within ``tol_start`` and whose landing points lie within
    ``tol_end`` of the straight chords between the group's first and last samples (in
    arc-length proportion along the run), splitting where a run strays furthest. A chain
    follows the navmesh border across edges and polygons, so a straight ledge is one group
    at any angle.

    Returns ``GROUP`` rows (first sample, last sample, kind).
    Reads ``found_at`` (small) to skip samples, not the large ``res``."""
    n = samples.shape[0]
    out = np.empty(max(int(np.count_nonzero(found_at)), 1), GROUP)
    arc = np.zeros(n + 1)
    stack = np.empty((n + 2, 2), np.int64)
    m = 0
    ts2 = tol_start * tol_start
    te2 = tol_end * tol_end
    for kind in range(3):
        i = 0
        while i < n:
            if not found_at[i, kind]:
                i += 1
                continue
            # maximal run of compatible samples
            j = i
            arc[i] = 0.0
            while j + 1 < n and found_at[j + 1, kind] \
                    and samples[j + 1].chain == samples[i].chain \
                    and res[j + 1, kind].mode == res[i, kind].mode:
                arc[j + 1] = arc[j] + math.sqrt((samples[j + 1].x - samples[j].x) ** 2
                                                + (samples[j + 1].y - samples[j].y) ** 2)
                j += 1
            # split the run where it strays furthest from its chords, recursively (as
            # Douglas-Peucker), so that a bend splits it and a straight stretch stays whole
            top = 0
            stack[0, 0] = i
            stack[0, 1] = j
            top = 1
            while top > 0:
                top -= 1
                g0 = stack[top, 0]
                g1 = stack[top, 1]
                worst = 1.0
                split = -1
                span = arc[g1] - arc[g0]
                for q in range(g0 + 1, g1):
                    f = (arc[q] - arc[g0]) / span if span > 0.0 else 0.0
                    sa = samples[g0]
                    sb = samples[g1]
                    sq = samples[q]
                    d = _off_chord(sa.x, sa.y, 0.0, sb.x, sb.y, 0.0, sq.x, sq.y, 0.0, f) / ts2
                    la = res[g0, kind]
                    lb = res[g1, kind]
                    lq = res[q, kind]
                    d = max(d, _off_chord(la.x, la.y, la.z, lb.x, lb.y, lb.z, lq.x, lq.y,
                                          lq.z, f) / te2)
                    if d > worst:
                        worst = d
                        split = q
                if split < 0:
                    grp = out[m]
                    grp.i0, grp.i1, grp.kind = g0, g1, kind
                    m += 1
                    continue
                # the later part is pushed first: groups come out in sample order
                stack[top, 0] = split + 1
                stack[top, 1] = g1
                stack[top + 1, 0] = g0
                stack[top + 1, 1] = split
                top += 2
            i = j + 1
    return out[:m]


@njit(cache=True)
def fit_group(samples, res, i0, i1, kind, ext_lo, ext_hi, fit, march_step, jump_height):
    """Straight start and end segments for samples i0..i1 of one kind, written to ``fit``
    (a ``FIT`` record): the start line is the least-squares line through the samples'
    start points (so it follows the border's true direction, not its voxel steps), the
    samples' positions along it give the segment's extent (half a sample further at an
    end with ``ext_*``), and the start heights and the landing points are fitted linearly
    over that position. Position 0..1 along the link: ``link_point``."""
    cnt = i1 - i0 + 1
    mx = 0.0
    my = 0.0
    for i in range(i0, i1 + 1):
        mx += samples[i].x
        my += samples[i].y
    mx /= cnt
    my /= cnt
    sxx = 0.0
    sxy = 0.0
    syy = 0.0
    for i in range(i0, i1 + 1):
        dx = samples[i].x - mx
        dy = samples[i].y - my
        sxx += dx * dx
        sxy += dx * dy
        syy += dy * dy
    # principal direction of the start points; one sample: its edge
    dx = samples[i0].ex
    dy = samples[i0].ey
    if cnt > 1 and sxx + syy > 1e-12:
        ang = 0.5 * math.atan2(2.0 * sxy, sxx - syy)
        dx = math.cos(ang)
        dy = math.sin(ang)
        if dx * samples[i0].ex + dy * samples[i0].ey < 0.0:
            dx = -dx
            dy = -dy
    t_lo = 1e300
    t_hi = -1e300
    # least-squares sums over t: start z, landing x, y, z
    st = 0.0
    stt = 0.0
    sz = 0.0
    stz = 0.0
    sex = 0.0
    stex = 0.0
    sey = 0.0
    stey = 0.0
    sez = 0.0
    stez = 0.0
    for i in range(i0, i1 + 1):
        t = (samples[i].x - mx) * dx + (samples[i].y - my) * dy
        half = 0.5 * samples[i].step
        t_lo = min(t_lo, t - half if (i == i0 and ext_lo) else t)
        t_hi = max(t_hi, t + half if (i == i1 and ext_hi) else t)
        st += t
        stt += t * t
        sz += samples[i].z
        stz += t * samples[i].z
        sex += res[i, kind].x
        stex += t * res[i, kind].x
        sey += res[i, kind].y
        stey += t * res[i, kind].y
        sez += res[i, kind].z
        stez += t * res[i, kind].z
    den = cnt * stt - st * st
    fit.ox = mx
    fit.oy = my
    fit.dx = dx
    fit.dy = dy
    fit.t_lo = t_lo
    fit.t_hi = t_hi
    if cnt > 1 and den > 1e-12:
        fit.z, fit.z_s = _line(cnt, st, den, sz, stz)
        fit.ex, fit.ex_s = _line(cnt, st, den, sex, stex)
        fit.ey, fit.ey_s = _line(cnt, st, den, sey, stey)
        fit.ez, fit.ez_s = _line(cnt, st, den, sez, stez)
        # --- landing line outside every found landing (linkinv) ---
        _landing_envelope(fit, samples, res, i0, i1, kind, march_step, jump_height)
    else:
        # one sample (or all at one place): the landing moves with the start
        t0 = st / cnt
        fit.z = sz / cnt
        fit.z_s = 0.0
        fit.ex = sex / cnt - dx * t0
        fit.ex_s = dx
        fit.ey = sey / cnt - dy * t0
        fit.ey_s = dy
        fit.ez = sez / cnt
        fit.ez_s = 0.0


@hot_kernel
def _line(cnt, st, den, s_v, s_tv):
    """Least-squares line v = a + b t from the sums over cnt points (st = sum t, den =
    cnt sum t^2 - st^2, s_v = sum v, s_tv = sum t v): (a, b)."""
    b = (cnt * s_tv - st * s_v) / den
    return (s_v - b * st) / cnt, b


@hot_kernel
def copy_fit(dst, src):
    """Copy a ``FIT`` record's fields."""
    dst.ox, dst.oy, dst.dx, dst.dy = src.ox, src.oy, src.dx, src.dy
    dst.t_lo, dst.t_hi = src.t_lo, src.t_hi
    dst.z, dst.z_s, dst.ex, dst.ex_s = src.z, src.z_s, src.ex, src.ex_s
    dst.ey, dst.ey_s, dst.ez, dst.ez_s = src.ey, src.ey_s, src.ez, src.ez_s


# Beyond the samples' own landings, the landing line of a walk-off drop deeper than any jump
# is moved out by this share of a march step more: every landing on it is then past the
# limit of validity by a margin, not just at it (a walk-off drop from a 3.9 m ledge whose
# start line leaned 0.5 degrees off the edge clipped the lip at one end, and its reach
# stopped 1.4 m short of the corner). Not for shallower drops: those may be the way back
# of a jump up, and a landing moved out is no longer its near-duplicate.
LANDING_MARGIN = 0.5


@njit(cache=True)
def _landing_envelope(fit, samples, res, i0, i1, kind, limit, jump_height):
    """Move a fitted landing line out (away from the take-off, across the start line),
    by at most ``limit`` (one march step), so that no sample's own landing lies beyond
    it. The search takes each sample's first valid landing along its march, i.e. just
    past where landings stop being valid, quantised by the march step: a least-squares
    line through such points passes inside that limit at about half of them (the navmesh
    border the samples sit on wanders, so the limit does too). Landing up to one step
    further is what the samples found valid."""
    nx = fit.dy  # the start line's right-hand normal, turned towards the landings
    ny = -fit.dx
    side = 0.0
    worst = 0.0
    for i in range(i0, i1 + 1):
        side += (res[i, kind].x - samples[i].x) * nx + (res[i, kind].y
                                                               - samples[i].y) * ny
    if side < 0.0:
        nx = -nx
        ny = -ny
    for i in range(i0, i1 + 1):
        t = (samples[i].x - fit.ox) * fit.dx + (samples[i].y - fit.oy) \
            * fit.dy
        r = (res[i, kind].x - fit.ex - t * fit.ex_s) * nx \
            + (res[i, kind].y - fit.ey - t * fit.ey_s) * ny
        worst = max(worst, r)
    worst = min(worst, limit)
    if kind == LINK_DROP and res[i0, kind].mode == MODE_WALK_OFF \
            and res[i0, kind].z - samples[i0].z < -jump_height:
        worst += LANDING_MARGIN * limit
    fit.ex += worst * nx
    fit.ey += worst * ny


class LinkPoints(NamedTuple):
    """A start point (sx, sy, sz) and the end point it maps to (ex, ey, ez)."""

    sx: float
    sy: float
    sz: float
    ex: float
    ey: float
    ez: float


class FitTest(NamedTuple):
    """A fitted link's test (``_test_fit``): the first failing position (0..1 along it) or
    -1 when it passed, the polygons under its start and end midpoints, the mean path
    length over the tested positions (0 unless it passed)."""

    fail: float
    start_poly: int
    end_poly: int
    length: float


class Position(NamedTuple):
    """One tested position of a link (``_position_ok``): valid, and its path length."""

    ok: bool
    length: float


class Polys(NamedTuple):
    """The polygons under a fitted link's start and end midpoints (-1: none)."""

    start: int
    end: int


@hot_kernel
def link_point(fit, pos):
    """Start and end points (``LinkPoints``) at position pos (0..1) along a fitted group."""
    t = fit.t_lo + pos * (fit.t_hi - fit.t_lo)
    return LinkPoints(fit.ox + t * fit.dx, fit.oy + t * fit.dy, fit.z + t * fit.z_s,
                      fit.ex + t * fit.ex_s, fit.ey + t * fit.ey_s, fit.ez + t * fit.ez_s)


@hot_kernel
def _segment_length(seg):
    """Length (3D) of a (2, 3) segment."""
    return math.sqrt((seg[1, 0] - seg[0, 0]) ** 2 + (seg[1, 1] - seg[0, 1]) ** 2
                     + (seg[1, 2] - seg[0, 2]) ** 2)


@hot_kernel
def _width(a, b):
    """Length of the start segment between two ``LinkPoints``."""
    return math.sqrt((b.sx - a.sx) ** 2 + (b.sy - a.sy) ** 2 + (b.sz - a.sz) ** 2)


@hot_kernel
def _end_poly(x, y, z, exclude, prm, pidx, out_poly, out_z):
    c = prm.climb
    nh = locate(x, y, z - c, z + c, exclude, pidx, out_poly, out_z)
    best = -1
    best_d = 1e300
    for k in range(nh):
        d = abs(out_z[k] - z)
        if d < best_d:
            best_d = d
            best = out_poly[k]
    return best



@njit(cache=True)
def midpoint_polys(starts, ends, rows, prm, pidx, start_poly, end_poly):
    """The polygons under the midpoints of links ``rows``' start and end segments, written
    to ``start_poly`` and ``end_poly``; both -1 where either is not found."""
    out_poly = np.empty(MAX_LAYERS, np.int32)
    out_z = np.empty(MAX_LAYERS, np.float64)
    for r in rows:
        s = 0.5 * (starts[r, 0] + starts[r, 1])
        e = 0.5 * (ends[r, 0] + ends[r, 1])
        sp = _end_poly(s[0], s[1], s[2], -1, prm, pidx, out_poly, out_z)
        ep = -1
        if sp >= 0:
            ep = _end_poly(e[0], e[1], e[2], sp, prm, pidx, out_poly, out_z)
        if ep < 0:
            sp = -1
        start_poly[r] = sp
        end_poly[r] = ep


@hot_kernel
def _set_segments(row, a, b):
    """A ``LINK`` row's start and end segments from ``link_point`` at its two ends."""
    row.start[0, 0], row.start[0, 1], row.start[0, 2] = a.sx, a.sy, a.sz
    row.start[1, 0], row.start[1, 1], row.start[1, 2] = b.sx, b.sy, b.sz
    row.end[0, 0], row.end[0, 1], row.end[0, 2] = a.ex, a.ey, a.ez
    row.end[1, 0], row.end[1, 1], row.end[1, 2] = b.ex, b.ey, b.ez


@hot_kernel
def check_positions(width, prm):
    """Number of intervals between the positions a link is tested at: at most half a cell
    apart, both ends included (docs/jump-links.md, "Validity")."""
    return max(1, int(math.ceil(width / (0.5 * prm.cs) - 1e-9)))


@njit(cache=True, nogil=True)
def validate_groups(samples, res, groups, offsets, prm, tri, vox, pidx, out, out_n, vc, g_lo,
                    g_hi):
    """Turn groups g_lo..g_hi-1 into links and test them where they will be used.

    A group of samples i0..i1 gets straight segments (``fit_group``) reaching half a
    sample beyond its first and last samples. At ``check_positions`` evenly spaced
    positions along them, the start and end points must be on the navmesh (the end on
    another polygon than the start), of the group's kind, and their trajectory valid; the
    midpoints of both segments must be on polygons too. A failure beyond the first or last
    sample pulls that end back to the sample; a failure inside splits the group around it
    (and each part gets its own fit).

    Group g writes its links (``LINK`` rows; at most one per sample) to
    ``out[offsets[g]:]`` and their number to ``out_n[g]``; bands of groups are independent.
    """
    out_poly = np.empty(MAX_LAYERS, np.int32)
    out_z = np.empty(MAX_LAYERS, np.float64)
    fits = np.zeros(2, FIT)
    fit = fits[0]
    fit2 = fits[1]
    wk = new_scratch()
    for g in range(g_lo, g_hi):
        m = offsets[g]
        grp = groups[g]
        stack = np.empty(2 * (grp.i1 - grp.i0 + 1) + 2, PART)
        top = _push(stack, 0, grp.i0, grp.i1, grp.kind, True, True)
        m = _validate_stack(samples, res, prm, tri, vox, pidx, out, m, stack, top, fit, fit2,
                            out_poly, out_z, vc[g], wk)
        out_n[g] = m - offsets[g]


# Growth of a valid link's ends along its line: steps of half a cell (of the start
# segment's length), up to 20 cells (each step one position test; validity stops it: the
# start must stay within an agent radius of the navmesh). At some angles to the grid the
# erosion and the contour simplification cut a navmesh corner along 1.5 m of a ledge (the
# 0.95 m ledge turned 60.07 deg: its jump up stopped 1 m short with 3 cells), and where
# the samples by a corner took another landing mode the fitted link ends further back
# (the 3.9 m ledge at 0.2 m cells turned 313.25 deg: 0.9 m short with 10 cells). The
# steps are the link's own test positions (``_lattice_step``): a grown position is
# never tested again. A grown link refused as a whole (its midpoint moved off the
# navmesh) is grown again up to EXTEND_RETRY_STEPS (10 cells) before the link as
# fitted is tested: a long growth at one end only moves the midpoint far.
EXTEND_STEPS = 40
EXTEND_RETRY_STEPS = 20
# A joined link's outer ends are pulled back JOIN_PULL_STEP cells at a time, at most
# JOIN_PULL_STEPS times (each a full test)
JOIN_PULL_STEP = 0.25
JOIN_PULL_STEPS = 12


@hot_kernel
def _near_navmesh(x, y, z, exclude, prm, pidx, out_poly, out_z):
    """A standing polygon (not ``exclude``) within the agent's radius of (x, y), at height
    z within climb: on the point, or on one of 8 points around it at half and the full
    radius. The navmesh's corners are cut round by the erosion, differently at every
    angle to the grid; the ground (which the trajectory test checks) goes on."""
    if _end_poly(x, y, z, exclude, prm, pidx, out_poly, out_z) >= 0:
        return True
    r = prm.radius
    for ring in range(1, 3):
        d = 0.5 * ring * r
        for k in range(8):
            a = 0.25 * math.pi * k
            if _end_poly(x + d * math.cos(a), y + d * math.sin(a), z, exclude, prm, pidx,
                         out_poly, out_z) >= 0:
                return True
    return False


@hot_kernel
def _position_ok(fit, t, sp, kind, mode, ex, ey, prm, tri, vox, pidx, out_poly, out_z, wk):
    """One position (t along the fitted start line) of a link: start on the navmesh, end on
    another polygon than ``sp``, of the kind (by its heights and by the ground under them,
    ``links_model.ground_kind``), trajectory valid. Returns a ``Position``."""
    x0 = fit.ox + t * fit.dx
    y0 = fit.oy + t * fit.dy
    z0 = fit.z + t * fit.z_s
    x1 = fit.ex + t * fit.ex_s
    y1 = fit.ey + t * fit.ey_s
    z1 = fit.ez + t * fit.ez_s
    if kind_of(z1 - z0, prm.climb) != kind or ground_kind(x0, y0, z0, x1, y1, z1, prm,
                                                         tri) != kind:
        return Position(False, 0.0)
    if not _near_navmesh(x0, y0, z0, -1, prm, pidx, out_poly, out_z):
        return Position(False, 0.0)
    if not _near_navmesh(x1, y1, z1, sp, prm, pidx, out_poly, out_z):
        return Position(False, 0.0)
    path = check_path(x0, y0, z0, x1, y1, z1, kind, mode, ex, ey, prm, tri, vox, wk)
    return Position(path.ok, path.length)


# moves of a fitted start (landing) line whose midpoint is just off the navmesh, metres
SHIFT_STEP = 0.05
SHIFT_STEPS = 8


@hot_kernel
def _test_fit(fit, n, kind, mode, prm, tri, vox, pidx, out_poly, out_z, wk):
    """Test a fitted link at n + 1 evenly spaced positions (both ends included) and the
    midpoints of its segments (the start line is moved inward, and the landing line
    outward, up to SHIFT_STEPS SHIFT_STEP, when its midpoint is off the navmesh).
    Returns a ``FitTest``."""
    sp, ep = _fit_polys(fit, prm, pidx, out_poly, out_z)
    if sp < 0 or ep < 0:
        return FitTest(0.5, sp, ep, 0.0)
    return _test_positions(fit, n, kind, mode, sp, ep, prm, tri, vox, pidx, out_poly, out_z,
                           wk)


@hot_kernel
def _fit_polys(fit, prm, pidx, out_poly, out_z):
    """The polygons under the midpoints of a fitted link's start and landing lines (each
    line moved in, up to SHIFT_STEPS SHIFT_STEP, when its midpoint is just off the
    navmesh): ``Polys``, -1 where there is none."""
    c = link_point(fit, 0.5)
    sp = _end_poly(c.sx, c.sy, c.sz, -1, prm, pidx, out_poly, out_z)
    if sp < 0:
        # the fitted line passes outside a bend of the border at its middle: move it in
        # (against the outward normal) until the midpoint is on the navmesh
        for k in range(1, SHIFT_STEPS + 1):
            d = k * SHIFT_STEP
            sp = _end_poly(c.sx - d * fit.dy, c.sy + d * fit.dx, c.sz, -1, prm, pidx,
                           out_poly, out_z)
            if sp >= 0:
                fit.ox -= d * fit.dy
                fit.oy += d * fit.dx
                break
    ep = -1
    if sp >= 0:
        ep = _end_poly(c.ex, c.ey, c.ez, sp, prm, pidx, out_poly, out_z)
        # the landing line is a straight fit over a border that wanders just as much
        # (voxel steps, contour simplification): when its midpoint lies just off the
        # navmesh, move it in too (along the outward normal, away from the take-off)
        for k in range(1, SHIFT_STEPS + 1):
            if ep >= 0:
                break
            d = k * SHIFT_STEP
            ep = _end_poly(c.ex + d * fit.dy, c.ey - d * fit.dx, c.ez, sp, prm, pidx,
                           out_poly, out_z)
            if ep >= 0:
                fit.ex += d * fit.dy
                fit.ey -= d * fit.dx
    return Polys(sp, ep)


@hot_kernel
def _test_positions(fit, n, kind, mode, sp, ep, prm, tri, vox, pidx, out_poly, out_z, wk):
    """``_test_fit``'s n + 1 positions, the polygons known. The two ends first: a fitted
    link fails mostly at an end (reaching half a sample beyond its end samples, or grown
    along its line), and a failing end costs two positions, not all of them."""
    total = 0.0
    for q in range(n + 1):
        h = 0 if q == 0 else (n if q == 1 else q - 1)
        pos = h / n
        at = _position_ok(fit, fit.t_lo + pos * (fit.t_hi - fit.t_lo), sp, kind, mode, fit.dx,
                          fit.dy, prm, tri, vox, pidx, out_poly, out_z, wk)
        if not at.ok:
            return FitTest(pos, sp, ep, 0.0)
        total += at.length
    return FitTest(-1.0, sp, ep, total / (n + 1))


class Growth(NamedTuple):
    """``_grow``'s answer: the steps each end grew (lo, hi) and the summed path length of
    the positions tested there."""

    lo: int
    hi: int
    length: float


class LatticeTest(NamedTuple):
    """``_test_lattice``'s answer: the first failing position (its index j) or -1, the
    summed path length of the passing positions and how many positions were tested."""

    fail: int
    length: float
    tested: int


@hot_kernel
def _lattice_step(fit, prm):
    """The step along t between test positions half a cell apart on the start segment (its
    length in 3D, as ``check_positions`` measures it): a link spanning m such steps is
    tested at exactly these positions (``n = m``)."""
    return 0.5 * prm.cs / math.sqrt(fit.dx * fit.dx + fit.dy * fit.dy + fit.z_s * fit.z_s)


@hot_kernel
def _grow(fit, h, max_steps, sp, kind, mode, prm, tri, vox, pidx, out_poly, out_z, vc, wk):
    """Grow the ends of the fitted link ``fit`` along its line one step ``h`` (a test
    position of the grown link, ``_lattice_step``) at a time, up to ``max_steps``, while
    single positions stay valid (``_position_ok``). Returns a ``Growth``; ``fit`` is
    unchanged."""
    n_lo = 0
    n_hi = 0
    total = 0.0
    for side in range(2):
        k = 0
        while k < max_steps:
            t = fit.t_hi + (k + 1) * h if side == 1 else fit.t_lo - (k + 1) * h
            vc.grow += 1
            pos = _position_ok(fit, t, sp, kind, mode, fit.dx, fit.dy, prm, tri, vox, pidx,
                               out_poly, out_z, wk)
            if not pos.ok:
                break
            total += pos.length
            k += 1
        if side == 1:
            n_hi = k
        else:
            n_lo = k
    return Growth(n_lo, n_hi, total)


@hot_kernel
def _test_lattice(fit, h, n, skip_lo, skip_hi, kind, mode, sp, prm, tri, vox, pidx,
                  out_poly, out_z, wk):
    """Test the positions t_lo + j h (j = 0..n) of ``fit``, except the ``skip_lo`` first and
    ``skip_hi`` last ones (already tested, while growing), the two outermost untested ones
    first (a fitted link fails mostly at an end). Returns a ``LatticeTest``."""
    total = 0.0
    j_lo = skip_lo
    j_hi = n - skip_hi
    cnt = j_hi - j_lo + 1
    for q in range(cnt):
        j = j_lo if q == 0 else (j_hi if q == 1 else j_lo + q - 1)
        at = _position_ok(fit, fit.t_lo + j * h, sp, kind, mode, fit.dx, fit.dy, prm, tri, vox,
                          pidx, out_poly, out_z, wk)
        if not at.ok:
            return LatticeTest(j, 0.0, q + 1)
        total += at.length
    return LatticeTest(-1, total, cnt)


@hot_kernel
def _tested(fail, n):
    """Positions ``_test_positions`` tested before returning ``fail`` (ends first)."""
    if fail < 0.0:
        return n + 1
    if fail == 0.0:
        return 1
    if fail == 1.0:
        return 2
    return int(round(fail * n)) + 2


@hot_kernel
def _push(stack, top, i0, i1, kind, ext_lo, ext_hi):
    """Push a ``PART`` on the validation stack; returns the new top."""
    part = stack[top]
    part.i0, part.i1, part.kind = i0, i1, kind
    part.ext_lo, part.ext_hi = ext_lo, ext_hi
    return top + 1


@njit(cache=True)
def _validate_stack(samples, res, prm, tri, vox, pidx, out, m, stack, top, fit, fit2,
                    out_poly, out_z, vc, wk):
    while top > 0:
        top -= 1
        vc.parts += 1
        part = stack[top]
        i0, i1, kind = part.i0, part.i1, part.kind
        ext_lo, ext_hi = part.ext_lo, part.ext_hi
        mode = res[i0, kind].mode
        fit_group(samples, res, i0, i1, kind, ext_lo, ext_hi, fit, prm.march_step,
                  prm.jump_height)
        # the extent as a whole number of test steps (half a cell of the start segment),
        # widened evenly about its middle: the grown link is tested at its growth steps
        # and at these positions, each once
        h = _lattice_step(fit, prm)
        steps = max(1, int(math.ceil((fit.t_hi - fit.t_lo) / h - 1e-9)))
        mid = 0.5 * (fit.t_lo + fit.t_hi)
        fit.t_lo = mid - 0.5 * steps * h
        fit.t_hi = fit.t_lo + steps * h
        passed = False
        t_fail = mid  # no polygon under a midpoint: split in the middle
        mean_len = 0.0
        sp, ep = _fit_polys(fit, prm, pidx, out_poly, out_z)
        if sp >= 0 and ep >= 0:
            # reach on along the straight line while single positions stay valid (a
            # border bends away at corners; the ledge goes on), then test the grown link
            # at its other positions (the ones the oracle checks: the growth steps are
            # among them); a grown link refused as a whole is grown again less far
            # (EXTEND_RETRY_STEPS) before the link as fitted is tested
            fitted_fails = False
            widest = -1
            for cap in (EXTEND_STEPS, EXTEND_RETRY_STEPS):
                if widest >= 0 and widest <= cap:
                    break  # the first growth stayed within this cap: nothing new to try
                g = _grow(fit, h, cap, sp, kind, mode, prm, tri, vox, pidx, out_poly,
                          out_z, vc, wk)
                widest = max(g.lo, g.hi)
                n = steps + g.lo + g.hi
                copy_fit(fit2, fit)
                fit2.t_lo = fit.t_lo - g.lo * h
                fit2.t_hi = fit2.t_lo + n * h
                c = link_point(fit2, 0.5)
                sp2 = _end_poly(c.sx, c.sy, c.sz, -1, prm, pidx, out_poly, out_z)
                ep2 = _end_poly(c.ex, c.ey, c.ez, sp2, prm, pidx, out_poly, out_z) \
                    if sp2 >= 0 else -1
                if sp2 >= 0 and ep2 >= 0 and check_positions(
                        _width(link_point(fit2, 0.0), link_point(fit2, 1.0)), prm) == n:
                    lt = _test_lattice(fit2, h, n, g.lo, g.hi, kind, mode, sp2, prm, tri,
                                       vox, pidx, out_poly, out_z, wk)
                    vc.full += lt.tested
                    vc.full_fails += lt.fail >= 0
                    if lt.fail < 0:
                        passed = True
                        copy_fit(fit, fit2)
                        sp, ep = sp2, ep2
                        mean_len = (lt.length + g.length) / (n + 1)
                    else:  # inside the fitted extent: the link as fitted fails there too
                        t_fail = fit2.t_lo + lt.fail * h
                        fitted_fails = True
                    break
                # the grown link's midpoint is off the navmesh, or rounding puts its test
                # positions off the steps: tested as a whole (its line moved in where
                # its midpoint is off)
                n2 = check_positions(_width(link_point(fit2, 0.0), link_point(fit2, 1.0)),
                                     prm)
                f2, sp2, ep2, len2 = _test_fit(fit2, n2, kind, mode, prm, tri, vox, pidx,
                                               out_poly, out_z, wk)
                vc.full += _tested(f2, n2)
                vc.full_fails += f2 >= 0.0
                if f2 < 0.0:
                    passed = True
                    copy_fit(fit, fit2)
                    sp, ep, mean_len = sp2, ep2, len2
                    break
            if not passed and not fitted_fails:
                # else the link as fitted
                n1 = check_positions(_width(link_point(fit, 0.0), link_point(fit, 1.0)),
                                     prm)
                f1, sp, ep, mean_len = _test_positions(fit, n1, kind, mode, sp, ep, prm,
                                                       tri, vox, pidx, out_poly, out_z, wk)
                vc.full += _tested(f1, n1)
                vc.full_fails += f1 >= 0.0
                passed = f1 < 0.0
                t_fail = fit.t_lo + f1 * (fit.t_hi - fit.t_lo)
        a = link_point(fit, 0.0)
        b = link_point(fit, 1.0)
        if passed:
            row = out[m]
            row.i0, row.i1, row.kind, row.mode = i0, i1, kind, mode
            row.start_poly, row.end_poly, row.length = sp, ep, mean_len
            _set_segments(row, a, b)
            m += 1
            continue
        # where the failure lies among the samples (their positions along the fit);
        # every part pushed is smaller than this one, so it ends
        q_first = i1 + 1  # first sample at or after the failure
        for q in range(i0, i1 + 1):
            t = (samples[q].x - fit.ox) * fit.dx + (samples[q].y - fit.oy) \
                * fit.dy
            if t >= t_fail - 1e-9:
                q_first = q
                break
        if q_first == i0:  # at or before the first sample
            if ext_lo:
                top = _push(stack, top, i0, i1, kind, False, ext_hi)
            elif i0 + 1 <= i1:
                top = _push(stack, top, i0 + 1, i1, kind, False, ext_hi)
            continue
        if q_first > i1:  # after the last sample
            if ext_hi:
                top = _push(stack, top, i0, i1, kind, ext_lo, False)
            elif i0 <= i1 - 1:
                top = _push(stack, top, i0, i1 - 1, kind, ext_lo, False)
            continue
        t = (samples[q_first].x - fit.ox) * fit.dx \
            + (samples[q_first].y - fit.oy) * fit.dy
        r0 = q_first if t > t_fail + 1e-9 else q_first + 1  # a failing sample is left out
        if r0 <= i1:
            top = _push(stack, top, r0, i1, kind, False, ext_hi)
        top = _push(stack, top, i0, q_first - 1, kind, ext_lo, False)
    return m


class Reverse(NamedTuple):
    """``reverse_valid``'s answer per link: the way back is valid, its kind (-1 when not),
    its mean path length, and the fractions along the link between which it holds (0 and
    1 unless ``max_trim`` left out end positions)."""

    ok: np.ndarray  # (L,) bool
    kind: np.ndarray  # (L,) int64
    length: np.ndarray  # (L,) float64
    f_lo: np.ndarray  # (L,) float64
    f_hi: np.ndarray  # (L,) float64


def reverse_valid(starts, ends, modes, edge_dirs, enabled, prm, tri, vox,
                  count_on_ends=False, max_trim=0) -> Reverse:
    """For each link, is the trajectory from its end back to its start valid at every
    tested position (``check_positions`` of the start segment's length, or of the end
    segment's with ``count_on_ends``)? With ``max_trim`` > 0, up to that many positions
    at each end may fail: the way back then holds on the link shortened to the first and
    last positions where it does (``f_lo``, ``f_hi``). Bands of links run on threads
    (``reverse_band``)."""
    nl = starts.shape[0]
    ok_out = np.zeros(nl, np.bool_)
    kind_out = np.full(nl, -1, np.int64)
    len_out = np.zeros(nl, np.float64)
    trims = np.zeros((nl, 2), np.float64)
    trims[:, 1] = 1.0
    run_banded(reverse_band, nl, starts, ends, modes, edge_dirs, enabled, prm, tri, vox,
               bool(count_on_ends), int(max_trim), ok_out, kind_out, len_out, trims,
               min_rows=1, per_worker=16)
    return Reverse(ok_out, kind_out, len_out, trims[:, 0].copy(), trims[:, 1].copy())


@hot_kernel
def _back_at(a0, a1, b0, b1, f, ux, uy, enabled, prm, tri, vox, wk):
    """The way back at fraction f of a link (end ``b0``-``b1`` back to start ``a0``-``a1``):
    its kind when that kind is ``enabled``, the ground at both ends is of that kind and
    the trajectory is valid, else -1; and the path length."""
    x0 = b0[0] + f * (b1[0] - b0[0])
    y0 = b0[1] + f * (b1[1] - b0[1])
    z0 = b0[2] + f * (b1[2] - b0[2])
    x1 = a0[0] + f * (a1[0] - a0[0])
    y1 = a0[1] + f * (a1[1] - a0[1])
    z1 = a0[2] + f * (a1[2] - a0[2])
    k = kind_of(z1 - z0, prm.climb)
    if not enabled[k] or ground_kind(x0, y0, z0, x1, y1, z1, prm, tri) != k:
        return -1, 0.0
    path = check_path(x0, y0, z0, x1, y1, z1, k, MODE_JUMP, ux, uy, prm, tri, vox, wk)
    if not path.ok:
        return -1, 0.0
    return k, path.length


@njit(cache=True, nogil=True)
def reverse_band(starts, ends, modes, edge_dirs, enabled, prm, tri, vox, count_on_ends,
                 max_trim, ok_out, kind_out, len_out, trims, lo, hi):
    """``reverse_valid`` for links lo..hi-1, written to the output arrays. The two ends
    are tested first (a way back fails mostly there), each moved in by up to ``max_trim``
    positions while it fails, then the positions between them."""
    wk = new_scratch()
    for li in range(lo, hi):
        if modes[li] != MODE_JUMP:
            continue  # walking off a ledge has no way back up
        a0 = starts[li, 0]
        a1 = starts[li, 1]
        b0 = ends[li, 0]
        b1 = ends[li, 1]
        c0 = b0 if count_on_ends else a0
        c1 = b1 if count_on_ends else a1
        width = math.sqrt((c1[0] - c0[0]) ** 2 + (c1[1] - c0[1]) ** 2 + (c1[2] - c0[2]) ** 2)
        cnt = check_positions(width, prm)
        ux = edge_dirs[li, 0]
        uy = edge_dirs[li, 1]
        rkind = -1
        total = 0.0
        j_lo = -1
        for j in range(min(max_trim, cnt - 1) + 1):
            k, length = _back_at(a0, a1, b0, b1, j / cnt, ux, uy, enabled, prm, tri, vox, wk)
            if k >= 0:
                j_lo = j
                rkind = k
                total += length
                break
        if j_lo < 0:
            continue
        j_hi = -1
        for j in range(cnt, max(cnt - max_trim, j_lo + 1) - 1, -1):
            k, length = _back_at(a0, a1, b0, b1, j / cnt, ux, uy, enabled, prm, tri, vox, wk)
            if k == rkind:
                j_hi = j
                total += length
                break
        if j_hi < 0:
            continue
        good = True
        for j in range(j_lo + 1, j_hi):
            k, length = _back_at(a0, a1, b0, b1, j / cnt, ux, uy, enabled, prm, tri, vox, wk)
            if k != rkind:
                good = False
                break
            total += length
        if good:
            ok_out[li] = True
            kind_out[li] = rkind
            len_out[li] = total / (j_hi - j_lo + 1)
            trims[li, 0] = j_lo / cnt
            trims[li, 1] = j_hi / cnt


@hot_kernel
def _point_seg_dist(p, a, b):
    dx = b[0] - a[0]
    dy = b[1] - a[1]
    dz = b[2] - a[2]
    ll = dx * dx + dy * dy + dz * dz
    t = 0.0
    if ll > 0.0:
        t = min(max(((p[0] - a[0]) * dx + (p[1] - a[1]) * dy + (p[2] - a[2]) * dz) / ll, 0.0),
                1.0)
    ex = a[0] + t * dx - p[0]
    ey = a[1] + t * dy - p[1]
    ez = a[2] + t * dz - p[2]
    return math.sqrt(ex * ex + ey * ey + ez * ez)


# A link is a near-duplicate of a kept one when at least half of its positions
# (start and end point at one fraction along it) lie within the tolerance of the kept
# link's start and end segments.
DUP_SHARE = 0.5
DUP_POINTS = 9


@njit(cache=True)
def _covers(sa, sb, ea, eb, start, end, tol):
    """Are at least DUP_SHARE of the positions along (start, end) within tol of segments
    (sa-sb, ea-eb)?"""
    hits = 0
    p = np.empty(3)
    q = np.empty(3)
    for h in range(DUP_POINTS):
        f = h / (DUP_POINTS - 1)
        for k in range(3):
            p[k] = start[0, k] + f * (start[1, k] - start[0, k])
            q[k] = end[0, k] + f * (end[1, k] - end[0, k])
        if _point_seg_dist(p, sa, sb) <= tol and _point_seg_dist(q, ea, eb) <= tol:
            hits += 1
    return hits >= DUP_SHARE * DUP_POINTS - 1e-9


def keep_distinct(starts, ends, bidir, tol):
    """Which links to keep of near-duplicates (``dedupe``), in the generator's order:
    bidirectional first, then the widest (validated links span whole test steps, half a
    cell: equal widths are common), then the higher start, then list order. ``starts``,
    ``ends``: (L, 2, 3) segments; the boolean keep mask."""
    starts = np.ascontiguousarray(starts, np.float64)
    ends = np.ascontiguousarray(ends, np.float64)
    width = np.linalg.norm(starts[:, 1] - starts[:, 0], axis=1)
    pts = np.concatenate([starts, ends], axis=1)
    boxes = np.empty(starts.shape[0], XY_BOUNDS)  # of both segments
    boxes["xmin"], boxes["ymin"] = pts[:, :, 0].min(1), pts[:, :, 1].min(1)
    boxes["xmax"], boxes["ymax"] = pts[:, :, 0].max(1), pts[:, :, 1].max(1)
    order = np.lexsort((np.arange(width.size), -starts[:, :, 2].mean(axis=1),
                        -np.round(width, 6), ~bidir)).astype(np.int64)
    return dedupe(order, starts, ends, boxes, np.ascontiguousarray(bidir, np.bool_), tol)


@njit(cache=True, nogil=True)
def dedupe(order, starts, ends, boxes, bidir, tol):
    """Keep links in ``order``; drop one whose start and end segments both lie within tol of
    a kept link's (or of its end and start, when the kept link is bidirectional). A one-way
    link does not hide a bidirectional one. ``boxes``: ``links_geom.XY_BOUNDS`` of both segments."""
    nl = order.shape[0]
    keep = np.zeros(starts.shape[0], np.bool_)
    kept = np.empty(nl, np.int64)
    nk = 0
    for oi in range(nl):
        li = order[oi]
        s = starts[li]
        e = ends[li]
        b = boxes[li]
        dup = False
        for kk in range(nk):
            k = kept[kk]
            kb = boxes[k]
            if kb.xmin > b.xmax + 2 * tol or b.xmin > kb.xmax + 2 * tol \
                    or kb.ymin > b.ymax + 2 * tol or b.ymin > kb.ymax + 2 * tol:
                continue
            if bidir[li] and not bidir[k]:
                continue
            ks = starts[k]
            ke = ends[k]
            if _covers(ks[0], ks[1], ke[0], ke[1], s, e, tol):
                dup = True
                break
            if bidir[k] and _covers(ke[0], ke[1], ks[0], ks[1], s, e, tol):
                dup = True
                break
        if not dup:
            keep[li] = True
            kept[nk] = li
            nk += 1
    return keep


@hot_kernel
def _segments_on_line(sa, sb, x0, y0, dx, dy, tol):
    """Do the points of segments ``sa`` and ``sb`` (2 x 3 each) lie within ``tol`` (XY)
    of the line through (x0, y0) along the unit vector (dx, dy)?"""
    for k in range(2):
        seg = sa if k == 0 else sb
        for e in range(2):
            px = seg[e, 0] - x0
            py = seg[e, 1] - y0
            if abs(px * dy - py * dx) > tol:
                return False
    return True


@njit(cache=True, nogil=True)
def merge_links(links, chain_of, tol, tol_end, prm, tri, vox, pidx):
    """Join links that continue one another: consecutive links (in ``links`` row order) of
    one border chain, kind and mode whose start segments and end segments lie on common
    lines (within ``tol`` and ``tol_end``) and meet or overlap, when the joined link
    (outer ends of the two) is valid at its test positions. The grouping splits a border
    where it strays; a straight ledge is still one link. Rows are updated in place;
    returns a keep mask."""
    nl = links.shape[0]
    keep = np.ones(nl, np.bool_)
    fit = np.zeros(1, FIT)[0]
    out_poly = np.empty(MAX_LAYERS, np.int32)
    out_z = np.empty(MAX_LAYERS, np.float64)
    wk = new_scratch()
    # passes until nothing joins: a piece that could not be joined to its neighbour
    # (e.g. where the border bends at a corner, the short chord between the two misses
    # the edge's direction) is tried again against the whole link its neighbour became
    # (a pair is tried again only when one of the two grew in the pass before)
    grew = np.ones(nl, np.bool_)
    grown = np.zeros(nl, np.bool_)
    joined = True
    while joined:
        joined = False
        grown[:] = False
        cur = -1
        for nxt in range(nl):
            if not keep[nxt]:
                continue
            if cur >= 0 and (grew[cur] or grew[nxt] or grown[cur]) and _join(
                    links, cur, nxt, chain_of, tol, tol_end, prm, tri, vox, pidx, fit,
                    out_poly, out_z, wk):
                keep[nxt] = False
                grown[cur] = True
                joined = True
                continue
            cur = nxt
        grew[:] = grown
    return keep


@njit(cache=True)
def _join(links, cur, nxt, chain_of, tol, tol_end, prm, tri, vox, pidx, fit, out_poly,
          out_z, wk):
    """Join link row ``nxt`` into row ``cur`` (see ``merge_links``) when they continue one
    another and the joined link is valid; returns whether it did."""
    a = links[cur]
    b = links[nxt]
    if chain_of[cur] != chain_of[nxt] or a.kind != b.kind or a.mode != b.mode:
        return False
    # the joined segments run from the outer ends of the two along the chain (a's first
    # to b's last points, unless the other link reaches further: a short piece at a
    # ledge's corner can lie inside the grown link beside it, and joined from its own
    # first point the whole link lost the stretch beyond it, 1.4 m of the 2.9 m gap's
    # 9.6 m link turned 196.375 degrees)
    dx = b.start[1, 0] - a.start[0, 0]
    dy = b.start[1, 1] - a.start[0, 1]
    ln = math.sqrt(dx * dx + dy * dy)
    if ln < 1e-9:
        return False
    dx /= ln
    dy /= ln
    lo = a
    if (b.start[0, 0] - a.start[0, 0]) * dx + (b.start[0, 1] - a.start[0, 1]) * dy < 0.0:
        lo = b
    hi = b
    if (a.start[1, 0] - b.start[1, 0]) * dx + (a.start[1, 1] - b.start[1, 1]) * dy > 0.0:
        hi = a
    sx0, sy0, sz0 = lo.start[0, 0], lo.start[0, 1], lo.start[0, 2]
    sx1, sy1, sz1 = hi.start[1, 0], hi.start[1, 1], hi.start[1, 2]
    ln = math.sqrt((sx1 - sx0) ** 2 + (sy1 - sy0) ** 2)
    if ln < 1e-9:
        return False
    dx = (sx1 - sx0) / ln
    dy = (sy1 - sy0) / ln
    # every start and end point near the joined lines
    ok = _segments_on_line(a.start, b.start, sx0, sy0, dx, dy, tol)
    ex0, ey0, ez0 = lo.end[0, 0], lo.end[0, 1], lo.end[0, 2]
    ex1, ey1, ez1 = hi.end[1, 0], hi.end[1, 1], hi.end[1, 2]
    eln = math.sqrt((ex1 - ex0) ** 2 + (ey1 - ey0) ** 2)
    if ok and eln > 1e-9:
        ok = _segments_on_line(a.end, b.end, ex0, ey0, (ex1 - ex0) / eln,
                               (ey1 - ey0) / eln, tol_end)
    # they meet: b's first start point not beyond a's last by more than a cell
    gap = (b.start[0, 0] - a.start[1, 0]) * dx + (b.start[0, 1] - a.start[1, 1]) * dy
    if not ok or gap > prm.cs or dx * (a.start[1, 0] - sx0) + dy * (
            a.start[1, 1] - sy0) <= 0.0:
        return False
    fit.ox = sx0
    fit.oy = sy0
    fit.dx = dx
    fit.dy = dy
    fit.t_lo = 0.0
    fit.t_hi = ln
    fit.z = sz0
    fit.z_s = (sz1 - sz0) / ln
    fit.ex = ex0
    fit.ex_s = (ex1 - ex0) / ln
    fit.ey = ey0
    fit.ey_s = (ey1 - ey0) / ln
    fit.ez = ez0
    fit.ez_s = (ez1 - ez0) / ln
    # the outer ends were grown to where single positions stop being valid (``Reach``):
    # on the joined line, whose direction differs slightly, an end may fail; it is
    # pulled back, at most JOIN_PULL_STEPS steps (else the two stay apart)
    for _ in range(JOIN_PULL_STEPS + 1):
        n = check_positions(_width(link_point(fit, 0.0), link_point(fit, 1.0)), prm)
        fail, sp, ep, mean_len = _test_fit(fit, n, a.kind, a.mode, prm,
                                           tri, vox, pidx, out_poly, out_z, wk)
        if fail < 0.0:
            break
        if fail == 0.0:
            fit.t_lo += JOIN_PULL_STEP * prm.cs
        elif fail == 1.0:
            fit.t_hi -= JOIN_PULL_STEP * prm.cs
        else:
            return False
    if fail >= 0.0:
        return False
    p = link_point(fit, 0.0)
    q = link_point(fit, 1.0)
    # a join never leaves a link narrower than the wider of its two pieces
    if _width(p, q) < max(_segment_length(a.start), _segment_length(b.start)) - 1e-9:
        return False
    _set_segments(a, p, q)
    a.start_poly = sp
    a.end_poly = ep
    a.length = mean_len
    return True
