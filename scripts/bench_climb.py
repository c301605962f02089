"""Benchmark the climb graph: ``python scripts/bench_climb.py [--elements N] [--runs R]``.

Builds a level of climbing towers (a K x K grid of 4 m boxes on a floor, each with a ledge
along two top edges, a ladder and a pipe, N elements in all), bakes its navmesh once to load
the JIT cache, then ``--runs`` times, and times ``core.climb.add_climbing`` (elements, graph
with collision probes, navmesh join) as often; then times one batch of ``--queries``
random path queries (``NavQuery.find_paths``) by an agent without climbing abilities and by
one with all. Prints JSON: median navmesh bake and climb times (ms), their ratio (issue
13's target: climb <= 10% of the bake), the query batch times and their ratio (target:
with climbing <= 2x without; the two batches timed in turn), the climbing agent's
one-off set-up per filter and penalty (``climb_query_setup_ms``: ways and landmarks,
cached, so not in the batch times) and the counts. ``climb_ms`` is the graph of the authored
elements; ``climb_with_found_ledges_ms`` adds the ledge finder (every tower top edge is a
candidate there).
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _box(verts, tris, x0, y0, z0, x1, y1, z1):
    base = len(verts)
    verts += [(x, y, z) for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)]
    for a, b, c, d in ((0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2),
                       (1, 3, 7, 5)):
        tris += [(base + a, base + b, base + c), (base + a, base + c, base + d)]


def level(n_elements: int):
    """(vertices, triangles, climb items) of a grid of towers with 4 elements each."""
    from blender_navjump.core.kinds import CLIMB_LADDER, CLIMB_LEDGE, CLIMB_PIPE

    k = max(1, math.ceil(math.sqrt(n_elements / 4)))
    pitch = 12.0
    verts, tris = [], []
    size = k * pitch
    verts += [(-2, -2, 0), (size, -2, 0), (size, size, 0), (-2, size, 0)]
    tris += [(0, 1, 2), (0, 2, 3)]
    items = []
    for i in range(k):
        for j in range(k):
            x, y = i * pitch, j * pitch
            _box(verts, tris, x, y, 0, x + 6, y + 6, 4)
            top = 4.0
            for name, kind, pts in (
                    (f"t{i}_{j}s-ledge", CLIMB_LEDGE, [(x + 0.5, y, top), (x + 5.5, y, top)]),
                    (f"t{i}_{j}w-ledge", CLIMB_LEDGE, [(x, y + 0.5, top), (x, y + 5.5, top)]),
                    (f"t{i}_{j}-ladder", CLIMB_LADDER,
                     [(x + 6.1, y + 2, 0), (x + 6.1, y + 2, top)]),
                    (f"t{i}_{j}-pipe", CLIMB_PIPE, [(x + 3, y + 6.1, 0), (x + 3, y + 6.1, top)])):
                if len(items) < n_elements:
                    items.append((name, kind, np.array(pts, np.float64)))
    return np.array(verts, np.float64), np.array(tris, np.int32), items


def _queries(navmesh, n: int, runs: int) -> tuple[float, float, int, float]:
    """Median ms of one batch of ``n`` random queries (fixed seed) without climbing
    abilities and with all of them (issue 13's target: with <= 2x without), how many of
    the answers climb, and the median ms of the climbing agent's one-off set-up (ways
    through the climb graph and their landmarks, built on a filter's or penalty's first
    query and cached; not in the batch times). The two batches are timed in turn, run
    after run, so that a change of load on the machine falls on both alike."""
    from blender_navjump.core.query import AgentFilter, NavQuery, random_navmesh_points
    from blender_navjump.core.query.climb import climb_solver

    starts = random_navmesh_points(navmesh, n, 1)
    goals = random_navmesh_points(navmesh, n, 2)
    query = NavQuery(navmesh)
    walker, climber = AgentFilter(abilities=()), AgentFilter()
    times: dict[str, list[float]] = {"plain": [], "climb": []}
    agents = (("plain", walker), ("climb", climber))
    for _, agent in agents:
        query.find_paths(starts, goals, agent, on_error="status")  # compile, cache
    for _ in range(max(runs, 3)):
        for name, agent in agents:
            t0 = time.perf_counter()
            batch = query.find_paths(starts, goals, agent, on_error="status")
            times[name].append((time.perf_counter() - t0) * 1000.0)
    setup = []
    for _ in range(max(runs, 3)):
        query.__dict__.pop("_climb_solvers", None)
        t0 = time.perf_counter()
        climb_solver(query, climber)
        setup.append((time.perf_counter() - t0) * 1000.0)
    return (statistics.median(times["plain"]), statistics.median(times["climb"]),
            len(batch.climb_edges), statistics.median(setup))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", type=int, default=1000)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from blender_navjump.core import bake
    from blender_navjump.core.climb import add_climbing
    from blender_navjump.core.settings import BakeSettings

    v, t, items = level(args.elements)
    # the climb graph of the authored elements alone, then with found ledges too (the
    # towers are 4 m, above max_climb_height: every top edge is a candidate, none a ledge)
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    finding = BakeSettings(climbing_enabled=True, auto_ledges=True)
    nm = bake(v, t, settings)
    add_climbing(nm, items[:8], v, t, finding)  # compile the kernels
    bake_ms, climb_ms, found_ms = [], [], []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        nm = bake(v, t, settings)
        t1 = time.perf_counter()
        out, warnings = add_climbing(nm, items, v, t, settings)
        t2 = time.perf_counter()
        add_climbing(nm, items, v, t, finding)
        t3 = time.perf_counter()
        bake_ms.append((t1 - t0) * 1000.0)
        climb_ms.append((t2 - t1) * 1000.0)
        found_ms.append((t3 - t2) * 1000.0)
    b, c = statistics.median(bake_ms), statistics.median(climb_ms)
    f = statistics.median(found_ms)
    q_plain, q_climb, n_climbing, q_setup = _queries(out, args.queries, args.runs)
    print(json.dumps({
        "elements": int(out.climb_element_count), "triangles": int(t.shape[0]),
        "polygons": out.polygon_count, "climb_nodes": int(out.climb_node_position.shape[0]),
        "climb_edges": int(out.climb_edge_kind.shape[0]),
        "climb_links": int(out.climb_link_kind.shape[0]), "warnings": len(warnings),
        "bake_ms": round(b, 1), "climb_ms": round(c, 1), "climb_over_bake": round(c / b, 4),
        "climb_with_found_ledges_ms": round(f, 1),
        "climb_with_found_ledges_over_bake": round(f / b, 4),
        "queries": args.queries, "queries_climbing": n_climbing,
        "query_batch_ms_without_climbing": round(q_plain, 2),
        "query_batch_ms_with_climbing": round(q_climb, 2),
        "query_with_over_without": round(q_climb / q_plain, 3),
        "climb_query_setup_ms": round(q_setup, 2),
        "runs": args.runs}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
