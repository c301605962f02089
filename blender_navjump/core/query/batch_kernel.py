"""The batch path kernel: nearest polygons, A*, funnel, point flags, one numba call.

Output is flat (CSR) arrays: query q's points are ``points[offsets[q, 0]:offsets[q+1, 0]]``
and its corridor ``corridor[offsets[q, 1]:offsets[q+1, 1]]`` (see :func:`solve_batch`).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ..kinds import FLAG_AREA_CHANGE as AREA_CHANGE
from ..kinds import FLAG_DROP_END as DROP_END
from ..kinds import FLAG_DROP_START as DROP_START
from ..kinds import FLAG_JUMP_END as JUMP_END
from ..kinds import FLAG_JUMP_START as JUMP_START
from ..kinds import FLAG_NAMES  # noqa: F401  (re-exported for core.query)
from ..kinds import FLAG_STANCE_CHANGE as STANCE_CHANGE
from ..kinds import FLAG_WALK as WALK
from ..kinds import LINK_DROP as _LINK_DROP
from ..kinds import STANCE_NAMES as _STANCE_NAMES
from .astar import DIRECT, astar, comp_reaches, nearest_reachable
from .funnel import string_pull
from .jit import hot_kernel
from .raycast import straight_walk
from .spatial import closest_point_on_polygon_arrays, nearest_polygon_arrays, surface_height

# The query loop (_solve_queries) and the per-query steps it calls (nearest polygon,
# straight walk, A*, corridor, funnel passes, points) are hot kernels (query/jit.py): no
# reference counting. In a function compiled with it, every access to an array inside the
# QueryData / Workspace namedtuples and every array argument of a call costs an incref and
# a decref through atomic calls: per query that cost about as much as the search itself.
# The steps take the arrays one by one (unpacked once per batch).

# Query status (PathBatch.status).
STATUS_NAMES = ("found", "partial", "start_off_mesh", "goal_off_mesh", "bad_input")
FOUND, PARTIAL, START_OFF_MESH, GOAL_OFF_MESH, BAD_INPUT = range(5)
# solve_batch's status of a query with a bound and no path costing less (no points): the
# caller keeps another answer (never in a PathBatch).
NOT_BELOW_BOUND = len(STATUS_NAMES)
# solve_batch's ``bounds`` when no query has one.
NO_BOUNDS = np.zeros(0)

Landmarks = namedtuple("Landmarks", ["dist_from", "dist_to", "goal_lb", "goal_ub"])
Landmarks.__doc__ = """Landmark (ALT) tables of a search graph for :func:`solve_batch`.

``dist_from[n, k]`` / ``dist_to[n, k]``: least cost from landmark k to node n / from n to
landmark k over the search's edges (inf: none); ``goal_lb`` / ``goal_ub`` (K,): scratch for
a query's goal bounds. The climbing search has them (query/climb.py, ``landmarks``)."""
# solve_batch's ``landmarks`` for the Euclidean heuristic alone (K = 0).
NO_LANDMARKS = Landmarks(np.zeros((0, 0)), np.zeros((0, 0)), np.zeros(0), np.zeros(0))

# A portal crossing this close (as a fraction of the segment) to a segment end happens at
# that end point: no separate point is added.
_T_EPS = 1e-6
_N_STANCES = len(_STANCE_NAMES)
# Funnel passes: the first with link points at segment midpoints, then two refinements of
# where on each link segment to jump.
_LINK_PASSES = 3

Workspace = namedtuple("Workspace", [
    "g", "parent", "via", "seen", "closed", "heap_keys", "heap_vals",
    "goal_mark", "goal_pt", "cand", "cand_lb", "near_stamp", "comp_seen", "comp_stack",
    "comp_list", "spos", "gpos",
    "path_nodes", "cp", "cl", "pl", "pr", "cb", "chunk_link", "chunk_dir", "chunk_t",
    "chunk_a", "chunk_b", "corners", "corner_idx", "corner_off",
    "pts", "pt_flag", "pt_stance", "pt_link", "ray_polys", "ray_left", "ray_right",
])


