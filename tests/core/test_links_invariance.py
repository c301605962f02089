"""Jump links depend on the level, not on how it sits on the voxel grid (issue 18).

Procedural levels are baked turned by any angle and moved by sub-cell offsets; the links
must keep their kinds and counts, roughly their width, and every one must pass the
independent oracle (tests/link_oracle.py). Heights and distances are judged on the
triangles, so the limits hold to a few centimetres at every angle.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from link_levels import (
    FINE,
    LEVELS,
    ledge,
    ledge_with_stairs_and_walls,
    turn,
    two_platforms,
    unturn,
)
from link_oracle import check_links
from recast_data import recast_data_dir

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.navmesh import LINK_JUMP_UP
from blender_navjump.core.objio import read_obj


def turned(scene, degrees, offset, centre=(10.0, 5.0)):
    """The scene's arrays turned about ``centre`` and moved by ``offset`` (x, y, z)."""
    v, t = scene.arrays()
    return turn(v, degrees, offset, centre), t


def bake_valid(v, t, **over):
    stg = BakeSettings(links_enabled=True, **over)
    nm = bake(v, t, stg)
    problems = check_links(nm, v, t, stg)
    assert problems == [], "\n".join(problems[:10])
    return nm, stg


def counts(nm):
    return np.bincount(nm.link_kind, minlength=3)


def total_width(nm):
    return float(np.linalg.norm(nm.link_start[:, 1] - nm.link_start[:, 0], axis=1).sum())


# ------------------------------------------------------------------ exact limits

DEFAULTS = BakeSettings()
LIMIT_CASES = [
    # name, scene, expected counts (drop, jump across, jump up)
    ("jump up 5 cm under max_jump_height", ledge(DEFAULTS.max_jump_height - 0.05), [0, 0, 1]),
    ("5 cm over max_jump_height: a drop only", ledge(DEFAULTS.max_jump_height + 0.05),
     [1, 0, 0]),
    ("drop 5 cm under max_drop_height", ledge(DEFAULTS.max_drop_height - 0.05), [1, 0, 0]),
    ("5 cm over max_drop_height: nothing", ledge(DEFAULTS.max_drop_height + 0.05), [0, 0, 0]),
    ("gap 5 cm under max_jump_distance", two_platforms(DEFAULTS.max_jump_distance - 0.05),
     [0, 1, 0]),
    ("gap 5 cm over max_jump_distance", two_platforms(DEFAULTS.max_jump_distance + 0.05),
     [0, 0, 0]),
]


@pytest.mark.parametrize("name,scene,expected", LIMIT_CASES, ids=[c[0] for c in LIMIT_CASES])
@pytest.mark.parametrize("degrees", [17.0, 45.0, 253.0])
def test_limits_hold_at_every_angle(name, scene, expected, degrees):
    rng = np.random.default_rng(int(degrees))
    off = rng.uniform(0, 1, 3) * np.array([0.2, 0.2, 0.05])
    v, t = turned(scene, degrees, off)
    nm, _ = bake_valid(v, t, **FINE)
    assert counts(nm).tolist() == expected


# ------------------------------------------------------------ one wide link per ledge


@pytest.mark.parametrize("degrees", [0.0, 12.0, 33.0, 58.0, 79.0])
def test_straight_20m_ledge_is_one_link_along_the_edge(degrees):
    v, t = turned(ledge(0.95, width=20.0), degrees, (0.07, 0.13, 0.0), centre=(10.0, 10.0))
    # the new user: default settings, a smaller agent, several stances
    nm, stg = bake_valid(v, t, multi_stance=True, agent_radius=0.4, agent_max_climb=0.4)
    assert counts(nm).tolist() == [0, 0, 1]
    assert nm.link_bidirectional[0] and nm.link_kind[0] == LINK_JUMP_UP
    start, end = nm.link_start[0], nm.link_end[0]
    edge = np.array([-math.sin(math.radians(degrees)), math.cos(math.radians(degrees))])
    for seg in (start, end):
        d = seg[1, :2] - seg[0, :2]
        # follows the real edge (the ledge's face runs along y before turning)
        angle = math.degrees(math.acos(min(1.0, abs(d @ edge) / np.linalg.norm(d))))
        assert angle < 1.0, angle
    # nearly the whole 20 m (the navmesh corners are cut round by the erosion)
    assert np.linalg.norm(start[1] - start[0]) > 0.9 * 20.0


