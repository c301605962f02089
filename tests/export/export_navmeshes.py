"""Hand-built NavMesh objects for the export tests (Z up, metres)."""

from __future__ import annotations

import numpy as np

from blender_navjump.core.navmesh import LINK_KINDS, STANCE_NAMES, NavMesh, kind_link_areas

SETTINGS = {"cell_size": 0.25, "cell_height": 0.1, "agent_height": 2.0, "agent_radius": 0.5,
            "agent_max_climb": 0.5, "verts_per_poly": 6}


def edge_neighbours(polygons: list[list[int]]) -> list[list[int]]:
    """Polygon across each edge (i -> i+1), found by the shared vertex pair; -1 = border."""
    owner = {}
    for p, poly in enumerate(polygons):
        for i, a in enumerate(poly):
            owner[(a, poly[(i + 1) % len(poly)])] = p
    return [[owner.get((poly[(i + 1) % len(poly)], a), -1) for i, a in enumerate(poly)]
            for poly in polygons]


def make_navmesh(vertices, polygons, stances=None, links=(), detail=None, nvp=6,
                 settings=None, stats=None) -> NavMesh:
    """A NavMesh from vertex and polygon lists.

    ``detail`` maps polygon index -> (extra_vertices, triangles) with triangle indices local
    to [polygon vertices..., extra vertices...]; other polygons get a fan. ``links`` are
    dicts with kind (name), start, end, bidirectional, start_polygon, end_polygon and
    optionally apex, length, cost.
    """
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    n = len(polygons)
    poly_arr = np.full((n, nvp), -1, np.int32)
    nei_arr = np.full((n, nvp), -1, np.int32)
    for p, (poly, nb) in enumerate(zip(polygons, edge_neighbours(polygons), strict=True)):
        poly_arr[p, :len(poly)] = poly
        nei_arr[p, :len(poly)] = nb
    stances = np.zeros(n, np.int8) if stances is None else np.asarray(
        [STANCE_NAMES.index(s) if isinstance(s, str) else s for s in stances], np.int8)
    detail = detail or {}
    d_meshes, d_verts, d_tris = [], [], []
    for p, poly in enumerate(polygons):
        own = vertices[poly]
        extra, tris = detail.get(p, (np.zeros((0, 3)), None))
        if tris is None:
            tris = [(0, j - 1, j) for j in range(2, len(poly))]
        d_meshes.append((len(d_verts), len(poly) + len(extra), len(d_tris), len(tris)))
        d_verts.extend(own.tolist())
        d_verts.extend(np.asarray(extra, dtype=np.float64).reshape(-1, 3).tolist())
        d_tris.extend([(a, b, c, 0) for a, b, c in tris])
    nm = NavMesh(
        vertices=vertices, polygons=poly_arr, neighbours=nei_arr,
        polygon_area=(stances + 1).astype(np.uint8),
        polygon_region=np.arange(n, dtype=np.int32),
        polygon_stance=stances,
        detail_meshes=np.array(d_meshes, np.int32).reshape(-1, 4),
        detail_vertices=np.array(d_verts, np.float64).reshape(-1, 3),
        detail_triangles=np.array(d_tris, np.int32).reshape(-1, 4),
        settings=dict(SETTINGS if settings is None else settings),
        stats=dict(stats or {}))
    links = list(links)
    if links:
        nm.link_kind = np.array([LINK_KINDS.index(lk["kind"]) for lk in links], np.int8)
        nm.link_start = np.array([lk["start"] for lk in links], np.float64).reshape(-1, 2, 3)
        nm.link_end = np.array([lk["end"] for lk in links], np.float64).reshape(-1, 2, 3)
        nm.link_bidirectional = np.array([lk["bidirectional"] for lk in links], np.bool_)
        nm.link_start_poly = np.array([lk["start_polygon"] for lk in links], np.int32)
        nm.link_end_poly = np.array([lk["end_polygon"] for lk in links], np.int32)
        length = [float(np.linalg.norm(np.mean(lk["end"], 0) - np.mean(lk["start"], 0)))
                  for lk in links]
        nm.link_apex = np.array([lk.get("apex", 0.0) for lk in links], np.float64)
        nm.link_length = np.array([lk.get("length", d)
                                   for lk, d in zip(links, length, strict=True)])
        nm.link_cost = np.array([lk.get("cost", 1.0) for lk in links], np.float64)
        nm.link_area = kind_link_areas(nm.link_kind)
    return nm


def grid_floor(nx=4, ny=3, cell=2.0, z=0.0, stances=None) -> NavMesh:
    """nx * ny square polygons covering [0, nx*cell] x [0, ny*cell]."""
    verts = [(i * cell, j * cell, z) for j in range(ny + 1) for i in range(nx + 1)]
    polys = []
    for j in range(ny):
        for i in range(nx):
            a = j * (nx + 1) + i
            polys.append([a, a + 1, a + nx + 2, a + nx + 1])  # CCW from above
    return make_navmesh(verts, polys, stances=stances)


