"""Climbing inside the path queries (docs/climbing.md).

``NavQuery.find_paths`` (and ``find_path``, ``core.query.find_path(s)``) plan through the
climb graph when the NavMesh has one and the agent filter has climbing abilities: this
module is that planner, called from a small hook in ``path.py``.

1. **One A\\* over the joined graph** (:class:`ClimbPlanGraph`, :func:`_plan_batch`, one
   numba call per batch): the nodes of the navmesh port graph (``graph.py``: portals and
   jump-link ends), the climb nodes and one *ground node* per climb link (its point on the
   navmesh). Edges: walking between any two nodes of one polygon (its stance cost per
   metre), jump links (``max(baked cost x scale, length)``), climb edges (length plus the
   occupancy penalty) and climb links (ground <-> climb node, their length). An edge
   needing an ability, a link kind or a stance the agent lacks is never used. Every edge
   costs at least its straight length times the filter's heuristic scale, so the Euclidean
   heuristic keeps the search exact (tested against a brute-force Dijkstra).
2. **Stitching**: the walking sections of the plan (start -> first entry, exit -> next
   entry, ..., -> goal) are answered by the ordinary batch solver (A\\* + funnel + jump
   points) in one more call, and the climbing sections in between become points flagged
   with their move (``FLAG_NAMES``: ``hang_jump_up``, ``ladder_on``, ``shimmy``,
   ``ladder_climb``, ``mount``, ...). A query keeps its ordinary answer when its plan does
   not climb, or when the ordinary path costs no more than the climbing one.

A start or goal within ``ON_CLIMB_NODE`` of a climb node is on the climb graph (an agent
hanging mid-climb): the plan starts or ends at that node.

Occupancy: ``NavQuery.climb_penalty`` (one value >= 0 per climb edge, default none) adds
to each climb edge's cost; :func:`reserve` adds a committed path's edges to it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..kinds import (
    CLIMB_ABILITIES,
    CLIMB_EDGE_KINDS,
    CLIMB_LADDER,
    CLIMB_LEDGE,
    CLIMB_LINK_HANG,
    CLIMB_LINK_LADDER_FOOT,
    CLIMB_LINK_MOUNT,
    FLAG_NAMES,
    STANCE_STAND,
)
from .astar import heap_pop, heap_push
from .spatial import _cell_range, build_grid

# A start or goal within this distance (metres) of a climb node starts or ends on it
# (an agent already hanging mid-climb).
ON_CLIMB_NODE = 0.3

# edge types of the plan graph
_WALK, _LINK, _CLIMB_EDGE, _NODE_TO_GROUND, _GROUND_TO_NODE = range(5)
# the edge into a plan's first node (from the start point)
_FROM_START = -1


def ability_mask(abilities=None) -> int:
    """Bit mask of ability names (a list or comma-separated text); None = all."""
    if abilities is None:
        return (1 << len(CLIMB_ABILITIES)) - 1
    if isinstance(abilities, str):
        abilities = [a.strip() for a in abilities.split(",") if a.strip()]
    mask = 0
    for name in abilities:
        if name not in CLIMB_ABILITIES:
            raise ValueError(f"unknown ability {name!r}; choose from "
                             f"{', '.join(CLIMB_ABILITIES)}")
        mask |= 1 << CLIMB_ABILITIES.index(name)
    return mask


class ClimbPlanGraph(NamedTuple):
    """The joined graph, CSR by source node. Nodes: ``0..N-1`` port-graph nodes,
    ``N..N+M-1`` climb nodes, then one ground node per climb link."""

    position: np.ndarray  # (V, 3)
    node_poly: np.ndarray  # (V, 2) polygons a node lies in (-1: none)
    poly_start: np.ndarray  # (P+1,) CSR of the nodes in each polygon
    poly_nodes: np.ndarray
    edge_start: np.ndarray  # (V+1,)
    edge_to: np.ndarray  # (K,)
    edge_type: np.ndarray  # (K,) _WALK, _LINK, _CLIMB_EDGE, _NODE_TO_GROUND, _GROUND_TO_NODE
    edge_aux: np.ndarray  # (K,) polygon, jump link, climb edge or climb link
    edge_length: np.ndarray  # (K,)
    edge_abilities: np.ndarray  # (K,) abilities needed (bit mask)
    n_port: int  # N
    n_climb: int  # M
    climb_grid: tuple  # query/spatial.py's grid of the climb nodes (origin, cell, ...)
    rev_start: np.ndarray  # (V+1,) CSR by target node of ...
    rev_edge: np.ndarray  # ... the edges into each node (indices into edge_*)


def build_plan_graph(query) -> ClimbPlanGraph:
    """The joined graph of a NavQuery's NavMesh (independent of the agent)."""
    from ..climb import link_ability_masks

    d, nm = query.data, query.navmesh
    n_port = d.node_pos.shape[0]
    cpos = np.asarray(nm.climb_node_position, np.float64).reshape(-1, 3)
    n_climb = cpos.shape[0]
    n_link = int(nm.climb_link_kind.shape[0])
    ground = n_port + n_climb + np.arange(n_link)
    pos = np.concatenate([d.node_pos, cpos, np.asarray(nm.climb_link_point).reshape(-1, 3)])
    node_poly = np.full((pos.shape[0], 2), -1, np.int64)
    node_poly[:n_port] = d.node_poly
    node_poly[ground, 0] = nm.climb_link_poly
    # nodes of each polygon: its ports and its ground nodes
    n_poly = d.polygons.shape[0]
    owner = np.concatenate([np.repeat(np.arange(n_poly), np.diff(d.port_start)),
                            np.asarray(nm.climb_link_poly, np.int64)])
    member = np.concatenate([d.ports, ground])
    order = np.argsort(owner, kind="stable")
    owner, member = owner[order], member[order]
    poly_start = np.zeros(n_poly + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=n_poly), out=poly_start[1:])
    # walking: every ordered pair of nodes of one polygon
    size = np.diff(poly_start)[owner]
    src = np.repeat(np.arange(member.shape[0]), size)
    rank = np.arange(src.shape[0]) - np.repeat(np.cumsum(size) - size, size)
    dst = np.repeat(poly_start[owner], size) + rank
    # walking into a ground node only leads somewhere when its link climbs up (ground ->
    # node): one-way links (drops) are only left through their ground node
    climbs_up = np.zeros(pos.shape[0], np.bool_)
    climbs_up[:n_port] = True
    climbs_up[ground[np.asarray(nm.climb_link_bidirectional, np.bool_)]] = True
    keep = (member[src] != member[dst]) & climbs_up[member[dst]]
    src, dst = src[keep], dst[keep]
    frm = [member[src]]
    to = [member[dst]]
    typ = [np.full(src.shape[0], _WALK)]
    aux = [owner[src]]
    abil = [np.zeros(src.shape[0], np.int64)]
    # jump links
    ls, le = d.link_node_start, d.link_node_end
    ok = ls >= 0
    links = np.nonzero(ok)[0]
    back = links[d.link_bidir[links] != 0]
    frm += [ls[links], le[back]]
    to += [le[links], ls[back]]
    typ += [np.full(links.shape[0] + back.shape[0], _LINK)]
    aux += [links, back]
    abil += [np.zeros(links.shape[0] + back.shape[0], np.int64)]
    # climb edges
    en = np.asarray(nm.climb_edge_nodes, np.int64).reshape(-1, 2) + n_port
    ce = np.arange(en.shape[0])
    cb = ce[np.asarray(nm.climb_edge_bidirectional, np.bool_)]
    cab = np.asarray(nm.climb_edge_abilities, np.int64)
    frm += [en[:, 0], en[cb, 1]]
    to += [en[:, 1], en[cb, 0]]
    typ += [np.full(ce.shape[0] + cb.shape[0], _CLIMB_EDGE)]
    aux += [ce, cb]
    abil += [cab, cab[cb]]
    # climb links: node -> ground always, ground -> node when bidirectional
    cl = np.arange(n_link)
    lb = cl[np.asarray(nm.climb_link_bidirectional, np.bool_)]
    lnode = np.asarray(nm.climb_link_node, np.int64) + n_port
    lab = link_ability_masks(nm).astype(np.int64)
    frm += [lnode, ground[lb]]
    to += [ground, lnode[lb]]
    typ += [np.full(n_link, _NODE_TO_GROUND), np.full(lb.shape[0], _GROUND_TO_NODE)]
    aux += [cl, lb]
    abil += [lab, lab[lb]]
    frm_a = np.concatenate(frm).astype(np.int64)
    to_a = np.concatenate(to).astype(np.int64)
    order = np.argsort(frm_a, kind="stable")
    frm_a, to_a = frm_a[order], to_a[order]
    edge_start = np.zeros(pos.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(frm_a, minlength=pos.shape[0]), out=edge_start[1:])
    rev_start = np.zeros(pos.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(to_a, minlength=pos.shape[0]), out=rev_start[1:])
    return ClimbPlanGraph(
        pos, node_poly, poly_start, member.astype(np.int64), edge_start, to_a,
        np.concatenate(typ).astype(np.int64)[order], np.concatenate(aux).astype(np.int64)[order],
        np.linalg.norm(pos[to_a] - pos[frm_a], axis=1),
        np.concatenate(abil).astype(np.int64)[order], n_port, n_climb,
        build_grid(cpos, cpos), rev_start, np.argsort(to_a, kind="stable").astype(np.int64))


