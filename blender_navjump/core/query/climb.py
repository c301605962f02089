"""Climbing inside the path queries (docs/climbing.md).

``NavQuery.find_paths`` (and ``find_path``, ``core.query.find_path(s)``) plan through the
climb graph when the NavMesh has one and the agent filter has climbing abilities: this
module is that planner, called from a small hook in ``path.py``.

1. **Ways through the climb graph** (:func:`climb_ways`, one numba call per filter and
   penalty setting, cached): for each *entry* (a climb link the agent can take from the
   ground up) a Dijkstra over the climb edges it may use (length plus the occupancy
   penalty) gives the cost to every *exit* (a link back to the ground) of its part of the
   graph: entry link + climb edges + exit link. A way that walking and another way beat
   (strictly) is left out (see :func:`_ways_kernel`): the answers are those of the full
   joined graph.
2. **One A\\* over the joined graph**: the ways become links of the query's port graph
   (:func:`_data_with_ways`: one link node in the entry's polygon, one in the exit's, kind
   ``WAY_LINK_KIND``, cost = the way's cost), so the ordinary batch solver (A\\*, funnel,
   jump points, stances; ``batch_kernel.solve_batch``) answers walking and climbing in
   one search and one call per batch, with the same heuristic, partial paths and
   reachability as for jump links.
3. **Points**: :func:`_expand_ways` (numba) replaces each way's jump-start / jump-end
   pair by its climbing points, flagged with their moves (``FLAG_NAMES``:
   ``hang_jump_up``, ``ladder_on``, ``shimmy``, ``ladder_climb``, ``mount``, ...).

A start or goal within ``ON_CLIMB_NODE`` of a climb node is on the climb graph (an agent
hanging mid-climb): the path starts or ends at that node (:func:`_graph_ends`).

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
    FLAG_JUMP_START,
    FLAG_NAMES,
    FLAG_WALK,
    LINK_KINDS,
    STANCE_STAND,
)
from .astar import Reach, heap_pop, heap_push, reach_components, usable_ports
from .batch_kernel import (
    FOUND,
    NO_BOUNDS,
    NO_LANDMARKS,
    PARTIAL,
    SUM_COST,
    SUM_GOAL_POLY,
    SUM_LENGTH,
    SUM_SEARCH_COST,
    SUM_START_POLY,
    SUM_STATUS,
    Landmarks,
    make_workspace,
    solve_batch,
)
from .graph import QueryData, _clamp_nodes_to_polygons
from .spatial import _cell_range, build_grid

# A start or goal within this distance (metres) of a climb node starts or ends on it
# (an agent already hanging mid-climb).
ON_CLIMB_NODE = 0.3

# The link kind of a way through the climb graph in the query's data (after the
# navmesh's own LINK_KINDS): always allowed, cost scale 1.
WAY_LINK_KIND = len(LINK_KINDS)

# At most this many filter / penalty settings keep their ways per NavQuery.
_WAY_CACHE_SIZE = 8

# Landmarks of the search over the ways (ALT lower bounds, :func:`landmarks`), per filter
# and penalty setting.
LANDMARK_COUNT = 8


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


class ClimbArrays(NamedTuple):
    """A NavMesh's climb graph as the kernels read it (independent of the agent).

    Arcs are the climb edges in their usable directions (each edge forward, and backward
    when bidirectional): ``out_*`` CSR by source node, ``in_*`` CSR by target node."""

    node_pos: np.ndarray  # (M, 3)
    out_start: np.ndarray  # (M+1,)
    out_to: np.ndarray  # target node of each arc
    out_edge: np.ndarray  # its climb edge
    in_start: np.ndarray  # (M+1,)
    in_from: np.ndarray  # source node of each arc
    in_edge: np.ndarray
    edge_nodes: np.ndarray  # (K, 2)
    edge_length: np.ndarray  # (K,)
    edge_abilities: np.ndarray  # (K,) int64 bit mask
    edge_flag: np.ndarray  # (K,) the flag of a point where the edge starts
    link_node: np.ndarray  # (C,)
    link_bidir: np.ndarray  # (C,) bool
    link_length: np.ndarray
    link_poly: np.ndarray
    link_point: np.ndarray  # (C, 3)
    link_abilities: np.ndarray  # (C,) int64
    link_on_flag: np.ndarray  # (C,) flag of the ground point when getting on by it
    link_off_flag: np.ndarray  # (C,) flag of the node when getting off by it
    grid: tuple  # query/spatial.py's grid of the nodes (origin, cell, nx, ny, start, items)


def _csr(key, n):
    order = np.argsort(key, kind="stable")
    start = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(key, minlength=n), out=start[1:])
    return start, order


def build_climb_arrays(nm) -> ClimbArrays:
    """The :class:`ClimbArrays` of a NavMesh with a climb graph."""
    from ..climb import link_ability_masks

    pos = np.ascontiguousarray(nm.climb_node_position, np.float64).reshape(-1, 3)
    m = pos.shape[0]
    en = np.asarray(nm.climb_edge_nodes, np.int64).reshape(-1, 2)
    ids = np.arange(en.shape[0])
    both = ids[np.asarray(nm.climb_edge_bidirectional, np.bool_)]
    frm = np.concatenate([en[:, 0], en[both, 1]])
    to = np.concatenate([en[:, 1], en[both, 0]])
    edge = np.concatenate([ids, both])
    out_start, o = _csr(frm, m)
    in_start, i = _csr(to, m)
    kind = np.asarray(nm.climb_edge_kind, np.int64)
    table = np.array([0] + [_EDGE_FLAG[k] for k in range(1, len(CLIMB_EDGE_KINDS))], np.int64)
    flag = table[kind]
    along = np.nonzero(kind == 0)[0]
    ek = np.asarray(nm.climb_element_kind, np.int64)[np.asarray(nm.climb_edge_element,
                                                                 np.int64)[along]]
    flag[along] = np.where(ek == CLIMB_LEDGE, _ALONG_FLAG[CLIMB_LEDGE],
                           np.where(ek == CLIMB_LADDER, _ALONG_FLAG[CLIMB_LADDER], _PIPE_FLAG))
    lk = np.asarray(nm.climb_link_kind, np.int64)
    on = np.array([_ON_FLAG[k] for k in range(len(_ON_FLAG))], np.int64)
    off = np.array([_OFF_FLAG[k] for k in range(len(_OFF_FLAG))], np.int64)
    return ClimbArrays(
        pos, out_start, np.ascontiguousarray(to[o]), np.ascontiguousarray(edge[o]),
        in_start, np.ascontiguousarray(frm[i]), np.ascontiguousarray(edge[i]), en,
        np.asarray(nm.climb_edge_length, np.float64),
        np.asarray(nm.climb_edge_abilities, np.int64), flag,
        np.asarray(nm.climb_link_node, np.int64),
        np.asarray(nm.climb_link_bidirectional, np.bool_),
        np.asarray(nm.climb_link_length, np.float64), np.asarray(nm.climb_link_poly, np.int64),
        np.ascontiguousarray(nm.climb_link_point, np.float64).reshape(-1, 3),
        link_ability_masks(nm).astype(np.int64), on[lk], off[lk], build_grid(pos, pos))


def climb_arrays_for(query) -> ClimbArrays:
    """The query's :class:`ClimbArrays`, built once per NavQuery."""
    ca = query.__dict__.get("_climb_arrays")
    if ca is None:
        ca = query.__dict__["_climb_arrays"] = build_climb_arrays(query.navmesh)
    return ca


