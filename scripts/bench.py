"""Benchmark the bake: ``python scripts/bench.py MESH.obj [...] [--runs N] [--tile K]``.

Each mesh is baked in its own child process (so peak memory and JIT time are its own):
one first call (reported separately as ``first_call_ms``: JIT compile or cache load), then
``--runs`` timed bakes. Prints JSON: per mesh the median and min of every stage, total,
peak RSS, counts. ``--tile K`` also benchmarks each mesh tiled K x K (dungeon 10 x 10 is
the ~1 M-triangle scene). ``--cold`` uses an empty numba cache for the first call.

``--tile-size N`` bakes in tiles of N cells (``BakeSettings.tile_size``, the same as
``--set tile_size=N``) and adds the tile count and tiles per second to each result; with
``--tile K`` the 10 x 10 dungeon is the 1 M-triangle scene, 32 x 32 the 10 M one.

``--native PATH`` compares with native Recast side by side: PATH is the ``bench`` driver of
``../shared/tools/recast-bench`` (its README says how to build it). For every mesh (and
tiling) one native and one NavJump process are kept warm and asked for one bake each in
turn, ``--pairs`` times, the order rotating every pair, so the two bakes of a pair run
seconds apart under the same load. Prints per stage the median of the per-pair ratios
NavJump / native, of process CPU time (``cpu_ratio_...``: what the stage cost, whatever else
runs on the machine) and of wall time (``wall_ratio_...``); ``total`` is the whole bake
against native's TOTAL_RECAST (Detour's data left out). NavJump's CPU per stage runs from
one stage's progress call to the next (its ``detail`` includes assembling the NavMesh);
``navjump_only_cpu_ms`` holds its stages native has not (``stances``, ``links``) and
``outside``, the bake's CPU outside every stage (input checks, statistics). Also both
sides' medians, counts and peak memory. ``--partition`` picks the partition of both sides.

``--native-tiled PATH`` (with ``--tile-size N``) compares a tiled bake the same way with
native Recast's tiled build: PATH is ``scripts/native/tilebench`` (built by
``scripts/native/build.sh``), RecastDemo's ``Sample_TileMesh`` flow at the same tile size
(stages summed over the tiles; its ``TOTAL_RECAST`` leaves out Detour's tile data but keeps
its triangle binning). Both sides then report their tile counts.
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


def _scene(path: str, up: str, tile: int, settings_json: str):
    """The mesh (tiled k x k when tile > 1) and the settings (defaults + JSON overrides)."""
    sys.path.insert(0, str(ROOT))
    from blender_navjump.core import BakeSettings
    from blender_navjump.core.objio import read_obj

    v, t = read_obj(path, up=up)
    if tile > 1:
        v, t = tiled(v, t, tile)
    settings = BakeSettings.from_dict({**BakeSettings().to_dict(), **json.loads(settings_json)})
    return v, t, settings


def _current_rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def run_single(path: str, up: str, runs: int, tile: int, settings_json: str) -> dict:
    v, t, settings = _scene(path, up, tile, settings_json)
    from blender_navjump.core import bake
    # the interpreter, numpy and the scene's arrays, before any kernel is loaded
    base_rss = _current_rss_mb()
    t0 = time.perf_counter()
    nm = bake(v, t, settings)
    first = (time.perf_counter() - t0) * 1000.0
    per_stage: dict[str, list[float]] = {}
    for _ in range(runs):
        nm = bake(v, t, settings)
        for k, ms in nm.stats["timings_ms"].items():
            per_stage.setdefault(k, []).append(ms)
    out = {
        "mesh": pathlib.Path(path).name + (f" x{tile}x{tile}" if tile > 1 else ""),
        "triangles": int(t.shape[0]),
        "runs": runs,
        "first_call_ms": round(first, 2),
        "median_ms": {k: round(statistics.median(x), 3) for k, x in per_stage.items()},
        "min_ms": {k: round(min(x), 3) for k, x in per_stage.items()},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "rss_before_bake_mb": base_rss,
        "polygons": nm.stats["polygons"],
        "walkable_area_m2": round(nm.stats["walkable_area_m2"], 1),
        "links": nm.stats.get("links", {}),
        "grid": nm.stats["grid"],
    }
    if settings.tile_size:
        total_s = statistics.median(per_stage["total"]) / 1000.0
        out["tile_size"] = int(settings.tile_size)
        out["tiles"] = nm.stats["tiles"]
        out["tiles_baked"] = nm.stats["tiles_baked"]
        out["tiles_per_s"] = round(nm.stats["tiles_baked"] / total_s, 2)
    return out


# NavJump stage -> native driver stage (recast-bench/common.h STAGE_NAMES)
NATIVE_STAGES = {
    "rasterize": "rasterize", "filter": "filter", "compact": "compact", "erode": "erode",
    "regions": "regions(+distfield)", "contours": "contours", "polygons": "polygons",
    "detail": "detail", "total": "TOTAL_RECAST",
}
PARTITION_IDS = {"watershed": 0, "monotone": 1}


def _stage_cpu(marks: list[tuple[str, float]], c0: float, c1: float) -> dict[str, float]:
    """Process CPU ms per stage from the progress marks (each stage runs from its mark to
    the next one; a tiled bake's per-tile stages summed). ``outside``: the CPU of the bake
    outside every stage (checks before the first stage, assembling the navmesh, statistics
    after the last)."""
    cpu: dict[str, float] = {}
    for (name, a), (_, b) in zip(marks, marks[1:], strict=False):
        # a tiled bake marks "tile 3/16: regions": summed per stage over the tiles
        stage = name.split(": ", 1)[1] if name.startswith("tile ") and ": " in name else name
        cpu[stage] = cpu.get(stage, 0.0) + (b - a) * 1000.0
    cpu["outside"] = (c1 - c0) * 1000.0 - sum(cpu.values())
    return cpu


def serve(path: str, up: str, tile: int, settings_json: str) -> int:
    """Paired mode, NavJump side: one warm bake, then one bake per ``bake`` line on stdin."""
    v, t, settings = _scene(path, up, tile, settings_json)
    from blender_navjump.core import bake
    t0 = time.perf_counter()
    bake(v, t, settings)
    print("READY " + json.dumps({"first_bake_ms": (time.perf_counter() - t0) * 1000.0,
                                 "triangles": int(t.shape[0])}), flush=True)
    for line in sys.stdin:
        if line.startswith("quit"):
            break
        marks: list[tuple[str, float]] = []

        def progress(stage: str, _fraction: float, marks=marks) -> None:
            marks.append((stage, time.process_time()))

        c0 = time.process_time()
        nm = bake(v, t, settings, progress)
        c1 = time.process_time()
        print("RESULT " + json.dumps({
            "polygons": nm.stats["polygons"], "area3d_m2": nm.stats["walkable_area_m2"],
            "wall": nm.stats["timings_ms"], "cpu": _stage_cpu(marks, c0, c1),
            "tiles": len(set(nm.polygon_tile.tolist())) if nm.polygon_tile.size else None,
            "total_cpu": (c1 - c0) * 1000.0}), flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("QUIT " + json.dumps({"peak_rss_mb": rss}), flush=True)
    return 0


class _Served:
    """A warm bake process answering ``bake`` with one ``RESULT {json}`` line."""

    def __init__(self, cmd: list[str]):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        self.ready = self._reply("READY")

    def _reply(self, tag: str) -> dict:
        for line in self.proc.stdout:
            if line.startswith(tag + " "):
                return json.loads(line[len(tag) + 1:])
        raise RuntimeError(f"{self.proc.args[0]} ended without {tag} "
                           f"(exit {self.proc.wait()})")

    def bake(self) -> dict:
        self.proc.stdin.write("bake\n")
        self.proc.stdin.flush()
        return self._reply("RESULT")

    def quit(self) -> dict:
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        out = self._reply("QUIT")
        self.proc.wait()
        return out


def paired(native: str, mesh: str, up: str, tile: int, pairs: int, set_args: list[str],
           partition: str, tile_size: int = 0) -> dict:
    """Native and NavJump baked in turn, ``pairs`` times; medians of per-pair ratios.
    ``tile_size``: ``native`` is the tiled driver (scripts/native/tilebench) at that size."""
    ours = _Served([sys.executable, __file__, mesh, "--serve", "--up", up, "--tile-one",
                    str(tile), f"--set=partition={partition}"] + [f"--set={s}" for s in set_args])
    theirs = _Served([native, mesh, str(PARTITION_IDS[partition]), "serve", str(max(tile, 1))]
                     + ([str(tile_size)] if tile_size else []))
    rows = []
    for i in range(pairs):
        if i % 2 == 0:
            a, b = ours.bake(), theirs.bake()
        else:
            b, a = theirs.bake(), ours.bake()
        rows.append((a, b))
    ours_rss, theirs_rss = ours.quit()["peak_rss_mb"], theirs.quit()["peak_rss_mb"]

    def compare(kind: str, stages) -> tuple[dict, dict, dict]:
        ratios, mine_ms, other_ms = {}, {}, {}
        for stage, nstage in stages:
            mine = [a[kind].get(stage, 0.0) for a, _ in rows]
            other = [b[kind][nstage] for _, b in rows]
            mine_ms[stage] = round(statistics.median(mine), 3)
            other_ms[stage] = round(statistics.median(other), 3)
            ratios[stage] = round(statistics.median(
                [x / y for x, y in zip(mine, other, strict=True) if y > 0]
                or [float("nan")]), 3)
        return ratios, mine_ms, other_ms

    for a, _ in rows:
        a["cpu"]["total"] = a["total_cpu"]
    cpu = compare("cpu", NATIVE_STAGES.items())
    wall = compare("wall", NATIVE_STAGES.items())
    last_ours, last_native = rows[-1]
    return {
        "mesh": pathlib.Path(mesh).name + (f" x{tile}x{tile}" if tile > 1 else ""),
        "partition": partition, "pairs": pairs, "triangles": ours.ready["triangles"],
        "cpu_ratio_navjump_over_native": cpu[0], "wall_ratio_navjump_over_native": wall[0],
        "navjump_median_cpu_ms": cpu[1], "native_median_cpu_ms": cpu[2],
        "navjump_median_wall_ms": wall[1], "native_median_wall_ms": wall[2],
        "navjump_only_cpu_ms": {k: round(statistics.median([a["cpu"][k] for a, _ in rows]), 3)
                                for k in last_ours["cpu"] if k not in NATIVE_STAGES},
        "peak_rss_mb": {"navjump": round(ours_rss, 1), "native": round(theirs_rss, 1)},
        "polygons": {"navjump": last_ours["polygons"], "native": last_native["polygons"]},
        "area3d_m2": {"navjump": round(last_ours["area3d_m2"], 1),
                      "native": last_native.get("area3d_m2")},
        **({"tile_size": tile_size, "tiles": {"navjump": last_ours.get("tiles"),
                                              "native": last_native.get("tiles")}}
           if tile_size else {}),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("meshes", nargs="+")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--up", default="y", choices=("y", "z"))
    ap.add_argument("--tile", type=int, default=0,
                    help="also bench each mesh tiled K x K (e.g. 10 for ~1 M triangles)")
    ap.add_argument("--tile-runs", type=int, default=3)
    ap.add_argument("--tile-size", type=int, default=0, metavar="N",
                    help="bake in tiles of N cells (BakeSettings.tile_size)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--cold", action="store_true", help="empty numba cache for the first call")
    ap.add_argument("--single", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tile-one", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--out", help="also write the JSON here")
    ap.add_argument("--native", metavar="PATH",
                    help="native Recast bench driver: paired side-by-side comparison")
    ap.add_argument("--native-tiled", metavar="PATH",
                    help="native tiled Recast driver (scripts/native/tilebench): paired "
                         "comparison of the --tile-size bake")
    ap.add_argument("--pairs", type=int, default=20, help="paired bakes per mesh (--native)")
    ap.add_argument("--tile-pairs", type=int, default=5, help="paired bakes per tiled mesh")
    ap.add_argument("--partition", default="watershed", choices=sorted(PARTITION_IDS),
                    help="partition of both sides (--native)")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    from blender_navjump.core.settings import BakeSettings

    if args.tile_size:  # children and the paired native mode get it as a --set
        args.set.append(f"tile_size={args.tile_size}")
    overrides = {}
    for item in args.set:
        name, text = item.split("=", 1)
        overrides[name] = BakeSettings.parse_value(name, text)
    settings_json = json.dumps(overrides)

    if args.serve:
        return serve(args.meshes[0], args.up, args.tile_one, settings_json)
    if args.native or args.native_tiled:
        if args.native_tiled and not args.tile_size:
            ap.error("--native-tiled needs --tile-size N")
        native = args.native_tiled or args.native
        jobs = [(m, 1, args.pairs) for m in args.meshes]
        if args.tile > 1:
            jobs += [(m, args.tile, args.tile_pairs) for m in args.meshes]
        results = [paired(native, m, args.up, k, n, args.set, args.partition,
                          args.tile_size if args.native_tiled else 0)
                   for m, k, n in jobs if n > 0]
        report = {"python": sys.version.split()[0], "cpu_count": os.cpu_count(),
                  "native": native, "settings": overrides, "results": results}
        text = json.dumps(report, indent=2)
        print(text)
        if args.out:
            pathlib.Path(args.out).write_text(text)
        return 0
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
