"""Worst-case link invariance over random turns and offsets (issue 18):
``python scripts/link_invariance.py [--turns N] [--seed S] [--scene NAME ...]``.

Each scene is baked as built, then ``--turns`` times turned by a random angle (0-360°)
about its centre and moved by a random sub-cell offset. Prints JSON per scene: the
reference counts per kind and total link width, the worst count deviation per kind against
the allowance (±1 per 20 links), the worst total-width ratio, the oracle's invalid links
(``tests/link_oracle.py``), and the (angle, offset) of the worst width case.

``--explain`` adds, per turn whose counts leave the allowance, the links found on one side
only (``only_reference`` / ``only_turned``: kind, start and end midpoints in the unturned
frame, width) with, for each, the nearest refused candidate of the other bake
(``core.debug.BakeDebug.link_rejects``: its reason and distance), so that a difference can
be traced to the stage that refused it.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from link_levels import turn, unturn  # noqa: E402  (tests/ is on the path above)


def _recast(name):
    from recast_data import recast_data_dir

    from blender_navjump.core.objio import read_obj

    d = recast_data_dir()
    if d is None:
        raise SystemExit("Recast sample meshes not found: set NAVJUMP_RECAST_DATA")
    return read_obj(d / f"{name}.obj", up="y")


def _scenes():
    """name -> (make, settings overrides): the link tests' procedural levels
    (tests/link_levels.py) and the Recast meshes."""
    from link_levels import LEVELS

    out = {name: (level.make, level.settings) for name, level in LEVELS.items()}
    out["dungeon"] = (lambda: _recast("dungeon"), {})
    out["nav_test"] = (lambda: _recast("nav_test"), {})
    return out


SCENES = _scenes()


def bake_links(v, t, over):
    """(NavMesh, BakeDebug) of a bake with links."""
    from blender_navjump.core import BakeSettings, bake
    from blender_navjump.core.debug import BakeDebug

    debug = BakeDebug()
    return bake(v, t, BakeSettings(links_enabled=True, **over), debug=debug), debug


def links_of(v, t, over, nm=None):
    from link_oracle import check_links

    from blender_navjump.core import BakeSettings

    if nm is None:
        nm, _debug = bake_links(v, t, over)
    counts = np.bincount(nm.link_kind, minlength=3)
    width = float(np.linalg.norm(nm.link_start[:, 1] - nm.link_start[:, 0], axis=1).sum())
    return counts, width, len(check_links(nm, v, t, BakeSettings(links_enabled=True, **over)))


def link_rows(nm, back=None):
    """Each link as (kind, start midpoint, end midpoint, width), midpoints mapped by
    ``back`` (the unturning) when given."""
    starts, ends = nm.link_start.mean(axis=1), nm.link_end.mean(axis=1)
    if back is not None:
        starts, ends = back(starts), back(ends)
    width = np.linalg.norm(nm.link_start[:, 1] - nm.link_start[:, 0], axis=1)
    return [(int(k), s, e, float(w))
            for k, s, e, w in zip(nm.link_kind, starts, ends, width, strict=True)]


def unmatched(rows, others, reach=1.5):
    """The rows of ``rows`` with no row of ``others`` of the same kind whose start and end
    midpoints are within ``reach`` metres (a wide link may be split differently: any
    overlap of the two start segments' neighbourhoods counts as a match)."""
    out = []
    for kind, s, e, w in rows:
        if not any(k == kind and np.linalg.norm(s - s2) <= reach + 0.5 * (w + w2)
                   and np.linalg.norm(e - e2) <= reach + 0.5 * (w + w2)
                   for k, s2, e2, w2 in others):
            out.append((kind, s, e, w))
    return out


def explain(rows, rejects, back=None):
    """``rows`` (links one bake has and the other lacks) with the other bake's nearest
    refused candidate to each start."""
    from blender_navjump.core.debug import REJECT_REASONS
    from blender_navjump.core.kinds import LINK_KINDS

    pts = np.stack([rejects["x"], rejects["y"], rejects["z"]], axis=1).astype(np.float64)
    if back is not None and pts.shape[0]:
        pts = back(pts)
    out = []
    for kind, s, e, w in rows:
        item = {"kind": LINK_KINDS[kind], "start": np.round(s, 2).tolist(),
                "end": np.round(e, 2).tolist(), "width": round(w, 2)}
        if pts.shape[0]:
            d = np.linalg.norm(pts - s, axis=1)
            i = int(np.argmin(d))
            item["nearest_refused"] = {"reason": REJECT_REASONS[int(rejects["reason"][i])],
                                       "distance": round(float(d[i]), 2)}
        out.append(item)
    return out


def run(name, turns, rng, explain_turns=False):
    make, over = SCENES[name]
    v, t = make()
    v = np.asarray(v, np.float64)
    from blender_navjump.core import BakeSettings

    d = BakeSettings()
    cs = over.get("cell_size", d.cell_size)
    ch = over.get("cell_height", d.cell_height)
    ref_nm, ref_debug = bake_links(v, t, over)
    ref_counts, ref_width, ref_bad = links_of(v, t, over, ref_nm)
    worst_dev = np.zeros(3, np.int64)
    worst_ratio, worst_case, invalid, over_count = 1.0, None, ref_bad, 0
    explained = []
    for _ in range(turns):
        deg = float(rng.uniform(0.0, 360.0))
        off = rng.uniform(0.0, 1.0, 3) * np.array([cs, cs, ch])
        vt = turn(v, deg, off)
        nm, debug = bake_links(vt, t, over)
        counts, width, bad = links_of(vt, t, over, nm)
        dev = np.abs(counts - ref_counts)
        worst_dev = np.maximum(worst_dev, dev)
        beyond = bool(np.any(dev > ref_counts // 20))
        over_count += int(beyond)
        if beyond and explain_turns:
            def back(p, deg=deg, off=off):
                return unturn(p, v, deg, off)
            mine, theirs = link_rows(ref_nm), link_rows(nm, back)
            explained.append({
                "degrees": round(deg, 2), "offset": np.round(off, 4).tolist(),
                "counts": counts.tolist(),
                "only_reference": explain(unmatched(mine, theirs), debug.link_rejects, back),
                "only_turned": explain(unmatched(theirs, mine), ref_debug.link_rejects)})
        ratio = width / ref_width if ref_width else 1.0
        if abs(ratio - 1.0) > abs(worst_ratio - 1.0):
            worst_ratio = ratio
            worst_case = {"degrees": round(deg, 2), "offset": np.round(off, 4).tolist(),
                          "counts": counts.tolist()}
        invalid += bad
    extra = {"explained": explained} if explain_turns else {}
    return {"reference_counts": ref_counts.tolist(), "reference_width": round(ref_width, 2),
            "worst_count_deviation": worst_dev.tolist(),
            "count_allowance": (ref_counts // 20).tolist(),
            "turns_over_count_allowance": over_count,
            "worst_width_ratio": round(worst_ratio, 4), "worst_case": worst_case,
            "invalid_links": invalid, **extra}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scene", action="append", choices=sorted(SCENES))
    ap.add_argument("--explain", action="store_true",
                    help="list the links found on one side only, per turn over the allowance")
    a = ap.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    out = {"turns": a.turns, "seed": a.seed}
    for name in a.scene or list(SCENES):
        out[name] = run(name, a.turns, rng, a.explain)
        print(json.dumps({name: out[name]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
