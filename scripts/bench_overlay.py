"""Benchmark the overlay geometry: ``python scripts/bench_overlay.py [--polygons N]
[--links N] [--repeat N]``.

Builds a grid navmesh of unit squares (default 400 x 250 = 100,000 polygons) with random
links (default 10,000), then times ``overlay_geometry.build_overlay`` (numpy only, no
bpy). Prints JSON: the median and min time, the vertex count and the target (5 s for
100,000 polygons and 10,000 links, the size of a large level).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from blender_navjump.blender import overlay_geometry as ob  # noqa: E402
from blender_navjump.core.navmesh import NavMesh  # noqa: E402

TARGET_SECONDS = 5.0


def grid_navmesh(nx: int, ny: int, n_links: int, seed: int = 3) -> NavMesh:
    """nx * ny unit squares (counter-clockwise quads, 6 columns), links between random
    points; stances cycle stand, crouch, prone."""
    xs, ys = np.meshgrid(np.arange(nx + 1.0), np.arange(ny + 1.0), indexing="ij")
    verts = np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1)
    i, j = (a.ravel() for a in np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij"))
    n = nx * ny
    polys = np.full((n, 6), -1, np.int32)
    corners = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
    for k, (ci, cj) in enumerate(corners):
        polys[:, k] = ci * (ny + 1) + cj
    pid = i * ny + j
    neigh = np.full((n, 6), -1, np.int32)
    neigh[:, 0] = np.where(j > 0, pid - 1, -1)
    neigh[:, 1] = np.where(i < nx - 1, pid + ny, -1)
    neigh[:, 2] = np.where(j < ny - 1, pid + 1, -1)
    neigh[:, 3] = np.where(i > 0, pid - ny, -1)
    stance = (pid % 3).astype(np.int8)
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, min(nx, ny), (n_links, 1, 3)) * [1, 1, 0]
    starts = np.concatenate([a, a + [0, 1.0, 0]], axis=1)
    ends = starts + rng.uniform(-3, 3, (n_links, 1, 3)) * [1, 1, 0.3]
    return NavMesh(
        vertices=verts, polygons=polys, neighbours=neigh,
        polygon_area=(stance + 1).astype(np.uint8), polygon_region=np.zeros(n, np.int32),
        polygon_stance=stance,
        detail_meshes=np.zeros((0, 4), np.int32), detail_vertices=np.zeros((0, 3)),
        detail_triangles=np.zeros((0, 4), np.int32),
        link_kind=rng.integers(0, 3, n_links).astype(np.int8), link_start=starts,
        link_end=ends, link_bidirectional=rng.random(n_links) < 0.3,
        link_start_poly=rng.integers(0, n, n_links).astype(np.int32),
        link_end_poly=rng.integers(0, n, n_links).astype(np.int32),
        link_apex=rng.uniform(0, 1, n_links), link_length=np.ones(n_links),
        link_cost=np.ones(n_links))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--polygons", type=int, default=100_000)
    ap.add_argument("--links", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    ny = max(1, int(round((args.polygons / 1.6) ** 0.5)))
    nx = max(1, args.polygons // ny)
    nm = grid_navmesh(nx, ny, args.links)
    ob.build_overlay(grid_navmesh(2, 2, 1))  # warm-up
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        geo = ob.build_overlay(nm)
        times.append(time.perf_counter() - t0)
    print(json.dumps({
        "polygons": nm.polygon_count, "links": nm.link_count,
        "vertices": int(sum(g.vertex_count for g in geo.layers.values())),
        "median_ms": 1000 * statistics.median(times), "min_ms": 1000 * min(times),
        "target_ms": 1000 * TARGET_SECONDS,
        "meets_target": statistics.median(times) <= TARGET_SECONDS}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