# ------------------------------------------------------------------- invariance

# The levels of the link tests (tests/link_levels.py) whose links still depend on the
# grid (issue 18, open), each with one turn (degrees, offset in metres, about the level's
# middle) that shows it, found by scripts/link_invariance.py --turns 30 --seed 777 / 778
# (every link of every turn valid by the oracle), and the cause as far as it is traced.
STILL_DEPENDING = {
    "narrow platforms": (71.91, (0.0037, 0.1879, 0.0995), (
        "3 m wide platforms 1 m apart: 1 jump across of 2.7 m unturned, none in 5 of 30 "
        "turns (seed 778). The navmesh's edge facing the gap is 1.5 m long; turned, contour "
        "simplification slants it up to 18 degrees off the platform's edge and the samples' "
        "landings split into pieces narrower than min_link_width (1.2 m)")),
    "terrace patch": (300.48, (0.127, 0.2427, 0.0246), (
        "2.5 m boxes, whose tops are 1.3 m wide on the navmesh (min_link_width 1.2 m): the "
        "drop off the 3.762 box (2.1 m unturned) alternates, sample by sample, between the "
        "drop onto the 2.512 box and a jump across onto the 3.012 box, and both runs are "
        "too narrow in 13 of 30 turns (seed 778); total width down to 43%")),
    "terraced 40 boxes": (45.54, (0.0271, 0.013, 0.0413), (
        "the benchmark's terraced level (40 boxes, 7 / 1 / 6 links unturned): the same "
        "narrow box tops and alternating choices as the terrace patch; counts off by up to "
        "4 / 1 / 3 in 29 of 30 turns (seed 778), total width down to 64%")),
    "low ceiling over a gap": (71.5, (0.0884, 0.1454, 0.1227), (
        "the navmesh differs, not only the links: the slab's top is 2 m wide, 0.8 m after "
        "erosion by the 0.6 m agent radius, and the navmesh keeps it at some angles and "
        "offsets (two drops off it unturned) and not at others (no polygon on it, no link; "
        "18 of 30 turns, seed 778)")),
    "high ceiling over a gap": (186.72, (0.1995, 0.0591, 0.1328), (
        "as the low ceiling: the slab's 0.8 m eroded top is on the navmesh in some bakes "
        "only (16 of 30 turns without its two drops, seed 778); the jump across under it "
        "holds")),
    "slot": (196.9, (0.0803, 0.1055, 0.1629), (
        "2 jumps across unturned: the slot's 9.75 m one and a 1.8 m diagonal one from the "
        "chamfer the contour simplification cuts into the concave corner at the slot's "
        "end; turned, the chamfer has another length and angle and that link is not found "
        "(19 of 30 turns, seed 778)")),
    "offset platform": (72.69, (0.2485, 0.2306, 0.0665), (
        "platforms that overlap by a corner only (searched 45 degrees off the normal, no "
        "minimum width): the one 1.95 m jump across is 1.2 m wide in this turn (62%) and "
        "once in 30 turns split in two (seed 778)")),
}
HOLDING = sorted(name for name in LEVELS if name not in STILL_DEPENDING)
_REFERENCE: dict[str, tuple[np.ndarray, float]] = {}


def _reference(name):
    if name not in _REFERENCE:
        level = LEVELS[name]
        v, t = level.make()
        nm, _ = bake_valid(v, t, **level.settings)
        _REFERENCE[name] = (counts(nm), total_width(nm))
    return _REFERENCE[name]


# the bound; measured worst case over random turns and offsets per level
# (scripts/link_invariance.py --turns 30 --seed 777 and 778, docs/jump-links.md "Results")
WIDTH_TOLERANCE = 0.1


