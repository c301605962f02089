"""A coarse path search over the navmesh joined with its climb graph (docs/climbing.md).

One A* over a graph of polygon centres, jump links, climb nodes, climb edges and the links
between the climb graph and the polygons. An agent gives the climbing abilities it has
(``CLIMB_ABILITIES`` names); an edge or link that needs another ability is never used. The
result is the list of graph nodes, not a funnel-pulled path: polygons appear as their
centres. This is the first step of climbing queries (the full A* + funnel of
``core.query.path`` does not use climbing yet).
"""

from __future__ import annotations

import heapq
import math
from typing import NamedTuple

import numpy as np

from ..kinds import (
    CLIMB_ABILITIES,
    CLIMB_EDGE_KINDS,
    CLIMB_LADDER,
    CLIMB_LEDGE,
    CLIMB_LINK_HANG,
    CLIMB_LINK_LADDER_FOOT,
    CLIMB_LINK_MOUNT,
    LINK_KINDS,
)

# A start or goal within this distance (metres) of a climb node starts or ends on it
# (an agent already hanging mid-climb).
ON_CLIMB_NODE = 0.3


class ClimbSearchGraph(NamedTuple):
    """The joined graph: node positions and directed edges with cost and a move name."""

    position: np.ndarray  # (P + N, 3): polygon centres, then climb nodes
    edge_from: np.ndarray  # (K,) int64
    edge_to: np.ndarray  # (K,) int64
    edge_cost: np.ndarray  # (K,) float64
    edge_move: list  # (K,) str: what the agent does along the edge
    edge_climb: np.ndarray  # (K,) int64: the NavMesh climb edge it is, or -1
    polygon_count: int


class ClimbPath(NamedTuple):
    found: bool
    cost: float
    nodes: list  # graph node ids, start and goal are -1 and -2
    points: np.ndarray  # (n, 3)
    flags: list  # per point: the move that reaches it ("start" for the first)
    climb_edges: list  # NavMesh climb edges used, in order (to reserve them: occupancy)


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


def _along_move(element_kind: int) -> str:
    return {CLIMB_LEDGE: "shimmy", CLIMB_LADDER: "ladder_climb"}.get(element_kind, "pipe_climb")


def build_search_graph(navmesh, abilities=None) -> ClimbSearchGraph:
    """The joined graph for an agent with ``abilities`` (see the module doc)."""
    from ..climb import link_abilities

    mask = ability_mask(abilities)
    n_poly = navmesh.polygon_count
    centres = np.zeros((n_poly, 3))
    for p in range(n_poly):
        centres[p] = navmesh.polygon_vertices(p).mean(axis=0)
    pos = np.concatenate([centres, navmesh.climb_node_position.reshape(-1, 3)])
    frm: list[int] = []
    to: list[int] = []
    cost: list[float] = []
    move: list[str] = []
    climb_id: list[int] = []

    def add(a, b, c, m, k=-1):
        frm.append(int(a))
        to.append(int(b))
        cost.append(float(c))
        move.append(m)
        climb_id.append(k)

    for p in range(n_poly):
        for q in navmesh.neighbours[p]:
            if q >= 0:
                add(p, q, np.linalg.norm(centres[q] - centres[p]), "walk")
    for i in range(navmesh.link_count):
        a, b = int(navmesh.link_start_poly[i]), int(navmesh.link_end_poly[i])
        s, e = navmesh.link_start[i].mean(axis=0), navmesh.link_end[i].mean(axis=0)
        jump = max(float(navmesh.link_cost[i]), float(np.linalg.norm(e - s)))
        kind = LINK_KINDS[int(navmesh.link_kind[i])]
        add(a, b, np.linalg.norm(s - centres[a]) + jump + np.linalg.norm(centres[b] - e), kind)
        if navmesh.link_bidirectional[i]:
            add(b, a, np.linalg.norm(e - centres[b]) + jump + np.linalg.norm(centres[a] - s),
                kind)
    for k in range(navmesh.climb_edge_kind.shape[0]):
        if int(navmesh.climb_edge_abilities[k]) & ~mask:
            continue
        a, b = (int(x) + n_poly for x in navmesh.climb_edge_nodes[k])
        kind = CLIMB_EDGE_KINDS[int(navmesh.climb_edge_kind[k])]
        e = int(navmesh.climb_edge_element[k])
        m = _along_move(int(navmesh.climb_element_kind[e])) if kind == "along" \
            else f"climb_{kind}"
        length = float(navmesh.climb_edge_length[k])
        add(a, b, length, m, k)
        if navmesh.climb_edge_bidirectional[k]:
            add(b, a, length, m, k)
    link_abil = link_abilities(navmesh.climb_link_kind)
    for k in range(navmesh.climb_link_kind.shape[0]):
        if int(link_abil[k]) & ~mask:
            continue
        node = int(navmesh.climb_link_node[k]) + n_poly
        poly = int(navmesh.climb_link_poly[k])
        c = float(np.linalg.norm(navmesh.climb_link_point[k] - centres[poly])
                  + navmesh.climb_link_length[k])
        kind = int(navmesh.climb_link_kind[k])
        up_move, down_move = {
            CLIMB_LINK_MOUNT: ("mount", "climb_down_from_mount"),
            CLIMB_LINK_LADDER_FOOT: ("ladder_off", "ladder_on"),
            CLIMB_LINK_HANG: ("climb_drop", "hang_jump_up"),
        }[kind]
        add(node, poly, c, up_move)
        if navmesh.climb_link_bidirectional[k]:
            add(poly, node, c, down_move)
    return ClimbSearchGraph(pos, np.array(frm, np.int64), np.array(to, np.int64),
                            np.array(cost, np.float64), move, np.array(climb_id, np.int64),
                            n_poly)


