"""Outside corners of the climb graph (core/climb.py, docs/climbing.md "Corners"): a shimmy
round a tower's corner from the ledge on one face to the ledge on the next, probed with the
hanging body along the real move (to the corner, pivot, away from it)."""

from __future__ import annotations

import numpy as np
import pytest
from climb_items import elements, seg
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core import climb as C
from blender_navjump.core.climb_options import ALL_MOVES, ElementOptions
from blender_navjump.core.kinds import (
    ABILITY_CLIMB,
    ABILITY_SHIMMY,
    CLIMB_EDGE_ALONG,
    CLIMB_EDGE_CORNER,
    CLIMB_EDGE_JUMP,
    CLIMB_LEDGE,
)
from blender_navjump.core.settings import BakeSettings

H = 4.0  # the tower's height: above max_climb_height, so the ground never leads back up


def tower(*extra_boxes):
    scene = Scene().floor(-6, -6, 12, 12).box(0, 0, 0, 6, 6, H)
    for box in extra_boxes:
        scene = scene.box(*box)
    return scene.arrays()


def tower_items(gap=0.5):
    """Ledges along the tower's south (y = 0) and west (x = 0) top edges, each ending
    ``gap`` short of the south-west corner (0, 0), and one on the north face (y = 6)."""
    return [seg("s-ledge", CLIMB_LEDGE, (gap, 0, H), (6 - gap, 0, H)),
            seg("w-ledge", CLIMB_LEDGE, (0, 6 - gap, H), (0, gap, H)),
            seg("n-ledge", CLIMB_LEDGE, (6 - gap, 6, H), (gap, 6, H))]


def corners(g):
    return g.edge_nodes[g.edge_kind == CLIMB_EDGE_CORNER]


def connected(g, a, b, kinds=None) -> bool:
    """Whether climb node b is reached from a over the graph's edges (of ``kinds``)."""
    sel = np.ones(g.edge_kind.shape[0], np.bool_) if kinds is None \
        else np.isin(g.edge_kind, kinds)
    adj: dict[int, set[int]] = {}
    for (u, v), bidir in zip(g.edge_nodes[sel].tolist(),
                             g.edge_bidirectional[sel].tolist(), strict=True):
        adj.setdefault(u, set()).add(v)
        if bidir:
            adj.setdefault(v, set()).add(u)
    seen, todo = {a}, [a]
    while todo:
        for w in adj.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return b in seen


