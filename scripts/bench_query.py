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

``--native PATH`` compares with Detour side by side: PATH is the ``query`` driver of
``../shared/tools/recast-bench`` (its README says how to build it). The same pairs (turned
to Recast's Y-up frame) go to ``query MESH --points FILE``, which snaps them with
``findNearestPoly`` (half extents 2, 4, 2: NavJump's default search box) and times
findPath + findStraightPath per pair. ``--rounds`` times, one native pass and one NavJump
batch pass (cycle-timed per query) run in turn, the order rotating; ``native`` holds
Detour's medians and ``ratio_navjump_over_native`` the median over rounds of NavJump's
per-query median over Detour's (with the two nearest-polygon look-ups on both sides).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
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
from blender_navjump.core.query.batch_kernel import (  # noqa: E402
    NO_BOUNDS,
    NO_LANDMARKS,
    solve_batch,
)


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
def _timed_queries(d, allowed, cost, link_ok, link_scale, hscale, port_ok, reach, ext, starts,
                   goals, ws, stamp_base, out_cycles):
    found = 0
    for q in range(starts.shape[0]):
        t0 = _cycles()
        res = solve_batch(d, allowed, cost, link_ok, link_scale, hscale, port_ok, reach, ext,
                          starts[q:q + 1], goals[q:q + 1], ws, stamp_base + q, NO_BOUNDS,
                          NO_LANDMARKS)
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


def native_pass(native: str, mesh: pathlib.Path, starts: np.ndarray, goals: np.ndarray,
                up: str) -> dict:
    """One pass of the native Detour driver over the same pairs: its medians in us."""
    def to_yup(p):  # NavJump's Z-up (x, y, z) is Recast's Y-up (x, z, -y)
        return np.stack([p[:, 0], p[:, 2], -p[:, 1]], axis=1) if up == "y" else p

    rows = np.hstack([to_yup(starts), to_yup(goals)])
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        np.savetxt(fh, rows, fmt="%.6f")
        name = fh.name
    try:
        out = subprocess.run([native, str(mesh), "--points", name], capture_output=True,
                             text=True, check=True).stdout
    finally:
        os.unlink(name)
    res = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) > 3 and words[0] == "points" and words[2] == "median":
            key = {"findPath+findStraightPath_us": "path_median_us",
                   "nearest2+findPath+findStraightPath_us": "full_median_us"}.get(words[1])
            if key:
                res[key] = float(words[3])
        elif len(words) > 3 and words[:2] == ["points", "pairs"]:
            res["found"] = int(words[words.index("found") + 1])
            res["partial"] = int(words[words.index("partial") + 1])
    return res


def bench_mesh(path: pathlib.Path, up: str, pairs: int, seed: int, links: bool,
               native: str | None = None, rounds: int = 3) -> dict:
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

    native_res = None
    if native:
        ratios, natives, ours = [], [], []
        for r in range(rounds):
            for side in ((0, 1) if r % 2 == 0 else (1, 0)):
                if side == 0:
                    _timed_queries(*args, q._next_stamps(pairs), cycles)
                    ours.append(float(np.median(cycles.astype(np.float64) / _cycles_per_us())))
                else:
                    natives.append(native_pass(native, path, starts, goals, up))
            ratios.append(ours[-1] / natives[-1]["full_median_us"])
        native_res = {
            "path_median_us": statistics.median(n["path_median_us"] for n in natives),
            "full_median_us": statistics.median(n["full_median_us"] for n in natives),
            "found": natives[-1]["found"], "partial": natives[-1]["partial"],
            "navjump_batch_median_us": round(statistics.median(ours), 3),
            "ratio_navjump_over_native": round(statistics.median(ratios), 3),
            "rounds": rounds}

    corridor = np.diff(res.corridor_offsets)
    out = {
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
    if native_res is not None:
        out["native"] = native_res
    return out


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
    ap.add_argument("--native", metavar="PATH", help="native Detour query driver: paired "
                    "side-by-side comparison on the same pairs")
    ap.add_argument("--rounds", type=int, default=3, help="paired rounds (--native)")
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args(argv)
    meshes = args.meshes or _default_meshes()
    missing = [str(m) for m in meshes if not m.is_file()]
    if missing:
        print(f"error: mesh not found: {', '.join(missing)}", file=sys.stderr)
        return 2
    out = {"target_batch_median_us": 20.0,
           "results": [bench_mesh(m, args.up, args.pairs, args.seed, args.links, args.native,
                                  args.rounds) for m in meshes]}
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