# ------------------------------------------------------------------ climb graph searches
@njit(cache=True)
def _d3(a, b):
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


@njit(cache=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True)
def _climb_dijkstra(src, arc_start, arc_node, arc_edge, edge_length, edge_abilities, penalty,
                    mask, dist, pnode, pedge, seen, run, hk, hv):
    """Dijkstra over the climb arcs an agent may use (``mask``) from node ``src``: costs
    length + penalty. Fills ``dist``, ``pnode`` (the node before, -1 at src) and ``pedge``
    (the climb edge from it) where ``seen == run``."""
    seen[src] = run
    dist[src] = 0.0
    pnode[src] = -1
    pedge[src] = -1
    size = heap_push(hk, hv, 0, 0.0, src)
    while size > 0:
        d, n, size = heap_pop(hk, hv, size)
        if d > dist[n]:
            continue
        for a in range(arc_start[n], arc_start[n + 1]):
            k = arc_edge[a]
            if edge_abilities[k] & ~mask:
                continue
            m = arc_node[a]
            c = d + edge_length[k] + penalty[k]
            if seen[m] != run or c < dist[m]:
                seen[m] = run
                dist[m] = c
                pnode[m] = n
                pedge[m] = k
                size = heap_push(hk, hv, size, c, m)


@njit(cache=True)
def _dijkstra_workspace(n_node, n_arc):
    """Arrays for :func:`_climb_dijkstra` over ``n_node`` nodes and ``n_arc`` arcs: dist,
    pnode, pedge, seen (-1: no run yet), and the heap's keys and values."""
    cap = n_arc + n_node + 16
    return (np.zeros(n_node), np.zeros(n_node, np.int64), np.zeros(n_node, np.int64),
            np.full(n_node, -1, np.int64), np.zeros(cap), np.zeros(cap, np.int64))


@njit(cache=True)
def _usable_links(link_node, link_bidir, link_poly, link_abilities, mask, poly_stance,
                  stance_allowed):
    """(exit, entry) per climb link: node -> ground usable by the agent (abilities, and
    the ground polygon's stance), and ground -> node too."""
    n = link_node.shape[0]
    ex = np.zeros(n, np.bool_)
    en = np.zeros(n, np.bool_)
    for c in range(n):
        p = link_poly[c]
        if link_abilities[c] & ~mask or p < 0 or not stance_allowed[poly_stance[p]]:
            continue
        ex[c] = True
        en[c] = link_bidir[c]
    return ex, en


# A walk shorter than this (metres x cost) between two ground points counts as none.
_SAME_POINT = 1e-9


@njit(cache=True)
def _beaten(other, cost, walk, first):
    """True when a way of ``cost`` can be left out for walking (``walk``) plus another way,
    ``other`` in all: cheaper, or as cheap with a real walk (then the other way itself
    costs strictly less), or as cheap from the same point and ``first`` in order."""
    if other < cost:
        return True
    return other == cost and (walk > _SAME_POINT or first)


