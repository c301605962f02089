"""Benchmark jump-link generation: ``python scripts/bench_links.py MESH.obj [...] [--tile K]``.

For each mesh (and, with ``--tile K``, each mesh tiled K x K: dungeon 10 x 10 is the
~1 M-triangle scene) it bakes once to load the JIT cache, then ``--runs`` times with links
on, and prints JSON: median link time and its stages, median navmesh bake time without
links (total minus links), their ratio, link counts per kind, border edges and the share
that got a link, and the search's operation counts. ``--set NAME=VALUE`` changes settings.
``--by-outcome`` adds where the search's first pass spends its time, by what each sample
found (``search_by_outcome``: one thread, best of ``--outcome-reps`` repeats).
"""

from __future__ import annotations

import argparse
import inspect
import json
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def bench(vertices, triangles, settings, runs: int) -> dict:
    from blender_navjump.core import bake

    t0 = time.perf_counter()
    nm = bake(vertices, triangles, settings)
    first = (time.perf_counter() - t0) * 1000.0
    link_ms, nav_ms, stages = [], [], {}
    for _ in range(runs):
        nm = bake(vertices, triangles, settings)
        tm = nm.stats["timings_ms"]
        link_ms.append(tm["links"])
        nav_ms.append(tm["total"] - tm["links"])
        for k, v in nm.stats["links_info"]["timings_ms"].items():
            stages.setdefault(k, []).append(v)
    info = nm.stats["links_info"]  # the generator's summary of the last bake
    med_links = statistics.median(link_ms)
    med_nav = statistics.median(nav_ms)
    return {
        "triangles": int(triangles.shape[0]),
        "first_call_ms": round(first, 1),
        "links_ms": round(med_links, 2),
        "navmesh_ms": round(med_nav, 2),
        "links_share_of_navmesh": round(med_links / med_nav, 3) if med_nav else None,
        "link_stages_ms": {k: round(statistics.median(v), 2) for k, v in stages.items()},
        "links": nm.stats.get("links", {}),
        "border_edges": info["border_edges"],
        "border_edges_linked": info["border_edges_linked"],
        "border_share_linked": round(info["border_edges_linked"] / max(info["border_edges"], 1),
                                     4),
        "samples": info["samples"],
        "search_counts": info.get("search_counts", {}),
        "messages": info["messages"],
    }


# the first pass's samples by outcome: a landing found; the march met no column that
# could hold one (nothing in reach); it met one and every candidate was refused
OUTCOMES = ("landing", "nothing_in_reach", "refused")


def search_by_outcome(vertices, triangles, settings, reps: int = 10) -> dict:
    """Where the search's first pass (every stride-th sample) spends its time, by outcome
    (``OUTCOMES``): per class its samples, microseconds per sample (one thread, the best of
    ``reps`` repeats of that class's samples alone, on fresh copies of the arrays the
    search writes) and share of the first pass; ``settle_us_per_sample``: the readying of
    each sample alone (``links_search.settle_sample``: no kind searched). The search's
    inputs are those of a real bake (its ``run_banded`` call, captured)."""
    import numpy as np

    from blender_navjump.core import bake, links
    from blender_navjump.core.links_search import search_landings

    calls = []
    real = links.run_banded

    def capture(kernel, rows, *args, **kw):
        if kernel is search_landings:
            calls.append([a.copy() if isinstance(a, np.ndarray) else a for a in args])
        return real(kernel, rows, *args, **kw)

    links.run_banded = capture
    try:
        bake(vertices, triangles, settings)
    finally:
        links.run_banded = real
    args = calls[0]  # the first pass
    # the kernel's arguments by name: the arrays it writes (samples are settled in
    # place), the samples searched and the kinds allowed
    at = {name: i for i, name in
          enumerate(inspect.signature(search_landings.py_func).parameters)}
    written = [at[name] for name in ("samples", "res", "found_at", "counts")]
    which_at, allow_at = at["which"], at["allow"]

    def timed(which, allow=None):
        best, out = float("inf"), None
        for _ in range(reps):
            run = list(args)
            for k in written:
                run[k] = args[k].copy()
            run[which_at] = which
            if allow is not None:
                run[allow_at] = allow
            t0 = time.perf_counter()
            search_landings(*run, 0, int(which.size))
            best = min(best, time.perf_counter() - t0)
            out = run
        return best * 1e6, out

    which = args[which_at]
    total_us, run = timed(which)
    found = run[at["found_at"]][which].any(axis=1)
    tested = run[at["counts"]]["wall_tests"][which] > 0
    classes = {"landing": found, "nothing_in_reach": ~found & ~tested,
               "refused": ~found & tested}
    out = {"first_pass_samples": int(which.size), "first_pass_us": round(total_us, 1)}
    for name in OUTCOMES:
        sel = np.ascontiguousarray(which[classes[name]])
        us = timed(sel)[0] if sel.size else 0.0
        out[name] = {"samples": int(sel.size),
                     "us_per_sample": round(us / sel.size, 2) if sel.size else None,
                     "share": round(us / total_us, 3) if total_us else None}
    settle_us = timed(which, np.zeros_like(args[allow_at]))[0]
    out["settle_us_per_sample"] = round(settle_us / max(which.size, 1), 2)
    return out