def plan_graph_for(query) -> ClimbPlanGraph:
    """The query's joined graph, built once per NavQuery."""
    g = query.__dict__.get("_climb_plan")
    if g is None:
        g = query.__dict__["_climb_plan"] = build_plan_graph(query)
    return g


@njit(cache=True)
def _d3(a, b):
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


# Nodes a backward search from the goal may visit before the plan search runs anyway.
_BACKWARD_LIMIT = 300


@njit(cache=True)
def _goal_unreachable(edge_start, edge_type, edge_aux, edge_abilities, rev_start, rev_edge,
                      poly_start, poly_nodes, poly_stance, link_kind, stance_allowed,
                      link_allowed, mask, s_node, s_poly, g_node, g_poly, mark, stamp, stack):
    """True when a backward search from the goal's nodes exhausts (within
    ``_BACKWARD_LIMIT`` nodes) without meeting a start node: no path exists. (A goal that
    cannot be reached is often in a small pocket: this spares a search of everything the
    start can reach.)"""
    top = 0
    if g_node >= 0:
        mark[g_node] = stamp
        stack[top] = g_node
        top += 1
    else:
        for k in range(poly_start[g_poly], poly_start[g_poly + 1]):
            n = poly_nodes[k]
            if mark[n] != stamp:
                mark[n] = stamp
                stack[top] = n
                top += 1
    if s_node < 0 and s_poly == g_poly:
        return False
    visited = 0
    while top > 0:
        top -= 1
        n = stack[top]
        visited += 1
        if visited > _BACKWARD_LIMIT:
            return False
        if n == s_node:
            return False
        if s_node < 0:
            for k in range(poly_start[s_poly], poly_start[s_poly + 1]):
                if poly_nodes[k] == n:
                    return False
        for r in range(rev_start[n], rev_start[n + 1]):
            k = rev_edge[r]
            t = edge_type[k]
            a = edge_aux[k]
            if t == _WALK and not stance_allowed[poly_stance[a]]:
                continue
            if t == _LINK and not link_allowed[link_kind[a]]:
                continue
            if t >= _CLIMB_EDGE and edge_abilities[k] & ~mask:
                continue
            # the edge's source: found by its position in the forward CSR
            lo = 0
            hi = edge_start.shape[0] - 1
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if edge_start[mid] <= k:
                    lo = mid
                else:
                    hi = mid
            if mark[lo] != stamp:
                mark[lo] = stamp
                stack[top] = lo
                top += 1
    return True


