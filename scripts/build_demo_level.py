#!/usr/bin/env python
"""Build ``assets/demo_level.blend``: a small test level for NavJump, made from code.

Run with the bpy module: ``python scripts/build_demo_level.py [--out PATH]``. The shipped
asset is built with bpy 4.2.0, the oldest supported version: files saved by 5.0 do not open
in 4.2, while 5.0 opens 4.2 files.

Layout (metres, Z up; the agent preset is "Human": radius 0.4, stances 1.8 / 1.2 / 0.6,
jump 1 m up and 3 m across, drop 4 m):

* Ground floor, 40 x 20 m, top at z = 0.
* Gap course north of it (y 24..30) over a void: a walkway from the ground, then
  platforms separated by gaps of 1, 2, 2.9 and 4 m; a pillar stands in the 2.9 m gap.
* Ledges (4 x 4 m boxes) 0.5, 1, 1.5 and 3 m high on the ground floor.
* A low tunnel (1.4 m ceiling: crouch) and a vent (0.8 m ceiling: prone).
* A second floor (top at z = 3) reached by stairs (an Array modifier) and a ramp.
* Barrels placed as collection instances, an obstacle crate (role Obstacle) and a lamp
  post that the bake ignores (role Ignored).
* A climbing wall (docs/climbing.md): a 4.5 m tower (x 21..25, y 10..14) too tall to jump
  up, with a ladder on its west face (role Ladder), a pipe on its north face (an object
  named ``Drain-pipe``), and on its south face a hand-hold ledge 2 m up (a thin box, role
  Ledge) below a ledge along the wall's top edge (a wire of two edges, role Ledge). Its top
  is reached only by climbing; climbing is on in the level's bake settings.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "assets" / "demo_level.blend"

GAPS = (1.0, 2.0, 2.9, 4.0)
LEDGE_HEIGHTS = (0.5, 1.0, 1.5, 3.0)
TUNNEL_CEILING = 1.4
VENT_CEILING = 0.8
SECOND_FLOOR = 3.0
CLIMB_TOWER = (21.0, 10.0, 25.0, 14.0)  # x0, y0, x1, y1
CLIMB_TOWER_HEIGHT = 4.5
HOLD_LEDGE_HEIGHT = 2.0


def _box_mesh(bpy, name, x0, y0, z0, x1, y1, z1):
    verts = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
             (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6),
             (3, 0, 4, 7)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return mesh


def _cylinder_mesh(bpy, name, radius, height, segments=12):
    verts = []
    for z in (0.0, height):
        for i in range(segments):
            a = 2 * math.pi * i / segments
            verts.append((radius * math.cos(a), radius * math.sin(a), z))
    faces = [tuple(reversed(range(segments))), tuple(range(segments, 2 * segments))]
    for i in range(segments):
        j = (i + 1) % segments
        faces.append((i, j, segments + j, segments + i))
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return mesh


def build_level(bpy, scene) -> None:
    level = bpy.data.collections.new("Level")
    scene.collection.children.link(level)

    def box(name, x0, y0, z0, x1, y1, z1, collection=level):
        obj = bpy.data.objects.new(name, _box_mesh(bpy, name, x0, y0, z0, x1, y1, z1))
        collection.objects.link(obj)
        return obj

    # Ground floor and the walkway to the gap course.
    box("Ground", 0, 0, -0.5, 40, 20, 0)
    box("Walkway", 0, 20, -0.5, 6, 30, 0)

    # Platforms over the void, separated by the gaps.
    x = 6.0
    for i, gap in enumerate(GAPS):
        x0 = x + gap
        box(f"Platform {i + 1} (gap {gap:g} m)", x0, 24, -1, x0 + 4, 30, 0)
        if gap == 2.9:
            cx = x + gap / 2
            box("Pillar", cx - 0.4, 26.6, -6, cx + 0.4, 27.4, 3)
        x = x0 + 4

    # Ledges.
    for i, h in enumerate(LEDGE_HEIGHTS):
        x0 = 2 + 6 * i
        box(f"Ledge {h:g} m", x0, 2, 0, x0 + 4, 6, h)

    # Low tunnel (crouch) and vent (prone): two walls and a ceiling each.
    for name, x0, x1, ceiling in (("Tunnel", 2, 8, TUNNEL_CEILING),
                                  ("Vent", 14, 20, VENT_CEILING)):
        box(f"{name} wall south", x0, 9.5, 0, x1, 10, ceiling + 0.3)
        box(f"{name} wall north", x0, 12, 0, x1, 12.5, ceiling + 0.3)
        box(f"{name} ceiling", x0, 9.5, ceiling, x1, 12.5, ceiling + 0.3)

    # Second floor, stairs (one step and an Array modifier) and a ramp.
    box("Second floor", 26, 10, SECOND_FLOOR - 0.3, 40, 20, SECOND_FLOOR)
    n_steps, rise, run = 15, SECOND_FLOOR / 15, 0.3
    step = box("Stairs", 0, 0, 0, run, 3, rise)
    step.location = (26 - n_steps * run, 17, 0)
    array = step.modifiers.new("Steps", 'ARRAY')
    array.count = n_steps
    array.use_relative_offset = False
    array.use_constant_offset = True
    array.constant_offset_displace = (run, 0, rise)
    ramp_len = 10.0
    ramp = box("Ramp", 0, 0, -0.2, 4, math.hypot(ramp_len, SECOND_FLOOR), 0)
    ramp.location = (36, 0, 0)
    ramp.rotation_euler = (math.atan2(SECOND_FLOOR, ramp_len), 0, 0)

    # Props: barrels from a collection that is only instanced (not linked to the scene).
    props = bpy.data.collections.new("Props")
    barrel = bpy.data.objects.new("Barrel", _cylinder_mesh(bpy, "Barrel", 0.4, 0.9))
    props.objects.link(barrel)
    for i, (bx, by) in enumerate(((30, 4), (32, 6))):
        empty = bpy.data.objects.new(f"Barrel instance {i + 1}", None)
        empty.instance_type = 'COLLECTION'
        empty.instance_collection = props
        empty.location = (bx, by, 0)
        level.objects.link(empty)

    crate = box("Crate (obstacle)", 4, 15, 0, 5, 16, 1)
    crate.navjump_role = 'OBSTACLE'
    lamp = bpy.data.objects.new("Lamp post (ignored)", _cylinder_mesh(bpy, "Lamp", 0.1, 4))
    lamp.location = (10, 17, 0)
    lamp.navjump_role = 'IGNORED'
    level.objects.link(lamp)
    build_climbing_wall(bpy, level, box)


def build_climbing_wall(bpy, level, box) -> None:
    """The climbing tower with its ladder, pipe and ledges (see the module doc)."""
    x0, y0, x1, y1 = CLIMB_TOWER
    h = CLIMB_TOWER_HEIGHT
    box("Climbing tower", x0, y0, 0, x1, y1, h)
    ladder = box("Tower ladder", x0 - 0.3, y0 + 0.8, 0, x0 - 0.05, y0 + 1.4, h)
    ladder.navjump_role = 'LADDER'
    box("Drain-pipe", x1 - 1.5, y1 + 0.05, 0.2, x1 - 1.35, y1 + 0.2, h - 0.1)
    hold = box("Hand-hold ledge", x0 + 0.5, y0 - 0.3, HOLD_LEDGE_HEIGHT - 0.1, x1 - 0.5, y0,
               HOLD_LEDGE_HEIGHT)
    hold.navjump_role = 'LEDGE'
    mesh = bpy.data.meshes.new("Wall top ledge")
    mesh.from_pydata([(x0 + 0.2, y0, h), ((x0 + x1) / 2, y0, h), (x1 - 0.2, y0, h)],
                     [(0, 1), (1, 2)], [])
    mesh.update()
    top = bpy.data.objects.new("Wall top ledge", mesh)
    top.navjump_role = 'LEDGE'
    level.objects.link(top)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # run from a checkout without installing
    import bpy

    from blender_navjump.blender import devload

    devload.enable_source_extension()
    try:
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        scene.name = "Demo Level"
        build_level(bpy, scene)
        bpy.ops.script.execute_preset(
            filepath=str(ROOT / "blender_navjump" / "presets" / "navjump" / "agent"
                         / "Human.py"),
            menu_idname="NAVJUMP_MT_agent_presets")
        scene.navjump.climbing_enabled = True
        args.out.parent.mkdir(parents=True, exist_ok=True)
        bpy.ops.wm.save_as_mainfile(filepath=str(args.out), compress=True,
                                    relative_remap=False)
    finally:
        devload.disable_source_extension()
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KiB)")
    if bpy.app.version >= (5, 0, 0):
        # 5.0 writes a new .blend header that Blender 4.2-4.4 reject ("not a blend file").
        print(f"note: saved by Blender {bpy.app.version_string}; for the shipped asset build "
              f"with bpy 4.2 so every supported version (4.2 to 5.0) can open it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