def make_workspace(d) -> Workspace:
    """Scratch arrays for one query at a time, reused across a batch."""
    n = d.node_pos.shape[0] + 2  # graph nodes, start, goal
    p = d.polygons.shape[0]
    c = max(n, 2 * p + 8)  # corridor length bound (graph path or straight walk)
    return Workspace(
        g=np.zeros(n), parent=np.zeros(n, np.int64), via=np.zeros(n, np.int64),
        seen=np.full(n, -1, np.int64), closed=np.full(n, -1, np.int64),
        heap_keys=np.zeros(d.heap_capacity), heap_vals=np.zeros(d.heap_capacity, np.int64),
        goal_mark=np.full(p, -1, np.int64), goal_pt=np.zeros((p, 4)),
        cand=np.zeros(p, np.int64), cand_lb=np.zeros(p),
        near_stamp=np.full(p, -1, np.int64), comp_seen=np.full(p, -1, np.int64),
        comp_stack=np.zeros(p + 1, np.int64), comp_list=np.zeros(p + 1, np.int64),
        spos=np.zeros(3), gpos=np.zeros(3),
        path_nodes=np.zeros(n, np.int64), cp=np.zeros(c, np.int64), cl=np.zeros(c, np.int64),
        pl=np.zeros((c, 3)), pr=np.zeros((c, 3)), cb=np.zeros(c + 1, np.int64),
        chunk_link=np.zeros(c, np.int64), chunk_dir=np.zeros(c, np.int64),
        chunk_t=np.zeros(c), chunk_a=np.zeros((c, 3)), chunk_b=np.zeros((c, 3)),
        corners=np.zeros((2 * c + 8, 3)), corner_idx=np.zeros(2 * c + 8, np.int64),
        corner_off=np.zeros(c + 1, np.int64),
        pts=np.zeros((4 * c + 16, 3)), pt_flag=np.zeros(4 * c + 16, np.int8),
        pt_stance=np.zeros(4 * c + 16, np.int8), pt_link=np.zeros(4 * c + 16, np.int64),
        ray_polys=np.zeros(2 * p + 8, np.int64), ray_left=np.zeros((2 * p + 8, 3)),
        ray_right=np.zeros((2 * p + 8, 3)),
    )


@hot_kernel
def _dist3(pts, i, j):
    """Distance between rows i and j (rows by index: a row view would be refcounted)."""
    return math.sqrt((pts[i, 0] - pts[j, 0]) ** 2 + (pts[i, 1] - pts[j, 1]) ** 2
                     + (pts[i, 2] - pts[j, 2]) ** 2)


@hot_kernel
def _best_link_t(link_start, link_end, link, dep_on_end, before, after):
    """t in [0, 1] minimising |before - dep(t)| + |arr(t) - after| (convex in t)."""
    dep = link_end[link] if dep_on_end else link_start[link]
    arr = link_start[link] if dep_on_end else link_end[link]
    lo = 0.0
    hi = 1.0
    invphi = 0.6180339887498949
    x1 = hi - invphi * (hi - lo)
    x2 = lo + invphi * (hi - lo)
    f1 = _jump_length(dep, arr, before, after, x1)
    f2 = _jump_length(dep, arr, before, after, x2)
    for _ in range(32):  # golden-section search: 0.618**32 ~ 2e-7
        if f1 <= f2:
            hi = x2
            x2 = x1
            f2 = f1
            x1 = hi - invphi * (hi - lo)
            f1 = _jump_length(dep, arr, before, after, x1)
        else:
            lo = x1
            x1 = x2
            f1 = f2
            x2 = lo + invphi * (hi - lo)
            f2 = _jump_length(dep, arr, before, after, x2)
    return 0.5 * (lo + hi)


@hot_kernel
def _jump_length(dep, arr, before, after, t):
    s = 0.0
    e = 0.0
    for i in range(3):
        a = dep[0, i] + t * (dep[1, i] - dep[0, i])
        b = arr[0, i] + t * (arr[1, i] - arr[0, i])
        s += (before[i] - a) ** 2
        e += (b - after[i]) ** 2
    return math.sqrt(s) + math.sqrt(e)


@hot_kernel
def _segment_portal_t(corners, ia, ib, pl, pr, k):
    """Where (as a fraction of corner ia -> corner ib) the segment crosses portal k's line,
    in XY."""
    ax = corners[ia, 0]
    ay = corners[ia, 1]
    ex = corners[ib, 0] - ax
    ey = corners[ib, 1] - ay
    px = pr[k, 0] - pl[k, 0]
    py = pr[k, 1] - pl[k, 1]
    den = ex * py - ey * px
    if abs(den) < 1e-12:
        return 0.0
    t = ((pl[k, 0] - ax) * py - (pl[k, 1] - ay) * px) / den
    return min(max(t, 0.0), 1.0)


