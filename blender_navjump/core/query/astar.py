"""A* over the port graph (see graph.py), as numba kernels.

Node ids: ``0..N-1`` graph nodes, ``N`` the query start, ``N+1`` the goal. Per-node
scratch arrays (``g``, ``parent``, ``via``) are valid only where ``seen[n] == stamp``;
``closed[n] == stamp`` marks settled nodes, so one allocation serves a whole batch.
``via[n]`` is the polygon the edge into n crosses, or -1 for a link edge.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .jit import hot_kernel
from .spatial import closest_point_on_polygon_arrays

# ``via`` of the goal when reached over the straight start->goal edge.
DIRECT = -2
# Relative tie-break of the A* with landmarks (see astar).
TIE_BREAK = 1e-12

# ----------------------------------------------------------------- binary heap


@hot_kernel
def heap_push(keys, vals, size, key, val):
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= key:
            break
        keys[i] = keys[parent]
        vals[i] = vals[parent]
        i = parent
    keys[i] = key
    vals[i] = val
    return size + 1


@hot_kernel
def heap_pop(keys, vals, size):
    """Remove the smallest entry: returns (key, val, new_size)."""
    top_k = keys[0]
    top_v = vals[0]
    size -= 1
    if size > 0:
        last_k = keys[size]
        last_v = vals[size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and keys[c + 1] < keys[c]:
                c += 1
            if keys[c] >= last_k:
                break
            keys[i] = keys[c]
            vals[i] = vals[c]
            i = c
        keys[i] = last_k
        vals[i] = last_v
    return top_k, top_v, size


# ----------------------------------------------------------------------- A*


@njit(cache=True)
def _dist(a0, a1, a2, b0, b1, b2):
    return math.sqrt((a0 - b0) ** 2 + (a1 - b1) ** 2 + (a2 - b2) ** 2)


@njit(cache=True)
def usable_ports(d, stance_allowed, link_allowed):
    """Per port slot: 1 when reaching that port can lead anywhere but back (filter-aware).

    A portal leads into the polygon across it; a link node leads over its link.
    """
    out = np.zeros(d.ports.shape[0], np.uint8)
    ports = d.ports
    port_other = d.port_other
    poly_stance = d.poly_stance
    node_link = d.node_link
    node_side = d.node_side
    link_kind = d.link_kind
    for k in range(ports.shape[0]):
        other = port_other[k]
        if other >= 0:
            out[k] = stance_allowed[poly_stance[other]]
            continue
        node = ports[k]
        link = node_link[node]
        if not link_allowed[link_kind[link]]:
            continue
        if node_side[node] == 0:
            out[k] = stance_allowed[poly_stance[d.link_end_poly[link]]]
        elif d.link_bidir[link] != 0:
            out[k] = stance_allowed[poly_stance[d.link_start_poly[link]]]
    return out


@hot_kernel
def astar(node_pos, node_poly, node_link, node_hop, node_hop_poly, poly_stance, port_start,
          ports, link_kind, link_cost, g, parent, via, seen, closed, hk, hv,
          stance_allowed, stance_cost, link_allowed, link_scale, hscale, port_ok,
          sp, spos, goal_mark, goal_pt, gpos, goal_r, direct_cost, stamp, bound, lm_from,
          lm_to, lm_goal_lb, lm_goal_ub, n_lm):
    """Search from spos (in polygon sp) to the goal.

    Takes the QueryData and Workspace arrays it reads one by one (see solve_batch).
    ``port_ok`` comes from :func:`usable_ports` for the same filter. The goal is a point
    in each polygon p with ``goal_mark[p] == stamp``: ``goal_pt[p, :3]`` (usually one
    polygon; several when a partial path ends at one of several equally near points).
    The heuristic is ``hscale * max(|n - gpos| - goal_r, 0)``: every goal point must lie
    within ``goal_r`` of ``gpos``. ``direct_cost``: cost of the straight start->goal edge
    (inf when the segment leaves the usable navmesh); the goal reached over it has
    ``via == DIRECT``. ``bound``: the search gives up (returns False) when the least
    f = g + h left reaches it (inf: never), i.e. when no path costs less. Returns True
    when the goal was reached.

    ``n_lm`` > 0: the heuristic is also at least the landmark bound of
    :func:`landmark_h` (the first ``n_lm`` columns of ``lm_from``/``lm_to``, the goal's
    bounds in ``lm_goal_lb``/``lm_goal_ub``); 0 for the Euclidean heuristic alone.
    """
    n_nodes = node_pos.shape[0]
    start = n_nodes
    goal = n_nodes + 1
    # with landmarks, of nearly equal f (within TIE_BREAK x the straight line to the goal)
    # the node nearer the goal in a straight line goes first: the bound is nearly exact
    # there, and of the many equally cheap paths of a regular level the straightest is
    # followed instead of all (the answer's cost can exceed the least by at most
    # TIE_BREAK x the start's straight line to the goal)
    tie = TIE_BREAK if n_lm else 0.0
    gx = gpos[0]
    gy = gpos[1]
    gz = gpos[2]

    seen[start] = stamp
    g[start] = 0.0
    parent[start] = -1
    via[start] = sp
    size = heap_push(hk, hv, 0, hscale * max(_dist(spos[0], spos[1], spos[2], gx, gy, gz)
                                             - goal_r, 0.0), start)
    if direct_cost < np.inf:
        seen[goal] = stamp
        g[goal] = direct_cost
        parent[goal] = start
        via[goal] = DIRECT
        size = heap_push(hk, hv, size, direct_cost, goal)
    while size > 0:
        f, n, size = heap_pop(hk, hv, size)
        if f >= bound:
            return False
        if closed[n] == stamp:
            continue
        closed[n] = stamp
        if n == goal:
            return True
        if n == start:
            px = spos[0]
            py = spos[1]
            pz = spos[2]
        else:
            px = node_pos[n, 0]
            py = node_pos[n, 1]
            pz = node_pos[n, 2]
        gn = g[n]
        # The polygon n was reached through needs no second look: by the triangle
        # inequality, every port of it is at least as cheap straight from n's parent.
        skip = via[n] if n != start else -1
        for side in range(2):
            if n == start:
                p = sp if side == 0 else -1
            else:
                p = node_poly[n, side]
            if p < 0 or p == skip or not stance_allowed[poly_stance[p]]:
                continue
            mult = stance_cost[poly_stance[p]]
            if goal_mark[p] == stamp:
                c = gn + mult * _dist(px, py, pz, goal_pt[p, 0], goal_pt[p, 1], goal_pt[p, 2])
                if seen[goal] != stamp or c < g[goal]:
                    seen[goal] = stamp
                    g[goal] = c
                    parent[goal] = n
                    via[goal] = p
                    size = heap_push(hk, hv, size, c, goal)
            for k in range(port_start[p], port_start[p + 1]):
                m = ports[k]
                if m == n or port_ok[k] == 0 or closed[m] == stamp:
                    continue
                mx = node_pos[m, 0]
                my = node_pos[m, 1]
                mz = node_pos[m, 2]
                c = gn + mult * _dist(px, py, pz, mx, my, mz)
                if seen[m] != stamp or c < g[m]:
                    seen[m] = stamp
                    g[m] = c
                    parent[m] = n
                    via[m] = p
                    if node_link[m] >= 0:
                        # a link node walked to through its polygon leads only over its
                        # link (its polygon needs no second look): taken now, unqueued
                        size = _hop(m, c, tie, node_pos, node_link, node_hop, node_hop_poly,
                                    poly_stance, link_kind, link_cost, g, parent, via, seen,
                                    closed, hk, hv, stance_allowed, link_allowed, link_scale,
                                    hscale, gx, gy, gz, goal_r, stamp, size, lm_from, lm_to,
                                    lm_goal_lb, lm_goal_ub, n_lm)
                        continue
                    e = hscale * max(_dist(mx, my, mz, gx, gy, gz) - goal_r, 0.0)
                    h = e
                    if n_lm:
                        h = landmark_h(m, e, lm_from, lm_to, lm_goal_lb, lm_goal_ub, n_lm)
                    size = heap_push(hk, hv, size, c + h + tie * e, m)
        if n < n_nodes and node_link[n] >= 0:
            size = _hop(n, gn, tie, node_pos, node_link, node_hop, node_hop_poly, poly_stance,
                        link_kind, link_cost, g, parent, via, seen, closed, hk, hv,
                        stance_allowed, link_allowed, link_scale, hscale, gx, gy, gz, goal_r,
                        stamp, size, lm_from, lm_to, lm_goal_lb, lm_goal_ub, n_lm)
    return False


@hot_kernel
def _hop(n, gn, tie, node_pos, node_link, node_hop, node_hop_poly, poly_stance, link_kind,
         link_cost, g, parent, via, seen, closed, hk, hv, stance_allowed, link_allowed,
         link_scale, hscale, gx, gy, gz, goal_r, stamp, size, lm_from, lm_to, lm_goal_lb,
         lm_goal_ub, n_lm):
    """Relax the link from link node n (at cost gn) to the node across it, if the filter
    allows it; returns the heap size."""
    link = node_link[n]
    kind = link_kind[link]
    if not link_allowed[kind]:
        return size
    target = node_hop[n]
    if target >= 0 and not stance_allowed[poly_stance[node_hop_poly[n]]]:
        target = -1
    if target < 0 or closed[target] == stamp:
        return size
    mx = node_pos[target, 0]
    my = node_pos[target, 1]
    mz = node_pos[target, 2]
    # a link costs its baked cost (cost_<kind> x trajectory length) x the agent's scale,
    # but never less than the distance it covers (keeps h consistent)
    hop = _dist(node_pos[n, 0], node_pos[n, 1], node_pos[n, 2], mx, my, mz)
    c = gn + max(link_cost[link] * link_scale[kind], hop)
    if seen[target] != stamp or c < g[target]:
        seen[target] = stamp
        g[target] = c
        parent[target] = n
        via[target] = -1
        e = hscale * max(_dist(mx, my, mz, gx, gy, gz) - goal_r, 0.0)
        h = e
        if n_lm:
            h = landmark_h(target, e, lm_from, lm_to, lm_goal_lb, lm_goal_ub, n_lm)
        size = heap_push(hk, hv, size, c + h + tie * e, target)
    return size


@hot_kernel
def landmark_h(m, h, lm_from, lm_to, lm_goal_lb, lm_goal_ub, n_lm):
    """max(h, the landmark (ALT) lower bound of node m's cost to the goal).

    Per landmark L: ``lm_from[m, k]`` = d(L, m) and ``lm_to[m, k]`` = d(m, L), least
    costs over a graph holding every edge the search may take, at no more than the
    search's costs (inf: none); ``lm_goal_lb[k]`` <= d(L, goal) and ``lm_goal_ub[k]`` >=
    d(goal, L). By the triangle inequality d(m, goal) >= d(L, goal) - d(L, m) and
    >= d(m, L) - d(goal, L); each is consistent (an edge m -> m' changes it by at most
    the edge's cost), so the max with a consistent h is too. A node that L reaches while
    the goal's bound says L does not reach the goal, or that does not reach L while the
    goal does, cannot reach the goal: inf."""
    for k in range(n_lm):
        a = lm_from[m, k]
        if a < np.inf:
            t = lm_goal_lb[k] - a
            if t > h:
                h = t
        b = lm_to[m, k]
        if b < np.inf:
            t = b - lm_goal_ub[k]
            if t > h:
                h = t
        elif lm_goal_ub[k] < np.inf:
            return np.inf
    return h


# ------------------------------------------------------------------ reachability

Reach = namedtuple("Reach", ["poly_comp", "comp_start", "comp_polys", "comp_bmin", "comp_bmax",
                             "dag_start", "dag_to"])
Reach.__doc__ = """Which polygons an agent can get to from which, for one filter.

``poly_comp[p]``: the strongly connected component of polygon p in the graph of the moves
the filter allows (walking into a usable neighbour, usable jump links in their direction),
-1 for unusable polygons; ``comp_polys[comp_start[c]:comp_start[c + 1]]`` its polygons
(``comp_bmin``/``comp_bmax``: their bounds, in the same order, so that a scan over a
component reads them contiguously);
``dag_to[dag_start[c]:dag_start[c + 1]]`` the components one move leads to from c (the
condensation, a DAG). From polygon a, polygon b can be reached exactly when b's component
is a's or is reached from it over the DAG."""


@njit(cache=True)
def reach_components(port_start, ports, port_other, node_hop_poly, poly_stance, poly_bmin,
                     poly_bmax, stance_allowed, port_ok):
    """The :class:`Reach` fields of a filter (``port_ok`` from :func:`usable_ports`), by
    Tarjan's algorithm (iterative). A move p -> q is a usable port of p: a portal into q
    or a jump link landing in q (``port_ok`` already requires q usable)."""
    n_poly = port_start.shape[0] - 1
    index = np.full(n_poly, -1, np.int64)
    low = np.zeros(n_poly, np.int64)
    on_stack = np.zeros(n_poly, np.bool_)
    stack = np.zeros(n_poly, np.int64)
    call_poly = np.zeros(n_poly, np.int64)
    call_port = np.zeros(n_poly, np.int64)
    comp = np.full(n_poly, -1, np.int64)
    n_comp = 0
    counter = 0
    top = 0
    for root in range(n_poly):
        if index[root] >= 0 or not stance_allowed[poly_stance[root]]:
            continue
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        on_stack[root] = True
        depth = 1
        call_poly[0] = root
        call_port[0] = port_start[root]
        while depth > 0:
            v = call_poly[depth - 1]
            k = call_port[depth - 1]
            if k < port_start[v + 1]:
                call_port[depth - 1] = k + 1
                if port_ok[k] == 0:
                    continue
                w = port_other[k]
                if w < 0:
                    w = node_hop_poly[ports[k]]
                if w < 0:
                    continue
                if index[w] < 0:
                    index[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[top] = w
                    top += 1
                    on_stack[w] = True
                    call_poly[depth] = w
                    call_port[depth] = port_start[w]
                    depth += 1
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            depth -= 1
            if low[v] == index[v]:
                while True:
                    top -= 1
                    w = stack[top]
                    on_stack[w] = False
                    comp[w] = n_comp
                    if w == v:
                        break
                n_comp += 1
            if depth > 0:
                u = call_poly[depth - 1]
                low[u] = min(low[u], low[v])
    # polygons by component, and the moves between components
    comp_start = np.zeros(n_comp + 1, np.int64)
    for p in range(n_poly):
        if comp[p] >= 0:
            comp_start[comp[p] + 1] += 1
    comp_start = np.cumsum(comp_start)
    fill = comp_start[:-1].copy()
    comp_polys = np.zeros(comp_start[-1], np.int64)
    for p in range(n_poly):
        if comp[p] >= 0:
            comp_polys[fill[comp[p]]] = p
            fill[comp[p]] += 1
    dag_start = np.zeros(n_comp + 1, np.int64)
    for pass_ in range(2):
        if pass_ == 1:
            dag_start = np.cumsum(dag_start)
            fill = dag_start[:-1].copy()
            dag_to = np.zeros(dag_start[-1], np.int64)
        for p in range(n_poly):
            c = comp[p]
            if c < 0:
                continue
            for k in range(port_start[p], port_start[p + 1]):
                if port_ok[k] == 0:
                    continue
                w = port_other[k]
                if w < 0:
                    w = node_hop_poly[ports[k]]
                if w < 0 or comp[w] == c:
                    continue
                if pass_ == 0:
                    dag_start[c + 1] += 1
                else:
                    dag_to[fill[c]] = comp[w]
                    fill[c] += 1
    comp_bmin = np.empty((comp_polys.shape[0], 3))
    comp_bmax = np.empty((comp_polys.shape[0], 3))
    for j in range(comp_polys.shape[0]):
        for a in range(3):
            comp_bmin[j, a] = poly_bmin[comp_polys[j], a]
            comp_bmax[j, a] = poly_bmax[comp_polys[j], a]
    # a plain tuple: a namedtuple made in numba code is boxed through a pickled reference
    # to its class under the module name it was compiled under (kernel_cache shares one
    # compile between module names), so the caller wraps it: Reach(*reach_components(...))
    return comp, comp_start, comp_polys, comp_bmin, comp_bmax, dag_start, dag_to


@hot_kernel
def comp_reaches(dag_start, dag_to, cs, cg, comp_seen, comp_stack, comp_list, stamp):
    """Depth-first over the component DAG from cs. Returns (True, _) as soon as cg is
    reached; else (False, n) with ``comp_list[:n]`` every component reached from cs."""
    comp_seen[cs] = stamp
    comp_stack[0] = cs
    top = 1
    n_list = 0
    while top > 0:
        top -= 1
        c = comp_stack[top]
        comp_list[n_list] = c
        n_list += 1
        for e in range(dag_start[c], dag_start[c + 1]):
            t = dag_to[e]
            if t == cg:
                return True, n_list
            if comp_seen[t] != stamp:
                comp_seen[t] = stamp
                comp_stack[top] = t
                top += 1
    return False, n_list


@hot_kernel
def _measure(vertices, polygons, poly_nv, surf_start, surf_tris, p, gx, gy, gz, goal_pt):
    """goal_pt[p] = polygon p's point nearest (gx, gy, gz) and its distance; returns it."""
    cx, cy, cz = closest_point_on_polygon_arrays(vertices, polygons, poly_nv, surf_start,
                                                 surf_tris, p, gx, gy)
    dd = _dist(cx, cy, cz, gx, gy, gz)
    goal_pt[p, 0] = cx
    goal_pt[p, 1] = cy
    goal_pt[p, 2] = cz
    goal_pt[p, 3] = dd
    return dd


@hot_kernel
def nearest_reachable(comp_list, n_list, comp_start, comp_polys, comp_bmin, comp_bmax,
                      vertices, polygons, poly_nv, surf_start, surf_tris, cand, cand_lb,
                      goal_mark, goal_pt, gpos, stamp):
    """Where a partial path ends: the point nearest gpos over the polygons of the
    components ``comp_list[:n_list]`` (everything the start reaches).

    Every polygon whose nearest point is within 1e-9 of the nearest distance becomes a
    goal polygon (``goal_mark[p] = stamp``, its point in ``goal_pt[p, :3]``, its distance
    in ``goal_pt[p, 3]``), so the search that follows picks the cheapest of equally near
    points. Returns (the nearest such polygon, the largest distance from its point to
    another goal point: the search's ``goal_r``).

    Exact closest points are costly (surface triangles): the polygons get a lower bound
    (the squared distance to their bounds); the one with the least bound is measured
    first, then every other whose bound is within the nearest distance found.
    """
    gx = gpos[0]
    gy = gpos[1]
    gz = gpos[2]
    n_cand = 0
    for i in range(n_list):
        c = comp_list[i]
        for j in range(comp_start[c], comp_start[c + 1]):
            dx = max(comp_bmin[j, 0] - gx, 0.0, gx - comp_bmax[j, 0])
            dy = max(comp_bmin[j, 1] - gy, 0.0, gy - comp_bmax[j, 1])
            dz = max(comp_bmin[j, 2] - gz, 0.0, gz - comp_bmax[j, 2])
            cand_lb[n_cand] = dx * dx + dy * dy + dz * dz
            cand[n_cand] = comp_polys[j]
            n_cand += 1
    first = 0
    for j in range(1, n_cand):
        if cand_lb[j] < cand_lb[first]:
            first = j
    nearest = _measure(vertices, polygons, poly_nv, surf_start, surf_tris, cand[first],
                       gx, gy, gz, goal_pt)
    for j in range(n_cand):
        lim = nearest + 1e-9
        if j != first and cand_lb[j] <= lim * lim:
            nearest = min(nearest, _measure(vertices, polygons, poly_nv, surf_start,
                                            surf_tris, cand[j], gx, gy, gz, goal_pt))
        else:
            cand_lb[j] = -1.0  # not measured
    cand_lb[first] = 0.0
    best = -1
    for j in range(n_cand):
        p = cand[j]
        if cand_lb[j] >= 0.0 and goal_pt[p, 3] <= nearest + 1e-9:
            goal_mark[p] = stamp
            if best < 0 or goal_pt[p, 3] < goal_pt[best, 3]:
                best = p
    radius = 0.0
    for j in range(n_cand):
        p = cand[j]
        if cand_lb[j] >= 0.0 and goal_mark[p] == stamp:
            radius = max(radius, _dist(goal_pt[p, 0], goal_pt[p, 1], goal_pt[p, 2],
                                       goal_pt[best, 0], goal_pt[best, 1], goal_pt[best, 2]))
    return best, radius
