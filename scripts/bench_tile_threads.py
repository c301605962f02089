"""Serial against threaded tiles: ``python scripts/bench_tile_threads.py MESH.obj
[--tile K] [--tile-size N] [--runs R]``.

Bakes MESH (tiled K x K as ``scripts/bench.py --tile`` does) in tiles of N cells with
``NAVJUMP_TILE_PARALLEL=serial`` and ``=threads`` in turn, R times each (the order
alternating, one warm-up bake of each first, which also checks that both give the same
navmesh), and prints JSON: the wall and CPU milliseconds of every run and the median of
the per-pair wall ratios threads / serial (``core.tiles.tile_parallel_mode`` states the
rule these figures support).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mesh")
    ap.add_argument("--tile", type=int, default=1)
    ap.add_argument("--tile-size", type=int, default=128)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--up", default="y", choices=("y", "z"))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "scripts"))
    import numpy as np
    from bench import tiled

    from blender_navjump.core import BakeSettings, bake
    from blender_navjump.core.objio import read_obj

    v, t = read_obj(args.mesh, up=args.up)
    v, t = np.asarray(v), np.asarray(t)
    if args.tile > 1:
        v, t = tiled(v, t, args.tile)
    settings = BakeSettings(tile_size=args.tile_size)

    def run(mode):
        os.environ["NAVJUMP_TILE_PARALLEL"] = mode
        w0, c0 = time.perf_counter(), time.process_time()
        nm = bake(v, t, settings)
        return nm, (time.perf_counter() - w0) * 1000.0, (time.process_time() - c0) * 1000.0

    serial, threads = run("serial")[0], run("threads")[0]
    if not serial.equals(threads):
        print("error: threads and serial bakes differ", file=sys.stderr)
        return 1
    rows: dict[str, list] = {"serial": [], "threads": []}
    for r in range(args.runs):
        for mode in ("serial", "threads") if r % 2 == 0 else ("threads", "serial"):
            _nm, wall, cpu = run(mode)
            rows[mode].append({"wall_ms": round(wall, 1), "cpu_ms": round(cpu, 1)})
    ratio = statistics.median(a["wall_ms"] / b["wall_ms"]
                              for a, b in zip(rows["threads"], rows["serial"], strict=True))
    print(json.dumps({"mesh": pathlib.Path(args.mesh).name, "tile": args.tile,
                      "tile_size": args.tile_size, "triangles": int(t.shape[0]),
                      "tiles": len(set(serial.polygon_tile.tolist())),
                      "runs": rows, "wall_ratio_threads_over_serial": round(ratio, 3)},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
