"""Peak memory per span of a bake, the figure behind the memory guard (core/settings.py).

``python scripts/bench_memory.py [--floors 10] [--side 90 150] [--links]``

Stacked square floors are the worst case for memory per cell: every cell of every floor is a
span. Each case runs in its own child process: a small warm-up bake (kernels loaded), then
the measured bake; the peak RSS above the warm-up's is divided by the span count. Prints
JSON, one row per case, with the guard's own estimate beside the measurement.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

CHILD = """
import json, resource, sys
import numpy as np
sys.path.insert(0, {root!r})
from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.settings import estimate_bake_bytes

def floors(n, side, gap=4.5):
    v, t = [], []
    for k in range(n):
        b, z = len(v), k * gap
        v += [[0, 0, z], [side, 0, z], [side, side, z], [0, side, z]]
        t += [[b, b + 1, b + 2], [b, b + 2, b + 3]]
    return np.array(v, float), np.array(t)

n, side, part, links = {n}, {side}, {part!r}, {links}
s = BakeSettings(partition=part, links_enabled=links)
bake(*floors(2, 3.0), s)
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
base = rss()
nm = bake(*floors(n, side), s)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
w, h = nm.stats["grid"]
spans = nm.stats["spans"]
print(json.dumps({{"floors": n, "side_m": side, "partition": part, "links": links,
                  "cells": w * h, "spans": spans, "peak_above_warm_mib": (peak - base) / 2**20,
                  "bytes_per_span": (peak - base) / spans,
                  "guard_estimate_mib": estimate_bake_bytes(w, h, 2 * n, spans, links) / 2**20}}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--floors", type=int, default=10)
    ap.add_argument("--side", type=float, nargs="+", default=[90.0, 150.0])
    ap.add_argument("--partition", nargs="+", default=["watershed", "monotone"])
    ap.add_argument("--links", action="store_true", help="also measure with links enabled")
    args = ap.parse_args()
    rows = []
    for side in args.side:
        for part in args.partition:
            for links in ([False, True] if args.links else [False]):
                code = CHILD.format(root=str(ROOT), n=args.floors, side=side, part=part,
                                    links=links)
                out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                     text=True, check=True)
                rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