@njit(cache=True)
def _plan_batch(pg_pos, node_poly, poly_start, poly_nodes, edge_start, edge_to, edge_type,
                edge_aux, edge_length, edge_abilities, poly_stance, link_kind, link_cost,
                link_end_poly, link_start_poly, link_node_start, stance_allowed, stance_cost,
                link_allowed, link_scale, hscale, mask, penalty, s_node, s_poly, s_pos,
                g_node, g_poly, g_pos, bound, rev_start, rev_edge, node_pocket, node_dead,
                s_pocket, g_pocket):
    """A* per query over the plan graph. An end is a graph node (``*_node >= 0``, on the
    climb graph) or a point in a polygon (``*_poly``). Returns (cost (Q,), path offsets
    (Q+1,), path nodes, the edge into each path node): a path lists its graph nodes only
    (the start and goal points are implied); cost inf when unreachable or when no path
    costs less than ``bound[q]`` (the search stops there: the ordinary path is as good).
    Nodes of a dead-end pocket (:func:`_dead_pockets`) are not entered unless the query
    starts or ends in that pocket (``s_pocket``, ``g_pocket``)."""
    nv = pg_pos.shape[0]
    nq = s_pos.shape[0]
    g = np.zeros(nv)
    parent = np.full(nv, -1, np.int64)
    pedge = np.full(nv, -1, np.int64)
    via = np.full(nv, -1, np.int64)  # polygon walked through into a node, -1 otherwise
    seen = np.full(nv, -1, np.int64)
    closed = np.full(nv, -1, np.int64)
    cap = edge_to.shape[0] + poly_nodes.shape[0] + 2 * nv + 16
    hk = np.zeros(cap)
    hv = np.zeros(cap, np.int64)
    cost = np.full(nq, np.inf)
    off = np.zeros(nq + 1, np.int64)
    out_nodes = np.zeros(16, np.int64)
    out_edges = np.zeros(16, np.int64)
    n_out = 0
    goal_id = nv  # virtual goal node id (not stored in the arrays)
    mark = np.full(nv, -1, np.int64)
    stack = np.zeros(nv + 1, np.int64)
    for q in range(nq):
        off[q] = n_out
        gp = g_pos[q]
        if bound[q] == np.inf and _goal_unreachable(
                edge_start, edge_type, edge_aux, edge_abilities, rev_start, rev_edge,
                poly_start, poly_nodes, poly_stance, link_kind, stance_allowed, link_allowed,
                mask, s_node[q], s_poly[q], g_node[q], g_poly[q], mark, q, stack):
            continue
        size = 0
        best_goal = bound[q]
        goal_parent = -2
        # start
        if s_node[q] >= 0:
            n = s_node[q]
            seen[n] = q
            g[n] = 0.0
            parent[n] = -1
            pedge[n] = _FROM_START
            via[n] = -1
            size = heap_push(hk, hv, size, hscale * _d3(pg_pos[n], gp), n)
        else:
            p = s_poly[q]
            if stance_allowed[poly_stance[p]]:
                mult = stance_cost[poly_stance[p]]
                for k in range(poly_start[p], poly_start[p + 1]):
                    n = poly_nodes[k]
                    c = mult * _d3(s_pos[q], pg_pos[n])
                    if seen[n] != q or c < g[n]:
                        seen[n] = q
                        g[n] = c
                        parent[n] = -1
                        pedge[n] = _FROM_START
                        via[n] = p
                        size = heap_push(hk, hv, size, c + hscale * _d3(pg_pos[n], gp), n)
                if g_node[q] < 0 and g_poly[q] == p and mult * _d3(s_pos[q], gp) < best_goal:
                    best_goal = mult * _d3(s_pos[q], gp)
                    goal_parent = -1  # straight from the start, in its polygon
                    size = heap_push(hk, hv, size, best_goal, goal_id)
        while size > 0:
            f, n, size = heap_pop(hk, hv, size)
            if n == goal_id:
                break
            if f >= best_goal:
                break
            if closed[n] == q:
                continue
            closed[n] = q
            gn = g[n]
            # the goal from here
            if g_node[q] >= 0:
                if n == g_node[q] and gn < best_goal:
                    best_goal = gn
                    goal_parent = n
                    size = heap_push(hk, hv, size, gn, goal_id)
            else:
                for side in range(2):
                    p = node_poly[n, side]
                    if p == g_poly[q] and p >= 0 and stance_allowed[poly_stance[p]]:
                        c = gn + stance_cost[poly_stance[p]] * _d3(pg_pos[n], gp)
                        if c < best_goal:
                            best_goal = c
                            goal_parent = n
                            size = heap_push(hk, hv, size, c, goal_id)
            for k in range(edge_start[n], edge_start[n + 1]):
                m = edge_to[k]
                if closed[m] == q:
                    continue
                if node_dead[m] and node_pocket[m] != s_pocket[q] \
                        and node_pocket[m] != g_pocket[q]:
                    continue
                t = edge_type[k]
                a = edge_aux[k]
                length = edge_length[k]
                if t == _WALK:
                    # the polygon n was walked through needs no second look: by the
                    # triangle inequality its nodes are as cheap straight from n's parent
                    if a == via[n] or not stance_allowed[poly_stance[a]]:
                        continue
                    c = gn + stance_cost[poly_stance[a]] * length
                elif t == _LINK:
                    kind = link_kind[a]
                    if not link_allowed[kind]:
                        continue
                    into = link_end_poly[a] if m != link_node_start[a] else link_start_poly[a]
                    if not stance_allowed[poly_stance[into]]:
                        continue
                    c = gn + max(link_cost[a] * link_scale[kind], length)
                else:
                    if edge_abilities[k] & ~mask:
                        continue
                    c = gn + length
                    if t == _CLIMB_EDGE:
                        c += penalty[a]
                if seen[m] != q or c < g[m]:
                    seen[m] = q
                    g[m] = c
                    parent[m] = n
                    pedge[m] = k
                    via[m] = a if t == _WALK else -1
                    size = heap_push(hk, hv, size, c + hscale * _d3(pg_pos[m], gp), m)
        if goal_parent == -2:
            continue
        cost[q] = best_goal
        # the path, goal first, then reversed in place
        first = n_out
        n = goal_parent
        while True:
            if n_out + 1 >= out_nodes.shape[0]:
                bigger = np.zeros(out_nodes.shape[0] * 2, np.int64)
                bigger[:n_out] = out_nodes[:n_out]
                out_nodes = bigger
                bigger = np.zeros(out_edges.shape[0] * 2, np.int64)
                bigger[:n_out] = out_edges[:n_out]
                out_edges = bigger
            if n < 0:
                break
            out_nodes[n_out] = n
            out_edges[n_out] = pedge[n]
            n_out += 1
            n = parent[n]
        out_nodes[first:n_out] = out_nodes[first:n_out][::-1].copy()
        out_edges[first:n_out] = out_edges[first:n_out][::-1].copy()
    off[nq] = n_out
    return cost, off, out_nodes[:n_out], out_edges[:n_out]


