"""``python -m blender_navjump path NAVMESH --start X Y Z --goal X Y Z ...``.

Prints the path as JSON (found, status, length, cost, points, flags, stances, corridor,
links, climbing, climb_edges; with ``--curve SPACING`` also curve; docs/path-queries.md
and docs/climbing.md). Exit code 0
when a path was computed (found or partial); 2, with one line ``error: ...`` on stderr,
for bad arguments, bad input or an unreadable or invalid navmesh (as ``bake``).
"""

from __future__ import annotations

import argparse
import json
import sys

from .core.navmesh import LINK_KINDS, STANCE_NAMES


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m blender_navjump path",
        description="Find a path on a baked navmesh and print it as JSON.")
    ap.add_argument("navmesh", help="NavJump JSON file (.json) or NavMesh archive (.npz)")
    ap.add_argument("--start", nargs=3, type=float, required=True, metavar=("X", "Y", "Z"))
    ap.add_argument("--goal", nargs=3, type=float, required=True, metavar=("X", "Y", "Z"))
    ap.add_argument("--stances", default=",".join(STANCE_NAMES),
                    help=f"comma-separated stances the agent may use "
                         f"(default {','.join(STANCE_NAMES)})")
    ap.add_argument("--no-links", action="store_true", help="never use jump/drop links")
    ap.add_argument("--links", default=",".join(LINK_KINDS),
                    help=f"comma-separated link kinds allowed (default {','.join(LINK_KINDS)})")
    ap.add_argument("--stance-cost", nargs=3, type=float, metavar=("STAND", "CROUCH", "PRONE"),
                    default=(1.0, 1.5, 3.0), help="walking cost multiplier per stance")
    ap.add_argument("--area-cost", action="append", default=[], metavar="NAME=COST",
                    help="walking-cost multiplier of an area (repeatable), over the costs "
                         "stored in the navmesh; COST < 0 or inf: never enter it")
    ap.add_argument("--extents", nargs=3, type=float, metavar=("HX", "HY", "HZ"),
                    default=None, help="search box half-extents around start and goal "
                                       "(default 2 2 4)")
    ap.add_argument("--abilities", default=None,
                    help="comma-separated climbing abilities of the agent (climb, ladder, "
                         "pipe, shimmy, mount, back_jump; default all; '' for none); used "
                         "when the navmesh has a climb graph (docs/climbing.md)")
    ap.add_argument("--curve", type=float, default=None, metavar="SPACING",
                    help="also print 'curve': points SPACING metres apart along the "
                         "smoothed C1 curve through the path's points (docs/path-queries.md)")
    ap.add_argument("--curve-max-deviation", type=float, default=None, metavar="M",
                    help="farthest the curve may stray from the path's polyline (metres, "
                         "default 0.25)")
    ap.add_argument("--curve-tension", type=float, default=None, metavar="T",
                    help="curve tangent scale in [0, 3] (default 1; 0: the polyline)")
    ap.add_argument("--indent", type=int, default=None, help="indent the JSON output")
    return ap


def load_navmesh(path: str):
    """A NavMesh from a NavJump JSON file or a NavMesh.save archive; ValueError if unusable."""
    from .core.navmesh import NavMesh

    if str(path).lower().endswith(".npz"):
        return NavMesh.load(path)
    from .export.navjump_json import read_json

    return read_json(path)


def path_command(args: list[str]) -> int:
    """Run the ``path`` sub-command with its arguments (not including ``path``)."""
    ap = _parser()
    try:
        ns = ap.parse_args(args)
    except SystemExit as exc:  # argparse has printed the usage error
        return int(exc.code or 0)
    from .core.query.filter import AgentFilter
    from .core.query.path import NavQuery

    try:
        agent = AgentFilter(stances=ns.stances, links=() if ns.no_links else ns.links,
                            stance_cost=tuple(ns.stance_cost), area_cost=ns.area_cost,
                            **({} if ns.abilities is None else {"abilities": ns.abilities}))
        try:
            navmesh = load_navmesh(ns.navmesh)
        except OSError as exc:
            raise ValueError(f"{ns.navmesh}: cannot read ({exc.strerror or exc})") from None
        query = NavQuery(navmesh, extents=ns.extents)
        curve = {k: v for k, v in (("max_deviation", ns.curve_max_deviation),
                                   ("tension", ns.curve_tension)) if v is not None}
        if curve and ns.curve is None:
            raise ValueError("--curve-max-deviation and --curve-tension need --curve SPACING")
        doc = query.find_path(ns.start, ns.goal, agent).to_dict(ns.curve, **curve)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(doc, indent=ns.indent))
    return 0