def assert_same_links(name, degrees, offset, centre=None):
    """The level turned by ``degrees`` about ``centre`` (default: its middle) and moved by
    ``offset`` (metres) has the unturned level's count per kind, give or take one per 20
    links, and its total link width within WIDTH_TOLERANCE; every link valid by the
    oracle."""
    level = LEVELS[name]
    ref_counts, ref_width = _reference(name)
    v, t = level.make()
    nm, _ = bake_valid(turn(v, degrees, offset, centre), t, **level.settings)
    got = counts(nm)
    assert np.all(np.abs(got - ref_counts) <= ref_counts // 20), (got, ref_counts)
    assert abs(total_width(nm) - ref_width) <= WIDTH_TOLERANCE * ref_width, (
        total_width(nm), ref_width)


# CI runs a few derandomized examples per level; NAVJUMP_LINK_EXAMPLES=300 (with pytest's
# --hypothesis-seed=N) runs many random ones
EXAMPLES = int(os.environ.get("NAVJUMP_LINK_EXAMPLES", "0"))
# a turn (degrees) and a sub-cell offset (fractions of a cell in x, y and z)
TURN = {"degrees": st.floats(0.0, 360.0), "fx": st.floats(0.0, 1.0),
        "fy": st.floats(0.0, 1.0), "fz": st.floats(0.0, 1.0)}


def examples(n):
    """The properties' hypothesis settings: ``n`` derandomized examples (CI), or
    NAVJUMP_LINK_EXAMPLES random ones when it is set."""
    return settings(max_examples=EXAMPLES or n, deadline=None, derandomize=not EXAMPLES,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", HOLDING)
@examples(3)
@given(**TURN)
# found by --hypothesis-seed=780 on the 3.9 m ledge: the drop's fitted link ended over 2 m
# from the corner and a growth of 10 cells left it at 8.8 m of 9.8 m
# (links_search.EXTEND_STEPS)
@example(degrees=313.25, fx=0.0, fy=0.0, fz=0.0)
def test_links_do_not_depend_on_the_grid(name, degrees, fx, fy, fz):
    """Every procedural level of the link tests (issue 18) that holds: turned by any angle
    (about (10, 5)) and moved by any sub-cell offset, the same links."""
    cs, ch = _cell(name)
    assert_same_links(name, degrees, (fx * cs, fy * cs, fz * ch), centre=(10.0, 5.0))


def _cell(name):
    """(cell size, cell height) the level is baked at."""
    over = LEVELS[name].settings
    return (over.get("cell_size", DEFAULTS.cell_size),
            over.get("cell_height", DEFAULTS.cell_height))


FAR = 5000.0  # metres: the "far from the origin"


@pytest.mark.parametrize("name", HOLDING)
@examples(1)
@given(**TURN, sx=st.sampled_from((-1.0, 1.0)),
       sy=st.sampled_from((-1.0, 1.0)))
def test_links_far_from_the_origin_are_the_same(name, degrees, fx, fy, fz, sx, sy):
    """The levels that hold, also 5 km out in x and y (either side) and turned: the same
    links as at the origin, every one valid by the oracle (no precision lost far out)."""
    cs, ch = _cell(name)
    assert_same_links(name, degrees, (sx * FAR + fx * cs, sy * FAR + fy * cs, fz * ch),
                      centre=(10.0, 5.0))


def test_a_way_back_failing_at_an_end_shortens_the_link_instead():
    """The pillar in a gap moved 18 micrometres (found by the property test, seed 778):
    the way back of the 3.9 m jump across below the pillar fails at its last test
    position only. The link stays two-way, one test step (half a cell) narrower, rather
    than one-way at full width beside a one-way link running the other way (3 links)."""
    v, t = LEVELS["pillar in a gap"].make()
    cs = DEFAULTS.cell_size
    nm, _ = bake_valid(turn(v, 0.0, (0.0, 6.103515625e-05 * cs, 0.0), (10.0, 5.0)), t)
    assert counts(nm).tolist() == [0, 2, 0]
    assert nm.link_bidirectional.all()
    ref, _ = bake_valid(v, t)
    assert _widths(ref) == pytest.approx([3.9, 4.05], abs=1e-6)
    assert ref.link_bidirectional.all()
    assert _widths(nm) == pytest.approx([3.9 - 0.5 * cs, 4.05], abs=1e-6)


def test_a_link_shortened_to_its_way_back_keeps_its_midpoints_on_the_navmesh():
    """dungeon.obj turned 127.07 degrees and moved (found by scripts/link_invariance.py
    --turns 30 --seed 1201): a jump across shortened to where its way back holds had its
    new start midpoint 3 cm beyond a convex corner of the border, off every polygon, and
    kept the polygons of its old midpoint, which the oracle refused. Such a link stays
    one-way at full width; every link is valid."""
    v, t, _counts, _width = _recast("dungeon.obj")
    offset = (0.2471525263749287, 0.18464273931245875, 0.14193427973693837)
    vt = turn(v, 127.07210885799395, offset)
    nm, _ = bake_valid(vt, t)  # the oracle checks every segment's midpoint and polygon
    assert nm.link_count > 0


def test_a_jump_up_is_as_wide_as_its_narrower_end():
    """The narrow block and a ledge (min_link_width 4 m) turned 92.16 degrees and moved
    (the turn that showed it in scripts/link_invariance.py --turns 30 --seed 778): a jump
    up from the lower floor onto the 3.5 m block had its start segment grown along the
    floor to 6 m, a fan onto a 2.65 m end on the block, which the unturned bake has not.
    A jump up is judged on both segments: only the wide ledge's jump up is left."""
    level = LEVELS["narrow block and a ledge"]
    v, t = level.make()
    nm, _ = bake_valid(turn(v, 92.16, (0.1218, 0.1616, 0.0441)), t, **level.settings)
    up = nm.link_kind == LINK_JUMP_UP
    assert up.sum() == 1
    for seg in (nm.link_start[up], nm.link_end[up]):
        assert (np.linalg.norm(seg[:, 1] - seg[:, 0], axis=1) >= 4.0 - 1e-9).all()
    # on the wide ledge (x from 7 m), not the block (x 1.5-5 m), in the unturned frame
    ends = unturn(nm.link_end[up].reshape(-1, 3), v, 92.16, (0.1218, 0.1616, 0.0441))
    assert (ends[:, 0] > 6.5).all()


def test_a_join_keeps_the_whole_of_a_link_it_swallows():
    """The 2.9 m gap turned 196.375 degrees about (10, 5) (found by the far-from-origin
    property test at --hypothesis-seed=779 with 300 examples): at one end of each side a
    short piece landing along the diagonal lay inside the grown straight link beside it,
    and joined from the piece's first point the link lost 1.4 m of its 9.6 m. A join now
    runs between the outer ends of the two and never leaves a link narrower than its
    wider piece."""
    assert_same_links("gap 2.9 m", 196.375, (0.0, 0.0, 0.0), centre=(10.0, 5.0))


def _widths(nm):
    return np.sort(np.linalg.norm(nm.link_start[:, 1] - nm.link_start[:, 0], axis=1))


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason="open (issue 18): " + why))
    for name, (_deg, _off, why) in sorted(STILL_DEPENDING.items())])
