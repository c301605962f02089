"""The link tests' procedural levels, in one place: the builders the link tests bake
(tests/core/test_links.py, tests/core/test_links_invariance.py) and ``LEVELS``, every
level by name with the settings it is baked at, which the invariance property test and
``scripts/link_invariance.py`` turn and move over the voxel grid (issue 18: "every
procedural level in the link tests")."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from scenes import Scene
from script_modules import load_script

from blender_navjump.core import BakeSettings

# Box bottoms and floor tops sit off voxel boundaries so that voxel rounding cannot turn a
# 0.95 m ledge into a walkable 0.9 m step (or the reverse): the answers are the
# geometry's, not the rounding's.
FLOOR = 0.012
FINE = {"cell_size": 0.2, "cell_height": 0.05}  # the ledges' cells


def two_platforms(gap, width=10.0, length=10.0):
    """Platforms [0, length] and [length + gap, 2 length + gap] along x, tops at z = 0."""
    s = Scene()
    s.box(0, 0, -1, length, width, 0)
    s.box(length + gap, 0, -1, 2 * length + gap, width, 0)
    return s


def ledge(height, width=10.0, length=10.0):
    """Lower floor [0, length + 12] x [0, width] with an upper platform [0, length] of
    ``height``."""
    s = Scene()
    s.box(0, 0, -1, length + 12, width, FLOOR)
    s.box(0, 0, FLOOR, length, width, FLOOR + height)
    return s


# A patch of the benchmark's terraced level (scripts/bench_links.py, 1,000 boxes, around
# (17.5, 77.5)), moved to the origin: 2.5 m boxes, heights per row (y up), left to right.
TERRACE_PATCH = ((2.512, 2.762, 2.512, 3.762),
                 (3.012, 3.262, 3.012, 3.262),
                 (2.762, 2.762, 3.762, None))


def terrace_patch():
    s = Scene()
    for j, row in enumerate(TERRACE_PATCH):
        for i, h in enumerate(row):
            if h is not None:
                s.box(2.5 * i, 2.5 * j, -1.0, 2.5 * (i + 1), 2.5 * (j + 1), h)
    return s


def terraced_level(boxes, subdiv, seed):
    """``scripts/bench_links.terraced_level``: the benchmark's level full of ledges
    (terraces 0.25 m apart, so that a straight ledge often runs on along boxes of other
    heights), each box top split into ``subdiv`` x ``subdiv`` quads. (vertices,
    triangles)."""
    return load_script("bench_links").terraced_level(boxes, subdiv, seed)


def low_ceiling_over_gap(ceiling_z):
    """A 2 m gap with a 0.3 m slab over the gap only, its bottom at ``ceiling_z``."""
    s = two_platforms(2.0)
    s.box(10.0, -1.0, ceiling_z, 12.0, 11.0, ceiling_z + 0.3)
    return s


def pillar_in_gap():
    """A 0.3 m pillar in the middle of a 2 m gap."""
    s = two_platforms(2.0)
    s.box(10.85, 4.85, -3.0, 11.15, 5.15, 6.0)
    return s


def wall_on_floor():
    """A wall splitting one floor in two."""
    s = Scene()
    s.box(0, 0, -1, 22, 10, 0)
    s.box(10.0, -1.0, 0.0, 10.5, 11.0, 3.5)
    return s


def wall_in_gap():
    """A wall standing in a 2 m gap."""
    s = two_platforms(2.0)
    s.box(10.75, -1.0, -3.0, 11.25, 11.0, 3.5)
    return s


def narrow_beam():
    """A 0.4 m beam (thinner than the agent) in a 2.4 m gap."""
    s = two_platforms(2.4)
    s.box(11.0, 0, -1, 11.4, 10, 0)
    return s


def overhang():
    """A 3 m cliff with a slab 1.5 m above its foot, too low to stand under."""
    s = Scene()
    s.box(0, 0, -1, 24, 10, FLOOR)
    s.box(0, 0, FLOOR, 10, 10, FLOOR + 3.0)
    s.box(10.0, 0, FLOOR + 1.5, 11.5, 10, FLOOR + 1.7)
    return s


def slot():
    """A U-shaped platform: a 1.5 m slot cut into it, jumpable across."""
    s = Scene()
    s.box(0, 0, -1, 20, 6, 0)
    s.box(0, 6, -1, 9.25, 16, 0)
    s.box(10.75, 6, -1, 20, 16, 0)
    return s


def thin_platforms():
    """A 1.5 m gap, a 0.1 m thin wall on one platform and a 0.1 m ledge out of reach."""
    s = two_platforms(1.5)
    s.box(3.0, 3.0, 0.0, 3.1, 7.0, 1.0)
    s.box(30.0, 0, 2.0, 30.1, 10, 2.1)
    return s


def gap_and_ledge():
    """A 2 m gap and, beside it, a 1.5 m ledge."""
    s = two_platforms(2.0)
    s.box(0, 20, -1, 22, 30, FLOOR)
    s.box(0, 20, FLOOR, 10, 30, FLOOR + 1.5)
    return s


def offset_platform():
    """The far platform overlaps the near one's edge by a corner only."""
    s = Scene()
    s.box(0, 0, -1, 10, 4, 0)
    s.box(11.5, 4.6, -1, 21.5, 14.6, 0)
    return s


def lone_platform():
    """A platform with nothing within the jump and drop limits (a floor 29 m below)."""
    s = Scene()
    s.box(0, 0, -1, 10, 10, 0)
    s.box(-20, -20, -30, 30, 30, -29)
    return s