@njit(cache=True)
def _ways_kernel(n_node, out_start, out_to, out_edge, edge_nodes, edge_length, edge_abilities,
                 penalty, mask, link_node, link_bidir, link_length, link_poly, link_point,
                 link_abilities, poly_stance, stance_allowed, stance_cost):
    """The ways through the climb graph for one agent: (entry link, exit link, cost) rows,
    grouped by entry.

    For each part of the climb graph (connected by the edges the agent may use) and each
    entry e and exit x of it: cost T(e, x) = e's length + the cheapest climb from e's node
    to x's node (lengths + penalties) + x's length. A row is left out when walking and
    other rows do strictly better (so the A* over the ways equals the A* over the whole
    joined graph): e and x on one polygon and walking straight across costs no more; or
    another entry f on e's polygon with walk(e, f) + T(f, x) <= T(e, x); or another exit
    y on x's polygon with T(e, y) + walk(y, x) <= T(e, x) (:func:`_beaten`: a left-out
    row's replacement row costs strictly less, or as much and comes first, so a chain of
    replacements ends at a kept row)."""
    parent = np.arange(n_node)
    for k in range(edge_nodes.shape[0]):
        if edge_abilities[k] & ~mask:
            continue
        x = _find(parent, edge_nodes[k, 0])
        y = _find(parent, edge_nodes[k, 1])
        if x != y:
            parent[max(x, y)] = min(x, y)
    ex, en = _usable_links(link_node, link_bidir, link_poly, link_abilities, mask,
                           poly_stance, stance_allowed)
    n_link = link_node.shape[0]
    ent_start = np.zeros(n_node + 1, np.int64)
    exi_start = np.zeros(n_node + 1, np.int64)
    for c in range(n_link):
        r = _find(parent, link_node[c])
        if en[c]:
            ent_start[r + 1] += 1
        if ex[c]:
            exi_start[r + 1] += 1
    ent_start = np.cumsum(ent_start)
    exi_start = np.cumsum(exi_start)
    ents = np.zeros(ent_start[-1], np.int64)
    exis = np.zeros(exi_start[-1], np.int64)
    fe = ent_start[:-1].copy()
    fx = exi_start[:-1].copy()
    for c in range(n_link):
        r = _find(parent, link_node[c])
        if en[c]:
            ents[fe[r]] = c
            fe[r] += 1
        if ex[c]:
            exis[fx[r]] = c
            fx[r] += 1
    dist, pnode, pedge, seen, hk, hv = _dijkstra_workspace(n_node, out_to.shape[0])
    cap_w = 64
    way_e = np.zeros(cap_w, np.int64)
    way_x = np.zeros(cap_w, np.int64)
    way_c = np.zeros(cap_w)
    nw = 0
    run = 0
    for r in range(n_node):
        e0 = ent_start[r]
        ne = ent_start[r + 1] - e0
        x0 = exi_start[r]
        nx = exi_start[r + 1] - x0
        if ne == 0 or nx == 0:
            continue
        t = np.full((ne, nx), np.inf)
        for i in range(ne):
            e = ents[e0 + i]
            _climb_dijkstra(link_node[e], out_start, out_to, out_edge, edge_length,
                            edge_abilities, penalty, mask, dist, pnode, pedge, seen, run, hk,
                            hv)
            for j in range(nx):
                x = exis[x0 + j]
                n = link_node[x]
                if seen[n] == run:
                    t[i, j] = link_length[e] + dist[n] + link_length[x]
            run += 1
        for i in range(ne):
            e = ents[e0 + i]
            pe = link_poly[e]
            we = stance_cost[poly_stance[pe]]
            for j in range(nx):
                tij = t[i, j]
                if tij == np.inf:
                    continue
                x = exis[x0 + j]
                px = link_poly[x]
                wx = stance_cost[poly_stance[px]]
                keep = not (pe == px and we * _d3(link_point[e], link_point[x]) <= tij)
                if keep:
                    for i2 in range(ne):
                        f = ents[e0 + i2]
                        if i2 == i or link_poly[f] != pe:
                            continue
                        walk = we * _d3(link_point[e], link_point[f])
                        if _beaten(walk + t[i2, j], tij, walk, i2 < i):
                            keep = False
                            break
                if keep:
                    for j2 in range(nx):
                        y = exis[x0 + j2]
                        if j2 == j or link_poly[y] != px:
                            continue
                        walk = wx * _d3(link_point[y], link_point[x])
                        if _beaten(t[i, j2] + walk, tij, walk, j2 < j):
                            keep = False
                            break
                if not keep:
                    continue
                if nw == cap_w:
                    cap_w *= 2
                    way_e = _grow1(way_e, cap_w)
                    way_x = _grow1(way_x, cap_w)
                    way_c = _grow1(way_c, cap_w)
                way_e[nw] = e
                way_x[nw] = x
                way_c[nw] = tij
                nw += 1
    return way_e[:nw].copy(), way_x[:nw].copy(), way_c[:nw].copy()


@njit(cache=True)
def _grow1(arr, n):
    out = np.zeros(n, arr.dtype)
    out[:arr.shape[0]] = arr
    return out


@njit(cache=True)
def _way_points(way_e, way_x, node_pos, out_start, out_to, out_edge, edge_length,
                edge_abilities, edge_flag, penalty, mask, link_node, link_point, link_on_flag,
                link_off_flag):
    """The climbing points of each way (rows grouped by entry): the entry's ground point
    (its getting-on flag), each climb node on the way (the flag of the move starting
    there), the last with the exit's getting-off flag. Returns (point offsets (W+1,),
    points, flags, climb-edge offsets (W+1,), climb edges, lengths (W,))."""
    nw = way_e.shape[0]
    n_node = node_pos.shape[0]
    dist, pnode, pedge, seen, hk, hv = _dijkstra_workspace(n_node, out_to.shape[0])
    pt_start = np.zeros(nw + 1, np.int64)
    ed_start = np.zeros(nw + 1, np.int64)
    length = np.zeros(nw)
    cap_p = max(16, 4 * nw)
    pts = np.zeros((cap_p, 3))
    flags = np.zeros(cap_p, np.int64)
    cap_e = max(16, 2 * nw)
    edges = np.zeros(cap_e, np.int64)
    chain = np.zeros(n_node + 1, np.int64)
    np_ = 0
    ne = 0
    run = -1
    for w in range(nw):
        e = way_e[w]
        x = way_x[w]
        if w == 0 or e != way_e[w - 1]:
            run += 1
            _climb_dijkstra(link_node[e], out_start, out_to, out_edge, edge_length,
                            edge_abilities, penalty, mask, dist, pnode, pedge, seen, run, hk,
                            hv)
        # the nodes from x's back to e's
        k = 0
        n = link_node[x]
        while n >= 0:
            chain[k] = n
            k += 1
            n = pnode[n]
        if np_ + k + 1 > cap_p:
            cap_p = 2 * (np_ + k + 1)
            grown = np.zeros((cap_p, 3))
            grown[:np_] = pts[:np_]
            pts = grown
            flags = _grow1(flags, cap_p)
        if ne + k > cap_e:
            cap_e = 2 * (ne + k)
            edges = _grow1(edges, cap_e)
        pts[np_] = link_point[e]
        flags[np_] = link_on_flag[e]
        np_ += 1
        for i in range(k - 1, -1, -1):
            n = chain[i]
            pts[np_] = node_pos[n]
            if i == 0:
                flags[np_] = link_off_flag[x]
            else:
                kk = pedge[chain[i - 1]]
                flags[np_] = edge_flag[kk]
                edges[ne] = kk
                ne += 1
            np_ += 1
        s = 0.0
        for i in range(pt_start[w], np_ - 1):
            s += _d3(pts[i], pts[i + 1])
        s += _d3(pts[np_ - 1], link_point[x])
        length[w] = s
        pt_start[w + 1] = np_
        ed_start[w + 1] = ne
    return pt_start, pts[:np_].copy(), flags[:np_].copy(), ed_start, edges[:ne].copy(), length


class ClimbWays(NamedTuple):
    """The ways through the climb graph for one agent and penalty (:func:`climb_ways`)."""

    entry: np.ndarray  # (W,) climb link the way gets on by
    exit: np.ndarray  # (W,) climb link it gets off by
    cost: np.ndarray  # (W,) its search cost (lengths + penalties)
    length: np.ndarray  # (W,) its length (entry ground point to exit ground point)
    point_start: np.ndarray  # (W+1,) CSR of ...
    points: np.ndarray  # ... its points: entry ground point, climb nodes (not the exit's)
    flags: np.ndarray  # ... and their flags
    edge_start: np.ndarray  # (W+1,) CSR of ...
    edges: np.ndarray  # ... the climb edges it uses, in order


