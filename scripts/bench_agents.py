"""Two agents with the same cell size against one (issue 14 target: <= 1.6x), JSON out.

    .venv/bin/python scripts/bench_agents.py ../shared/data/recast/dungeon.obj [--links]
        [--repeat 5]

Bakes agent A alone, then A and B (B: another radius, the same voxel settings) with
``core.agents.bake_agents`` (shared rasterisation and compact heightfield), and, for
comparison, A and B as two separate bakes. Prints median wall times and the ratios.
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


def median_time(fn, repeat: int, *args) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bake_separately(v, t, settings_list):
    return [bake(v, t, s) for s in settings_list]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mesh", nargs="+")
    ap.add_argument("--links", action="store_true", help="jump links on for both agents")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    out = []
    for mesh in args.mesh:
        v, t = read_obj(mesh, up="y")
        a = BakeSettings(agent_radius=0.6, links_enabled=args.links)
        b = a.with_values(agent_radius=0.3)
        agents = [Agent("a", a), Agent("b", b)]
        bake(v, t, a)  # warm (kernels loaded)
        one = median_time(bake, args.repeat, v, t, a)
        shared = median_time(bake_agents, args.repeat, v, t, agents)
        separate = median_time(bake_separately, args.repeat, v, t, [a, b])
        out.append({"mesh": Path(mesh).name, "links": args.links, "one_agent_s": one,
                    "two_agents_shared_s": shared, "two_agents_separate_s": separate,
                    "ratio_shared": shared / one, "ratio_separate": separate / one})
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
