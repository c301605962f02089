"""Independent checks on baked navmeshes, written from the triangles and the polygons only."""

from __future__ import annotations

import numpy as np


def polygon_area_2d(pts: np.ndarray) -> float:
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def assert_convex_ccw(nm, max_verts=6):
    for p in range(nm.polygon_count):
        pts = nm.polygon_vertices(p)
        assert 3 <= len(pts) <= max_verts, f"polygon {p} has {len(pts)} vertices"
        assert polygon_area_2d(pts) > 0, f"polygon {p} is not counter-clockwise from above"
        n = len(pts)
        for i in range(n):
            a, b, c = pts[i], pts[(i + 1) % n], pts[(i + 2) % n]
            cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
            assert cross >= -1e-6, f"polygon {p} is not convex at vertex {(i + 1) % n}"


def assert_adjacency_symmetric(nm):
    for p in range(nm.polygon_count):
        row = nm.polygons[p]
        n = int((row >= 0).sum())
        for i in range(n):
            q = nm.neighbours[p, i]
            if q < 0:
                continue
            assert p in set(nm.neighbours[q].tolist()), f"{p}->{q} has no way back"
            # the shared edge has the same two vertices
            a, b = row[i], row[(i + 1) % n]
            qrow = nm.polygons[q]
            qn = int((qrow >= 0).sum())
            j = list(nm.neighbours[q, :qn]).index(p)
            assert {a, b} == {qrow[j], qrow[(j + 1) % qn]}, f"edge {p}/{q} does not match"


def connected_components(nm) -> np.ndarray:
    comp = np.full(nm.polygon_count, -1, np.int32)
    c = 0
    for s in range(nm.polygon_count):
        if comp[s] >= 0:
            continue
        stack = [s]
        comp[s] = c
        while stack:
            p = stack.pop()
            for q in nm.neighbours[p]:
                if q >= 0 and comp[q] < 0:
                    comp[q] = c
                    stack.append(q)
        c += 1
    return comp


def point_in_polygon_2d(pt, poly) -> bool:
    x, y = pt[0], pt[1]
    inside = False
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i][0], poly[i][1]
        x2, y2 = poly[(i + 1) % n][0], poly[(i + 1) % n][1]
        if (y1 > y) != (y2 > y):
            xi = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < xi:
                inside = not inside
    return inside


def polygons_at(nm, xy) -> list[int]:
    return [p for p in range(nm.polygon_count) if point_in_polygon_2d(xy, nm.polygon_vertices(p))]


def surface_heights_at(vertices, triangles, x, y) -> list[float]:
    """All heights where a vertical line through (x, y) meets a triangle."""
    a = vertices[triangles[:, 0]]
    b = vertices[triangles[:, 1]]
    c = vertices[triangles[:, 2]]
    d = (b[:, 1] - c[:, 1]) * (a[:, 0] - c[:, 0]) + (c[:, 0] - b[:, 0]) * (a[:, 1] - c[:, 1])
    ok = np.abs(d) > 1e-12
    d = np.where(ok, d, 1.0)
    l1 = ((b[:, 1] - c[:, 1]) * (x - c[:, 0]) + (c[:, 0] - b[:, 0]) * (y - c[:, 1])) / d
    l2 = ((c[:, 1] - a[:, 1]) * (x - c[:, 0]) + (a[:, 0] - c[:, 0]) * (y - c[:, 1])) / d
    l3 = 1 - l1 - l2
    eps = 1e-9
    hit = ok & (l1 >= -eps) & (l2 >= -eps) & (l3 >= -eps)
    z = l1 * a[:, 2] + l2 * b[:, 2] + l3 * c[:, 2]
    return sorted(z[hit].tolist())