def climb_ways(ca: ClimbArrays, poly_stance, stance_allowed, stance_cost, mask: int,
               penalty) -> ClimbWays:
    """The ways through the climb graph (:func:`_ways_kernel`) with their points."""
    e, x, c = _ways_kernel(
        ca.node_pos.shape[0], ca.out_start, ca.out_to, ca.out_edge, ca.edge_nodes,
        ca.edge_length, ca.edge_abilities, penalty, mask, ca.link_node, ca.link_bidir,
        ca.link_length, ca.link_poly, ca.link_point, ca.link_abilities, poly_stance,
        stance_allowed, stance_cost)
    ps, pts, fl, es, ed, length = _way_points(
        e, x, ca.node_pos, ca.out_start, ca.out_to, ca.out_edge, ca.edge_length,
        ca.edge_abilities, ca.edge_flag, penalty, mask, ca.link_node, ca.link_point,
        ca.link_on_flag, ca.link_off_flag)
    return ClimbWays(e, x, c, length, ps, pts, fl, es, ed)


def _data_with_ways(d: QueryData, ca: ClimbArrays, ways: ClimbWays) -> QueryData:
    """The query data with each way as a one-way link of kind ``WAY_LINK_KIND`` from its
    entry's ground point to its exit's (link nodes after the port graph's, links after
    the navmesh's)."""
    nw = ways.entry.shape[0]
    n_node = d.node_pos.shape[0]
    n_link = d.link_kind.shape[0]
    a = ca.link_point[ways.entry]
    b = ca.link_point[ways.exit]
    pa = ca.link_poly[ways.entry]
    pb = ca.link_poly[ways.exit]
    first = n_node + 2 * np.arange(nw)
    both = np.stack([a, b], 1).reshape(-1, 3)
    polys = np.stack([pa, pb], 1).reshape(-1)
    node_hop = np.full(2 * nw, -1, np.int64)
    node_hop[0::2] = first + 1
    node_hop_poly = np.full(2 * nw, -1, np.int64)
    node_hop_poly[0::2] = pb
    n_poly = d.polygons.shape[0]
    owner = np.concatenate([np.repeat(np.arange(n_poly), np.diff(d.port_start)), polys])
    ports = np.concatenate([d.ports, n_node + np.arange(2 * nw)])
    other = np.concatenate([d.port_other, np.full(2 * nw, -1, np.int64)])
    port_start, order = _csr(owner, n_poly)
    k = np.diff(port_start)
    n_all = n_node + 2 * nw
    data = d._replace(
        node_pos=np.concatenate([d.node_pos, both]),
        node_poly=np.concatenate([d.node_poly, np.stack([polys, np.full_like(polys, -1)], 1)]),
        node_link=np.concatenate([d.node_link, np.repeat(n_link + np.arange(nw), 2)]),
        node_side=np.concatenate([d.node_side, np.tile(np.array([0, 1], np.int64), nw)]),
        node_va=np.concatenate([d.node_va, both]), node_vb=np.concatenate([d.node_vb, both]),
        node_hop=np.concatenate([d.node_hop, node_hop]),
        node_hop_poly=np.concatenate([d.node_hop_poly, node_hop_poly]),
        port_start=port_start, ports=np.ascontiguousarray(ports[order]),
        port_other=np.ascontiguousarray(other[order]),
        link_kind=np.concatenate([d.link_kind, np.full(nw, WAY_LINK_KIND, np.int64)]),
        link_bidir=np.concatenate([d.link_bidir, np.zeros(nw, np.int64)]),
        link_cost=np.concatenate([d.link_cost, ways.cost]),
        link_start=np.concatenate([d.link_start, np.stack([a, a], 1)]),
        link_end=np.concatenate([d.link_end, np.stack([b, b], 1)]),
        link_start_poly=np.concatenate([d.link_start_poly, pa]),
        link_end_poly=np.concatenate([d.link_end_poly, pb]),
        link_node_start=np.concatenate([d.link_node_start, first]),
        link_node_end=np.concatenate([d.link_node_end, first + 1]),
        heap_capacity=int((k * k).sum() + 2 * n_all + (k.max() if n_poly else 0) + 16))
    _clamp_nodes_to_polygons(data, n_node)
    return data


@njit(cache=True)
def _landmark_dijkstra(src, reverse, node_pos, node_poly, node_link, node_side, node_hop,
                       node_hop_poly, poly_stance, port_start, ports, link_kind, link_cost,
                       link_node_start, link_node_end, stance_allowed, stance_cost,
                       link_allowed, link_scale, dist, via, done, hk, hv):
    """Least costs from node ``src`` to every node (``reverse``: from every node to
    ``src``) over the edges the A* (query/astar.py) may take for a filter, at its costs:
    walking between two ports of a usable polygon (stance cost x distance) and a usable
    link node's hop (max(link cost x scale, distance)). Fills ``dist`` (inf: none). A node
    reached by walking through polygon p does not look at p again (every port of p is at
    least as cheap straight from its predecessor)."""
    for n in range(dist.shape[0]):
        dist[n] = np.inf
        done[n] = False
    dist[src] = 0.0
    via[src] = -1
    size = heap_push(hk, hv, 0, 0.0, src)
    while size > 0:
        d, u, size = heap_pop(hk, hv, size)
        if done[u]:
            continue
        done[u] = True
        ux = node_pos[u, 0]
        uy = node_pos[u, 1]
        uz = node_pos[u, 2]
        for side in range(2):
            p = node_poly[u, side]
            if p < 0 or p == via[u] or not stance_allowed[poly_stance[p]]:
                continue
            mult = stance_cost[poly_stance[p]]
            for k in range(port_start[p], port_start[p + 1]):
                m = ports[k]
                if m == u or done[m]:
                    continue
                c = d + mult * math.sqrt((node_pos[m, 0] - ux) ** 2 + (node_pos[m, 1] - uy) ** 2
                                         + (node_pos[m, 2] - uz) ** 2)
                if c < dist[m]:
                    dist[m] = c
                    via[m] = p
                    size = heap_push(hk, hv, size, c, m)
        link = node_link[u]
        if link < 0 or not link_allowed[link_kind[link]]:
            continue
        if reverse:  # the link's other node, when it hops to u
            t = link_node_end[link] if node_side[u] == 0 else link_node_start[link]
            if node_hop[t] != u or not stance_allowed[poly_stance[node_hop_poly[t]]]:
                continue
        else:
            t = node_hop[u]
            if t < 0 or not stance_allowed[poly_stance[node_hop_poly[u]]]:
                continue
        if done[t]:
            continue
        c = d + max(link_cost[link] * link_scale[link_kind[link]], math.sqrt(
            (node_pos[t, 0] - ux) ** 2 + (node_pos[t, 1] - uy) ** 2 + (node_pos[t, 2] - uz) ** 2))
        if c < dist[t]:
            dist[t] = c
            via[t] = -1
            size = heap_push(hk, hv, size, c, t)


