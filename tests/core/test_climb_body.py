"""The hanging agent's body in the climb graph's collision probe (core/climb_body.py)."""

from __future__ import annotations

import math

import numpy as np
from climb_items import elements, seg
from hypothesis import given, settings
from hypothesis import strategies as st
from scenes import Scene

from blender_navjump.core import climb as C
from blender_navjump.core.climb_body import body_blocked, hang_fronts
from blender_navjump.core.climb_geom import triangle_grid
from blender_navjump.core.kinds import (
    CLIMB_EDGE_JUMP,
    CLIMB_LADDER,
    CLIMB_LEDGE,
)

TOP = 2.5


def two_walls():
    """Two walls (y -1..0) with their tops at TOP, a 1.3 m gap between them, on a floor."""
    return Scene().floor(-3, -3, 9, 4).box(-0.2, -1, 0, 2.2, 0, TOP).box(3.3, -1, 0, 5.7, 0, TOP)


def ledges(reverse_b=False):
    b0, b1 = (3.5, 0, TOP), (5.5, 0, TOP)
    if reverse_b:
        b0, b1 = b1, b0
    return elements(seg("a-ledge", CLIMB_LEDGE, (0, 0, TOP), (2, 0, TOP)),
                    seg("b-ledge", CLIMB_LEDGE, b0, b1))


def jumps(g):
    return int((g.edge_kind == CLIMB_EDGE_JUMP).sum())


def test_authored_ledges_hang_on_the_side_away_from_their_wall_whatever_their_order():
    for reverse in (False, True):
        el = ledges(reverse)
        grid = triangle_grid(*two_walls().arrays())
        fronts = hang_fronts(el.kind, el.ends, grid, 0.6)
        assert np.allclose(fronts, [[0, 1, 0], [0, 1, 0]])
    # the same ledges on the walls' other faces (y = -1) hang towards -y
    el = elements(seg("a-ledge", CLIMB_LEDGE, (0, -1, TOP), (2, -1, TOP)))
    fronts = hang_fronts(el.kind, el.ends, grid, 0.6)
    assert np.allclose(fronts, [[0, -1, 0]])


def test_a_ladder_hangs_away_from_its_wall_and_a_free_one_on_its_axis():
    el = elements(seg("w-ladder", CLIMB_LADDER, (1, 0.1, 0), (1, 0.1, TOP)),
                  seg("free-ladder", CLIMB_LADDER, (1, 3, 0), (1, 3, TOP)))
    fronts = hang_fronts(el.kind, el.ends, triangle_grid(*two_walls().arrays()), 0.6)
    assert np.allclose(fronts, [[0, 1, 0], [0, 0, 0]])


def test_an_obstacle_under_the_hands_blocks_the_body_and_removing_it_restores_the_jump():
    el = ledges()
    free = C.build_climb_graph(el, C.ClimbParams(), *two_walls().arrays())
    assert jumps(free) == 1
    # a block in the gap, in front of the walls, its top 0.4 m below the hands: the line
    # between the hands passes over it, the hanging body does not
    v, t = two_walls().box(2.5, 0.45, 0, 3.0, 1.2, TOP - 0.4).arrays()
    a, b = free.node_position[free.edge_nodes[free.edge_kind == CLIMB_EDGE_JUMP][0]]
    assert not C.probe_blocked([a], [b], v, t)[0]
    front = [[0, 1, 0]]
    assert body_blocked([a], [b], front, front, triangle_grid(v, t), 0.6, 2.0)[0]
    blocked = C.build_climb_graph(el, C.ClimbParams(), v, t)
    assert jumps(blocked) == 0
    # a thinner agent's body (radius 0.15, 0.05..0.35 m out) passes beside the block
    thin = C.build_climb_graph(el, C.ClimbParams(body_radius=0.15), v, t)
    assert jumps(thin) == 1
    # open space: the same block behind the walls, or far away, leaves the jump
    for box in ((2.5, -3, 0, 3.0, -2, TOP - 0.4), (2.5, 3, 0, 3.0, 4, TOP - 0.4)):
        v2, t2 = two_walls().box(*box).arrays()
        assert jumps(C.build_climb_graph(el, C.ClimbParams(), v2, t2)) == 1
    again = C.build_climb_graph(el, C.ClimbParams(), *two_walls().arrays())
    assert np.array_equal(again.edge_nodes, free.edge_nodes)


def test_a_low_hang_body_stands_on_the_floor_and_no_body_never_blocks():
    # ledges 1.2 m up: the 2 m body is cut 0.1 m above the floor, not buried in it
    v, t = Scene().floor(-3, -3, 9, 4).box(-0.2, -1, 0, 2.2, 0, 1.2) \
        .box(3.3, -1, 0, 5.7, 0, 1.2).arrays()
    el = elements(seg("a-ledge", CLIMB_LEDGE, (0, 0, 1.2), (2, 0, 1.2)),
                  seg("b-ledge", CLIMB_LEDGE, (3.5, 0, 1.2), (5.5, 0, 1.2)))
    assert jumps(C.build_climb_graph(el, C.ClimbParams(), v, t)) == 1
    grid = triangle_grid(v, t)
    assert not body_blocked([(0, 0, 2)], [(0, 5, 2)], [(0, 0, 0)], [(0, 0, 0)], grid, 0.6,
                            0.2).any()


def _turned(points, angle, shift):
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return np.asarray(points, np.float64) @ rot.T + np.asarray(shift)


def _edge_set(g, angle=0.0, shift=(0.0, 0.0, 0.0)):
    """The edges by their end points moved back to the first frame (rounded to 1 mm),
    kind and direction: an element's end order (so its node numbers) may differ."""
    back = _turned(np.asarray(g.node_position) - np.asarray(shift), -angle, (0.0, 0.0, 0.0))
    key = [tuple(p) for p in np.round(back, 3).tolist()]
    return sorted((tuple(sorted((key[a], key[b]))) if d else (key[a], key[b]), k, d)
                  for (a, b), k, d in zip(g.edge_nodes.tolist(), g.edge_kind.tolist(),
                                          g.edge_bidirectional.tolist(), strict=True))


@settings(max_examples=12, deadline=None)
@given(angle=st.floats(0.0, 2.0 * math.pi),
       shift=st.tuples(st.floats(-5000, 5000), st.floats(-5000, 5000), st.floats(-50, 50)))
def test_turning_or_moving_the_scene_keeps_the_edge_set(angle, shift):
    scene = two_walls().box(2.5, 0.45, 0, 3.0, 1.2, TOP - 0.4).box(6.7, -1, 0, 8.5, 0, TOP - 1)
    items = [seg("a-ledge", CLIMB_LEDGE, (0, 0, TOP), (2, 0, TOP)),
             seg("b-ledge", CLIMB_LEDGE, (3.5, 0, TOP), (5.5, 0, TOP)),
             seg("c-ledge", CLIMB_LEDGE, (6.9, 0, TOP - 1), (8.3, 0, TOP - 1)),
             seg("w-ladder", CLIMB_LADDER, (1, 0.1, 0), (1, 0.1, TOP))]
    v, t = scene.arrays()
    base = C.build_climb_graph(elements(*items), C.ClimbParams(), v, t)
    turned_items = [(n, k, _turned(p, angle, shift)) for n, k, p in items]
    turned = C.build_climb_graph(elements(*turned_items), C.ClimbParams(),
                                 _turned(v, angle, shift), t)
    assert _edge_set(turned, angle, shift) == _edge_set(base)
    assert jumps(base) >= 1  # some implicit links stay (no length or angle sits on a limit)
