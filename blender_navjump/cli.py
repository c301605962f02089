"""Command line without Blender: ``bake`` an OBJ, query a ``path`` on a baked navmesh.

Every failure the user can fix prints one line ``error: ...`` on stderr and exits 2;
no output file is left behind.
"""

from __future__ import annotations

import argparse
import sys
import time

# Flags that map straight onto BakeSettings fields (beside the generic --set NAME=VALUE).
_FLAG_FIELDS = {
    "--cell-size": "cell_size",
    "--cell-height": "cell_height",
    "--agent-height": "agent_height",
    "--agent-radius": "agent_radius",
    "--max-climb": "agent_max_climb",
    "--max-slope": "agent_max_slope",
    "--partition": "partition",
    "--stand-height": "stand_height",
    "--crouch-height": "crouch_height",
    "--prone-height": "prone_height",
    "--max-jump-height": "max_jump_height",
    "--max-jump-distance": "max_jump_distance",
    "--max-drop-height": "max_drop_height",
    "--gravity": "gravity",
    "--link-sample-step": "link_sample_step",
    "--min-link-width": "min_link_width",
    "--link-search-angle": "link_search_angle",
    "--cost-drop": "cost_drop",
    "--cost-jump-across": "cost_jump_across",
    "--cost-jump-up": "cost_jump_up",
}


class CliError(Exception):
    pass


def _bake_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m blender_navjump bake",
        description="Bake a navmesh (with stances and jump links) from an OBJ file.")
    p.add_argument("input", help="input .obj file")
    p.add_argument("--out", required=True, help="output navjump JSON file")
    p.add_argument("--up", choices=("y", "z"), default="z",
                   help="up axis of the OBJ (y for Recast-style files; converted to Z up)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="set any BakeSettings field, e.g. --set cell_size=0.2")
    p.add_argument("--format", default="json",
                   help="comma-separated output formats: json,obj,gltf,detour "
                        "(files written beside OUT)")
    p.add_argument("--stances", default=None,
                   help="enable multi-stance layers with these stances, e.g. stand,crouch,prone")
    p.add_argument("--links", action="store_true", help="generate jump links")
    p.add_argument("--no-drop", action="store_true", help="no drop-down links")
    p.add_argument("--no-jump-across", action="store_true", help="no jump-across links")
    p.add_argument("--no-jump-up", action="store_true", help="no jump-up links")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    for flag, field in _FLAG_FIELDS.items():
        p.add_argument(flag, dest=field, default=None, metavar="VALUE",
                       help=f"BakeSettings.{field}")
    return p


def build_settings(args):
    from .core.settings import STANCES, BakeSettings

    values = {}
    for item in args.set:
        if "=" not in item:
            raise CliError(f"--set expects NAME=VALUE, got {item!r}")
        name, text = item.split("=", 1)
        values[name.strip()] = BakeSettings.parse_value(name.strip(), text.strip())
    for field in _FLAG_FIELDS.values():
        text = getattr(args, field, None)
        if text is not None:
            values[field] = BakeSettings.parse_value(field, text)
    if args.stances is not None:
        names = [s.strip() for s in args.stances.split(",") if s.strip()]
        unknown = [s for s in names if s not in STANCES]
        if unknown or not names:
            raise CliError(f"--stances: unknown stance {unknown[0] if unknown else '(none)'!r}; "
                           f"choose from {', '.join(STANCES)}")
        values["multi_stance"] = True
        for s in STANCES:
            values[f"{s}_enabled"] = s in names
    if args.links:
        values["links_enabled"] = True
    if args.no_drop:
        values["drop_enabled"] = False
    if args.no_jump_across:
        values["jump_across_enabled"] = False
    if args.no_jump_up:
        values["jump_up_enabled"] = False
    return BakeSettings.from_dict({**BakeSettings().to_dict(), **values}).validate()


def bake_command(argv: list[str]) -> int:
    args = _bake_parser().parse_args(argv)
    from .core import bake
    from .core.objio import read_obj_scene
    from .export import write_formats

    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    settings = build_settings(args)
    scene = read_obj_scene(args.input, up=args.up)
    vertices, triangles = scene.vertices, scene.triangles
    t0 = time.perf_counter()
    nm = bake(vertices, triangles, settings)
    if scene.climb and settings.climbing_enabled:
        from .core.climb import add_climbing

        nm, climb_warnings = add_climbing(nm, scene.climb, vertices, triangles, settings)
        for text in climb_warnings:
            print(f"warning: {args.input}: {text}", file=sys.stderr)
    wall = time.perf_counter() - t0
    paths = write_formats(nm, args.out, formats)
    if not args.quiet:
        s = nm.stats
        by = s.get("polygons_by_stance", {})
        print(f"baked {args.input}: {s['polygons']} polygons "
              f"({', '.join(f'{k} {v}' for k, v in by.items() if v)}), "
              f"{s['walkable_area_m2']:.1f} m2, {nm.link_count} links, "
              + (f"{nm.climb_element_count} climb elements, "
                 if nm.climb_element_count else "")
              + f"{wall * 1000:.1f} ms -> {', '.join(str(p) for p in paths)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m blender_navjump {bake,path} ...\n"
              "  bake IN.obj --out OUT.json [--up y|z] [--set NAME=VALUE ...]\n"
              "  path NAVMESH.json --start X Y Z --goal X Y Z [--stances ...] [--no-links]")
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    try:
        if command == "bake":
            return bake_command(rest)
        if command == "path":
            from .path_cli import path_command

            return path_command(rest)
        raise CliError(f"unknown command {command!r}; use bake or path")
    except (CliError, ValueError, OSError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"error: {msg}", file=sys.stderr)
        return 2