@njit(cache=True)
def _landmark_tables(count, heap_capacity, node_pos, node_poly, node_link, node_side,
                     node_hop, node_hop_poly, poly_stance, port_start, ports, link_kind,
                     link_cost, link_node_start, link_node_end, stance_allowed, stance_cost,
                     link_allowed, link_scale):
    """(dist_from, dist_to) (N, K) of up to ``count`` landmarks, chosen farthest first:
    the first is the usable node farthest from their centroid, each next the node with
    the largest least round trip (to + from) to those chosen, among the nodes they reach
    both ways (the others have no finite bound to gain)."""
    n = node_pos.shape[0]
    usable = np.zeros(n, np.bool_)
    cx = 0.0
    cy = 0.0
    cz = 0.0
    n_use = 0
    for m in range(n):
        for side in range(2):
            p = node_poly[m, side]
            if p >= 0 and stance_allowed[poly_stance[p]]:
                usable[m] = True
        if usable[m]:
            cx += node_pos[m, 0]
            cy += node_pos[m, 1]
            cz += node_pos[m, 2]
            n_use += 1
    k_max = min(count, n_use)
    dist_from = np.full((n, k_max), np.inf)
    dist_to = np.full((n, k_max), np.inf)
    if k_max == 0:
        return dist_from, dist_to
    cx /= n_use
    cy /= n_use
    cz /= n_use
    src = -1
    best = -1.0
    for m in range(n):
        if usable[m]:
            dd = (node_pos[m, 0] - cx) ** 2 + (node_pos[m, 1] - cy) ** 2 \
                + (node_pos[m, 2] - cz) ** 2
            if dd > best:
                best = dd
                src = m
    dist = np.empty(n)
    via = np.empty(n, np.int64)
    done = np.empty(n, np.bool_)
    hk = np.empty(heap_capacity)
    hv = np.empty(heap_capacity, np.int64)
    trip = np.full(n, np.inf)
    k = 0
    while k < k_max and src >= 0:
        for reverse in range(2):
            _landmark_dijkstra(src, reverse == 1, node_pos, node_poly, node_link, node_side,
                               node_hop, node_hop_poly, poly_stance, port_start, ports,
                               link_kind, link_cost, link_node_start, link_node_end,
                               stance_allowed, stance_cost, link_allowed, link_scale, dist, via,
                               done, hk, hv)
            out = dist_to if reverse else dist_from
            for m in range(n):
                out[m, k] = dist[m]
        for m in range(n):
            t = dist_from[m, k] + dist_to[m, k]
            if t < trip[m]:
                trip[m] = t
        trip[src] = 0.0
        k += 1
        src = -1
        best = 0.0
        for m in range(n):
            if usable[m] and trip[m] < np.inf and trip[m] > best:
                best = trip[m]
                src = m
    return dist_from[:, :k].copy(), dist_to[:, :k].copy()


def landmarks(data: QueryData, allowed, cost, link_ok, link_scale,
              count: int = LANDMARK_COUNT) -> Landmarks:
    """Landmark tables of the search graph ``data`` for one filter (``batch_kernel
    .Landmarks``): the A* over the ways gets their lower bound besides the straight line,
    so a search whose goal lies past a climb (a tower's top) no longer floods every climb
    that fits in the straight line's slack. Exact: the bound never exceeds the true cost
    (tested against a brute-force Dijkstra)."""
    d = data
    lf, lt = _landmark_tables(
        count, d.heap_capacity, d.node_pos, d.node_poly, d.node_link, d.node_side, d.node_hop,
        d.node_hop_poly, d.poly_stance, d.port_start, d.ports, d.link_kind, d.link_cost,
        d.link_node_start, d.link_node_end, allowed, cost, link_ok,
        np.asarray(link_scale, np.float64))
    k = lf.shape[1]
    if k == 0:
        return NO_LANDMARKS
    return Landmarks(lf, lt, np.zeros(k), np.zeros(k))


class _ClimbSolver(NamedTuple):
    """What one agent filter and penalty setting needs to answer climbing queries."""

    ways: ClimbWays
    data: QueryData
    workspace: tuple
    arrays: tuple  # solve_batch's filter arguments: allowed .. reach
    landmarks: Landmarks  # solve_batch's landmarks for this data and filter
    mask: int
    penalty: np.ndarray


def climb_solver(query, agent) -> _ClimbSolver:
    """The query's :class:`_ClimbSolver` for an agent (cached per filter and penalty)."""
    allowed, cost, link_ok, link_scale, hscale = query._filter_arrays(agent)[:5]
    nm = query.navmesh
    penalty = query.climb_penalty
    if penalty is None:
        penalty = np.zeros(nm.climb_edge_kind.shape[0])
    mask = int(agent.ability_mask())
    key = (mask, allowed.tobytes(), cost.tobytes(), link_ok.tobytes(), link_scale.tobytes(),
           float(hscale), penalty.tobytes())
    cache = query.__dict__.setdefault("_climb_solvers", {})
    solver = cache.get(key)
    if solver is None:
        ca = climb_arrays_for(query)
        d = query.data
        ways = climb_ways(ca, d.poly_stance, allowed, cost, mask, penalty)
        data = _data_with_ways(d, ca, ways)
        link_ok = np.append(link_ok, True)
        link_scale = np.append(np.asarray(link_scale, np.float64), 1.0)
        port_ok = usable_ports(data, allowed, link_ok)
        # a way costs at least its straight length: the heuristic scale is at most 1
        hscale = min(float(hscale), 1.0)
        reach = Reach(*reach_components(data.port_start, data.ports, data.port_other,
                                        data.node_hop_poly, data.poly_stance, data.poly_bmin,
                                        data.poly_bmax, allowed, port_ok))
        arrays = (allowed, cost, link_ok, link_scale, hscale, port_ok, reach)
        if len(cache) >= _WAY_CACHE_SIZE:
            cache.clear()
        lm = landmarks(data, allowed, cost, link_ok, link_scale)
        solver = cache[key] = _ClimbSolver(ways, data, make_workspace(data), arrays, lm, mask,
                                           penalty)
    return solver


