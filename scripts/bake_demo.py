#!/usr/bin/env python
"""Bake the demo level headless and print what came out.

    python scripts/bake_demo.py [--out DIR] [--blend PATH] [--save-blend]

Runs under plain Python with the ``bpy`` module (``pip install -e .[test]``): loads
NavJump as a real Blender extension, opens the level, runs ``bpy.ops.navjump.bake()``
(the same operator as the Bake button) and writes the NavMesh to DIR as NavJump JSON
(``demo_level.navjump.json``). The first run compiles the numba kernels (a minute or
more, and one line on stderr says so); later runs load them from the per-user kernel cache
(README, "Compiled kernels").
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_BLEND = ROOT / "assets" / "demo_level.blend"


def _write_navmesh(module: str, navmesh, out_dir: pathlib.Path, stem: str) -> pathlib.Path:
    try:
        navjump_json = importlib.import_module(f"{module}.export.navjump_json")
    except ImportError:
        path = out_dir / f"{stem}.npz"
        navmesh.save(path)
        return path
    path = out_dir / f"{stem}.navjump.json"
    navjump_json.write_json(navmesh, path)
    return path


def _format_summary(blend, summary: dict, gather: dict, seconds: float) -> str:
    stances = summary["polygons_by_stance"]
    areas = summary["area_by_stance_m2"]
    kinds = summary["links_by_kind"]
    timings = summary.get("timings_ms", {})
    lines = [
        f"NavJump demo bake: {blend}",
        f"  input     {gather.get('triangles', 0)} triangles from {gather.get('objects', 0)} "
        f"objects ({gather.get('obstacle_triangles', 0)} obstacle triangles), gathered in "
        f"{gather.get('seconds', 0.0) * 1000:.0f} ms",
        f"  polygons  {summary['polygons']} ("
        + ", ".join(f"{k} {v}" for k, v in stances.items()) + ")",
        "  area      " + ", ".join(f"{k} {v:.1f} m2" for k, v in areas.items()),
        f"  links     {summary['links']} ("
        + ", ".join(f"{k} {v}" for k, v in kinds.items()) + ")",
        *([f"  climbing  {climb['elements']} elements, {climb['nodes']} nodes, "
           f"{climb['edges']} edges, {climb['links']} links to the navmesh"]
          if (climb := summary.get("climb") or {}).get("elements") else []),
        f"  time      {seconds:.2f} s for bpy.ops.navjump.bake() (core "
        f"{timings.get('total', 0.0) / 1000:.2f} s; the first bake in a process also "
        f"loads or compiles the kernels)",
    ]
    stages = [f"{k} {v:.0f}" for k, v in timings.items() if k != "total"]
    if stages:
        lines.append("  stages    " + ", ".join(stages) + " (ms)")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Bake the NavJump demo level headless.")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "out",
                        help="folder for the baked navmesh (default: out/)")
    parser.add_argument("--blend", type=pathlib.Path, default=DEFAULT_BLEND,
                        help="level to bake (default: assets/demo_level.blend)")
    parser.add_argument("--save-blend", action="store_true",
                        help="also save the baked level as DIR/<name>_baked.blend")
    args = parser.parse_args(argv)
    if not args.blend.is_file():
        print(f"error: {args.blend} not found (build it with "
              f"python scripts/build_demo_level.py)", file=sys.stderr)
        return 1

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # run from a checkout without installing
    import bpy

    from blender_navjump.blender import devload

    module = devload.enable_source_extension()
    try:
        bpy.ops.wm.open_mainfile(filepath=str(args.blend))
        t0 = time.perf_counter()
        try:
            bpy.ops.navjump.bake()
        except RuntimeError as exc:  # the operator reported an error
            print(f"error: {exc}", file=sys.stderr)
            return 1
        seconds = time.perf_counter() - t0
        scene = bpy.context.scene
        storage = importlib.import_module(f"{module}.blender.storage")
        navmesh = storage.load_navmesh(scene)
        report = storage.read_report(scene)
        args.out.mkdir(parents=True, exist_ok=True)
        stem = args.blend.stem
        written = _write_navmesh(module, navmesh, args.out, stem)
        print(_format_summary(args.blend, storage.summarize(navmesh), report["gather"],
                              seconds))
        for warning in report.get("warnings") or []:
            print(f"  warning   {warning}")
        print(f"  wrote     {written}")
        offscreen = importlib.import_module(f"{module}.blender.offscreen")
        try:
            png = offscreen.render_overlay_png(scene, navmesh, path="auto", size=(1280, 720),
                                               camera="three_quarter",
                                               filepath=args.out / f"{stem}_overlay.png")
            print(f"  wrote     {png}")
        except offscreen.GPUUnavailable as exc:
            print(f"  warning   no overlay picture: {exc}")
        if args.save_blend:
            baked = args.out / f"{stem}_baked.blend"
            bpy.ops.wm.save_as_mainfile(filepath=str(baked), copy=True, compress=True)
            print(f"  wrote     {baked}")
    finally:
        devload.disable_source_extension()
    return 0


if __name__ == "__main__":
    sys.exit(main())