@njit(cache=True)
def _components(n_nodes, edge_start, edge_to, edge_type, edge_aux, edge_abilities, mask,
                poly_stance, stance_allowed, link_kind, link_allowed):
    """Connected parts of the plan graph for one filter, ignoring edge directions: a label
    per node (two ends with different labels have no path between them)."""
    parent = np.arange(n_nodes)
    for n in range(n_nodes):
        for k in range(edge_start[n], edge_start[n + 1]):
            t = edge_type[k]
            a = edge_aux[k]
            if t == _WALK and not stance_allowed[poly_stance[a]]:
                continue
            if t == _LINK and not link_allowed[link_kind[a]]:
                continue
            if t >= _CLIMB_EDGE and edge_abilities[k] & ~mask:
                continue
            x = n
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            y = edge_to[k]
            while parent[y] != y:
                parent[y] = parent[parent[y]]
                y = parent[y]
            if x != y:
                parent[max(x, y)] = min(x, y)
    for n in range(n_nodes):
        x = n
        while parent[x] != x:
            x = parent[x]
        parent[n] = x
    return parent


# Pockets bigger than this (nodes), or with more entries, are never pruned (bounds the
# work of :func:`_dead_pockets`).
POCKET_MAX_NODES = 4096
POCKET_MAX_ENTRIES = 64


@njit(cache=True)
def _edge_cost(k, n, m, edge_type, edge_aux, edge_length, edge_abilities, mask, poly_stance,
               stance_allowed, stance_cost, link_kind, link_allowed, link_cost, link_scale,
               link_end_poly, link_start_poly, link_node_start):
    """The plan search's cost of edge k (n -> m) for a filter, without penalties (inf: the
    agent cannot use it); as in :func:`_plan_batch`."""
    t = edge_type[k]
    a = edge_aux[k]
    if t == _WALK:
        if not stance_allowed[poly_stance[a]]:
            return np.inf
        return stance_cost[poly_stance[a]] * edge_length[k]
    if t == _LINK:
        kind = link_kind[a]
        if not link_allowed[kind]:
            return np.inf
        into = link_end_poly[a] if m != link_node_start[a] else link_start_poly[a]
        if not stance_allowed[poly_stance[into]]:
            return np.inf
        return max(link_cost[a] * link_scale[kind], edge_length[k])
    if edge_abilities[k] & ~mask:
        return np.inf
    return edge_length[k]