@njit(cache=True)
def _climbs(point_info, a, b, n_real):
    """True when points a..b-1 take a way (a jump start on a link after the n_real)."""
    for i in range(a, b):
        if point_info[i, 2] >= n_real and point_info[i, 0] == FLAG_JUMP_START:
            return True
    return False


@njit(cache=True)
def _expand_ways(summary, offsets, points, point_info, corridor, p_summary, p_offsets,
                 p_points, p_info, p_corridor, n_real, way_cost, way_len, pt_start, way_pts,
                 way_flags, ed_start, way_edges):
    """The answers: per query, a solve_batch answer over the data with ways (the first
    five arrays) when it is found and takes a way, else the other answer (``p_*``: the
    ordinary one). In the first, each way's jump-start / jump-end pair of points becomes
    its climbing points (stance stand, no link) and the exit's ground point (walking on
    from there); its cost is without penalties, its length over the new points, and a
    corridor entry entered by a way has link -1. Returns the five arrays, which queries
    climb (Q,) and the climb edges of each query (CSR: offsets (Q+1,), edges)."""
    nq = summary.shape[0]
    use = np.zeros(nq, np.bool_)
    n_pts = 0
    n_cor = 0
    n_ce = 0
    for q in range(nq):
        a = offsets[q, 0]
        b = offsets[q + 1, 0]
        use[q] = summary[q, SUM_STATUS] == FOUND and _climbs(point_info, a, b, n_real)
        if not use[q]:
            n_pts += p_offsets[q + 1, 0] - p_offsets[q, 0]
            n_cor += p_offsets[q + 1, 1] - p_offsets[q, 1]
            continue
        n_pts += b - a
        n_cor += offsets[q + 1, 1] - offsets[q, 1]
        for i in range(a, b):
            w = point_info[i, 2] - n_real
            if w >= 0 and point_info[i, 0] == FLAG_JUMP_START:
                n_pts += pt_start[w + 1] - pt_start[w] - 1
                n_ce += ed_start[w + 1] - ed_start[w]
    out_sum = p_summary.copy()
    out_off = np.zeros((nq + 1, 2), np.int64)
    out_pts = np.empty((n_pts, 3))
    out_info = np.empty((n_pts, 3), np.int64)
    out_cor = np.empty((n_cor, 2), np.int64)
    ce_off = np.zeros(nq + 1, np.int64)
    ce = np.empty(n_ce, np.int64)
    j = 0
    k2 = 0
    c = 0
    for q in range(nq):
        out_off[q, 0] = j
        out_off[q, 1] = k2
        ce_off[q] = c
        if not use[q]:
            for i in range(p_offsets[q, 0], p_offsets[q + 1, 0]):
                out_pts[j] = p_points[i]
                out_info[j] = p_info[i]
                j += 1
            for i in range(p_offsets[q, 1], p_offsets[q + 1, 1]):
                out_cor[k2] = p_corridor[i]
                k2 += 1
            continue
        out_sum[q] = summary[q]
        for i in range(offsets[q, 1], offsets[q + 1, 1]):
            out_cor[k2, 0] = corridor[i, 0]
            out_cor[k2, 1] = corridor[i, 1] if corridor[i, 1] < n_real else -1
            k2 += 1
        first = j
        cost = summary[q, SUM_COST]
        after = False
        for i in range(offsets[q, 0], offsets[q + 1, 0]):
            w = point_info[i, 2] - n_real
            if w >= 0 and point_info[i, 0] == FLAG_JUMP_START:
                cost += way_len[w] - max(way_cost[w], _d3(points[i], points[i + 1]))
                for k in range(pt_start[w], pt_start[w + 1]):
                    out_pts[j] = way_pts[k]
                    out_info[j, 0] = way_flags[k]
                    out_info[j, 1] = STANCE_STAND
                    out_info[j, 2] = -1
                    j += 1
                for k in range(ed_start[w], ed_start[w + 1]):
                    ce[c] = way_edges[k]
                    c += 1
                after = True
                continue
            out_pts[j] = points[i]
            out_info[j] = point_info[i]
            if after:  # the exit's ground point: walking on from there
                out_info[j, 0] = FLAG_WALK
                out_info[j, 2] = -1
                after = False
            j += 1
        length = 0.0
        for i in range(first, j - 1):
            length += _d3(out_pts[i], out_pts[i + 1])
        out_sum[q, SUM_LENGTH] = length
        out_sum[q, SUM_COST] = cost
    out_off[nq, 0] = j
    out_off[nq, 1] = k2
    ce_off[nq] = c
    return out_sum, out_off, out_pts, out_info, out_cor, use, ce_off, ce


@njit(cache=True)
def _unreachable(rows, start_poly, goal_poly, poly_comp, dag_start, dag_to):
    """Per query: True when ``rows[q]`` and goal_poly[q] cannot be reached from
    start_poly[q] in the reachability (astar.Reach) of a filter's graph."""
    n_comp = dag_start.shape[0] - 1
    seen = np.full(n_comp, -1, np.int64)
    stack = np.zeros(n_comp + 1, np.int64)
    out = np.zeros(rows.shape[0], np.bool_)
    for q in range(rows.shape[0]):
        if not rows[q] or start_poly[q] < 0 or goal_poly[q] < 0:
            continue
        cs = poly_comp[start_poly[q]]
        cg = poly_comp[goal_poly[q]]
        if cs < 0 or cg < 0:
            continue
        found = cs == cg
        seen[cs] = q
        stack[0] = cs
        top = 1
        while top > 0 and not found:
            top -= 1
            c = stack[top]
            for e in range(dag_start[c], dag_start[c + 1]):
                t = dag_to[e]
                if t == cg:
                    found = True
                    break
                if seen[t] != q:
                    seen[t] = q
                    stack[top] = t
                    top += 1
        out[q] = not found
    return out


