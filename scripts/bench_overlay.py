"""Benchmark the overlay geometry: ``python scripts/bench_overlay.py [--polygons N]
[--links N] [--repeat N]``.

Builds a grid navmesh of unit squares (default 400 x 250 = 100,000 polygons) with random
links (default 10,000), then times ``overlay_geometry.build_overlay`` (numpy only, no
bpy). Prints JSON: the median and min time, the vertex count and the target (5 s for
100,000 polygons and 10,000 links, the size of a large level).

``--debug-scene demo|terraced|PATH.obj`` benchmarks the debug layers (overlay_debug.py)
instead, on a real bake with debug data (panel defaults: radius 0.4, cell 0.2 / 0.1,
stances; no links): the demo level (``assets/demo_level.blend``, read with bpy), the
procedural terraced level of ``scripts/bench_links.py`` (``--boxes``, 3,000: ~1 M
triangles) or an OBJ (Z up). It times each layer's build (numpy, once per bake) and,
with bpy's GPU (offscreen, as the overlay tests draw), the upload (once per bake) and the
draw of one frame with every debug layer on (``--frames``, median).

``--climb N`` benchmarks the climbing layers (overlay_climb.py) instead: the climbing
level of ``scripts/bench_climb.py`` with N elements (towers with ledges, ladders and
pipes) is baked with climbing, then ``build_climb_layers`` is timed (numpy, once per bake).
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
sys.path.insert(0, str(ROOT))

from blender_navjump.blender import overlay_geometry as ob  # noqa: E402
from blender_navjump.core.navmesh import NavMesh, kind_link_areas  # noqa: E402

TARGET_SECONDS = 5.0


def grid_navmesh(nx: int, ny: int, n_links: int, seed: int = 3) -> NavMesh:
    """nx * ny unit squares (counter-clockwise quads, 6 columns), links between random
    points; stances cycle stand, crouch, prone."""
    xs, ys = np.meshgrid(np.arange(nx + 1.0), np.arange(ny + 1.0), indexing="ij")
    verts = np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1)
    i, j = (a.ravel() for a in np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij"))
    n = nx * ny
    polys = np.full((n, 6), -1, np.int32)
    corners = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
    for k, (ci, cj) in enumerate(corners):
        polys[:, k] = ci * (ny + 1) + cj
    pid = i * ny + j
    neigh = np.full((n, 6), -1, np.int32)
    neigh[:, 0] = np.where(j > 0, pid - 1, -1)
    neigh[:, 1] = np.where(i < nx - 1, pid + ny, -1)
    neigh[:, 2] = np.where(j < ny - 1, pid + 1, -1)
    neigh[:, 3] = np.where(i > 0, pid - ny, -1)
    stance = (pid % 3).astype(np.int8)
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, min(nx, ny), (n_links, 1, 3)) * [1, 1, 0]
    starts = np.concatenate([a, a + [0, 1.0, 0]], axis=1)
    ends = starts + rng.uniform(-3, 3, (n_links, 1, 3)) * [1, 1, 0.3]
    kinds = rng.integers(0, 3, n_links).astype(np.int8)
    return NavMesh(
        vertices=verts, polygons=polys, neighbours=neigh,
        polygon_area=(stance + 1).astype(np.uint8), polygon_region=np.zeros(n, np.int32),
        polygon_stance=stance,
        detail_meshes=np.zeros((0, 4), np.int32), detail_vertices=np.zeros((0, 3)),
        detail_triangles=np.zeros((0, 4), np.int32),
        link_kind=kinds, link_start=starts,
        link_end=ends, link_bidirectional=rng.random(n_links) < 0.3,
        link_start_poly=rng.integers(0, n, n_links).astype(np.int32),
        link_end_poly=rng.integers(0, n, n_links).astype(np.int32),
        link_apex=rng.uniform(0, 1, n_links), link_length=np.ones(n_links),
        link_cost=np.ones(n_links), link_area=kind_link_areas(kinds))


# The panel's defaults (README: "In Blender"), links off: they are not debug layers.
PANEL_SETTINGS = dict(agent_radius=0.4, agent_max_climb=0.4, cell_size=0.2, cell_height=0.1,
                      agent_height=1.8, multi_stance=True, links_enabled=False)


def debug_scene_arrays(name: str, boxes: int):
    if name == "demo":
        import bpy

        from blender_navjump.blender import gather

        bpy.ops.wm.open_mainfile(filepath=str(ROOT / "assets" / "demo_level.blend"))
        g = gather.gather(bpy.context.evaluated_depsgraph_get(), bpy.context.view_layer)
        return g.vertices, g.triangles, g.walkable
    if name == "terraced":
        sys.path.insert(0, str(ROOT / "scripts"))
        from bench_links import terraced_level

        v, t = terraced_level(boxes)
        return v, t, None
    from blender_navjump.core.objio import read_obj

    v, t = read_obj(name, up="z")
    return v, t, None


def bench_debug(args) -> dict:
    from blender_navjump.blender import overlay_debug as od
    from blender_navjump.blender import overlay_geometry as ob
    from blender_navjump.core import BakeSettings, bake
    from blender_navjump.core.debug import BakeDebug

    v, t, walkable = debug_scene_arrays(args.debug_scene, args.boxes)
    settings = BakeSettings(**PANEL_SETTINGS)
    plain = bake(v, t, settings, walkable=walkable)  # warm-up: loads the kernels
    with_debug, without = [], []
    for _ in range(args.repeat):
        debug = BakeDebug()
        t0 = time.perf_counter()
        nm = bake(v, t, settings, walkable=walkable, debug=debug)
        with_debug.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        plain = bake(v, t, settings, walkable=walkable)
        without.append(time.perf_counter() - t0)
    bake_s, plain_s = statistics.median(with_debug), statistics.median(without)
    assert plain.polygon_count == nm.polygon_count
    out = {"scene": args.debug_scene, "triangles": int(t.shape[0]),
           "polygons": nm.polygon_count, "voxel_tops": int(debug.spans.shape[0]),
           "contours": debug.contour_count, "bake_with_debug_s": round(bake_s, 3),
           "bake_without_debug_s": round(plain_s, 3), "layers": {}}
    layers = {}
    for name in od.DEBUG_LAYERS:
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            layer = od.build_debug_layer(name, nm, debug, 0.05)
            times.append(time.perf_counter() - t0)
        layers[name] = layer
        out["layers"][name] = {"build_ms": round(1000 * statistics.median(times), 1),
                               "vertices": layer.vertex_count,
                               "mbytes": round(sum(a.nbytes for a in (
                                   layer.tri_positions, layer.tri_colors,
                                   *(x for ls in layer.lines for x in (ls.positions,
                                                                      ls.colors)))) / 1e6, 1)}
    # for comparison: the navmesh's own layers (stance fills, outlines), as shown by default
    base = ob.build_overlay(nm).layers
    try:
        out["gpu"] = bench_draw(layers, args.frames, base)
    except Exception as exc:  # no bpy or no GPU here: the build figures still stand
        out["gpu"] = f"not measured: {type(exc).__name__}: {exc}"
    return out


def bench_draw(layers, frames: int, base=None) -> dict:
    """Upload (once per bake) and draw time of one frame with every debug layer on, into
    a 1280 x 720 offscreen buffer (a one-pixel read waits for the GPU to finish); with
    ``base`` (the navmesh layers), the draw of those alone for comparison."""
    import bpy  # noqa: F401  (gpu and mathutils come with it)
    import gpu
    from mathutils import Matrix

    from blender_navjump.blender import offscreen, overlay
    from blender_navjump.blender.camera import fit_camera
    from blender_navjump.blender.stub_gaps import (
        active_framebuffer,
        matrix_push_pop,
        new_offscreen,
        offscreen_bound,
        projection_push_pop,
    )

    offscreen.ensure_gpu()
    size = (1280, 720)
    pts = [layer.tri_positions for layer in layers.values() if layer.tri_positions.shape[0]]
    lo = np.min([p.min(axis=0) for p in pts], axis=0)
    hi = np.max([p.max(axis=0) for p in pts], axis=0)
    view, proj = fit_camera(np.stack([lo, hi]), size, "three_quarter")
    buf = new_offscreen(*size)
    result = {}
    try:
        with offscreen_bound(buf):
            fb = active_framebuffer()
            with matrix_push_pop(), projection_push_pop():
                gpu.matrix.load_matrix(Matrix(view.tolist()))
                gpu.matrix.load_projection_matrix(Matrix(proj.tolist()))
                t0 = time.perf_counter()
                batches = {name: overlay.make_batches(layer) for name, layer in layers.items()}
                fb.read_color(0, 0, 1, 1, 4, 0, 'UBYTE')
                result["upload_ms"] = round(1000 * (time.perf_counter() - t0), 1)
                base_batches = {name: overlay.make_batches(layer)
                                for name, layer in (base or {}).items()}
                for name in list(layers) + ["all"] + (["navmesh_layers"] if base else []):
                    visible = set(layers) if name == "all" else {name}
                    if name == "navmesh_layers":
                        visible = set(base_batches)
                        batches = base_batches
                    times = []
                    for _ in range(frames):
                        fb.clear(color=(0, 0, 0, 1), depth=1.0)
                        t0 = time.perf_counter()
                        overlay.draw_layers(batches, visible, size)
                        fb.read_color(0, 0, 1, 1, 4, 0, 'UBYTE')
                        times.append(time.perf_counter() - t0)
                    result[f"draw_{name}_ms"] = round(1000 * statistics.median(times), 2)
    finally:
        buf.free()
    result["backend"] = gpu.platform.backend_type_get()
    result["renderer"] = gpu.platform.renderer_get()
    return result


def bench_climb_layers(n_elements: int, repeat: int) -> dict:
    """Build times of the climbing overlay layers of bench_climb.py's level."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_climb import level

    from blender_navjump.blender import overlay_climb as oc
    from blender_navjump.core import bake
    from blender_navjump.core.climb import add_climbing
    from blender_navjump.core.settings import BakeSettings

    v, t, items = level(n_elements)
    settings = BakeSettings(climbing_enabled=True)
    nm, _warnings = add_climbing(bake(v, t, settings), items, v, t, settings)
    oc.build_climb_layers(nm)  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        layers = oc.build_climb_layers(nm)
        times.append(time.perf_counter() - t0)
    return {"climb_elements": nm.climb_element_count,
            "climb_nodes": int(nm.climb_node_position.shape[0]),
            "climb_edges": int(nm.climb_edge_kind.shape[0]),
            "climb_links": int(nm.climb_link_kind.shape[0]),
            "vertices": int(sum(g.vertex_count for g in layers.values())),
            "median_ms": 1000 * statistics.median(times), "min_ms": 1000 * min(times)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--polygons", type=int, default=100_000)
    ap.add_argument("--links", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--debug-scene", default=None, metavar="demo|terraced|PATH.obj",
                    help="benchmark the debug layers on a real bake of this scene")
    ap.add_argument("--boxes", type=int, default=3000,
                    help="boxes of the terraced level (3,000: ~1 M triangles)")
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--climb", type=int, default=0, metavar="N",
                    help="benchmark the climbing layers on a level with N climb elements")
    args = ap.parse_args(argv)
    if args.debug_scene:
        print(json.dumps(bench_debug(args), indent=2))
        return 0
    if args.climb:
        print(json.dumps(bench_climb_layers(args.climb, args.repeat), indent=2))
        return 0
    ny = max(1, int(round((args.polygons / 1.6) ** 0.5)))
    nx = max(1, args.polygons // ny)
    nm = grid_navmesh(nx, ny, args.links)
    ob.build_overlay(grid_navmesh(2, 2, 1))  # warm-up
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        geo = ob.build_overlay(nm)
        times.append(time.perf_counter() - t0)
    print(json.dumps({
        "polygons": nm.polygon_count, "links": nm.link_count,
        "vertices": int(sum(g.vertex_count for g in geo.layers.values())),
        "median_ms": 1000 * statistics.median(times), "min_ms": 1000 * min(times),
        "target_ms": 1000 * TARGET_SECONDS,
        "meets_target": statistics.median(times) <= TARGET_SECONDS}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