@njit(cache=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True)
def _dead_pockets(pos, node_poly, poly_start, poly_nodes, n_port, n_climb, edge_start,
                  edge_to, edge_type, edge_aux,
                  edge_length, edge_abilities, mask, poly_stance, stance_allowed, stance_cost,
                  link_kind, link_allowed, link_cost, link_scale, link_end_poly,
                  link_start_poly, link_node_start, max_nodes, max_entries):
    """Per plan-graph node: its pocket (-1: in the outside) and whether that pocket is a
    dead end. The *outside* is the largest part of the navmesh joined by walking and jump
    links; a *pocket* is a connected part of the rest (climb nodes, islands such as a
    tower's top). A pocket is a dead end when, for every way in (outside node e -> pocket)
    and every way out (pocket -> outside node x), going through the pocket costs no less
    than walking from e to x outside (both with this filter's costs, no penalties): then
    a path through it is never cheaper than one around it, and the plan search need not
    enter it unless the query starts or ends in it. Walking to a way out x counts as
    reaching a node z of x's polygon and going straight to x (a drop's ground node is
    never walked into): every walk on from x is then as cheap from z. Returns (pocket
    (V,), dead (V,))."""
    n_nodes = pos.shape[0]
    cost_args = (edge_type, edge_aux, edge_length, edge_abilities, mask, poly_stance,
                 stance_allowed, stance_cost, link_kind, link_allowed, link_cost, link_scale,
                 link_end_poly, link_start_poly, link_node_start)
    is_climb = np.zeros(n_nodes, np.bool_)
    is_climb[n_port:n_port + n_climb] = True
    # 1. walking parts (walk and jump-link edges, either direction)
    parent = np.arange(n_nodes)
    for n in range(n_nodes):
        for k in range(edge_start[n], edge_start[n + 1]):
            if edge_type[k] > _LINK:
                continue
            m = edge_to[k]
            if _edge_cost(k, n, m, *cost_args) == np.inf:
                continue
            x, y = _find(parent, n), _find(parent, m)
            if x != y:
                parent[max(x, y)] = min(x, y)
    count = np.zeros(n_nodes, np.int64)
    for n in range(n_nodes):
        if not is_climb[n]:
            count[_find(parent, n)] += 1
    outside_root = np.argmax(count)
    outside = np.zeros(n_nodes, np.bool_)
    for n in range(n_nodes):
        outside[n] = not is_climb[n] and _find(parent, n) == outside_root
    # 2. pockets: connected parts of the rest over every usable edge
    pp = np.arange(n_nodes)
    for n in range(n_nodes):
        if outside[n]:
            continue
        for k in range(edge_start[n], edge_start[n + 1]):
            m = edge_to[k]
            if outside[m] or _edge_cost(k, n, m, *cost_args) == np.inf:
                continue
            x, y = _find(pp, n), _find(pp, m)
            if x != y:
                pp[max(x, y)] = min(x, y)
    pocket = np.full(n_nodes, -1, np.int64)
    size = np.zeros(n_nodes, np.int64)
    for n in range(n_nodes):
        if not outside[n]:
            pocket[n] = _find(pp, n)
            size[pocket[n]] += 1
    # 3. entries of each pocket: outside nodes with an edge into it
    n_entries = np.zeros(n_nodes, np.int64)
    for n in range(n_nodes):
        if outside[n]:
            for k in range(edge_start[n], edge_start[n + 1]):
                m = edge_to[k]
                if not outside[m] and _edge_cost(k, n, m, *cost_args) < np.inf:
                    n_entries[pocket[m]] += 1
    alive = np.zeros(n_nodes, np.bool_)  # by pocket root: not a dead end
    for r in range(n_nodes):
        if size[r] > max_nodes or n_entries[r] > max_entries:
            alive[r] = True
    # 4. for each entry: the cost through the pocket to each exit, then the walk outside
    dist = np.full(n_nodes, np.inf)
    stamp = np.full(n_nodes, -1, np.int64)
    exit_cost = np.full(n_nodes, np.inf)
    exit_stamp = np.full(n_nodes, -1, np.int64)
    exits = np.zeros(n_nodes, np.int64)
    cap = edge_to.shape[0] + 16
    hk = np.zeros(cap)
    hv = np.zeros(cap, np.int64)
    run = 0
    for e in range(n_nodes):
        if not outside[e]:
            continue
        for k0 in range(edge_start[e], edge_start[e + 1]):
            m0 = edge_to[k0]
            if outside[m0] or alive[pocket[m0]]:
                continue
            c0 = _edge_cost(k0, e, m0, *cost_args)
            if c0 == np.inf:
                continue
            r = pocket[m0]
            # through the pocket from e (its first step k0)
            run += 1
            n_exit = 0
            stamp[m0] = run
            dist[m0] = c0
            hs = heap_push(hk, hv, 0, c0, m0)
            while hs > 0:
                dn, n, hs = heap_pop(hk, hv, hs)
                if dn > dist[n]:
                    continue
                for k in range(edge_start[n], edge_start[n + 1]):
                    m = edge_to[k]
                    c = _edge_cost(k, n, m, *cost_args)
                    if c == np.inf:
                        continue
                    if outside[m]:
                        if exit_stamp[m] != run:
                            exit_stamp[m] = run
                            exit_cost[m] = dn + c
                            exits[n_exit] = m
                            n_exit += 1
                        elif dn + c < exit_cost[m]:
                            exit_cost[m] = dn + c
                        continue
                    if stamp[m] != run or dn + c < dist[m]:
                        stamp[m] = run
                        dist[m] = dn + c
                        hs = heap_push(hk, hv, hs, dn + c, m)
            if n_exit == 0:
                continue
            limit = 0.0
            for i in range(n_exit):
                limit = max(limit, exit_cost[exits[i]])
            # walking outside from e, as far as the dearest way through
            run += 1
            stamp[e] = run
            dist[e] = 0.0
            hs = heap_push(hk, hv, 0, 0.0, e)
            while hs > 0:
                dn, n, hs = heap_pop(hk, hv, hs)
                if dn > dist[n] or dn > limit:
                    continue
                for k in range(edge_start[n], edge_start[n + 1]):
                    m = edge_to[k]
                    if not outside[m]:
                        continue
                    c = _edge_cost(k, n, m, *cost_args)
                    if c == np.inf:
                        continue
                    if stamp[m] != run or dn + c < dist[m]:
                        stamp[m] = run
                        dist[m] = dn + c
                        hs = heap_push(hk, hv, hs, dn + c, m)
            for i in range(n_exit):
                x = exits[i]
                walk = dist[x] if stamp[x] == run else np.inf
                p = node_poly[x, 0]
                if p >= 0 and stance_allowed[poly_stance[p]]:
                    for w in range(poly_start[p], poly_start[p + 1]):
                        z = poly_nodes[w]
                        if stamp[z] == run:
                            walk = min(walk, dist[z] + stance_cost[poly_stance[p]]
                                       * _d3(pos[z], pos[x]))
                if walk > exit_cost[x]:
                    alive[r] = True
                    break
    dead = np.zeros(n_nodes, np.bool_)
    for n in range(n_nodes):
        if pocket[n] >= 0:
            dead[n] = not alive[pocket[n]]
    return pocket, dead


def _end_pockets(pg: ClimbPlanGraph, node_pocket, node, poly) -> np.ndarray:
    """The pocket (``_dead_pockets``) of each query end: its climb node's, else its
    polygon's first node's (-1: outside, or a polygon without nodes)."""
    return np.where(_end_labels(pg, node_pocket, node, poly) >= 0,
                    _end_labels(pg, node_pocket, node, poly), -1)