def _solve_rows(query, solver: _ClimbSolver, starts, goals, ext, batch_type, plain=None):
    """Answers over the data with ways (solve_batch), the ways expanded: a PathBatch.
    ``plain``: solve_batch's ordinary answers to the same rows: a row keeps it unless a
    path that climbs costs less than its found path (the search stops there)."""
    stamp = query._next_stamps(starts.shape[0])
    if plain is None:
        bounds = NO_BOUNDS
    else:
        summary = plain[0]
        bounds = np.where(summary[:, SUM_STATUS] == FOUND, summary[:, SUM_COST], np.inf)
        # a query whose goal climbing cannot reach either would get a partial answer that
        # is thrown away (the ordinary one is kept): no search (bound 0)
        reach = solver.arrays[6]
        bounds[_unreachable(summary[:, SUM_STATUS] == PARTIAL,
                            summary[:, SUM_START_POLY].astype(np.int64),
                            summary[:, SUM_GOAL_POLY].astype(np.int64), reach.poly_comp,
                            reach.dag_start, reach.dag_to)] = 0.0
    raw = solve_batch(solver.data, *solver.arrays, ext, starts, goals, solver.workspace, stamp,
                      bounds, solver.landmarks)
    w = solver.ways
    s, o, p, i, c, climbs, ce_off, ce = _expand_ways(
        *raw, *(raw if plain is None else plain), int(query.data.link_kind.shape[0]), w.cost,
        w.length, w.point_start, w.points, w.flags, w.edge_start, w.edges)
    batch = batch_type(s, o, p, i, c)
    rows = np.nonzero(climbs)[0]
    batch.climb_edges = {int(q): ce[ce_off[q]:ce_off[q + 1]].tolist() for q in rows}
    return batch


def solve_climbing(query, starts, goals, agent, ext, batch_type):
    """The hook of ``NavQuery.find_paths`` for an agent with climbing abilities on a
    navmesh with a climb graph: every query answered over the joined graph (module doc);
    returns a ``batch_type`` (path.py's PathBatch)."""
    solver = climb_solver(query, agent)
    stamp = query._next_stamps(starts.shape[0])
    plain = solve_batch(query.data, *query._filter_arrays(agent), ext, starts, goals, query._ws,
                        stamp, NO_BOUNDS, NO_LANDMARKS)
    batch = _solve_rows(query, solver, starts, goals, ext, batch_type, plain)
    ca = climb_arrays_for(query)
    s_node = _attach_ends(ca, starts)
    g_node = _attach_ends(ca, goals)
    on = np.nonzero((s_node >= 0) | (g_node >= 0))[0]
    if on.size:
        batch = _graph_ends(query, solver, ca, starts, goals, s_node, g_node, on, ext,
                            batch_type, batch)
    return batch


# ------------------------------------------------------------------ ends on the climb graph
def _climb_from(ca: ClimbArrays, node: int, mask: int, penalty, backward: bool):
    """Dijkstra over the climb graph from ``node`` (``backward``: against the arcs, i.e.
    the cost from each node to ``node``): (dist, next node, edge, reached) per node."""
    m = ca.node_pos.shape[0]
    dist, pnode, pedge, seen, hk, hv = _dijkstra_workspace(m, ca.out_to.shape[0])
    if backward:
        arcs = (ca.in_start, ca.in_from, ca.in_edge)
    else:
        arcs = (ca.out_start, ca.out_to, ca.out_edge)
    _climb_dijkstra(node, *arcs, ca.edge_length, ca.edge_abilities, penalty, mask, dist,
                    pnode, pedge, seen, 0, hk, hv)
    return dist, pnode, pedge, seen == 0


def _chain(pnode, pedge, n):
    """Nodes and edges from the search's source to n (forward search: in order)."""
    nodes, edges = [n], []
    while pnode[n] >= 0:
        edges.append(int(pedge[n]))
        n = int(pnode[n])
        nodes.append(n)
    return nodes[::-1], edges[::-1]


class _EndOption(NamedTuple):
    """One way to begin (end) a path at a climb node: the walking part's end point, the
    climbing's search cost and length, its nodes and edges (in path order) and the link
    off (onto) the graph (-1: the query's own point, no climbing)."""

    point: np.ndarray
    cost: float
    length: float
    nodes: list
    edges: list
    link: int