def test_levels_whose_links_still_depend_on_the_grid(name):
    """The levels left out of the property test above, each at a turn that shows it: a
    strict xfail, so that the day one holds it moves into the property test."""
    degrees, offset, _why = STILL_DEPENDING[name]
    assert_same_links(name, degrees, offset)


# ------------------------------------------------------- the Recast sample meshes

_RECAST: dict[str, tuple] = {}


def _recast(name):
    """(vertices, triangles, reference counts, reference width) of a Recast sample mesh
    at the default settings."""
    if name not in _RECAST:
        d = recast_data_dir()
        if d is None:
            pytest.skip("Recast sample meshes not found: set NAVJUMP_RECAST_DATA to the "
                        "folder holding dungeon.obj and nav_test.obj")
        v, t = read_obj(str(d / name), up="y")
        v = np.asarray(v, np.float64)
        nm, _ = bake_valid(v, t)
        _RECAST[name] = (v, t, counts(nm), total_width(nm))
    return _RECAST[name]


def _recast_turned(name, degrees, fx, fy, fz):
    """A Recast mesh's vertices turned by ``degrees`` about its centre and moved by the
    fractions (fx, fy, fz) of a cell."""
    v = _recast(name)[0]
    offset = (fx * DEFAULTS.cell_size, fy * DEFAULTS.cell_size, fz * DEFAULTS.cell_height)
    return turn(v, degrees, offset)


