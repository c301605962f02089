"""Benchmark Auto re-bake in the real bpy module: ``python scripts/bench_live.py [--runs N]``.

Two levels: the bundled demo level (``assets/demo_level.blend``) and a procedural
1 M-triangle level of 3,000 objects (``bench_links.terraced_level``: one Blender object
per terraced box). Two edits on each: a slider change (``agent_radius``) and moving one
crate (the demo's obstacle crate; one box of the big level). For each edit, ``--runs``
times, the time from the change to the stored result, split into:

* ``handler_ms``: what runs on the edit: Blender's depsgraph evaluation, our depsgraph
  handler and the settings message; ``check_ms``: of that, NavJump's own change check (a
  slider change tags the whole scene, as a Python-set property does not tag it; a moved
  crate tags only itself, as the UI does);
* ``objects_read`` and ``gather_patched`` (1: only the touched objects were read and
  written into the last gather's arrays, ``gather.ObjectCache``);
* ``gather_ms``, ``bake_ms`` (the core bake in the worker thread, its input validation
  included), ``validate_ms`` (the core's time outside its stages: input validation,
  voxel set-up), ``store_ms`` (writing the result into the scene), ``overlay_ms``;
* ``ui_blocked_ms``: what of it ran in Blender's main thread (handler, gather, store,
  overlay: the bake itself runs beside the UI);
* ``depsgraph_ms``: Blender's evaluation of the new result objects (a view layer update
  right after storing; inside an operator, as the synchronous Auto re-bake ran, Blender
  does it before the operator returns, so there it is part of ``bake_ms``);
* ``total_ms``: change to stored result, rebuilt overlay and evaluated scene (the debounce, a fixed
  ``DEBOUNCE_SECONDS``, is not included: the benchmark runs the timers' work directly).

With a checkout whose Auto re-bake baked synchronously (``live_rebake`` without
``finish``: the "before" of issue 17) only ``handler_ms``, ``bake_ms`` (the operator:
gather, validate, bake and store) and ``total_ms`` are measured; ``ui_blocked_ms`` is then
the whole. ``full_gather_ms``: one gather without the object cache, for comparison.
Prints JSON (``--out`` also writes it). Medians and minimums over the runs.
``--blob-polygons N`` (default 100,000; 0: skip) also times writing and reading the
stored navmesh blob of a synthetic N-polygon navmesh (``bench_overlay.grid_navmesh``),
zlib-compressed (what a saved .blend holds) and stored (what a bake keeps in the session).
``--links`` bakes with jump links on (off by default: their search dominates and has its
own benchmark, ``bench_links.py``). ``--tile-size N`` bakes in tiles of N cells: a moved
crate re-bakes only the tiles its old and new bounds touch (``tiles_rebaked`` per edit;
the slider changes re-bake every tile). ``--skip-demo``: the big level only.
"""

from __future__ import annotations

import argparse
import getpass
import hashlib
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEMO_LEVEL = ROOT / "assets" / "demo_level.blend"
REPO_MODULE = "navjump_tests"  # staged as the tests stage it: their compiled kernels are reused


def _user_folder() -> str:
    checkout = hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]
    return str(pathlib.Path(tempfile.gettempdir())
               / f"navjump-blender-tests-{getpass.getuser()}-{checkout}")