def _graph_ends(query, solver: _ClimbSolver, ca: ClimbArrays, starts, goals, s_node, g_node,
                on, ext, batch_type, batch):
    """Answers for the queries ``on`` with an end on the climb graph (within
    ``ON_CLIMB_NODE`` of a climb node): the cheapest of climbing from the start node to
    each exit the agent may take, then the joined graph's path on to the goal (or to each
    entry from which the goal node is climbed to), or climbing straight from one node to
    the other. The path's first (last) point is the given point. A query where none is
    found keeps its answer as a point near the navmesh."""
    d = query.data
    ex, en = _usable_links(ca.link_node, ca.link_bidir, ca.link_poly, ca.link_abilities,
                           solver.mask, d.poly_stance, solver.arrays[0])
    pen, mask = solver.penalty, solver.mask
    # q -> (start options, goal options, straight climb or None)
    plans: dict[int, tuple[list[_EndOption], list[_EndOption], tuple | None]] = {}
    rows_a: list = []
    rows_b: list = []
    row_of: list[tuple[int, int, int]] = []
    for q in on.tolist():
        sn, gn = int(s_node[q]), int(g_node[q])
        s_opts = [_EndOption(starts[q], 0.0, 0.0, [], [], -1)]
        g_opts = [_EndOption(goals[q], 0.0, 0.0, [], [], -1)]
        straight: tuple | None = None
        if sn >= 0:
            dist, pn, pe, reached = _climb_from(ca, sn, mask, pen, False)
            s_opts = []
            for x in np.nonzero(ex & reached[ca.link_node])[0].tolist():
                nodes, edges = _chain(pn, pe, int(ca.link_node[x]))
                s_opts.append(_EndOption(
                    ca.link_point[x], float(dist[nodes[-1]] + ca.link_length[x]),
                    float(ca.edge_length[edges].sum() + ca.link_length[x]), nodes, edges, x))
            if gn >= 0 and reached[gn]:
                nodes, edges = _chain(pn, pe, gn)
                straight = (float(dist[gn]), nodes, edges)
        if gn >= 0:
            dist, pn, pe, reached = _climb_from(ca, gn, mask, pen, True)
            g_opts = []
            for e in np.nonzero(en & reached[ca.link_node])[0].tolist():
                back, edges = _chain(pn, pe, int(ca.link_node[e]))
                g_opts.append(_EndOption(
                    ca.link_point[e], float(dist[back[-1]] + ca.link_length[e]),
                    float(ca.edge_length[edges].sum() + ca.link_length[e]), back[::-1],
                    edges[::-1], e))
        plans[q] = (s_opts, g_opts, straight)
        for i, so in enumerate(s_opts):
            for j, go in enumerate(g_opts):
                rows_a.append(so.point)
                rows_b.append(go.point)
                row_of.append((q, i, j))
    walks = None
    if rows_a:
        walks = _solve_rows(query, solver, np.array(rows_a, np.float64),
                            np.array(rows_b, np.float64), ext, batch_type)
    # q -> (search cost, row or -1 for the straight climb, i, j)
    best: dict[int, tuple[float, int, int, int]] = {}
    for r, (q, i, j) in enumerate(row_of):
        assert walks is not None
        if walks._summary[r, SUM_STATUS] != FOUND:
            continue
        s_opts, g_opts, _ = plans[q]
        c = s_opts[i].cost + float(walks._summary[r, SUM_SEARCH_COST]) + g_opts[j].cost
        if q not in best or c < best[q][0]:
            best[q] = (c, r, i, j)
    for q, (_, _, straight) in plans.items():
        if straight is not None and (q not in best or straight[0] <= best[q][0]):
            best[q] = (straight[0], -1, 0, 0)
    if not best:
        return batch
    # the new answers of those queries, the others' as they are
    pieces = []
    summary = batch._summary.copy()
    climb_edges = dict(batch.climb_edges)
    for q in range(len(batch)):
        (a, c0), (b, c1) = batch._offsets[q], batch._offsets[q + 1]
        if q not in best:
            pieces.append((batch.points[a:b], batch._point_info[a:b], batch._corridor[c0:c1]))
            continue
        cost, r, i, j = best[q]
        s_opts, g_opts, straight = plans[q]
        head_p: list = []
        head_f: list[int] = []
        tail_p: list = []
        tail_f: list[int] = []
        used: list[int] = []
        if r < 0:  # climbing from node to node only
            assert straight is not None
            _, nodes, edges = straight
            if edges:
                head_p = [starts[q]] + [ca.node_pos[n] for n in nodes[1:-1]] + [goals[q]]
                head_f = [int(ca.edge_flag[k]) for k in edges] + [FLAG_WALK]
            else:
                head_p, head_f = [starts[q], goals[q]], [FLAG_WALK, FLAG_WALK]
            used = list(edges)
            mid_p, mid_i = np.zeros((0, 3)), np.zeros((0, 3), np.int64)
            cor = np.zeros((0, 2), np.int64)
            total = float(ca.edge_length[edges].sum())
        else:
            assert walks is not None
            so, go = s_opts[i], g_opts[j]
            (a2, c2), (b2, c3) = walks._offsets[r], walks._offsets[r + 1]
            mid_p, mid_i = walks.points[a2:b2], walks._point_info[a2:b2]
            cor = walks._corridor[c2:c3]
            if so.link >= 0:  # climbing from the start node to the exit so.link
                head_p = [starts[q]] + [ca.node_pos[n] for n in so.nodes[1:]]
                head_f = [int(ca.edge_flag[k]) for k in so.edges] \
                    + [int(ca.link_off_flag[so.link])]
                used += so.edges
            used += walks.climb_edges.get(r, [])
            if go.link >= 0:  # from the entry go.link (the walk's last point) to the goal
                mid_p, mid_i = mid_p[:-1], mid_i[:-1]
                tail_p = [ca.link_point[go.link]] + [ca.node_pos[n] for n in go.nodes[:-1]] \
                    + [goals[q]]
                tail_f = [int(ca.link_on_flag[go.link])] + [int(ca.edge_flag[k])
                                                           for k in go.edges] + [FLAG_WALK]
                used += go.edges
            total = so.length + float(walks._summary[r, SUM_COST]) + go.length

        def climb_rows(pts, flags):
            return (np.array(pts, np.float64).reshape(-1, 3),
                    np.array([[f, STANCE_STAND, -1] for f in flags], np.int64).reshape(-1, 3))

        (hp, hi), (tp, ti) = climb_rows(head_p, head_f), climb_rows(tail_p, tail_f)
        all_pts = np.concatenate([hp, mid_p, tp])
        pieces.append((all_pts, np.concatenate([hi, mid_i, ti]), cor))
        row = summary[q]
        row[SUM_STATUS] = FOUND
        row[SUM_LENGTH] = float(np.linalg.norm(np.diff(all_pts, axis=0), axis=1).sum())
        row[SUM_COST] = total
        row[SUM_SEARCH_COST] = cost
        if s_node[q] >= 0:
            row[SUM_START_POLY] = -1
        if g_node[q] >= 0:
            row[SUM_GOAL_POLY] = -1
        climb_edges[q] = used
    offsets = np.zeros((len(batch) + 1, 2), np.int64)
    offsets[1:, 0] = np.cumsum([p[0].shape[0] for p in pieces])
    offsets[1:, 1] = np.cumsum([p[2].shape[0] for p in pieces])
    out = batch_type(summary, offsets, np.concatenate([p[0] for p in pieces]),
                     np.concatenate([p[1] for p in pieces]).astype(np.int64),
                     np.concatenate([p[2] for p in pieces]).astype(np.int64))
    out.climb_edges = climb_edges
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


def _attach_ends(ca: ClimbArrays, points) -> np.ndarray:
    """Per query end: the climb node it is on (within ``ON_CLIMB_NODE``) or -1."""
    if ca.node_pos.shape[0] == 0:
        return np.full(points.shape[0], -1, np.int64)
    return _nearest_within(ca.node_pos, *ca.grid, points, ON_CLIMB_NODE)


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


__all__ = ["CLIMB_FLAGS", "ClimbArrays", "ClimbWays", "ON_CLIMB_NODE", "WAY_LINK_KIND",
           "ability_mask", "build_climb_arrays", "climb_arrays_for", "climb_solver",
           "climb_ways", "reserve", "solve_climbing"]