def _end_labels(pg: ClimbPlanGraph, labels, node, poly) -> np.ndarray:
    """The component of each query end: its climb node's, else its polygon's first node's
    (a polygon without nodes gets a label of its own, ``-2 - poly``)."""
    first = np.where(np.diff(pg.poly_start) > 0, pg.poly_nodes[np.minimum(
        pg.poly_start[:-1], max(pg.poly_nodes.shape[0] - 1, 0))], -1)
    out = np.full(node.shape[0], -1, np.int64)
    on = node >= 0
    out[on] = labels[node[on]]
    in_poly = ~on & (poly >= 0)
    f = first[poly[in_poly]]
    out[in_poly] = np.where(f >= 0, labels[np.maximum(f, 0)], -2 - poly[in_poly])
    return out


def _flag(name: str) -> int:
    return FLAG_NAMES.index(name)


_ALONG_FLAG = {CLIMB_LEDGE: _flag("shimmy"), CLIMB_LADDER: _flag("ladder_climb")}
_PIPE_FLAG = _flag("pipe_climb")
# climbing onto the graph from the ground (at the ground point), and off it (at the node)
_ON_FLAG = {CLIMB_LINK_MOUNT: _flag("climb_down_from_mount"),
            CLIMB_LINK_LADDER_FOOT: _flag("ladder_on"), CLIMB_LINK_HANG: _flag("hang_jump_up")}
_OFF_FLAG = {CLIMB_LINK_MOUNT: _flag("mount"), CLIMB_LINK_LADDER_FOOT: _flag("ladder_off"),
             CLIMB_LINK_HANG: _flag("climb_drop")}
_EDGE_FLAG = {k: _flag(f"climb_{name}") for k, name in enumerate(CLIMB_EDGE_KINDS)
              if name != "along"}
CLIMB_FLAGS = frozenset([*_ALONG_FLAG.values(), _PIPE_FLAG, *_ON_FLAG.values(),
                         *_OFF_FLAG.values(), *_EDGE_FLAG.values()])


class _Section(NamedTuple):
    walk: bool
    a: np.ndarray  # walk: from, to points
    b: np.ndarray
    points: list  # climb: [(point, flag)], the flag naming the move that starts there
    edges: list  # climb edges used
    cost: float  # climb: the cost of its edges and links (without penalties)


def _sections(pg: ClimbPlanGraph, nm, nodes, edges, start, goal) -> list[_Section]:
    """Walking and climbing sections of a plan: graph ``nodes`` with the edge into each
    (``_FROM_START`` for the first). A climbing section followed by a walk ends with its
    last climb node (the walk starts at the ground point); one ending at the goal (on the
    climb graph) ends with the goal point."""
    start = np.asarray(start, np.float64)
    goal = np.asarray(goal, np.float64)
    out: list[_Section] = []
    cur = start  # where the current walk began
    pts: list = []
    used: list = []
    cost = 0.0
    n_port, n_climb = pg.n_port, pg.n_climb
    climbing = bool(nodes) and n_port <= nodes[0] < n_port + n_climb
    for i in range(1, len(nodes)):
        e = edges[i]
        t = int(pg.edge_type[e])
        a = int(pg.edge_aux[e])
        prev = start if i == 1 and climbing and not out and not pts \
            else pg.position[nodes[i - 1]]
        if t == _GROUND_TO_NODE:
            out.append(_Section(True, cur, prev, [], [], 0.0))
            climbing = True
            pts, used, cost = [(prev, _ON_FLAG[int(nm.climb_link_kind[a])])], [], 0.0
        elif t == _CLIMB_EDGE:
            kind = int(nm.climb_edge_kind[a])
            if kind == 0:  # along an element
                flag = _ALONG_FLAG.get(int(nm.climb_element_kind[int(nm.climb_edge_element[a])]),
                                       _PIPE_FLAG)
            else:
                flag = _EDGE_FLAG[kind]
            pts.append((prev, flag))
            used.append(a)
        elif t == _NODE_TO_GROUND:
            pts.append((prev, _OFF_FLAG[int(nm.climb_link_kind[a])]))
            out.append(_Section(False, cur, cur, pts, used, cost + float(pg.edge_length[e])))
            climbing = False
            cur = pg.position[nodes[i]]
            pts, used, cost = [], [], 0.0
            continue
        else:
            continue
        cost += float(pg.edge_length[e])
    if climbing:  # ends on the climb graph, at the goal
        if not pts and not out:
            pts = [(start, _flag("walk"))]
        pts.append((goal, _flag("walk")))
        out.append(_Section(False, cur, cur, pts, used, cost))
    else:
        out.append(_Section(True, cur, goal, [], [], 0.0))
    return out


@njit(cache=True)
def _nearest_within(pos, origin, cell, nx, ny, start, items, points, radius):
    """Per point: the index of the nearest ``pos`` row within ``radius`` (-1: none), using
    query/spatial.py's grid of those rows."""
    out = np.full(points.shape[0], -1, np.int64)
    for q in range(points.shape[0]):
        x, y, z = points[q, 0], points[q, 1], points[q, 2]
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
            continue
        best = radius
        x0, x1, y0, y1 = _cell_range(x - radius, x + radius, y - radius, y + radius, origin,
                                     cell, nx, ny)
        for iy in range(y0, y1 + 1):
            for ix in range(x0, x1 + 1):
                c = iy * nx + ix
                for k in range(start[c], start[c + 1]):
                    n = items[k]
                    dd = math.sqrt((pos[n, 0] - x) ** 2 + (pos[n, 1] - y) ** 2
                                   + (pos[n, 2] - z) ** 2)
                    if dd < best or (dd == best and out[q] >= 0 and n < out[q]):
                        best = dd
                        out[q] = n
    return out


def _attach_ends(pg: ClimbPlanGraph, points) -> np.ndarray:
    """Per query end: the plan-graph climb node it is on (within ``ON_CLIMB_NODE``) or -1."""
    if pg.n_climb == 0:
        return np.full(points.shape[0], -1, np.int64)
    found = _nearest_within(pg.position[pg.n_port:pg.n_port + pg.n_climb], *pg.climb_grid,
                            points, ON_CLIMB_NODE)
    return np.where(found >= 0, found + pg.n_port, -1)