def ledge_with_walls_and_pillar():
    """A 0.95 m ledge, a wall across the lower floor and one along its side, a pillar
    below the ledge."""
    s = ledge(0.95)
    s.box(16.0, -1.0, FLOOR, 16.5, 11.0, 3.5)
    s.box(0.0, 10.0, FLOOR, 22.0, 10.5, 3.5)
    s.box(12.5, 4.8, FLOOR, 12.9, 5.2, 3.0)
    return s


def narrow_block_and_ledge():
    """A 0.95 m block too narrow for a 4 m wide link, and a wide 0.95 m ledge."""
    s = Scene()
    s.box(0, 0, -1, 12, 10, FLOOR)
    s.box(1.5, 3.5, FLOOR, 5.0, 6.5, FLOOR + 0.95)
    s.box(7.0, 0.0, FLOOR, 12.0, 10.0, FLOOR + 0.95)
    return s


def ledge_with_stairs_and_walls():
    """A 0.95 m ledge with stairs beside it, a cylinder (0.8 m, 24 sides) and a slanted
    wall on the lower floor."""
    s = ledge(0.95)
    s.stairs(12.0, 7.0, 9.5, FLOOR, 0.15, 0.3, 6)
    n = 24
    for i in range(n):
        a0, a1 = 2 * math.pi * i / n, 2 * math.pi * (i + 1) / n
        p0 = (15.0 + 0.8 * math.cos(a0), 3.0 + 0.8 * math.sin(a0))
        p1 = (15.0 + 0.8 * math.cos(a1), 3.0 + 0.8 * math.sin(a1))
        s.quad((*p0, FLOOR), (*p1, FLOOR), (*p1, 3.0), (*p0, 3.0))
    s.quad((18.0, 0.0, FLOOR), (20.0, 4.0, FLOOR), (20.0, 4.0, 2.5), (18.0, 0.0, 2.5))
    return s


def _rotated_xy(points, degrees, centre):
    """``points`` (..., 3) turned by ``degrees`` about ``centre`` (xy), heights kept."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    x, y = points[..., 0] - centre[0], points[..., 1] - centre[1]
    out = np.array(points, np.float64)
    out[..., 0] = c * x - s * y + centre[0]
    out[..., 1] = s * x + c * y + centre[1]
    return out


def _middle(v):
    return 0.5 * (v[:, :2].min(0) + v[:, :2].max(0))


def turn(v, degrees, offset, centre=None):
    """Vertices ``v`` turned by ``degrees`` about ``centre`` (xy; default: the middle of
    their bounds) and moved by ``offset`` (x, y, z)."""
    v = np.asarray(v, np.float64)
    centre = _middle(v) if centre is None else centre
    return _rotated_xy(v, degrees, centre) + np.asarray(offset, np.float64)


def unturn(points, v, degrees, offset, centre=None):
    """Points of the level ``turn(v, degrees, offset, centre)`` back in v's frame."""
    v = np.asarray(v, np.float64)
    centre = _middle(v) if centre is None else centre
    return _rotated_xy(np.asarray(points, np.float64) - np.asarray(offset, np.float64),
                       -degrees, centre)


class Level(NamedTuple):
    """A procedural level: ``make()`` gives (vertices, triangles); ``settings`` are the
    BakeSettings overrides it is baked at (links on is implied)."""
    make: Callable
    settings: dict


def _scene(build, *args):
    return lambda: build(*args).arrays()


def _ceiling(above_apex):
    d = BakeSettings()
    # the arc's apex plus the agent's height reaches 3 m above the platforms
    return _scene(low_ceiling_over_gap, d.max_jump_height + d.agent_height + above_apex)


LEVELS: dict[str, Level] = {
    **{f"gap {g:g} m": Level(_scene(two_platforms, g), {}) for g in (1.0, 2.0, 2.9, 3.1, 5.0)},
    **{f"ledge {h:g} m": Level(_scene(ledge, h), FINE) for h in (0.5, 0.95, 1.5, 3.9, 4.5)},
    "narrow platforms": Level(_scene(two_platforms, 1.0, 3.0), {}),
    "terrace patch": Level(_scene(terrace_patch), {}),
    "terraced 40 boxes": Level(lambda: terraced_level(40, 1, 0), {}),
    "low ceiling over a gap": Level(_ceiling(-0.6), {}),
    "high ceiling over a gap": Level(_ceiling(0.4), {}),
    "pillar in a gap": Level(_scene(pillar_in_gap), {}),
    "wall on a floor": Level(_scene(wall_on_floor), {}),
    "wall in a gap": Level(_scene(wall_in_gap), {}),
    "narrow beam": Level(_scene(narrow_beam), {}),
    "overhang": Level(_scene(overhang), FINE),
    "slot": Level(_scene(slot), {}),
    "thin platforms": Level(_scene(thin_platforms), {}),
    "gap and ledge": Level(_scene(gap_and_ledge), {}),
    "offset platform": Level(_scene(offset_platform),
                             {"link_search_angle": 45.0, "min_link_width": 0.0}),
    "ledge with stairs and walls": Level(_scene(ledge_with_stairs_and_walls), FINE),
    "lone platform": Level(_scene(lone_platform), {}),
    "ledge with walls and a pillar": Level(_scene(ledge_with_walls_and_pillar), FINE),
    "narrow block and a ledge": Level(_scene(narrow_block_and_ledge),
                                      {**FINE, "min_link_width": 4.0}),
}
