"""The search graph of a NavMesh, as flat arrays for the numba kernels.

Nodes are points where a path may pass from one place to another (see
docs/path-queries.md):

* one *portal node* per edge shared by two polygons, at the edge's midpoint;
* two *link nodes* per jump link, at the (polygon-clamped) midpoints of its start and end
  segments.

Each polygon lists its *ports*: the portal nodes on its edges and the link nodes inside it.
Walking edges join every pair of ports of one polygon; link edges join a link's start
node to its end node (and back when the link is bidirectional). The start and goal of a
query are two extra nodes joined to the ports of their polygons, and to each other when
the straight segment between them stays on usable polygons (raycast.py).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..navmesh import NavMesh
from .spatial import build_grid, closest_point_on_polygon

QueryData = namedtuple("QueryData", [
    # polygons
    "vertices", "polygons", "neighbours", "poly_nv", "poly_stance", "poly_bmin", "poly_bmax",
    "surf_start", "surf_tris",
    # spatial grid
    "grid_origin", "grid_cell", "grid_nx", "grid_ny", "grid_start", "grid_items",
    # nodes
    "node_pos", "node_poly", "node_link", "node_side", "node_va", "node_vb",
    # link nodes: the node across the link when it may be taken from here, else -1, and
    # the polygon that node lies in (-1 for portal nodes)
    "node_hop", "node_hop_poly",
    # ports of each polygon (CSR); port_other: polygon across a portal, -1 for link nodes
    "port_start", "ports", "port_other",
    # links
    "link_kind", "link_bidir", "link_cost", "link_start", "link_end",
    "link_start_poly", "link_end_poly", "link_node_start", "link_node_end",
    # scratch sizes
    "heap_capacity",
])


def surface_triangles(navmesh: NavMesh):
    """Per-polygon surface triangles: (start (P+1,), tris (T, 3, 3)); see NavMesh."""
    return navmesh.surface_triangles()


def _portal_entries(polys: np.ndarray, neighbours: np.ndarray, nv: np.ndarray):
    """One row (p, q, va, vb) per shared edge, edge va->vb counter-clockwise in p."""
    n_poly, nvp = polys.shape
    slot = np.arange(nvp)[None, :]
    valid = (slot < nv[:, None]) & (neighbours >= 0) & (neighbours < n_poly)
    nxt = np.where(slot + 1 < nv[:, None], slot + 1, 0)
    p_idx, i_idx = np.nonzero(valid)
    q_idx = neighbours[p_idx, i_idx].astype(np.int64)
    va = polys[p_idx, i_idx]
    vb = polys[p_idx, nxt[p_idx, i_idx]]
    keep = q_idx != p_idx
    p_idx, q_idx, va, vb = p_idx[keep], q_idx[keep], va[keep], vb[keep]
    # An edge is listed from both sides: keep one row per (polygon pair, vertex pair).
    key = np.stack([np.minimum(p_idx, q_idx), np.maximum(p_idx, q_idx),
                    np.minimum(va, vb), np.maximum(va, vb)], axis=1)
    _, first = np.unique(key, axis=0, return_index=True)
    first.sort()
    return p_idx[first], q_idx[first], va[first], vb[first]


def build_query_data(navmesh: NavMesh) -> QueryData:
    """Flatten a NavMesh into the arrays the query kernels read.

    The NavMesh must have passed ``core.navmesh_check.check_navmesh`` (NavQuery does it).
    """
    verts = np.ascontiguousarray(navmesh.vertices, np.float64).reshape(-1, 3)
    polys = np.ascontiguousarray(navmesh.polygons, np.int64)
    n_poly = polys.shape[0]
    neighbours = np.asarray(navmesh.neighbours, np.int64)
    nv = (polys >= 0).sum(axis=1).astype(np.int64)
    stance = np.asarray(navmesh.polygon_stance, np.int64).reshape(-1)
    surf_start, surf_tris = surface_triangles(navmesh)
    bmin = np.full((n_poly, 3), np.inf)
    bmax = np.full((n_poly, 3), -np.inf)
    for k in range(polys.shape[1]):
        ok = polys[:, k] >= 0
        pts = verts[polys[ok, k]]
        bmin[ok] = np.minimum(bmin[ok], pts)
        bmax[ok] = np.maximum(bmax[ok], pts)
    if surf_tris.shape[0]:
        owner = np.repeat(np.arange(n_poly), np.diff(surf_start))
        np.minimum.at(bmin, owner, surf_tris.min(axis=1))
        np.maximum.at(bmax, owner, surf_tris.max(axis=1))
    origin, cell, gnx, gny, gstart, gitems = build_grid(bmin, bmax)

    # --- portal nodes
    pp, pq, pa, pb = _portal_entries(polys, neighbours, nv)
    n_portal = pp.shape[0]
    node_va = [verts[pa]]
    node_vb = [verts[pb]]
    node_poly = [np.stack([pp, pq], axis=1)]
    node_link = [np.full(n_portal, -1, np.int64)]
    node_side = [np.zeros(n_portal, np.int64)]

    # --- link nodes
    n_link = navmesh.link_count
    kind = np.asarray(navmesh.link_kind, np.int64).reshape(-1)
    lstart = np.ascontiguousarray(navmesh.link_start, np.float64).reshape(-1, 2, 3)
    lend = np.ascontiguousarray(navmesh.link_end, np.float64).reshape(-1, 2, 3)
    lsp = np.asarray(navmesh.link_start_poly, np.int64).reshape(-1)
    lep = np.asarray(navmesh.link_end_poly, np.int64).reshape(-1)
    lcost = np.asarray(navmesh.link_cost, np.float64).reshape(-1)
    lbid = np.asarray(navmesh.link_bidirectional, np.bool_).reshape(-1)
    used = np.arange(n_link)
    link_node_start = np.full(n_link, -1, np.int64)
    link_node_end = np.full(n_link, -1, np.int64)
    link_node_start[used] = n_portal + 2 * np.arange(used.shape[0])
    link_node_end[used] = link_node_start[used] + 1
    n_nodes = n_portal + 2 * used.shape[0]
    if used.shape[0]:
        lpoly = np.stack([lsp[used], lep[used]], axis=1).reshape(-1)
        node_poly.append(np.stack([lpoly, np.full_like(lpoly, -1)], axis=1))
        node_link.append(np.repeat(used, 2))
        node_side.append(np.tile(np.array([0, 1], np.int64), used.shape[0]))
        seg = np.stack([lstart[used], lend[used]], axis=1).reshape(-1, 2, 3)
        node_va.append(seg[:, 0])
        node_vb.append(seg[:, 1])
    node_poly = np.ascontiguousarray(np.concatenate(node_poly), np.int64)
    node_link = np.concatenate(node_link).astype(np.int64)
    node_side = np.concatenate(node_side).astype(np.int64)
    node_va = np.ascontiguousarray(np.concatenate(node_va), np.float64).reshape(-1, 3)
    node_vb = np.ascontiguousarray(np.concatenate(node_vb), np.float64).reshape(-1, 3)
    node_pos = 0.5 * (node_va + node_vb)

    # --- ports of each polygon
    sides = node_poly.reshape(-1)
    owner_node = np.repeat(np.arange(n_nodes), 2)
    other = node_poly[:, ::-1].reshape(-1).copy()
    other[np.repeat(node_link >= 0, 2)] = -1
    keep = sides >= 0
    sides, owner_node, other = sides[keep], owner_node[keep], other[keep]
    order = np.argsort(sides, kind="stable")
    ports = owner_node[order].astype(np.int64)
    port_other = other[order].astype(np.int64)
    port_start = np.zeros(n_poly + 1, np.int64)
    np.cumsum(np.bincount(sides, minlength=n_poly), out=port_start[1:])
    k = np.diff(port_start)
    heap_capacity = int((k * k).sum() + 2 * n_nodes + (k.max() if n_poly else 0) + 16)

    # a link's start node hops to its end node; the end node back only when bidirectional
    node_hop = np.full(n_nodes, -1, np.int64)
    node_hop_poly = np.full(n_nodes, -1, np.int64)
    if used.shape[0]:
        first = link_node_start[used]
        node_hop[first] = link_node_end[used]
        node_hop_poly[first] = lep[used]
        back = lbid[used]
        node_hop[first[back] + 1] = link_node_start[used][back]
        node_hop_poly[first[back] + 1] = lsp[used][back]

    data = QueryData(
        vertices=verts, polygons=polys,
        neighbours=np.where((neighbours >= 0) & (neighbours < n_poly) & (polys >= 0),
                            neighbours, -1).astype(np.int64),
        poly_nv=nv, poly_stance=stance,
        poly_bmin=bmin, poly_bmax=bmax, surf_start=surf_start, surf_tris=surf_tris,
        grid_origin=np.asarray(origin, np.float64), grid_cell=float(cell), grid_nx=int(gnx),
        grid_ny=int(gny), grid_start=gstart.astype(np.int64), grid_items=gitems.astype(np.int64),
        node_pos=node_pos, node_poly=node_poly, node_link=node_link, node_side=node_side,
        node_va=node_va, node_vb=node_vb, node_hop=node_hop, node_hop_poly=node_hop_poly,
        port_start=port_start, ports=ports, port_other=port_other,
        link_kind=kind, link_bidir=lbid.astype(np.int64), link_cost=lcost,
        link_start=lstart, link_end=lend, link_start_poly=lsp, link_end_poly=lep,
        link_node_start=link_node_start, link_node_end=link_node_end,
        heap_capacity=heap_capacity,
    )
    # Link nodes sit on their polygon: clamp the segment midpoints onto it.
    _clamp_nodes_to_polygons(data, n_portal)
    return data


@njit(cache=True)
def _clamp_nodes_to_polygons(d, first):
    for n in range(first, d.node_pos.shape[0]):
        x, y, z = closest_point_on_polygon(d, d.node_poly[n, 0], d.node_pos[n, 0],
                                           d.node_pos[n, 1], d.node_pos[n, 2])
        d.node_pos[n, 0] = x
        d.node_pos[n, 1] = y
        d.node_pos[n, 2] = z