def terraced_level(n_boxes: int = 3000, subdiv: int = 12, seed: int = 0):
    """A terraced level full of ledges: ``n_boxes`` boxes (about a square grid of 2.5 m
    footprints, heights in 0.25 m steps from a smooth terrain plus random steps, so that
    neighbours differ by a walkable step, a jump up, a drop or more), their tops split into
    ``subdiv`` x ``subdiv`` quads (12: about 1 M triangles for 3,000 boxes, like a
    level modelled in Blender). Z up."""
    import numpy as np

    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(n_boxes)))
    size = 2.5
    verts, tris = [], []
    base = 0
    k = subdiv
    g = np.linspace(0.0, 1.0, k + 1)
    gx, gy = np.meshgrid(g, g, indexing="ij")
    top_q = np.array([(i * (k + 1) + j, (i + 1) * (k + 1) + j, (i + 1) * (k + 1) + j + 1,
                       i * (k + 1) + j + 1) for i in range(k) for j in range(k)])
    top_t = np.concatenate([top_q[:, [0, 1, 2]], top_q[:, [0, 2, 3]]])
    for b in range(n_boxes):
        ix, iy = b % side, b // side
        x0, y0 = ix * size, iy * size
        h = 1.5 + 1.2 * np.sin(ix / 7.0) * np.cos(iy / 5.0) + 0.25 * rng.integers(0, 6)
        h = round(h / 0.25) * 0.25 + 0.012
        top = np.stack([x0 + size * gx.ravel(), y0 + size * gy.ravel(),
                        np.full(gx.size, h)], axis=1)
        bottom = np.array([[x0, y0, -1.0], [x0 + size, y0, -1.0], [x0 + size, y0 + size, -1.0],
                           [x0, y0 + size, -1.0]])
        verts += [top, bottom]
        tris.append(top_t + base)
        nb = base + top.shape[0]
        # sides: from the bottom corners to the top grid's corners
        c = [base + 0, base + k * (k + 1), base + (k + 1) ** 2 - 1, base + k]  # top corners
        for e in range(4):
            a, bb = nb + e, nb + (e + 1) % 4
            tris.append(np.array([[a, bb, c[(e + 1) % 4]], [a, c[(e + 1) % 4], c[e]]]))
        base = nb + 4
    return np.concatenate(verts).astype(np.float64), np.concatenate(tris).astype(np.int32)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("meshes", nargs="*")
    ap.add_argument("--terraced", type=int, default=0, metavar="BOXES",
                    help="also bench a procedural terraced level of BOXES boxes")
    ap.add_argument("--subdiv", type=int, default=12,
                    help="quads per side of each terraced box top (12: ~1 M triangles "
                         "for 3,000 boxes)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--up", default="y", choices=("y", "z"))
    ap.add_argument("--tile", type=int, default=0)
    ap.add_argument("--tile-runs", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--by-outcome", action="store_true",
                    help="add the first pass's time by sample outcome (search_by_outcome)")
    ap.add_argument("--outcome-reps", type=int, default=10)
    args = ap.parse_args(argv)

    def outcome(v, t):
        if not args.by_outcome:
            return {}
        return {"search_by_outcome": search_by_outcome(v, t, settings, args.outcome_reps)}

    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench import tiled

    from blender_navjump.core import BakeSettings
    from blender_navjump.core.objio import read_obj

    overrides = {"links_enabled": True}
    for item in args.set:
        name, text = item.split("=", 1)
        overrides[name] = BakeSettings.parse_value(name, text)
    settings = BakeSettings.from_dict({**BakeSettings().to_dict(), **overrides})
    results = []
    for mesh in args.meshes:
        v, t = read_obj(mesh, up=args.up)
        res = bench(v, t, settings, args.runs)
        results.append({"mesh": pathlib.Path(mesh).name, **res, **outcome(v, t)})
        if args.tile > 1:
            tv, tt = tiled(v, t, args.tile)
            res = bench(tv, tt, settings, args.tile_runs)
            results.append({"mesh": f"{pathlib.Path(mesh).name} x{args.tile}x{args.tile}",
                            **res})
    if args.terraced:
        v, t = terraced_level(args.terraced, args.subdiv)
        res = bench(v, t, settings, args.tile_runs)
        results.append({"mesh": f"terraced {args.terraced} boxes", **res, **outcome(v, t)})
    print(json.dumps({"settings": overrides, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
