"""Test navmeshes: a NavMesh from hand-made polygons, and a copy of one with links added.

``package`` names the package whose ``NavMesh`` and query kernels are used: the Blender tests
build navmeshes of the extension module (``bl_ext.<repo>.blender_navjump``), not of the source
tree's ``blender_navjump``.
"""

from __future__ import annotations

import functools
import importlib
import types

import numpy as np


def navmesh_from_polygons(vertices, polygons, stances=None, nvp: int | None = None,
                          package: str = "blender_navjump"):
    """A NavMesh over convex polygons given as vertex-index lists, CCW seen from +Z.

    Neighbours come from shared edges (same two vertex indices). ``stances``: one stance
    name or index per polygon (default stand). The detail mesh is a fan per polygon, so
    heights are the polygon's plane(s).
    """
    navmesh_module = importlib.import_module(f"{package}.core.navmesh")
    verts = np.asarray(vertices, np.float64).reshape(-1, 3)
    polys = [list(map(int, p)) for p in polygons]
    nvp = nvp or max([len(p) for p in polys] + [3])
    n = len(polys)
    rows = np.full((n, nvp), -1, np.int32)
    for i, p in enumerate(polys):
        if len(p) < 3 or len(p) > nvp:
            raise ValueError(f"polygon {i} has {len(p)} vertices (3..{nvp} allowed)")
        xy = verts[p, :2]
        area2 = np.sum(xy[:, 0] * np.roll(xy[:, 1], -1) - np.roll(xy[:, 0], -1) * xy[:, 1])
        if area2 <= 0:
            raise ValueError(f"polygon {i} is not counter-clockwise seen from +Z")
        rows[i, :len(p)] = p
    edges: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for i, p in enumerate(polys):
        for k in range(len(p)):
            a, b = p[k], p[(k + 1) % len(p)]
            edges.setdefault((min(a, b), max(a, b)), []).append((i, k))
    neighbours = np.full((n, nvp), -1, np.int32)
    for sides in edges.values():
        if len(sides) == 2:
            (i, k), (j, m) = sides
            neighbours[i, k] = j
            neighbours[j, m] = i
    if stances is None:
        stance = np.zeros(n, np.int8)
    else:
        stance = np.array([navmesh_module.STANCE_NAMES.index(s) if isinstance(s, str) else int(s)
                           for s in stances], np.int8)
        if stance.shape[0] != n:
            raise ValueError(f"{stance.shape[0]} stances for {n} polygons")
    dverts, dtris, dmesh = [], [], []
    vbase = tbase = 0
    for p in polys:
        dverts.append(verts[p])
        tris = [(0, i, i + 1, 0) for i in range(1, len(p) - 1)]
        dtris.extend(tris)
        dmesh.append((vbase, len(p), tbase, len(tris)))
        vbase += len(p)
        tbase += len(tris)
    return navmesh_module.NavMesh(
        vertices=verts,
        polygons=rows,
        neighbours=neighbours,
        polygon_area=(stance + 1).astype(np.uint8),
        polygon_region=np.zeros(n, np.int32),
        polygon_stance=stance,
        detail_meshes=np.array(dmesh, np.int32).reshape(-1, 4),
        detail_vertices=np.concatenate(dverts).reshape(-1, 3) if dverts else np.zeros((0, 3)),
        detail_triangles=np.array(dtris, np.int32).reshape(-1, 4),
    )


def with_links(navmesh, kinds, starts, ends, bidirectional=False,
               start_polys=None, end_polys=None, costs=None, package: str = "blender_navjump"):
    """A copy of ``navmesh`` with these links appended.

    ``starts``/``ends``: (L, 2, 3) segments. Missing polygons are those containing each
    segment's midpoint (XY, nearest in height). ``costs`` default to 0.
    """
    link_kinds = importlib.import_module(f"{package}.core.navmesh").LINK_KINDS
    kinds = np.array([link_kinds.index(k) if isinstance(k, str) else int(k) for k in kinds],
                     np.int8)
    n = kinds.shape[0]
    starts = np.asarray(starts, np.float64).reshape(n, 2, 3)
    ends = np.asarray(ends, np.float64).reshape(n, 2, 3)
    bidir = np.broadcast_to(np.asarray(bidirectional, np.bool_), (n,)).copy()
    costs = np.zeros(n) if costs is None else np.asarray(costs, np.float64).reshape(n)
    q = importlib.import_module(f"{package}.core.query").query_for(navmesh)

    def polys_of(segs, given):
        if given is not None:
            return np.asarray(given, np.int32).reshape(n)
        out = np.empty(n, np.int32)
        for i, seg in enumerate(segs):
            poly, _pt, _d = q.nearest_polygon(seg.mean(axis=0), extents=(0.5, 0.5, 2.0))
            if poly < 0:
                raise ValueError(f"link {i}: no polygon under segment midpoint {seg.mean(0)}")
            out[i] = poly
        return out

    sp = polys_of(starts, start_polys)
    ep = polys_of(ends, end_polys)
    append = importlib.import_module(f"{package}.core.navmesh").append_links
    return append(navmesh, kinds, starts, ends, bidir, sp, ep, costs)


def for_package(package: str) -> types.SimpleNamespace:
    """Both builders bound to ``package`` (``.navmesh_from_polygons``, ``.with_links``)."""
    return types.SimpleNamespace(
        navmesh_from_polygons=functools.partial(navmesh_from_polygons, package=package),
        with_links=functools.partial(with_links, package=package))