def _attach(navmesh, graph: ClimbSearchGraph, point) -> list[tuple[int, float]]:
    """Graph nodes a start or goal point joins: a climb node within ``ON_CLIMB_NODE``, else
    the polygon under the point (nearest in height), with the straight distance."""
    p = np.asarray(point, np.float64)
    n_poly = graph.polygon_count
    climb = graph.position[n_poly:]
    if climb.shape[0]:
        d = np.linalg.norm(climb - p, axis=1)
        k = int(np.argmin(d))
        if d[k] <= ON_CLIMB_NODE:
            return [(k + n_poly, float(d[k]))]
    best, best_dz = -1, math.inf
    for q in range(n_poly):
        vs = navmesh.polygon_vertices(q)
        n = vs.shape[0]
        inside = all((vs[(i + 1) % n, 0] - vs[i, 0]) * (p[1] - vs[i, 1])
                     - (vs[(i + 1) % n, 1] - vs[i, 1]) * (p[0] - vs[i, 0]) >= -1e-9
                     for i in range(n))
        dz = abs(float(vs[:, 2].mean()) - p[2])
        if inside and dz < best_dz:
            best, best_dz = q, dz
    if best < 0:
        return []
    return [(best, float(np.linalg.norm(graph.position[best] - p)))]


def find_climb_path(navmesh, start, goal, abilities=None,
                    graph: ClimbSearchGraph | None = None, penalty=None) -> ClimbPath:
    """A* from ``start`` to ``goal`` over the joined graph (Euclidean heuristic: every edge
    costs at least its straight length, so the result is a least-cost path).

    ``penalty``: optional (K,) extra cost per NavMesh climb edge (>= 0), e.g. edges other
    agents have reserved (see :func:`reserve`); the search then prefers other routes.
    """
    graph = graph or build_search_graph(navmesh, abilities)
    edge_cost = graph.edge_cost
    if penalty is not None:
        pen = np.asarray(penalty, np.float64).reshape(-1)
        if pen.shape[0] != navmesh.climb_edge_kind.shape[0] or not np.all(pen >= 0):
            raise ValueError(f"penalty: need one non-negative value per climb edge "
                             f"({navmesh.climb_edge_kind.shape[0]}), got {pen.shape[0]}")
        on = graph.edge_climb >= 0
        edge_cost = edge_cost.copy()
        edge_cost[on] += pen[graph.edge_climb[on]]
    n = graph.position.shape[0]
    s_id, g_id = n, n + 1
    pos = np.concatenate([graph.position, [start, goal]]).astype(np.float64)
    out: list[list[tuple[int, float, int]]] = [[] for _ in range(n + 2)]
    for k in range(graph.edge_from.shape[0]):
        out[int(graph.edge_from[k])].append((int(graph.edge_to[k]), float(edge_cost[k]), k))
    for node, c in _attach(navmesh, graph, start):
        out[s_id].append((node, c, -1))
    for node, c in _attach(navmesh, graph, goal):
        out[node].append((g_id, c, -2))
    goal_p = pos[g_id]
    dist = {s_id: 0.0}
    came: dict[int, tuple[int, int]] = {}
    closed: set[int] = set()
    heap = [(float(np.linalg.norm(pos[s_id] - goal_p)), 0.0, s_id)]
    while heap:
        _f, g, u = heapq.heappop(heap)
        if u in closed:
            continue
        closed.add(u)
        if u == g_id:
            break
        for v, c, k in out[u]:
            ng = g + c
            if v not in closed and ng < dist.get(v, math.inf):
                dist[v] = ng
                came[v] = (u, k)
                heapq.heappush(heap, (ng + float(np.linalg.norm(pos[v] - goal_p)), ng, v))
    if g_id not in closed:
        return ClimbPath(False, math.inf, [], np.zeros((0, 3)), [], [])
    nodes, flags, used = [g_id], [], []
    while nodes[-1] != s_id:
        u, k = came[nodes[-1]]
        flags.append("arrive" if k == -2 else graph.edge_move[k] if k >= 0 else "leave")
        if k >= 0 and graph.edge_climb[k] >= 0:
            used.append(int(graph.edge_climb[k]))
        nodes.append(u)
    nodes.reverse()
    flags = ["start"] + flags[::-1]
    ids = [-1 if x == s_id else -2 if x == g_id else x for x in nodes]
    return ClimbPath(True, float(dist[g_id]), ids, pos[nodes], flags, used[::-1])


def reserve(penalty, path: ClimbPath, amount: float) -> np.ndarray:
    """Add ``amount`` to the penalty of each climb edge ``path`` uses (release: subtract it,
    or start again from zeros when the agent has passed or aborted)."""
    out = np.array(penalty, np.float64)
    np.add.at(out, np.asarray(path.climb_edges, np.int64), float(amount))
    return np.maximum(out, 0.0)


__all__ = ["ClimbPath", "ClimbSearchGraph", "ability_mask", "build_search_graph",
           "find_climb_path", "reserve"]
