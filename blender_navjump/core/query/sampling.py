"""Points on a NavMesh: uniform samples over its surface, and two far-apart points joined
by a path (the path test's automatic placement, pictures, benchmarks)."""

from __future__ import annotations

import numpy as np

from ..navmesh import NavMesh
from .path import find_paths


def random_navmesh_points(navmesh: NavMesh, n: int, rng=None) -> np.ndarray:
    """(n, 3) points uniformly distributed over the navmesh surface (by 3D area)."""
    rng = np.random.default_rng(rng)
    _start, tris = navmesh.surface_triangles()
    if tris.shape[0] == 0:
        raise ValueError("the navmesh has no polygons to sample")
    area = 0.5 * np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]),
                                axis=1)
    pick = rng.choice(tris.shape[0], size=n, p=area / area.sum())
    u, v = rng.random(n), rng.random(n)
    flip = u + v > 1
    u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
    t = tris[pick]
    return t[:, 0] + u[:, None] * (t[:, 1] - t[:, 0]) + v[:, None] * (t[:, 2] - t[:, 0])


def far_apart_points(navmesh: NavMesh | None, agent=None, samples: int = 48, seed: int = 0):
    """Two points on the navmesh joined by the longest found path among sample pairs
    (the two points farthest apart when no pair connects; None without polygons)."""
    if navmesh is None or navmesh.polygon_count == 0:
        return None
    pts = random_navmesh_points(navmesh, samples, rng=seed)
    i, j = np.triu_indices(samples, k=1)
    batch = find_paths(navmesh, pts[i], pts[j], agent, on_error="status")
    score = np.where(batch.found, batch.length, -1.0)
    best = int(np.argmax(score))
    if score[best] < 0:
        best = int(np.argmax(np.linalg.norm(pts[i] - pts[j], axis=1)))
    return pts[i[best]], pts[j[best]]