# CI runs two derandomized examples per mesh (a Recast bake with the oracle takes
# seconds); NAVJUMP_LINK_EXAMPLES runs that many random ones
@pytest.mark.parametrize("name", [
    pytest.param("dungeon.obj", marks=pytest.mark.xfail(strict=True, reason=(
        "open (issue 18), the navmesh differs, not only the links: dungeon (2/3/0, 11.34 m "
        "unturned) turned gets counts off by up to 3/3/0 and total width down to 30% "
        "(7 of 8 turns of scripts/link_invariance.py --turns 8 --seed 777 --scene dungeon), "
        "every link valid by the oracle. Along the unturned bake's widest jump across "
        "(5.06 m, dz -0.53..0.01) the turned navmesh has a border edge within 0.4 m at "
        "only 2-6 of 9 points in the 6 turns that miss it (7 of 9 in the 2 that find it): "
        "it crosses a 0.6 m strip of surface steeper than agent_max_slope (a hump up to "
        "0.27 m above the take-off) between two floors, which Recast's span merge makes "
        "walkable in the columns where a floor's top lies within climb, so the navmesh "
        "joins the sides at some offsets (no border, no link) and not at others. The jump "
        "up of earlier versions (0.90-1.00 m along 2.23 m) is a step within climb on the "
        "ground under part of it (links_model.ground_kind): no bake keeps it"))),
    pytest.param("nav_test.obj", marks=pytest.mark.xfail(strict=True, reason=(
        "open (issue 18): nav_test (15 drops, 58.2 m unturned) turned gets up to 2 drops "
        "more or fewer, total width 89-111% (14 of 30 random turns over the count "
        "allowance, which is 0 under 20 links, worst width 89%: scripts/link_invariance.py "
        "--turns 30 --seed 777 --scene nav_test; --seed 778: 17 of 30, 2 drops and a jump "
        "across, 111%), every link "
        "valid by the oracle. The jumps across pit corners found only turned are gone "
        "(a jump across lands at most 45 degrees off the landing edge's normal, "
        "links_model.lands_squarely). Left: drops near a limit. Each sample takes its own "
        "first valid landing (normal before diagonals, walking off before jumping down); "
        "where a ledge's samples straddle the point where one choice stops working, the "
        "choices alternate and the run splits into pieces near min_link_width (1.2 m): "
        "the 10.27 m platform's drop (jump across a pit onto the floor, or walk off onto "
        "the ramp beside it), the ramp's drop beside it, a 3.3 m drop taking the normal or "
        "the diagonal, a 3.9-4.0 m drop onto sloping ground at max_drop_height (4 m). "
        "docs/jump-links.md, Results")))])
@examples(2)
@given(**TURN)
# the derandomized examples start near the unturned mesh: a real turn is always tried
@example(degrees=39.55, fx=0.42, fy=0.39, fz=0.25)
def test_recast_links_do_not_depend_on_the_grid(name, degrees, fx, fy, fz):
    """The issue's "and the Recast meshes": the same rule as the procedural levels,
    turned about the mesh's centre."""
    _v, t, ref_counts, ref_width = _recast(name)
    nm, _ = bake_valid(_recast_turned(name, degrees, fx, fy, fz), t)
    got = counts(nm)
    assert np.all(np.abs(got - ref_counts) <= ref_counts // 20), (got, ref_counts)
    assert abs(total_width(nm) - ref_width) <= WIDTH_TOLERANCE * ref_width, (
        total_width(nm), ref_width)


@pytest.mark.parametrize("name", ["dungeon.obj", "nav_test.obj"])
@examples(4)
@given(**TURN)
@example(degrees=39.55, fx=0.42, fy=0.39, fz=0.25)
def test_recast_links_are_valid_at_any_turn(name, degrees, fx, fy, fz):
    """Whatever the counts do (the strict xfails above), every link of a turned and moved
    Recast mesh is valid by the oracle: the xfail above would also swallow an invalid
    link (how dungeon's shortened jump across with its midpoint off the navmesh went
    unseen until scripts/link_invariance.py --seed 1201)."""
    bake_valid(_recast_turned(name, degrees, fx, fy, fz), _recast(name)[1])


def test_far_from_origin_and_slanted_walls_give_valid_links():
    # a level 5 km out, turned 31 degrees, with a cylinder and a slanted wall beside the
    # ledge and stairs next to it
    s = ledge_with_stairs_and_walls()
    v, t = turned(s, 31.0, (5000.0, -5000.0, 0.0))
    nm, _ = bake_valid(v, t, **FINE)
    assert counts(nm)[LINK_JUMP_UP] >= 1
