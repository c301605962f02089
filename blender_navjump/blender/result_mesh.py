"""The arrays of the two result meshes ``storage.py`` builds in the .blend (no bpy).

* the navmesh mesh: one face per navmesh polygon (face i = polygon i): vertex coordinates,
  the loops (vertex indices, polygon by polygon) and each face's first loop, plus the face
  attributes ``stance``, ``area`` and ``region``;
* the links mesh: one edge per jump link, from the start segment's midpoint to the end
  segment's midpoint, with the edge attributes ``kind``, ``bidirectional``, ``width`` (the
  start segment's length, m) and ``cost``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.navmesh import NavMesh


class FaceMesh(NamedTuple):
    vertices: np.ndarray  # (V, 3) float32
    loops: np.ndarray  # (L,) int32 vertex indices, face by face
    loop_starts: np.ndarray  # (F,) int32 first loop of each face
    attributes: dict[str, np.ndarray]  # name -> (F,) int32


class EdgeMesh(NamedTuple):
    vertices: np.ndarray  # (2E, 3) float32: edge e runs from vertex 2e to 2e + 1
    edges: np.ndarray  # (2E,) int32, flat vertex pairs
    attributes: dict[str, np.ndarray]  # name -> (E,) int32 / bool / float32


def navmesh_faces(navmesh: NavMesh) -> FaceMesh:
    polys = navmesh.polygons
    counts = (polys >= 0).sum(axis=1)
    starts = np.zeros(polys.shape[0], np.int32)
    if polys.shape[0]:
        starts[1:] = np.cumsum(counts)[:-1]
    return FaceMesh(
        vertices=navmesh.vertices.astype(np.float32),
        loops=polys[polys >= 0].astype(np.int32),  # row-major: polygon by polygon
        loop_starts=starts,
        attributes={name: np.asarray(values, np.int32) for name, values in (
            ("stance", navmesh.polygon_stance), ("area", navmesh.polygon_area),
            ("region", navmesh.polygon_region))})


def link_edges(navmesh: NavMesh) -> EdgeMesh:
    n = navmesh.link_count
    points = np.empty((2 * n, 3), np.float32)
    if n:
        points[0::2] = navmesh.link_start.mean(axis=1)
        points[1::2] = navmesh.link_end.mean(axis=1)
        width = np.linalg.norm(navmesh.link_start[:, 1] - navmesh.link_start[:, 0], axis=1)
    else:
        width = np.zeros(0)
    return EdgeMesh(
        vertices=points,
        edges=np.arange(2 * n, dtype=np.int32),
        attributes={"kind": np.asarray(navmesh.link_kind, np.int32),
                    "bidirectional": np.asarray(navmesh.link_bidirectional, np.bool_),
                    "width": width.astype(np.float32),
                    "cost": np.asarray(navmesh.link_cost, np.float32),
                    "area": np.asarray(navmesh.link_area, np.int32)})
