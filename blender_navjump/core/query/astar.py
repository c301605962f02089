"""A* over the port graph (see graph.py), as numba kernels.

Node ids: ``0..N-1`` graph nodes, ``N`` the query start, ``N+1`` the goal. Per-node
scratch arrays (``g``, ``parent``, ``via``) are valid only where ``seen[n] == stamp``;
``closed[n] == stamp`` marks settled nodes, so one allocation serves a whole batch.
``via[n]`` is the polygon the edge into n crosses, or -1 for a link edge.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .jit import hot_kernel
from .spatial import closest_point_on_polygon_arrays

# ``via`` of the goal when reached over the straight start->goal edge.
DIRECT = -2

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
          ports, link_kind, link_cost, g, parent, via, seen, closed, closed_list, hk, hv,
          stance_allowed, stance_cost, link_allowed, link_scale, hscale, port_ok,
          sp, spos, gp, gpos, direct_cost, stamp):
    """Search from spos (in polygon sp) to gpos (in polygon gp).

    Takes the QueryData and Workspace arrays it reads one by one (see solve_batch).
    ``port_ok`` comes from :func:`usable_ports` for the same filter. ``direct_cost``: cost
    of the straight start->goal edge (inf when the segment leaves the usable navmesh);
    the goal reached over it has ``via == DIRECT``. Returns
    (found, n_closed); settled nodes are listed in ``closed_list[:n_closed]``.
    """
    n_nodes = node_pos.shape[0]
    start = n_nodes
    goal = n_nodes + 1
    gx = gpos[0]
    gy = gpos[1]
    gz = gpos[2]

    seen[start] = stamp
    g[start] = 0.0
    parent[start] = -1
    via[start] = sp
    size = heap_push(hk, hv, 0, hscale * _dist(spos[0], spos[1], spos[2], gx, gy, gz), start)
    if direct_cost < np.inf:
        seen[goal] = stamp
        g[goal] = direct_cost
        parent[goal] = start
        via[goal] = DIRECT
        size = heap_push(hk, hv, size, direct_cost, goal)
    n_closed = 0
    while size > 0:
        _f, n, size = heap_pop(hk, hv, size)
        if closed[n] == stamp:
            continue
        closed[n] = stamp
        closed_list[n_closed] = n
        n_closed += 1
        if n == goal:
            return True, n_closed
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
            if p == gp:
                c = gn + mult * _dist(px, py, pz, gx, gy, gz)
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
                    size = heap_push(hk, hv, size,
                                     c + hscale * _dist(mx, my, mz, gx, gy, gz), m)
        if n < n_nodes and node_link[n] >= 0:
            link = node_link[n]
            kind = link_kind[link]
            if not link_allowed[kind]:
                continue
            target = node_hop[n]
            if target >= 0 and not stance_allowed[poly_stance[node_hop_poly[n]]]:
                target = -1
            if target < 0 or closed[target] == stamp:
                continue
            mx = node_pos[target, 0]
            my = node_pos[target, 1]
            mz = node_pos[target, 2]
            # a link costs its baked cost (cost_<kind> x trajectory length) x the agent's
            # scale, but never less than the distance it covers (keeps h consistent)
            hop = _dist(px, py, pz, mx, my, mz)
            c = gn + max(link_cost[link] * link_scale[kind], hop)
            if seen[target] != stamp or c < g[target]:
                seen[target] = stamp
                g[target] = c
                parent[target] = n
                via[target] = -1
                size = heap_push(hk, hv, size, c + hscale * _dist(mx, my, mz, gx, gy, gz),
                                 target)
    return False, n_closed


@hot_kernel
def settle_partial(node_pos, node_poly, poly_stance, vertices, polygons, poly_nv, surf_start,
                   surf_tris, bmin, bmax, closed_list, poly_seen, poly_pt, cand, cand_lb, g,
                   seen, parent, via, stance_allowed, stance_cost, sp, spos, gpos, stamp,
                   n_closed):
    """After a failed search: end at the reachable point nearest to the goal.

    Takes the QueryData and Workspace arrays it reads one by one (see solve_batch).
    Looks at every polygon the search reached and picks its point closest to gpos (ties:
    the cheapest way there). Fills the goal node's g/parent/via and returns that point.

    Exact closest points are costly (surface triangles): the reached polygons are listed
    with a lower bound (distance to their bounds) and measured in increasing bound order
    until the bound passes the nearest distance found; the others cannot be the answer.
    """
    n_nodes = node_pos.shape[0]
    goal = n_nodes + 1
    gx = gpos[0]
    gy = gpos[1]
    gz = gpos[2]
    # 1. the usable polygons reached, with the distance from the goal to their bounds
    n_cand = 0
    for i in range(n_closed):
        n = closed_list[i]
        for side in range(2):
            if n == n_nodes:
                p = sp if side == 0 else -1
            else:
                p = node_poly[n, side]
            if p < 0 or poly_seen[p] == stamp or not stance_allowed[poly_stance[p]]:
                continue
            poly_seen[p] = stamp
            dx = max(bmin[p, 0] - gx, 0.0, gx - bmax[p, 0])
            dy = max(bmin[p, 1] - gy, 0.0, gy - bmax[p, 1])
            dz = max(bmin[p, 2] - gz, 0.0, gz - bmax[p, 2])
            cand[n_cand] = p
            cand_lb[n_cand] = math.sqrt(dx * dx + dy * dy + dz * dz)
            poly_pt[p, 3] = np.inf
            n_cand += 1
    # 2. exact closest points, nearest bound first, while a bound can still compete
    nearest = np.inf
    for j in range(n_cand):
        k = j
        for i in range(j + 1, n_cand):
            if cand_lb[i] < cand_lb[k]:
                k = i
        if cand_lb[k] > nearest + 1e-9:
            break
        p = cand[k]
        cand[k] = cand[j]
        cand_lb[k] = cand_lb[j]
        cx, cy, cz = closest_point_on_polygon_arrays(vertices, polygons, poly_nv, surf_start,
                                                     surf_tris, p, gx, gy)
        dd = _dist(cx, cy, cz, gx, gy, gz)
        poly_pt[p, 0] = cx
        poly_pt[p, 1] = cy
        poly_pt[p, 2] = cz
        poly_pt[p, 3] = dd
        nearest = min(nearest, dd)
    # 3. the nearest point, reached the cheapest way (settled nodes in order)
    best_d = np.inf
    best_cost = np.inf
    best_n = -1
    best_p = -1
    bx = spos[0]
    by = spos[1]
    bz = spos[2]
    for i in range(n_closed):
        n = closed_list[i]
        if n == n_nodes:
            px = spos[0]
            py = spos[1]
            pz = spos[2]
        else:
            px = node_pos[n, 0]
            py = node_pos[n, 1]
            pz = node_pos[n, 2]
        for side in range(2):
            if n == n_nodes:
                p = sp if side == 0 else -1
            else:
                p = node_poly[n, side]
            if p < 0 or not stance_allowed[poly_stance[p]]:
                continue
            dd = poly_pt[p, 3]
            if dd > best_d + 1e-9:
                continue
            cx = poly_pt[p, 0]
            cy = poly_pt[p, 1]
            cz = poly_pt[p, 2]
            cost = g[n] + stance_cost[poly_stance[p]] * _dist(px, py, pz, cx, cy, cz)
            if dd < best_d - 1e-9 or (dd <= best_d + 1e-9 and cost < best_cost):
                best_d = dd
                best_cost = cost
                best_n = n
                best_p = p
                bx = cx
                by = cy
                bz = cz
    seen[goal] = stamp
    g[goal] = best_cost
    parent[goal] = best_n
    via[goal] = best_p
    return bx, by, bz