@hot_kernel
def _build_corridor(node_poly, node_link, node_side, node_va, node_vb, goal, parent, via,
                    nodes, cp, cl, cb, pl, pr, chunk_link, chunk_dir, n_ray, ray_polys,
                    ray_left, ray_right, sp):
    """Turn the parent chain into corridor polygons, portals and link-separated chunks."""
    if via[goal] == DIRECT:
        for i in range(n_ray):
            cp[i] = ray_polys[i]
            cl[i] = -1
            for j in range(3):
                pl[i, j] = ray_left[i, j]
                pr[i, j] = ray_right[i, j]
        cb[0] = 0
        cb[1] = n_ray
        return n_ray, 1
    m = 0
    n = goal
    while n != -1:
        nodes[m] = n
        m += 1
        n = parent[n]
    for i in range(m // 2):
        nodes[i], nodes[m - 1 - i] = nodes[m - 1 - i], nodes[i]
    cp[0] = sp
    cl[0] = -1
    cb[0] = 0
    ncp = 1
    nch = 1
    for i in range(1, m):
        n = nodes[i]
        prev = nodes[i - 1]
        v = via[n]
        if v == -1:
            link = node_link[n]
            chunk_link[nch - 1] = link
            chunk_dir[nch - 1] = 0 if node_side[prev] == 0 else 1
            cb[nch] = ncp
            nch += 1
            cp[ncp] = node_poly[n, 0]
            cl[ncp] = link
            ncp += 1
        elif v != cp[ncp - 1]:
            # prev is the portal between the last corridor polygon and v; the polygon
            # edge va->vb runs counter-clockwise around node_poly[prev, 0]
            forward = node_poly[prev, 0] == cp[ncp - 1]
            for j in range(3):
                pl[ncp - 1, j] = node_vb[prev, j] if forward else node_va[prev, j]
                pr[ncp - 1, j] = node_va[prev, j] if forward else node_vb[prev, j]
            cp[ncp] = v
            cl[ncp] = -1
            ncp += 1
    cb[nch] = ncp
    return ncp, nch


@hot_kernel
def _link_end_point(vertices, polygons, poly_nv, surf_start, surf_tris, link_start, link_end,
                    link, on_end, t, poly, out, row):
    """out[row] = the point at t along one of the link's segments, clamped onto poly."""
    seg = link_end[link] if on_end else link_start[link]
    x = seg[0, 0] + t * (seg[1, 0] - seg[0, 0])
    y = seg[0, 1] + t * (seg[1, 1] - seg[0, 1])
    cx, cy, cz = closest_point_on_polygon_arrays(vertices, polygons, poly_nv, surf_start,
                                                 surf_tris, poly, x, y)
    out[row, 0] = cx
    out[row, 1] = cy
    out[row, 2] = cz


@hot_kernel
def _fixed_links(link_start, link_end, chunk_link, nch):
    """True when every link between the chunks has both its segments of zero length (the
    ways through the climb graph: a point each), so that moving along them changes
    nothing and the funnel's first pass is its answer."""
    for c in range(nch - 1):
        link = chunk_link[c]
        for j in range(3):
            if link_start[link, 0, j] != link_start[link, 1, j] \
                    or link_end[link, 0, j] != link_end[link, 1, j]:
                return False
    return True


@hot_kernel
def _pull_chunks(vertices, polygons, poly_nv, surf_start, surf_tris, link_start, link_end,
                 cp, cb, pl, pr, chunk_link, chunk_dir, chunk_a, chunk_b, chunk_t, corners,
                 corner_idx, corner_off, nch, start_pt, goal_pt):
    """Funnel every chunk; between passes, move each link's jump point along its segment."""
    for c in range(nch - 1):
        chunk_t[c] = 0.5
    for j in range(3):
        chunk_a[0, j] = start_pt[j]
        chunk_b[nch - 1, j] = goal_pt[j]
    for it in range(_LINK_PASSES):
        for c in range(nch - 1):
            link = chunk_link[c]
            dep_on_end = chunk_dir[c] == 1
            _link_end_point(vertices, polygons, poly_nv, surf_start, surf_tris, link_start,
                            link_end, link, dep_on_end, chunk_t[c], cp[cb[c + 1] - 1],
                            chunk_b, c)
            _link_end_point(vertices, polygons, poly_nv, surf_start, surf_tris, link_start,
                            link_end, link, not dep_on_end, chunk_t[c], cp[cb[c + 1]],
                            chunk_a, c + 1)
        off = 0
        for c in range(nch):
            corner_off[c] = off
            k = cb[c + 1] - cb[c] - 1
            off += string_pull(chunk_a[c], chunk_b[c], pl, pr, cb[c], k, corners,
                               corner_idx, off)
        corner_off[nch] = off
        if nch == 1 or it == _LINK_PASSES - 1 or _fixed_links(link_start, link_end,
                                                               chunk_link, nch):
            break
        for c in range(nch - 1):
            before = corners[corner_off[c + 1] - 2]
            after = corners[corner_off[c + 1] + 1]
            chunk_t[c] = _best_link_t(link_start, link_end, chunk_link[c], chunk_dir[c] == 1,
                                      before, after)


@hot_kernel
def _emit(pts, pt_flag, pt_stance, pt_link, n, x, y, z, flag, stance, link):
    pts[n, 0] = x
    pts[n, 1] = y
    pts[n, 2] = z
    pt_flag[n] = flag
    pt_stance[n] = stance
    pt_link[n] = link
    return n + 1


@hot_kernel
def _emit_points(poly_stance, link_kind, surf_start, surf_tris, cp, cb, pl, pr, chunk_link,
                 chunk_a, corners, corner_idx, corner_off, pts, pt_flag, pt_stance, pt_link,
                 nch):
    """Corners plus link and stance-change points, with flags and stances."""
    npts = 0
    for c in range(nch):
        base = cb[c]
        nport = cb[c + 1] - base - 1
        cur = 0
        o0 = corner_off[c]
        o1 = corner_off[c + 1]
        flag = WALK
        if c > 0:
            flag = DROP_END if link_kind[chunk_link[c - 1]] == _LINK_DROP else JUMP_END
        npts = _emit(pts, pt_flag, pt_stance, pt_link, npts, chunk_a[c, 0], chunk_a[c, 1],
                     chunk_a[c, 2], flag, poly_stance[cp[base]], -1)
        for s in range(o0, o1 - 1):
            ax = corners[s, 0]
            ay = corners[s, 1]
            bx = corners[s + 1, 0]
            by = corners[s + 1, 1]
            bz = corners[s + 1, 2]
            ia = corner_idx[s]
            ib = corner_idx[s + 1]
            tprev = 0.0
            for j in range(max(ia, 0), min(ib, nport)):
                t = max(_segment_portal_t(corners, s, s + 1, pl, pr, base + j), tprev)
                tprev = t
                cur = j + 1
                poly = cp[base + cur]
                st = poly_stance[poly]
                if t <= _T_EPS:
                    pt_stance[npts - 1] = st
                elif t < 1.0 - _T_EPS and st != pt_stance[npts - 1]:
                    # poly_stance is the cost class (stance + 3 x area, see NavQuery)
                    x = ax + t * (bx - ax)
                    y = ay + t * (by - ay)
                    z = surface_height(surf_tris, surf_start[poly], surf_start[poly + 1], x, y)
                    change = (STANCE_CHANGE if st % _N_STANCES != pt_stance[npts - 1] % _N_STANCES
                              else AREA_CHANGE)
                    npts = _emit(pts, pt_flag, pt_stance, pt_link, npts, x, y, z,
                                 change, st, -1)
            poly = cp[base + cur]
            st = poly_stance[poly]
            if s + 1 == o1 - 1:
                if c == nch - 1:
                    npts = _emit(pts, pt_flag, pt_stance, pt_link, npts, bx, by, bz,
                                 WALK, st, -1)
                else:
                    link = chunk_link[c]
                    flag = DROP_START if link_kind[link] == _LINK_DROP else JUMP_START
                    npts = _emit(pts, pt_flag, pt_stance, pt_link, npts, bx, by, bz,
                                 flag, st, link)
            else:
                z = surface_height(surf_tris, surf_start[poly], surf_start[poly + 1], bx, by)
                if not math.isfinite(z):
                    z = bz
                npts = _emit(pts, pt_flag, pt_stance, pt_link, npts, bx, by, z, WALK, st,
                             -1)
    for i in range(1, npts):
        if pt_flag[i] == WALK and pt_stance[i] != pt_stance[i - 1]:
            pt_flag[i] = STANCE_CHANGE
    return npts


@njit(cache=True)
def _grow(arr, need):
    """arr, or a copy with room for ``need`` rows (doubling, so appends stay O(1))."""
    if need <= arr.shape[0]:
        return arr
    out = np.empty((max(need, 2 * arr.shape[0]), arr.shape[1]), arr.dtype)
    out[:arr.shape[0]] = arr
    return out


# Columns of solve_batch's per-query summary.
(SUM_STATUS, SUM_LENGTH, SUM_COST, SUM_SEARCH_COST, SUM_START_POLY, SUM_GOAL_POLY,
 SUM_START_DIST, SUM_GOAL_DIST) = range(8)


@njit(cache=True, inline="always")
def solve_batch(d, stance_allowed, stance_cost, link_allowed, link_scale, hscale, port_ok,
                reach, ext, starts, goals, ws, stamp_base, bounds, landmarks):
    """Answer every (start, goal) row.

    ``port_ok``: :func:`usable_ports` for this filter; ``reach``: its
    :func:`reach_components` (a goal the start cannot reach is known before searching:
    the search then goes straight to the reachable point nearest the goal).
    ``stamp_base``: larger than every stamp used before with ``ws`` (stamps
    ``stamp_base + q`` mark its scratch entries). ``bounds``: empty (``NO_BOUNDS``), or
    per query a cost its path must stay under (inf: none); a query with no cheaper path
    gets status ``NOT_BELOW_BOUND`` and no points (the search stops at the bound); a
    bound <= 0 gets it at once, with no search (no path costs less).
    ``landmarks``: :class:`Landmarks` of ``d`` for this filter (the A* heuristic is also at
    least their bound, for queries whose goal is reachable), or ``NO_LANDMARKS``.

    Returns five arrays (few arrays: boxing each one costs Python time):
    ``summary`` (Q, 8) float (columns ``SUM_*``), ``offsets`` (Q+1, 2) int (first point,
    first corridor entry of each query), ``points`` (M, 3), ``point_info`` (M, 3) int
    (flag, stance, link or -1), ``corridor`` (K, 2) int (polygon, link used to enter it
    or -1).

    The queries are answered by :func:`_solve_queries`, a hot kernel (no reference
    counting, no allocation); this function only makes the output arrays and grows them
    when a query's answer does not fit. It is inlined into numba callers (a call passes
    the QueryData and Workspace tuples, ~80 arrays, by value: inlined, they are passed
    once instead of twice; measured 0.7 -> 0.37 us per call in bench_query's per-query
    timing).
    """
    nq = starts.shape[0]
    summary = np.zeros((nq, 8))
    offsets = np.zeros((nq + 1, 2), np.int64)
    points = np.empty((max(16, 8 * nq), 3))
    point_info = np.empty((max(16, 8 * nq), 3), np.int64)
    corridor = np.empty((max(16, 8 * nq), 2), np.int64)
    q = 0
    npt = 0
    ncor = 0
    while q < nq:
        q, npt, ncor, npts, ncp = _solve_queries(
            d, stance_allowed, stance_cost, link_allowed, link_scale, hscale, port_ok, reach,
            ext, starts, goals, ws, stamp_base, bounds, landmarks, q, npt, ncor, summary,
            offsets, points, point_info, corridor)
        if q < nq:  # query q is answered (in ws) but does not fit: grow, store, go on
            points = _grow(points, npt + npts)
            point_info = _grow(point_info, npt + npts)
            corridor = _grow(corridor, ncor + ncp)
            _store(ws.pts, ws.pt_flag, ws.pt_stance, ws.pt_link, ws.cp, ws.cl, npts, ncp,
                   points, point_info, corridor, npt, ncor)
            npt += npts
            ncor += ncp
            q += 1
    offsets[nq, 0] = npt
    offsets[nq, 1] = ncor
    return summary, offsets, points[:npt], point_info[:npt], corridor[:ncor]


@hot_kernel
def _goal_landmark_bounds(node_pos, port_start, ports, lm_from, lm_to, gp, mult, gpos, lb, ub,
                          n_lm):
    """A goal point in polygon gp is reached from one of gp's ports (walking, ``mult`` per
    metre) and leaves towards them: per landmark, lb = min over ports m of d(L, m) + walk
    (<= d(L, goal)) and ub = min of walk + d(m, L) (>= d(goal, L), a real way there)."""
    for k in range(n_lm):
        lb[k] = np.inf
        ub[k] = np.inf
    for i in range(port_start[gp], port_start[gp + 1]):
        m = ports[i]
        w = mult * math.sqrt((node_pos[m, 0] - gpos[0]) ** 2 + (node_pos[m, 1] - gpos[1]) ** 2
                             + (node_pos[m, 2] - gpos[2]) ** 2)
        for k in range(n_lm):
            a = lm_from[m, k] + w
            if a < lb[k]:
                lb[k] = a
            b = lm_to[m, k] + w
            if b < ub[k]:
                ub[k] = b


@hot_kernel
def _store(ws_pts, ws_flag, ws_stance, ws_link, ws_cp, ws_cl, npts, ncp, points, point_info,
           corridor, npt, ncor):
    """Copy one query's points and corridor from the workspace into the outputs."""
    for i in range(npts):
        points[npt + i, 0] = ws_pts[i, 0]
        points[npt + i, 1] = ws_pts[i, 1]
        points[npt + i, 2] = ws_pts[i, 2]
        point_info[npt + i, 0] = ws_flag[i]
        point_info[npt + i, 1] = ws_stance[i]
        point_info[npt + i, 2] = ws_link[i]
    for i in range(ncp):
        corridor[ncor + i, 0] = ws_cp[i]
        corridor[ncor + i, 1] = ws_cl[i]


@hot_kernel
def _solve_queries(d, stance_allowed, stance_cost, link_allowed, link_scale, hscale, port_ok,
                   reach, ext, starts, goals, ws, stamp_base, bounds, landmarks, q0, npt, ncor,
                   summary, offsets, points, point_info, corridor):
    """Answer queries q0, q0 + 1, ... into the outputs (points from row npt, corridor from
    row ncor). Returns (q, npt, ncor, npts, ncp): q = the number of queries when all are
    stored; else query q is answered in ``ws`` but its npts points or ncp corridor entries
    do not fit in the outputs (the caller grows them and stores it)."""
    nq = starts.shape[0]
    # Every array is taken out of the tuples once, here; the steps take them one by one.
    vertices = d.vertices
    polygons = d.polygons
    neighbours = d.neighbours
    poly_nv = d.poly_nv
    poly_stance = d.poly_stance
    poly_bmin = d.poly_bmin
    poly_bmax = d.poly_bmax
    surf_start = d.surf_start
    surf_tris = d.surf_tris
    grid_origin = d.grid_origin
    grid_cell = d.grid_cell
    grid_nx = d.grid_nx
    grid_ny = d.grid_ny
    grid_start = d.grid_start
    grid_items = d.grid_items
    node_pos = d.node_pos
    node_poly = d.node_poly
    node_link = d.node_link
    node_side = d.node_side
    node_va = d.node_va
    node_vb = d.node_vb
    port_start = d.port_start
    ports = d.ports
    node_hop = d.node_hop
    node_hop_poly = d.node_hop_poly
    link_kind = d.link_kind
    link_cost = d.link_cost
    link_start = d.link_start
    link_end = d.link_end
    ws_g = ws.g
    ws_parent = ws.parent
    ws_via = ws.via
    ws_seen = ws.seen
    ws_closed = ws.closed
    ws_heap_keys = ws.heap_keys
    ws_heap_vals = ws.heap_vals
    ws_goal_mark = ws.goal_mark
    ws_goal_pt = ws.goal_pt
    ws_cand = ws.cand
    ws_cand_lb = ws.cand_lb
    spos = ws.spos
    gpos = ws.gpos
    ws_comp_seen = ws.comp_seen
    ws_comp_stack = ws.comp_stack
    ws_comp_list = ws.comp_list
    poly_comp = reach.poly_comp
    comp_start = reach.comp_start
    comp_polys = reach.comp_polys
    comp_bmin = reach.comp_bmin
    comp_bmax = reach.comp_bmax
    dag_start = reach.dag_start
    dag_to = reach.dag_to
    near_stamp = ws.near_stamp
    ws_path_nodes = ws.path_nodes
    ws_cp = ws.cp
    ws_cl = ws.cl
    ws_pl = ws.pl
    ws_pr = ws.pr
    ws_cb = ws.cb
    ws_chunk_link = ws.chunk_link
    ws_chunk_dir = ws.chunk_dir
    ws_chunk_t = ws.chunk_t
    ws_chunk_a = ws.chunk_a
    ws_chunk_b = ws.chunk_b
    ws_corners = ws.corners
    ws_corner_idx = ws.corner_idx
    ws_corner_off = ws.corner_off
    ws_pts = ws.pts
    ws_flag = ws.pt_flag
    ws_stance = ws.pt_stance
    ws_link = ws.pt_link
    ws_ray_polys = ws.ray_polys
    ws_ray_left = ws.ray_left
    ws_ray_right = ws.ray_right
    lm_from = landmarks.dist_from
    lm_to = landmarks.dist_to
    lm_goal_lb = landmarks.goal_lb
    lm_goal_ub = landmarks.goal_ub
    n_landmarks = lm_from.shape[1]

    n_nodes = node_pos.shape[0]
    goal_node = n_nodes + 1
    for q in range(q0, nq):
        stamp = stamp_base + q
        offsets[q, 0] = npt
        offsets[q, 1] = ncor
        summary[q, SUM_START_POLY] = -1
        summary[q, SUM_GOAL_POLY] = -1
        summary[q, SUM_START_DIST] = np.inf
        summary[q, SUM_GOAL_DIST] = np.inf
        if bounds.shape[0] and bounds[q] <= 0.0:
            summary[q, SUM_STATUS] = NOT_BELOW_BOUND
            continue
        ok = True
        for i in range(3):
            if not (math.isfinite(starts[q, i]) and math.isfinite(goals[q, i])):
                ok = False
        if not ok:
            summary[q, SUM_STATUS] = BAD_INPUT
            continue
        sp, sx, sy, sz, sd = nearest_polygon_arrays(
            vertices, polygons, poly_nv, poly_stance, poly_bmin, poly_bmax, surf_start,
            surf_tris, grid_origin, grid_cell, grid_nx, grid_ny, grid_start, grid_items,
            starts[q, 0], starts[q, 1], starts[q, 2], ext, stance_allowed, near_stamp,
            2 * stamp)
        gp, gx, gy, gz, gd = nearest_polygon_arrays(
            vertices, polygons, poly_nv, poly_stance, poly_bmin, poly_bmax, surf_start,
            surf_tris, grid_origin, grid_cell, grid_nx, grid_ny, grid_start, grid_items,
            goals[q, 0], goals[q, 1], goals[q, 2], ext, stance_allowed, near_stamp,
            2 * stamp + 1)
        summary[q, SUM_START_POLY] = sp
        summary[q, SUM_GOAL_POLY] = gp
        summary[q, SUM_START_DIST] = sd
        summary[q, SUM_GOAL_DIST] = gd
        if sp < 0:
            summary[q, SUM_STATUS] = START_OFF_MESH
            continue
        if gp < 0:
            summary[q, SUM_STATUS] = GOAL_OFF_MESH
            continue
        spos[0] = sx
        spos[1] = sy
        spos[2] = sz
        gpos[0] = gx
        gpos[1] = gy
        gpos[2] = gz
        direct_cost = np.inf
        n_ray = 0
        reachable = True
        n_list = 0
        cs = poly_comp[sp]
        if cs != poly_comp[gp]:
            reachable, n_list = comp_reaches(dag_start, dag_to, cs, poly_comp[gp],
                                             ws_comp_seen, ws_comp_stack, ws_comp_list, stamp)
        goal_r = 0.0
        if reachable:
            ws_goal_mark[gp] = stamp
            ws_goal_pt[gp, 0] = gx
            ws_goal_pt[gp, 1] = gy
            ws_goal_pt[gp, 2] = gz
            if sp != gp:  # (within one polygon the graph already has the straight edge)
                direct_cost, n_ray = straight_walk(vertices, polygons, neighbours, poly_nv,
                                                   poly_stance, stance_allowed, stance_cost,
                                                   sp, spos, gp, gpos, ws_ray_polys,
                                                   ws_ray_left, ws_ray_right)
        else:
            # partial: the path ends at the reachable point nearest the goal (the
            # cheapest of equally near ones), found before the search and searched for
            summary[q, SUM_STATUS] = PARTIAL
            near, goal_r = nearest_reachable(ws_comp_list, n_list, comp_start, comp_polys,
                                             comp_bmin, comp_bmax, vertices, polygons,
                                             poly_nv, surf_start, surf_tris, ws_cand,
                                             ws_cand_lb, ws_goal_mark, ws_goal_pt, gpos,
                                             stamp)
            gpos[0] = ws_goal_pt[near, 0]
            gpos[1] = ws_goal_pt[near, 1]
            gpos[2] = ws_goal_pt[near, 2]
        bound = bounds[q] if bounds.shape[0] else np.inf
        n_lm = 0
        if reachable and n_landmarks:
            n_lm = n_landmarks
            _goal_landmark_bounds(node_pos, port_start, ports, lm_from, lm_to, gp,
                                  stance_cost[poly_stance[gp]], gpos, lm_goal_lb, lm_goal_ub,
                                  n_lm)
        found = astar(node_pos, node_poly, node_link, node_hop, node_hop_poly, poly_stance,
                      port_start, ports, link_kind, link_cost, ws_g, ws_parent, ws_via,
                      ws_seen, ws_closed, ws_heap_keys, ws_heap_vals, stance_allowed,
                      stance_cost, link_allowed, link_scale, hscale, port_ok, sp, spos,
                      ws_goal_mark, ws_goal_pt, gpos, goal_r, direct_cost, stamp, bound,
                      lm_from, lm_to, lm_goal_lb, lm_goal_ub, n_lm)
        if not found:
            if bound < np.inf:
                summary[q, SUM_STATUS] = NOT_BELOW_BOUND
                continue
            # (every goal polygon is reachable: never happens)
            raise AssertionError("path search: a reachable goal was not reached")
        if not reachable:
            # the goal polygon the search took (equally near points: the cheapest)
            near = ws_via[goal_node]
            gpos[0] = ws_goal_pt[near, 0]
            gpos[1] = ws_goal_pt[near, 1]
            gpos[2] = ws_goal_pt[near, 2]
        summary[q, SUM_SEARCH_COST] = ws_g[goal_node]
        ncp, nch = _build_corridor(node_poly, node_link, node_side, node_va, node_vb,
                                   goal_node, ws_parent, ws_via, ws_path_nodes, ws_cp, ws_cl,
                                   ws_cb, ws_pl, ws_pr, ws_chunk_link, ws_chunk_dir, n_ray,
                                   ws_ray_polys, ws_ray_left, ws_ray_right, sp)
        _pull_chunks(vertices, polygons, poly_nv, surf_start, surf_tris, link_start, link_end,
                     ws_cp, ws_cb, ws_pl, ws_pr, ws_chunk_link, ws_chunk_dir, ws_chunk_a,
                     ws_chunk_b, ws_chunk_t, ws_corners, ws_corner_idx, ws_corner_off, nch,
                     spos, gpos)
        npts = _emit_points(poly_stance, link_kind, surf_start, surf_tris, ws_cp, ws_cb, ws_pl,
                            ws_pr, ws_chunk_link, ws_chunk_a, ws_corners, ws_corner_idx,
                            ws_corner_off, ws_pts, ws_flag, ws_stance, ws_link, nch)
        # totals over the final points
        total_len = 0.0
        total_cost = 0.0
        for i in range(npts - 1):
            seg = _dist3(ws_pts, i, i + 1)
            total_len += seg
            link = ws_link[i]
            if link >= 0:
                total_cost += max(link_cost[link] * link_scale[link_kind[link]], seg)
            else:
                total_cost += seg * stance_cost[ws_stance[i]]
        summary[q, SUM_LENGTH] = total_len
        summary[q, SUM_COST] = total_cost
        if npt + npts > points.shape[0] or ncor + ncp > corridor.shape[0]:
            return q, npt, ncor, npts, ncp
        _store(ws_pts, ws_flag, ws_stance, ws_link, ws_cp, ws_cl, npts, ncp, points,
               point_info, corridor, npt, ncor)
        npt += npts
        ncor += ncp
    return nq, npt, ncor, 0, 0
