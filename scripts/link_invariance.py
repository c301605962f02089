"""Worst-case link invariance over random turns and offsets (issue 18):
``python scripts/link_invariance.py [--turns N] [--seed S] [--scene NAME ...]``.

Each scene is baked as built, then ``--turns`` times turned by a random angle (0-360°)
about its centre and moved by a random sub-cell offset. Prints JSON per scene: the
reference counts per kind and total link width, the worst count deviation per kind against
the allowance (±1 per 20 links), the worst total-width ratio, the oracle's invalid links
(``tests/link_oracle.py``), and the (angle, offset) of the worst width case.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

def _test_levels():
    """The link tests' own procedural levels (tests/core/test_links_invariance.py)."""
    sys.path.insert(0, str(ROOT / "tests" / "core"))
    import test_links_invariance

    return test_links_invariance


def _ledge(height):
    return _test_levels().ledge(height).arrays()


def _gap(gap):
    return _test_levels().two_platforms(gap).arrays()


def _recast(name):
    from conftest import recast_data_dir

    from blender_navjump.core.objio import read_obj

    d = recast_data_dir()
    if d is None:
        raise SystemExit("Recast sample meshes not found: set NAVJUMP_RECAST_DATA")
    return read_obj(d / f"{name}.obj", up="y")


FINE = {"cell_size": 0.2, "cell_height": 0.05}  # as the tests bake the ledges
SCENES = {
    "ledge 0.95 m": (lambda: _ledge(0.95), FINE),
    "ledge 1.5 m": (lambda: _ledge(1.5), FINE),
    "ledge 3.9 m": (lambda: _ledge(3.9), FINE),
    "gap 2.9 m": (lambda: _gap(2.9), {}),
    "gap 2 m": (lambda: _gap(2.0), {}),
    "dungeon": (lambda: _recast("dungeon"), {}),
    "nav_test": (lambda: _recast("nav_test"), {}),
}


def turn(v, degrees, offset):
    """Vertices turned about their bounds' centre (xy) and moved by offset (x, y, z)."""
    centre = 0.5 * (v[:, :2].min(0) + v[:, :2].max(0))
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    x, y = v[:, 0] - centre[0], v[:, 1] - centre[1]
    out = v.copy()
    out[:, 0] = c * x - s * y + centre[0] + offset[0]
    out[:, 1] = s * x + c * y + centre[1] + offset[1]
    out[:, 2] = v[:, 2] + offset[2]
    return out


def links_of(v, t, over):
    from link_oracle import check_links

    from blender_navjump.core import BakeSettings, bake

    stg = BakeSettings(links_enabled=True, **over)
    nm = bake(v, t, stg)
    counts = np.bincount(nm.link_kind, minlength=3)
    width = float(np.linalg.norm(nm.link_start[:, 1] - nm.link_start[:, 0], axis=1).sum())
    return counts, width, len(check_links(nm, v, t, stg))


def run(name, turns, rng):
    make, over = SCENES[name]
    v, t = make()
    v = np.asarray(v, np.float64)
    from blender_navjump.core import BakeSettings

    d = BakeSettings()
    cs = over.get("cell_size", d.cell_size)
    ch = over.get("cell_height", d.cell_height)
    ref_counts, ref_width, ref_bad = links_of(v, t, over)
    worst_dev = np.zeros(3, np.int64)
    worst_ratio, worst_case, invalid, over_count = 1.0, None, ref_bad, 0
    for _ in range(turns):
        deg = float(rng.uniform(0.0, 360.0))
        off = rng.uniform(0.0, 1.0, 3) * np.array([cs, cs, ch])
        counts, width, bad = links_of(turn(v, deg, off), t, over)
        dev = np.abs(counts - ref_counts)
        worst_dev = np.maximum(worst_dev, dev)
        over_count += int(np.any(dev > ref_counts // 20))
        ratio = width / ref_width if ref_width else 1.0
        if abs(ratio - 1.0) > abs(worst_ratio - 1.0):
            worst_ratio = ratio
            worst_case = {"degrees": round(deg, 2), "offset": np.round(off, 4).tolist(),
                          "counts": counts.tolist()}
        invalid += bad
    return {"reference_counts": ref_counts.tolist(), "reference_width": round(ref_width, 2),
            "worst_count_deviation": worst_dev.tolist(),
            "count_allowance": (ref_counts // 20).tolist(),
            "turns_over_count_allowance": over_count,
            "worst_width_ratio": round(worst_ratio, 4), "worst_case": worst_case,
            "invalid_links": invalid}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scene", action="append", choices=sorted(SCENES))
    a = ap.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    out = {"turns": a.turns, "seed": a.seed}
    for name in a.scene or list(SCENES):
        out[name] = run(name, a.turns, rng)
        print(json.dumps({name: out[name]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