def l_corridor(width=2.0, arm=10.0) -> NavMesh:
    """An L: the x arm [0, arm] x [0, width] and the y arm [arm-width, arm] x [0, arm]."""
    a, w = arm, width
    verts = [(0, 0, 0), (a - w, 0, 0), (a - w, w, 0), (0, w, 0),  # 0..3
             (a, 0, 0), (a, w, 0),  # 4, 5
             (a, a, 0), (a - w, a, 0)]  # 6, 7
    polys = [[0, 1, 2, 3],  # long x arm
             [1, 4, 5, 2],  # the corner square
             [2, 5, 6, 7]]  # long y arm
    return make_navmesh(verts, polys)


def two_platforms(kind="drop", bidirectional=False, width=2.0, gap=2.0, drop=1.0) -> NavMesh:
    """Platform A [0,4]x[0,4] at z=0 and platform B [4+gap, 8+gap]x[0,4] at z=-drop, each two
    polygons, joined only by one link from A's x=3.5 line to B's x=4.5+gap line, centred
    on y = 2 with the given width."""
    b0 = 4.0 + gap
    verts = [(0, 0, 0), (2, 0, 0), (4, 0, 0), (4, 4, 0), (2, 4, 0), (0, 4, 0),
             (b0, 0, -drop), (b0 + 2, 0, -drop), (b0 + 4, 0, -drop), (b0 + 4, 4, -drop),
             (b0 + 2, 4, -drop), (b0, 4, -drop)]
    polys = [[0, 1, 4, 5], [1, 2, 3, 4], [6, 7, 10, 11], [7, 8, 9, 10]]
    half = width / 2
    link = {"kind": kind, "bidirectional": bidirectional,
            "start": [(3.5, 2 - half, 0.0), (3.5, 2 + half, 0.0)],
            "end": [(b0 + 0.5, 2 - half, -drop), (b0 + 0.5, 2 + half, -drop)],
            "start_polygon": 1, "end_polygon": 2, "apex": 0.5, "cost": 1.5}
    return make_navmesh(verts, polys, links=[link])


def bump_square(size=4.0, peak=0.5) -> NavMesh:
    """One square polygon at z=0 whose detail mesh rises to ``peak`` at its centre."""
    s = size
    verts = [(0, 0, 0), (s, 0, 0), (s, s, 0), (0, s, 0)]
    centre = [(s / 2, s / 2, peak)]
    tris = [(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)]
    return make_navmesh(verts, [[0, 1, 2, 3]], detail={0: (centre, tris)})


def mixed_navmesh() -> NavMesh:
    """Stances of every kind, odd polygon sizes, links of every kind, nvp 6, nested stats."""
    verts = [(0, 0, 0), (2, 0, 0.1), (4, 0, 0.2), (4, 2, 0.3), (3, 3, 0.25), (2, 2, 0.15),
             (0, 2, 0.05), (1, 3.5, 0.1), (6, 0, -1.0), (8, 0, -1.0), (8, 2, -1.0),
             (6, 2, -1.0)]
    polys = [[0, 1, 5, 6], [1, 2, 3, 4, 5], [6, 5, 4, 7], [8, 9, 10, 11]]
    links = [
        {"kind": "drop", "start": [(4, 0.5, 0.2), (4, 1.5, 0.3)],
         "end": [(6, 0.5, -1), (6, 1.5, -1)], "bidirectional": False,
         "start_polygon": 1, "end_polygon": 3, "apex": 0.3, "cost": 1.0},
        {"kind": "jump_across", "start": [(4, 1.0, 0.25), (4, 1.2, 0.25)],
         "end": [(6, 1.0, -1), (6, 1.2, -1)], "bidirectional": True,
         "start_polygon": 1, "end_polygon": 3, "apex": 0.7, "cost": 1.5},
        {"kind": "jump_up", "start": [(6, 1.8, -1), (6, 1.9, -1)],
         "end": [(4, 1.8, 0.28), (4, 1.9, 0.29)], "bidirectional": False,
         "start_polygon": 3, "end_polygon": 1, "apex": 1.1 / 3, "cost": 2.0},
    ]
    detail = {1: ([(2.9, 1.0, 0.4)], [(0, 1, 5), (1, 2, 5), (2, 3, 5), (3, 4, 5),
                                       (4, 0, 5)])}
    stats = {"polygons": 4, "timings": {"total": 0.1 + 0.2}, "nested": [1, 2.5, "x"]}
    settings = dict(SETTINGS, partition="watershed", multi_stance=True, detail_sample_dist=6.0)
    return make_navmesh(verts, polys, stances=["stand", "crouch", "prone", "stand"],
                        links=links, detail=detail, settings=settings, stats=stats)