def _big_level(bpy, scene, n_boxes: int, subdiv: int):
    """``n_boxes`` mesh objects, one per terraced box; returns the one to move."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_links import terraced_level

    v, t = terraced_level(n_boxes, subdiv)
    nv = (subdiv + 1) ** 2 + 4
    nt = 2 * subdiv * subdiv + 8
    for b in range(n_boxes):
        co = v[b * nv:(b + 1) * nv]
        tris = t[b * nt:(b + 1) * nt] - b * nv
        mesh = bpy.data.meshes.new(f"Box {b}")
        mesh.vertices.add(nv)
        mesh.vertices.foreach_set("co", co.astype(np.float32).ravel())
        mesh.loops.add(tris.size)
        mesh.loops.foreach_set("vertex_index", tris.astype(np.int32).ravel())
        mesh.polygons.add(nt)
        mesh.polygons.foreach_set("loop_start", np.arange(0, tris.size, 3, dtype=np.int32))
        mesh.update(calc_edges=True)
        scene.collection.objects.link(bpy.data.objects.new(f"Box {b}", mesh))
    return bpy.data.objects[f"Box {n_boxes // 2 + int(np.sqrt(n_boxes)) // 2}"]


def _update(bpy, live, tag_scene: bool = True):
    """What Blender does after an edit. ``tag_scene``: a slider change (a Python-set
    property does not tag the depsgraph, so the whole scene is tagged for it); moving an
    object tags only the object, as the UI does (tagging the scene re-evaluates all 3,000
    objects: ~200 ms that a move in the UI never costs)."""
    if tag_scene:
        bpy.context.scene.update_tag()
    bpy.context.view_layer.update()
    live._on_settings_message()


class _CheckTimer:
    """Wraps ``live_rebake._check`` (both handlers call it) to time NavJump's part."""

    def __init__(self, live):
        self.live, self.inner, self.seconds = live, live._check, 0.0
        live._check = self

    def __call__(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return self.inner(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - t0


def _one_edit(bpy, live, edit, tag_scene: bool = True) -> dict:
    timer = live._check if isinstance(live._check, _CheckTimer) else _CheckTimer(live)
    timer.seconds = 0.0
    t0 = time.perf_counter()
    edit()
    _update(bpy, live, tag_scene)
    t_handled = time.perf_counter()
    check_ms = timer.seconds * 1000.0
    assert live.pending(), live.status()
    if not hasattr(live, "finish"):  # the synchronous Auto re-bake
        timings = live.fire_pending()
        t_stored = time.perf_counter()
        assert timings is not None, live.status()
        bpy.context.view_layer.update()
        t_done = time.perf_counter()
        return {"handler_ms": (t_handled - t0) * 1000.0, "check_ms": check_ms,
                "bake_ms": timings["bake_ms"],
                "overlay_ms": timings["overlay_ms"],
                "depsgraph_ms": (t_done - t_stored) * 1000.0,
                "ui_blocked_ms": (t_done - t0) * 1000.0, "total_ms": (t_done - t0) * 1000.0}
    assert live.fire_pending(), live.status()
    t_started = time.perf_counter()
    live._state.running.job.wait()
    t_waited = time.perf_counter()
    timings = live.finish()
    t_stored = time.perf_counter()
    assert timings is not None, live.status()
    bpy.context.view_layer.update()
    t_done = time.perf_counter()
    handler = (t_handled - t0) * 1000.0
    return {"handler_ms": handler, "check_ms": check_ms, "gather_ms": timings["gather_ms"],
            "bake_ms": timings["bake_ms"],
            "validate_ms": timings["validate_ms"],
            "store_ms": timings["store_ms"], "overlay_ms": timings["overlay_ms"],
            "depsgraph_ms": (t_done - t_stored) * 1000.0,
            "objects_read": timings["gather"]["reads"],
            "gather_patched": int(bool(timings.get("gather_patched"))),
            "tiles_rebaked": timings.get("tiles_rebaked") or 0,
            "ui_blocked_ms": handler + (t_started - t_handled) * 1000.0
            + (t_done - t_waited) * 1000.0,
            "total_ms": (t_done - t0) * 1000.0}


def _summary(runs: list[dict]) -> dict:
    out: dict = {"runs": len(runs)}
    for key in runs[0]:
        values = [r[key] for r in runs]
        out[key] = {"median": round(statistics.median(values), 2),
                    "min": round(min(values), 2)}
    return out


def _full_gather_ms(bpy, gather, runs: int) -> float:
    """One gather without the object cache (every object read), min of ``runs``."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        gather.gather_from_context(bpy.context)
        times.append((time.perf_counter() - t0) * 1000.0)
    return round(min(times), 2)


def bench_level(bpy, live, navjump_storage, scene, crate, runs: int, gather=None) -> dict:
    scene.navjump_overlay.auto_rebake = True
    scene.navjump_overlay.path_test = False
    assert bpy.ops.navjump.bake() == {'FINISHED'}  # warm: kernels loaded, cache filled
    radii = [0.35, 0.4]
    slider = [_one_edit(bpy, live,
                        lambda i=i: setattr(scene.navjump, "agent_radius", radii[i % 2]))
              for i in range(runs + 1)][1:]  # the first fills the object cache

    def move(i):
        crate.location.x += 0.1 if i % 2 == 0 else -0.1

    moves = [_one_edit(bpy, live, lambda i=i: move(i), tag_scene=False) for i in range(runs)]
    nm = navjump_storage.load_navmesh(scene)
    extra = {"full_gather_ms": _full_gather_ms(bpy, gather, runs)} if gather else {}
    return {**extra, "polygons": nm.polygon_count,
            "objects": sum(1 for o in scene.objects if o.type == 'MESH'),
            "slider_change": _summary(slider), "move_one_crate": _summary(moves)}


def bench_blob(polygons: int) -> dict:
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_overlay import grid_navmesh

    from blender_navjump.blender.summary import navmesh_from_bytes, navmesh_to_bytes

    side = int(round(polygons ** 0.5))
    nm = grid_navmesh(side, max(1, polygons // side), 5000)
    out: dict = {"polygons": nm.polygon_count}
    for compress in (True, False):
        writes, reads = [], []
        for _ in range(3):
            t0 = time.perf_counter()
            data = navmesh_to_bytes(nm, compress=compress)
            t1 = time.perf_counter()
            navmesh_from_bytes(data)
            writes.append(t1 - t0)
            reads.append(time.perf_counter() - t1)
        out["compressed" if compress else "stored"] = {
            "write_ms": round(min(writes) * 1000.0, 1),
            "read_ms": round(min(reads) * 1000.0, 1), "bytes": len(data)}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--boxes", type=int, default=3000, help="objects of the big level")
    ap.add_argument("--subdiv", type=int, default=12,
                    help="quads per side of each box top (12: ~1 M triangles for 3,000)")
    ap.add_argument("--links", action="store_true", help="bake with jump links on")
    ap.add_argument("--blob-polygons", type=int, default=100_000)
    ap.add_argument("--skip-big", action="store_true", help="the demo level only")
    ap.add_argument("--skip-demo", action="store_true", help="the big level only")
    ap.add_argument("--tile-size", type=int, default=0, help="tile_size (cells; 0: solo)")
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args(argv)

    os.environ.setdefault("BLENDER_USER_RESOURCES", _user_folder())
    sys.path.insert(0, str(ROOT))
    import importlib

    import bpy

    from blender_navjump.blender import devload

    module = devload.enable_source_extension(devload.default_repo_dir(REPO_MODULE),
                                             repo_module=REPO_MODULE)
    live = importlib.import_module(f"{module}.blender.live_rebake")
    storage = importlib.import_module(f"{module}.blender.storage")
    gather = importlib.import_module(f"{module}.blender.gather")
    result: dict = {"links": args.links, "runs": args.runs, "tile_size": args.tile_size,
                    "asynchronous": hasattr(live, "finish")}

    if not args.skip_demo:
        bpy.ops.wm.open_mainfile(filepath=str(DEMO_LEVEL))
        scene = bpy.context.scene
        scene.navjump.links_enabled = args.links
        scene.navjump.tile_size = args.tile_size
        result["demo_level"] = bench_level(bpy, live, storage, scene,
                                           bpy.data.objects["Crate (obstacle)"], args.runs,
                                           gather)
    if not args.skip_big:
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        crate = _big_level(bpy, scene, args.boxes, args.subdiv)
        scene.navjump.links_enabled = args.links
        scene.navjump.tile_size = args.tile_size
        result["big_level"] = bench_level(bpy, live, storage, scene, crate, args.runs, gather)
    devload.disable_source_extension(REPO_MODULE)
    if args.blob_polygons:
        result["stored_blob"] = bench_blob(args.blob_polygons)
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
