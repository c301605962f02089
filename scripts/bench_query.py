"""Benchmark path queries: ``python scripts/bench_query.py [MESH.obj ...] [--pairs N]``.

Defaults to Recast's dungeon.obj and nav_test.obj (Y-up; $NAVJUMP_RECAST_DATA or
shared/data/recast beside the repo), baked with default settings (``--links``: with jump
links). For each mesh, N random
start/goal pairs on the navmesh surface (fixed seed) are answered:

* ``batch``: the whole set in one ``find_paths`` call (``total_ms``, ``mean_us``), and
  each query timed inside the batch kernel with the CPU's cycle counter
  (``median_us``/``p95_us``/``max_us``): the cost of a query without Python overhead;
* ``single``: one ``NavQuery.find_path`` call per query, timed from Python.

Prints JSON. The first call (JIT compile or cache load) is made before timing.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from llvmlite import ir  # noqa: E402
from numba import njit, types  # noqa: E402
from numba.core import cgutils  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

from blender_navjump.core.query import (  # noqa: E402
    AgentFilter,
    NavQuery,
    random_navmesh_points,
)
from blender_navjump.core.query.batch_kernel import solve_batch  # noqa: E402


@intrinsic
def _cycles(typingctx):
    """The CPU's cycle counter (llvm.readcyclecounter): a clock usable inside njit code."""
    sig = types.uint64()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen


@njit
def _timed_queries(d, allowed, cost, link_ok, link_scale, hscale, port_ok, ext, starts, goals,
                   ws, stamp_base, out_cycles):
    found = 0
    for q in range(starts.shape[0]):
        t0 = _cycles()
        res = solve_batch(d, allowed, cost, link_ok, link_scale, hscale, port_ok, ext,
                          starts[q:q + 1], goals[q:q + 1], ws, stamp_base + q)
        out_cycles[q] = _cycles() - t0
        found += res[0][0, 0] == 0
    return found


@njit
def _cycles_now():
    return _cycles()


def _cycles_per_us() -> float:
    _cycles_now()
    best = None
    for _ in range(3):
        c0, t0 = _cycles_now(), time.perf_counter_ns()
        time.sleep(0.05)
        c1, t1 = _cycles_now(), time.perf_counter_ns()
        rate = (c1 - c0) / ((t1 - t0) / 1000.0)
        best = rate if best is None else max(best, rate)
    return float(best)


def _stats(us: np.ndarray) -> dict:
    return {"median_us": round(float(np.median(us)), 3),
            "p95_us": round(float(np.percentile(us, 95)), 3),
            "max_us": round(float(us.max()), 3), "mean_us": round(float(us.mean()), 3)}


def bench_mesh(path: pathlib.Path, up: str, pairs: int, seed: int, links: bool) -> dict:
    from blender_navjump.core import BakeSettings, bake
    from blender_navjump.core.objio import read_obj

    v, t = read_obj(path, up=up)
    nm = bake(v, t, BakeSettings(links_enabled=links))
    rng = np.random.default_rng(seed)
    starts = random_navmesh_points(nm, pairs, rng)
    goals = random_navmesh_points(nm, pairs, rng)
    t0 = time.perf_counter()
    q = NavQuery(nm)
    prep_ms = (time.perf_counter() - t0) * 1000.0
    agent = AgentFilter()
    t0 = time.perf_counter()
    warm = q.find_paths(starts[:4], goals[:4], agent)
    first_ms = (time.perf_counter() - t0) * 1000.0
    del warm

    batch_runs = []
    for _ in range(5):
        t0 = time.perf_counter_ns()
        res = q.find_paths(starts, goals, agent, on_error="status")
        batch_runs.append(time.perf_counter_ns() - t0)
    total_ns = min(batch_runs)

    cycles = np.zeros(pairs, np.uint64)
    args = (q.data, *q._filter_arrays(agent), q.extents, starts, goals, q._ws)
    # scratch stamps must never repeat on one NavQuery: reserve fresh ones for each run
    _timed_queries(*args, q._next_stamps(pairs), cycles)  # compile
    _timed_queries(*args, q._next_stamps(pairs), cycles)
    per_query_us = cycles.astype(np.float64) / _cycles_per_us()

    single = np.empty(pairs)
    for i in range(pairs):
        t0 = time.perf_counter_ns()
        q.find_path(starts[i], goals[i], agent)
        single[i] = (time.perf_counter_ns() - t0) / 1000.0

    corridor = np.diff(res.corridor_offsets)
    return {
        "mesh": path.name,
        "polygons": nm.polygon_count,
        "links": nm.link_count,
        "graph_nodes": int(q.data.node_pos.shape[0]),
        "pairs": pairs,
        "found": int(res.found.sum()),
        "partial": int((res.status == 1).sum()),
        "corridor_median": float(np.median(corridor)),
        "corridor_max": int(corridor.max()),
        "prepare_ms": round(prep_ms, 3),
        "first_call_ms": round(first_ms, 3),
        "batch": {"total_ms": round(total_ns / 1e6, 3),
                  "mean_us": round(total_ns / 1000.0 / pairs, 3),
                  **{k: v for k, v in _stats(per_query_us).items() if k != "mean_us"}},
        "single": _stats(single),
    }


def _default_meshes() -> list[pathlib.Path]:
    env = os.environ.get("NAVJUMP_RECAST_DATA")
    folder = pathlib.Path(env) if env else ROOT.parent / "shared" / "data" / "recast"
    return [folder / "dungeon.obj", folder / "nav_test.obj"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("meshes", nargs="*", type=pathlib.Path)
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--up", choices=("y", "z"), default="y", help="up axis of the OBJ files")
    ap.add_argument("--links", action="store_true", help="bake jump links too")
    args = ap.parse_args(argv)
    meshes = args.meshes or _default_meshes()
    missing = [str(m) for m in meshes if not m.is_file()]
    if missing:
        print(f"error: mesh not found: {', '.join(missing)}", file=sys.stderr)
        return 2
    out = {"target_batch_median_us": 20.0,
           "results": [bench_mesh(m, args.up, args.pairs, args.seed, args.links)
                       for m in meshes]}
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