def test_a_shimmy_goes_round_the_outside_corners_of_a_tower():
    g = C.build_climb_graph(elements(*tower_items()), C.ClimbParams(), *tower())
    s, w, n = g.element_nodes
    # two corners (south-west, north-west), each a node at the corner and two edges
    corner_nodes = np.arange(sum(len(x) for x in g.element_nodes), g.node_position.shape[0])
    assert np.allclose(np.sort(g.node_position[corner_nodes], axis=0),
                       [[0, 0, H], [0, 6, H]])
    assert corners(g).shape[0] == 4
    ends = [int(np.argmin(np.linalg.norm(g.node_position - p, axis=1)))
            for p in ((0.5, 0, H), (0, 0.5, H), (0, 5.5, H), (0.5, 6, H))]
    assert set(corners(g).ravel().tolist()) == {*ends, *corner_nodes.tolist()}
    # the corner move replaces the jump across the corner (the straight one cuts it)
    assert not np.isin(g.edge_kind, [CLIMB_EDGE_JUMP]).any()
    assert connected(g, int(s[len(s) // 2]), int(n[len(n) // 2]),
                     [CLIMB_EDGE_ALONG, CLIMB_EDGE_CORNER])
    # the moves: shimmying (both ledges' along abilities), both ways, along the wall edges
    k = g.edge_kind == CLIMB_EDGE_CORNER
    assert np.all(g.edge_abilities[k] == ABILITY_CLIMB | ABILITY_SHIMMY)
    assert np.all(g.edge_bidirectional[k]) and np.all(g.edge_element[k] == -1)
    assert np.allclose(g.edge_length[k], 0.5)
    # a corner is a shimmy, not a jump: short jumps leave it
    short = C.build_climb_graph(elements(*tower_items()), C.ClimbParams(max_link_distance=0.3),
                                *tower())
    assert corners(short).shape[0] == 4


def test_a_collider_at_the_corner_blocks_it_and_removing_it_restores_it():
    items = elements(*tower_items())
    free = C.build_climb_graph(items, C.ClimbParams(), *tower())
    s, w, n = free.element_nodes
    # a post 0.3 m across, 0.6 m out from the south-west corner on its diagonal: the
    # hanging body pivoting round the corner meets it; nothing along either face does
    post = (-0.6, -0.6, 0, -0.3, -0.3, H + 1)
    blocked = C.build_climb_graph(items, C.ClimbParams(), *tower(post))
    assert corners(blocked).shape[0] == 2  # the north-west corner only
    assert not connected(blocked, int(s[2]), int(w[2]))
    assert connected(blocked, int(w[2]), int(n[2]))
    # no corner node is left for the blocked corner
    assert blocked.node_position.shape[0] == free.node_position.shape[0] - 1
    # a thinner agent (radius 0.15: its body pivots 0.2 m from the corner) passes inside
    thin = C.build_climb_graph(items, C.ClimbParams(body_radius=0.15), *tower(post))
    assert corners(thin).shape[0] == 4
    again = C.build_climb_graph(items, C.ClimbParams(), *tower())
    for name in ("node_position", "edge_nodes", "edge_kind", "edge_abilities"):
        assert np.array_equal(getattr(again, name), getattr(free, name))


@pytest.mark.parametrize("post", [(0.35, -0.9, 0, 0.65, -0.4, H + 1),  # before the south face
                                  (-0.9, 0.35, 0, -0.4, 0.65, H + 1)])  # ... the west face
def test_an_obstacle_on_the_way_to_the_corner_blocks_it(post):
    # a post in front of a face between the ledge's end and the corner: the body's sweep
    # to the corner (not its pivot) meets it
    g = C.build_climb_graph(elements(*tower_items(gap=1.0)), C.ClimbParams(), *tower(post))
    assert corners(g).shape[0] == 2


def test_no_corner_beyond_its_gap_inside_a_room_or_without_along_moves():
    # ledges ending more than corner_gap short of the corner: none
    far = C.build_climb_graph(elements(*tower_items(gap=1.2)), C.ClimbParams(), *tower())
    assert corners(far).shape[0] == 0
    assert corners(C.build_climb_graph(elements(*tower_items(gap=1.2)),
                                       C.ClimbParams(corner_gap=1.3), *tower())).shape[0] == 4
    # an inside corner: the same ledges on the inside of a room's walls hang into the room
    room = Scene().floor(-6, -6, 12, 12).box(-1, -1, 0, 7, 0, H).box(-1, 0, 0, 0, 7, H)
    inside = [seg("s-ledge", CLIMB_LEDGE, (0.5, 0, H), (5.5, 0, H)),
              seg("w-ledge", CLIMB_LEDGE, (0, 0.5, H), (0, 5.5, H))]
    assert corners(C.build_climb_graph(elements(*inside), C.ClimbParams(),
                                       *room.arrays())).shape[0] == 0
    # a ledge that cannot be shimmied has no corner either
    opts = [(*it, ElementOptions(moves=ALL_MOVES & ~1)) if it[0] == "w-ledge" else it
            for it in tower_items()]
    el, _ = C.make_elements(opts)
    assert corners(C.build_climb_graph(el, C.ClimbParams(), *tower())).shape[0] == 0
    # without the scene the hanging sides are unknown: no corners
    assert corners(C.build_climb_graph(elements(*tower_items()))).shape[0] == 0


def test_turning_the_tower_keeps_its_corners():
    ang = 0.61
    c, s_ = np.cos(ang), np.sin(ang)
    rot = np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1.0]])
    v, t = tower()
    items = [(nm, k, p @ rot.T + (300.0, -40.0, 2.0)) for nm, k, p in tower_items()]
    g = C.build_climb_graph(elements(*items), C.ClimbParams(), v @ rot.T + (300.0, -40.0, 2.0),
                            t)
    assert corners(g).shape[0] == 4
    back = (g.node_position[g.node_position.shape[0] - 2:] - (300.0, -40.0, 2.0)) @ rot
    assert np.allclose(np.sort(back, axis=0), [[0, 0, H], [0, 6, H]], atol=1e-9)


def test_path_from_one_face_to_the_next_shimmies_round_the_corner():
    from blender_navjump.core.query import AgentFilter, find_path

    v, t = tower()
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm, warnings = C.add_climbing(bake(v, t, settings), tower_items(), v, t, settings)
    assert warnings == []
    pos = nm.climb_node_position
    start = pos[np.argmin(np.linalg.norm(pos - (3.5, 0, H), axis=1))]  # on the south ledge
    goal = pos[np.argmin(np.linalg.norm(pos - (0, 3.5, H), axis=1))]  # on the west ledge
    res = find_path(nm, start, goal, AgentFilter(abilities=("climb", "shimmy")))
    assert res.found
    names = res.flag_names
    assert "climb_corner" in names and "climb_jump" not in names
    # the path passes the corner point and stays out of the tower
    assert np.min(np.linalg.norm(res.points - (0, 0, H), axis=1)) < 1e-6
    inside = (res.points[:, 0] > 1e-6) & (res.points[:, 1] > 1e-6) & (res.points[:, 0] < 6) \
        & (res.points[:, 1] < 6) & (res.points[:, 2] < H - 1e-6)
    assert not inside.any()
    assert res.cost == pytest.approx(3.0 + 0.5 + 0.5 + 3.0, abs=0.05)
    # the smoothed curve keeps the corner moves on the wall's edges (no cut through it)
    curve = res.curve().sample(0.05).points
    assert np.all((curve[:, 0] < 1e-6) | (curve[:, 1] < 1e-6))
    # an agent that cannot shimmy never goes round a corner
    other = find_path(nm, start, goal, AgentFilter(abilities=("climb", "mount")))
    assert "climb_corner" not in other.flag_names