def solve_with_climbing(query, starts, goals, agent, ext, plain):
    """The hook of ``NavQuery.find_paths``: ``plain`` is the ordinary PathBatch (status
    codes kept); returns a PathBatch where each query that is better off climbing gets its
    climbing path (see the module doc)."""
    from .batch_kernel import (
        BAD_INPUT,
        FOUND,
        SUM_COST,
        SUM_GOAL_POLY,
        SUM_LENGTH,
        SUM_SEARCH_COST,
        SUM_START_POLY,
        SUM_STATUS,
        solve_batch,
    )

    PathBatch = type(plain)  # (path.py's class: no import of path.py, which imports this)
    nm = query.navmesh
    pg = plan_graph_for(query)
    mask = agent.ability_mask()
    summary = plain._summary
    status = summary[:, SUM_STATUS].astype(np.int64)
    s_node = _attach_ends(pg, starts)
    g_node = _attach_ends(pg, goals)
    s_poly = summary[:, SUM_START_POLY].astype(np.int64)
    g_poly = summary[:, SUM_GOAL_POLY].astype(np.int64)
    # plan the queries that may climb: each end on the climb graph or on a polygon
    todo = ((s_node >= 0) | (s_poly >= 0)) & ((g_node >= 0) | (g_poly >= 0)) \
        & (status != BAD_INPUT)
    # and that the ordinary search did not answer by walking alone (found: the plan may
    # still be cheaper, so those are planned too)
    idx = np.nonzero(todo)[0]
    if idx.size == 0:
        return plain
    allowed, cost_s, link_ok, link_scale, hscale = query._filter_arrays(agent)[:5]
    hscale = min(float(hscale), 1.0)
    d = query.data
    penalty = query.climb_penalty
    if penalty is None:
        penalty = np.zeros(nm.climb_edge_kind.shape[0])
    # ends in parts of the joined graph with no path between them need no search
    key = (int(mask), allowed.tobytes(), link_ok.tobytes())
    cache = query.__dict__.setdefault("_climb_components", {})
    if key not in cache:
        cache[key] = _components(pg.position.shape[0], pg.edge_start, pg.edge_to,
                                 pg.edge_type, pg.edge_aux, pg.edge_abilities, int(mask),
                                 d.poly_stance, allowed, d.link_kind, link_ok)
    labels = cache[key]
    dead_cache = query.__dict__.setdefault("_climb_pockets", {})
    if key not in dead_cache:
        dead_cache[key] = _dead_pockets(
            pg.position, pg.node_poly, pg.poly_start, pg.poly_nodes, pg.n_port, pg.n_climb,
            pg.edge_start, pg.edge_to,
            pg.edge_type, pg.edge_aux, pg.edge_length, pg.edge_abilities, int(mask),
            d.poly_stance, allowed, cost_s, d.link_kind, link_ok, d.link_cost, link_scale,
            d.link_end_poly, d.link_start_poly, d.link_node_start, POCKET_MAX_NODES,
            POCKET_MAX_ENTRIES)
    node_pocket, node_dead = dead_cache[key]
    same = _end_labels(pg, labels, s_node[idx], s_poly[idx]) \
        == _end_labels(pg, labels, g_node[idx], g_poly[idx])
    idx = idx[same]
    if idx.size == 0:
        return plain
    # a plan must cost less than the ordinary path to replace it: the search stops there
    plain_ok = (status == FOUND) & (s_node < 0) & (g_node < 0)
    bound = np.where(plain_ok, summary[:, SUM_COST], np.inf)
    s_pos = np.ascontiguousarray(starts[idx])
    g_pos = np.ascontiguousarray(goals[idx])
    # ends on a polygon: the point placed on it (the plain batch's first / last point)
    offsets = plain._offsets
    first, after = offsets[idx, 0], offsets[idx + 1, 0]
    has = after > first
    put = has & (s_node[idx] < 0)
    s_pos[put] = plain.points[first[put]]
    put = has & (g_node[idx] < 0) & (status[idx] == FOUND)
    g_pos[put] = plain.points[after[put] - 1]
    cost, off, pnodes, pedges = _plan_batch(
        pg.position, pg.node_poly, pg.poly_start, pg.poly_nodes, pg.edge_start, pg.edge_to,
        pg.edge_type, pg.edge_aux, pg.edge_length, pg.edge_abilities, d.poly_stance,
        d.link_kind, d.link_cost, d.link_end_poly, d.link_start_poly, d.link_node_start,
        allowed, cost_s, link_ok, link_scale, hscale, int(mask),
        np.asarray(penalty, np.float64), s_node[idx], s_poly[idx], s_pos, g_node[idx],
        g_poly[idx], g_pos, np.ascontiguousarray(bound[idx]), pg.rev_start, pg.rev_edge,
        node_pocket, node_dead, _end_pockets(pg, node_pocket, s_node[idx], s_poly[idx]),
        _end_pockets(pg, node_pocket, g_node[idx], g_poly[idx]))
    climb_type = (pg.edge_type[pedges] >= _CLIMB_EDGE) if pedges.size else np.zeros(0, bool)
    on_graph = (pnodes >= pg.n_port) & (pnodes < pg.n_port + pg.n_climb)
    # a plan climbs when it uses a climb edge or link, or starts / ends on the graph
    climbs_at = ((pedges >= 0) & climb_type) | on_graph
    row_of = np.repeat(np.arange(idx.shape[0]), np.diff(off))
    climbs = np.bincount(row_of[climbs_at], minlength=idx.shape[0]) > 0
    plans = {}
    for row in np.nonzero(climbs & np.isfinite(cost))[0].tolist():
        a, b = off[row], off[row + 1]
        plans[int(idx[row])] = _sections(pg, nm, pnodes[a:b].tolist(), pedges[a:b].tolist(),
                                         s_pos[row], g_pos[row])
    if not plans:
        return plain
    # every walking section in one batch
    walk_a, walk_b, where = [], [], []
    for q, secs in plans.items():
        for i, s in enumerate(secs):
            if s.walk:
                walk_a.append(s.a)
                walk_b.append(s.b)
                where.append((q, i))
    walks = None
    if walk_a:
        wa, wb = np.array(walk_a, np.float64), np.array(walk_b, np.float64)
        arrays = query._filter_arrays(agent)
        stamp = query._next_stamps(wa.shape[0])
        walks = PathBatch(*solve_batch(d, *arrays, ext, wa, wb, query._ws, stamp))
    walk_of = {key: w for w, key in enumerate(where)}
    search_row = {int(q): r for r, q in enumerate(idx.tolist())}
    # assemble the new batch: plain rows for the others
    pieces_pts, pieces_info, pieces_cor = [], [], []
    new_summary = summary.copy()
    new_offsets = np.zeros_like(offsets)
    climb_used: dict[int, list] = {}
    npt = ncor = 0
    for q in range(summary.shape[0]):
        new_offsets[q] = (npt, ncor)
        if q not in plans:
            a, b = offsets[q, 0], offsets[q + 1, 0]
            c, e = offsets[q, 1], offsets[q + 1, 1]
            pieces_pts.append(plain.points[a:b])
            pieces_info.append(plain._point_info[a:b])
            pieces_cor.append(plain._corridor[c:e])
            npt += b - a
            ncor += e - c
            continue
        pts, info, cor, used = [], [], [], []
        total_cost = 0.0
        ok = True
        entered_by_climb = False
        for i, s in enumerate(plans[q]):
            if s.walk:
                w = walk_of[(q, i)]
                assert walks is not None  # (a walking section was solved)
                if walks._summary[w, SUM_STATUS] != FOUND:
                    ok = False
                    break
                # the section's rows of the walking batch, as they are
                (a0, c0), (b0, e0) = walks._offsets[w], walks._offsets[w + 1]
                pts.append(walks.points[a0:b0])
                info.append(walks._point_info[a0:b0])
                section_cor = walks._corridor[c0:e0].copy()
                if entered_by_climb and section_cor.shape[0]:
                    section_cor[0, 1] = -1
                cor.append(section_cor)
                total_cost += float(walks._summary[w, SUM_COST])
            else:
                if pts:  # the walk's last point (its goal) is the climb's first
                    pts[-1], info[-1] = pts[-1][:-1], info[-1][:-1]
                cp = np.array([p for p, _ in s.points], np.float64).reshape(-1, 3)
                fl = [f for _, f in s.points]
                pts.append(cp)
                info.append(np.stack([np.array(fl, np.int64),
                                      np.full(len(fl), STANCE_STAND, np.int64),
                                      np.full(len(fl), -1, np.int64)], 1))
                used += s.edges
                total_cost += s.cost
                entered_by_climb = True
        if not ok:
            a, b = offsets[q, 0], offsets[q + 1, 0]
            c, e = offsets[q, 1], offsets[q + 1, 1]
            pieces_pts.append(plain.points[a:b])
            pieces_info.append(plain._point_info[a:b])
            pieces_cor.append(plain._corridor[c:e])
            npt += b - a
            ncor += e - c
            continue
        p_all = np.concatenate(pts)
        i_all = np.concatenate(info)
        c_all = np.concatenate(cor) if cor else np.zeros((0, 2), np.int64)
        pieces_pts.append(p_all)
        pieces_info.append(i_all)
        pieces_cor.append(c_all)
        npt += p_all.shape[0]
        ncor += c_all.shape[0]
        climb_used[q] = used
        row = new_summary[q]
        row[SUM_STATUS] = FOUND
        row[SUM_LENGTH] = float(np.linalg.norm(np.diff(p_all, axis=0), axis=1).sum())
        row[SUM_COST] = total_cost
        row[SUM_SEARCH_COST] = float(cost[search_row[q]])
        if s_node[q] >= 0:
            row[SUM_START_POLY] = -1
        if g_node[q] >= 0:
            row[SUM_GOAL_POLY] = -1
    new_offsets[-1] = (npt, ncor)
    batch = PathBatch(new_summary, new_offsets,
                      np.concatenate(pieces_pts) if pieces_pts else np.zeros((0, 3)),
                      np.concatenate(pieces_info).astype(np.int64) if pieces_info
                      else np.zeros((0, 3), np.int64),
                      np.concatenate(pieces_cor).astype(np.int64) if pieces_cor
                      else np.zeros((0, 2), np.int64))
    batch.climb_edges = climb_used
    return batch


def reserve(penalty, path, amount: float) -> np.ndarray:
    """Add ``amount`` to the penalty of each climb edge ``path`` (a PathResult) uses
    (release: subtract it, or start again from zeros when the agent has passed or
    aborted). Set the result as ``NavQuery.climb_penalty``."""
    out = np.array(penalty, np.float64)
    np.add.at(out, np.asarray(path.climb_edges, np.int64), float(amount))
    return np.maximum(out, 0.0)


def check_penalty(penalty, n_edges: int) -> np.ndarray | None:
    """A climb penalty array (one value >= 0 per climb edge), or ValueError."""
    if penalty is None:
        return None
    pen = np.asarray(penalty, np.float64).reshape(-1)
    if pen.shape[0] != n_edges or not np.all(pen >= 0):
        raise ValueError(f"climb_penalty: need one non-negative value per climb edge "
                         f"({n_edges}), got {pen.shape[0]} values, smallest "
                         f"{pen.min() if pen.size else 'none'}")
    return pen


__all__ = ["CLIMB_FLAGS", "ClimbPlanGraph", "ON_CLIMB_NODE", "ability_mask",
           "build_plan_graph", "plan_graph_for", "reserve", "solve_with_climbing"]
