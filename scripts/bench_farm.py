"""Benchmark the batch runners on copies of the demo level; JSON out.

    python scripts/bench_farm.py [--copies 20] [--workers 2] [--modes jobs,openjd,dask]
        [--format json] [--json out.json]

Modes (each bakes the same ``--copies`` copies of assets/demo_level.blend):

* ``jobs``: ``scripts/bake.py --jobs W`` (a process pool on this machine);
* ``openjd``: ``openjd run scripts/openjd/navjump-bake.openjd.yaml`` (one process per file,
  run one after another by the reference runner, then the merge step);
* ``dask``: ``scripts/bake.py --scheduler`` on a Dask ``LocalCluster`` of W worker
  processes with one thread each (cluster start-up is timed separately).

For each mode: wall time, per-file time (from the report: a file's own open + bake + write
seconds; first, median, max), wall time per file, and ``cache_files_added``: how many files
the run added to the numba cache folder (0 means no kernel was compiled, only loaded). One
untimed bake warms the cache first. Blender's user folder is one of this checkout's own
(``$BLENDER_USER_RESOURCES`` if set). Needs the ``farm`` extra and bpy 5.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "assets" / "demo_level.blend"
BAKE = ROOT / "scripts" / "bake.py"
TEMPLATE = ROOT / "scripts" / "openjd" / "navjump-bake.openjd.yaml"
OPENJD = Path(sys.executable).with_name("openjd")


def cache_file_count() -> int | None:
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if not folder or not os.path.isdir(folder):
        return None
    return sum(len(files) for _, _, files in os.walk(folder))


def run(cmd) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          cwd=str(ROOT))
    return time.perf_counter() - t0, proc


def per_file(report: dict) -> dict:
    seconds = [e["seconds"] for e in report["files"]]
    setup = [e.get("phases_s", {}).get("worker_setup") for e in report["files"]]
    out = {"ok": report["succeeded"], "failed": report["failed"],
           "first_s": round(seconds[0], 3), "median_s": round(statistics.median(seconds), 3),
           "max_s": round(max(seconds), 3), "sum_s": round(sum(seconds), 2)}
    if any(s is not None for s in setup):
        out["worker_setup_s"] = sorted({round(s, 2) for s in setup if s is not None})
    return out


def result(mode: str, wall: float, proc, report_path: Path, copies: int, before) -> dict:
    if proc.returncode != 0 or not report_path.is_file():
        return {"mode": mode, "error": f"exit {proc.returncode}",
                "stderr_tail": proc.stderr[-2000:], "stdout_tail": proc.stdout[-2000:]}
    report = json.loads(report_path.read_text(encoding="utf-8"))
    after = cache_file_count()
    return {"mode": mode, "wall_s": round(wall, 2), "wall_per_file_s": round(wall / copies, 3),
            "per_file": per_file(report),
            "cache_files_added": None if before is None or after is None else after - before}


def private_blender_folder():
    """A Blender user folder of this checkout's own: the extension is staged there as links
    to this source tree, so the runs measure this checkout whatever else runs here."""
    import getpass
    import hashlib

    key = hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]
    os.environ.setdefault("BLENDER_USER_RESOURCES", str(
        Path(tempfile.gettempdir()) / f"navjump-bench-{getpass.getuser()}-{key}"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--modes", default="jobs,openjd,dask")
    ap.add_argument("--format", default="json")
    ap.add_argument("--json", metavar="PATH", help="also write the results here")
    args = ap.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    private_blender_folder()

    work = Path(tempfile.mkdtemp(prefix="navjump-bench-farm-"))
    try:
        levels = []
        for i in range(args.copies):
            path = work / "levels" / f"level_{i:02d}.blend"
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(DEMO, path)
            levels.append(str(path))
        warm_s, proc = run([sys.executable, BAKE, DEMO, "--out", work / "warm"])
        if proc.returncode != 0:
            print(proc.stdout + proc.stderr, file=sys.stderr)
            return 1
        results = {"copies": args.copies, "workers": args.workers, "format": args.format,
                   "cpu_count": os.cpu_count(), "warm_up_bake_s": round(warm_s, 2),
                   "runs": []}
        for mode in modes:
            out = work / f"out_{mode}"
            report = out / "report.json"
            before = cache_file_count()
            if mode == "jobs":
                wall, proc = run([sys.executable, BAKE, *levels, "--jobs", args.workers,
                                  "--out", out, "--format", args.format, "--report", report])
            elif mode == "openjd":
                wall, proc = run([OPENJD, "run", TEMPLATE, "-p", f"NavJumpDir={ROOT}",
                                  "-p", f"Python={sys.executable}", "-p", f"OutputDir={out}",
                                  "-p", f"Files={json.dumps(levels)}",
                                  "-p", f"Formats={args.format}"])
                report = out / "navjump-batch-report.json"
            elif mode == "dask":
                from distributed import LocalCluster

                t0 = time.perf_counter()
                cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                       processes=True, host="127.0.0.1",
                                       dashboard_address=None)
                start_s = time.perf_counter() - t0
                try:
                    wall, proc = run([sys.executable, BAKE, *levels, "--scheduler",
                                      cluster.scheduler_address, "--out", out, "--format",
                                      args.format, "--report", report])
                finally:
                    cluster.close()
            else:
                ap.error(f"unknown mode {mode!r}; use jobs, openjd, dask")
            entry = result(mode, wall, proc, report, args.copies, before)
            if mode == "dask":
                entry["cluster_start_s"] = round(start_s, 2)
            results["runs"].append(entry)
            print(json.dumps(entry), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
