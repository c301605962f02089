"""Benchmark the incremental tiled re-bake in the core:
``python scripts/bench_incremental.py [--boxes 3000] [--tile-size 128] [--runs 5] [--links]``.

The 1 M-triangle terraced level of ``bench_links.terraced_level`` (one box per object in
``bench_live.py``) is baked once with a ``TileCache``; then one box moves 0.1 m at a time
and is re-baked with ``changed`` = its old and new bounds. Per run: the re-bake's time,
the tiles re-baked (and relinked), the core's stage timings; the full tiled bake's time
for comparison; every re-bake is checked against a full bake of the same arrays (the
last run only, to keep the benchmark short). Prints JSON (``--out`` also writes it).
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boxes", type=int, default=3000)
    ap.add_argument("--subdiv", type=int, default=12)
    ap.add_argument("--tile-size", type=int, default=128)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--links", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_links import terraced_level

    from blender_navjump.core import BakeSettings, bake
    from blender_navjump.core.tile_cache import TileCache

    v, t = terraced_level(args.boxes, args.subdiv)
    nv = (args.subdiv + 1) ** 2 + 4  # vertices of one box (bench_live.py's objects)
    box = args.boxes // 2 + int(np.sqrt(args.boxes)) // 2
    idx = np.arange(box * nv, (box + 1) * nv)
    s = BakeSettings(tile_size=args.tile_size, links_enabled=args.links)
    cache = TileCache()
    t0 = time.perf_counter()
    nm = bake(v, t, s, tile_cache=cache)
    full_s = time.perf_counter() - t0
    old = (v[idx].min(axis=0), v[idx].max(axis=0))
    runs = []
    for i in range(args.runs):
        v = v.copy()
        v[idx, 0] += 0.1 if i % 2 == 0 else -0.1
        new = (v[idx].min(axis=0), v[idx].max(axis=0))
        t0 = time.perf_counter()
        inc = bake(v, t, s, tile_cache=cache, changed=[old, new])
        ms = (time.perf_counter() - t0) * 1000.0
        old = new
        runs.append({"ms": ms, "tiles_rebaked": len(cache.rebaked),
                     "tiles_relinked": len(cache.relinked) if args.links else 0,
                     "stages_ms": {k: round(x, 1) for k, x in inc.stats["timings_ms"].items()
                                   if x >= 1.0}})
    equal = inc.equals(bake(v, t, s))
    out = {"triangles": int(t.shape[0]), "tile_size": args.tile_size, "links": args.links,
           "tiles": nm.stats["tiles"], "polygons": nm.polygon_count,
           "full_bake_s": round(full_s, 2),
           "rebake_ms": {"median": round(statistics.median(r["ms"] for r in runs), 1),
                         "min": round(min(r["ms"] for r in runs), 1)},
           "equals_full_bake": bool(equal), "runs": runs}
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text + "\n")
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
