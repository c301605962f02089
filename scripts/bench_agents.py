"""Two agents with the same cell size against one (issue 14 target: <= 1.6x), JSON out.

    .venv/bin/python scripts/bench_agents.py ../shared/data/recast/dungeon.obj [--links]
        [--repeat 7]

Agent A alone (``bake``) against A and B (B: another radius, the same voxel settings)
with ``core.agents.bake_agents`` as it runs by default (shared rasterisation, compact
heightfield and link triangle index; two agents at a time on two threads when the first
agent's thread gets most of a core, ``two_overlapped_rounds`` counts the rounds it did), and for
comparison the same one agent after the other (``overlap=False``) and as two separate
bakes. The variants are measured paired and interleaved: every round runs each once, in
an order that rotates from round to round, so a busy moment of the shared machine hits
them alike. Prints, per mesh, the median wall and CPU time (process CPU: all threads) of
each variant, the ratios of the medians and the median of the per-round ratios, and the
median per-part times (ms) of each agent (under overlap the parts of the two agents run at
once, so their times add up to more than the wall time).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from blender_navjump.core import BakeSettings, bake  # noqa: E402
from blender_navjump.core.agents import Agent, bake_agents  # noqa: E402
from blender_navjump.core.objio import read_obj  # noqa: E402

SHARED_PARTS = ("rasterize", "filter", "compact")
AGENT_PARTS = ("stances", "erode", "areas", "regions", "contours", "polygons", "detail")


def parts(nm) -> dict[str, float]:
    """A bake's time in three parts (ms): the stages agents share, the agent's own stages
    up to the detail mesh, and the links; and the link stage's own parts."""
    t = nm.stats["timings_ms"]
    out = {"shared_stages": sum(t.get(k, 0.0) for k in SHARED_PARTS),
           "agent_stages": sum(t.get(k, 0.0) for k in AGENT_PARTS),
           "links": t.get("links", 0.0), "total": t.get("total", 0.0)}
    for k, v in nm.stats.get("links_info", {}).get("timings_ms", {}).items():
        if k != "total":
            out[f"links.{k}"] = v
    return out


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - w0, time.process_time() - c0


def bench_mesh(mesh: str, links: bool, repeat: int) -> dict:
    v, t = read_obj(mesh, up="y")
    a = BakeSettings(agent_radius=0.6, links_enabled=links)
    b = a.with_values(agent_radius=0.3)
    agents = [Agent("a", a), Agent("b", b)]
    variants = {
        "one": lambda: {"a": bake(v, t, a)},
        "two": lambda: bake_agents(v, t, agents),
        "two_serial": lambda: bake_agents(v, t, agents, overlap=False),
        "two_separate": lambda: {"a": bake(v, t, a), "b": bake(v, t, b)},
    }
    for fn in variants.values():  # warm: kernels loaded, pool started
        fn()
    names = list(variants)
    wall: dict[str, list[float]] = {k: [] for k in names}
    cpu: dict[str, list[float]] = {k: [] for k in names}
    part_rows: dict[str, list[dict]] = {}
    overlapped = 0  # rounds in which "two" baked its agents at once (not one after the other)
    for r in range(repeat):
        order = names[r % len(names):] + names[:r % len(names)]
        for k in order:
            out, w, c = timed(variants[k])
            wall[k].append(w)
            cpu[k].append(c)
            if k == "two":
                overlapped += bool(out["a"].stats.get("agents_overlapped"))
            if k in ("one", "two", "two_serial"):
                for agent, nm in out.items():
                    part_rows.setdefault(f"{k}.{agent}", []).append(parts(nm))
    med = statistics.median
    result: dict = {"mesh": Path(mesh).name, "links": links, "repeat": repeat,
                    "two_overlapped_rounds": overlapped}
    for k in names:
        result[f"{k}_wall_ms"] = round(med(wall[k]) * 1000.0, 1)
        result[f"{k}_cpu_ms"] = round(med(cpu[k]) * 1000.0, 1)
    for k in names[1:]:
        result[f"ratio_{k}"] = round(med(wall[k]) / med(wall["one"]), 3)
        result[f"ratio_{k}_paired"] = round(
            med([x / y for x, y in zip(wall[k], wall["one"], strict=True)]), 3)
        result[f"cpu_ratio_{k}"] = round(med(cpu[k]) / med(cpu["one"]), 3)
    result["parts_ms"] = {
        who: {p: round(med(row.get(p, 0.0) for row in rows), 2) for p in rows[0]}
        for who, rows in part_rows.items()}
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mesh", nargs="+")
    ap.add_argument("--links", action="store_true", help="jump links on for both agents")
    ap.add_argument("--repeat", type=int, default=7, help="rounds (each runs every variant)")
    ap.add_argument("--no-parts", action="store_true", help="leave the per-part times out")
    args = ap.parse_args(argv)
    out = []
    for mesh in args.mesh:
        row = bench_mesh(mesh, args.links, args.repeat)
        if args.no_parts:
            row.pop("parts_ms")
        out.append(row)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
