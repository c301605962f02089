"""Benchmark the bake: ``python scripts/bench.py MESH.obj [...] [--runs N] [--tile K]``.

Each mesh is baked in its own child process (so peak memory and JIT time are its own):
one first call (reported separately as ``first_call_ms``: JIT compile or cache load), then
``--runs`` timed bakes. Prints JSON: per mesh the median and min of every stage, total,
peak RSS, counts. ``--tile K`` also benchmarks each mesh tiled K x K (dungeon 10 x 10 is
the ~1 M-triangle scene). ``--cold`` uses an empty numba cache for the first call.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def tiled(vertices, triangles, k):
    import numpy as np

    size = vertices.max(axis=0) - vertices.min(axis=0)
    vs, ts = [], []
    n = vertices.shape[0]
    for i in range(k):
        for j in range(k):
            off = np.array([i * (size[0] + 2.0), j * (size[1] + 2.0), 0.0])
            vs.append(vertices + off)
            ts.append(triangles + n * (i * k + j))
    return np.concatenate(vs), np.concatenate(ts)


def run_single(path: str, up: str, runs: int, tile: int, settings_json: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from blender_navjump.core import BakeSettings, bake
    from blender_navjump.core.objio import read_obj

    v, t = read_obj(path, up=up)
    if tile > 1:
        v, t = tiled(v, t, tile)
    settings = BakeSettings.from_dict({**BakeSettings().to_dict(), **json.loads(settings_json)})
    t0 = time.perf_counter()
    nm = bake(v, t, settings)
    first = (time.perf_counter() - t0) * 1000.0
    per_stage: dict[str, list[float]] = {}
    for _ in range(runs):
        nm = bake(v, t, settings)
        for k, ms in nm.stats["timings_ms"].items():
            per_stage.setdefault(k, []).append(ms)
    return {
        "mesh": pathlib.Path(path).name + (f" x{tile}x{tile}" if tile > 1 else ""),
        "triangles": int(t.shape[0]),
        "runs": runs,
        "first_call_ms": round(first, 2),
        "median_ms": {k: round(statistics.median(x), 3) for k, x in per_stage.items()},
        "min_ms": {k: round(min(x), 3) for k, x in per_stage.items()},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "polygons": nm.stats["polygons"],
        "walkable_area_m2": round(nm.stats["walkable_area_m2"], 1),
        "links": nm.stats.get("links", {}),
        "grid": nm.stats["grid"],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("meshes", nargs="+")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--up", default="y", choices=("y", "z"))
    ap.add_argument("--tile", type=int, default=0,
                    help="also bench each mesh tiled K x K (e.g. 10 for ~1 M triangles)")
    ap.add_argument("--tile-runs", type=int, default=3)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--cold", action="store_true", help="empty numba cache for the first call")
    ap.add_argument("--single", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tile-one", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    from blender_navjump.core.settings import BakeSettings

    overrides = {}
    for item in args.set:
        name, text = item.split("=", 1)
        overrides[name] = BakeSettings.parse_value(name, text)
    settings_json = json.dumps(overrides)

    if args.single:
        res = run_single(args.meshes[0], args.up, args.runs, args.tile_one, settings_json)
        print(json.dumps(res))
        return 0

    jobs = [(m, 1, args.runs) for m in args.meshes]
    if args.tile > 1:
        jobs += [(m, args.tile, args.tile_runs) for m in args.meshes]
    results = []
    for mesh, tile, runs in jobs:
        env = dict(os.environ)
        tmp = None
        if args.cold:
            tmp = tempfile.mkdtemp(prefix="navjump-numba-")
            env["NUMBA_CACHE_DIR"] = tmp
        cmd = [sys.executable, __file__, mesh, "--single", "--runs", str(runs), "--up", args.up,
               "--tile-one", str(tile)] + [f"--set={s}" for s in args.set]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            return 1
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    report = {"python": sys.version.split()[0], "cpu_count": os.cpu_count(),
              "settings": overrides, "results": results}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
