"""Corners between a ledge and a ladder or pipe (core/climb.py, docs/climbing.md "Corners"):
Fuse's ledge-to-pipe corner. A ledge on one face of a tower ends short of a pipe (or a
ladder) on the next face: the hanging agent shimmies to the corner, pivots round it and
takes the pipe at the ledge's height."""

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
    ABILITY_LADDER,
    ABILITY_PIPE,
    ABILITY_SHIMMY,
    CLIMB_EDGE_CORNER,
    CLIMB_LADDER,
    CLIMB_LEDGE,
    CLIMB_PIPE,
)
from blender_navjump.core.settings import BakeSettings

H = 4.0  # the tower's height (above max_climb_height: its top is reached by climbing)
Z = 2.5  # the ledge's height, on the tower's south face


def tower(*extra_boxes):
    scene = Scene().floor(-6, -6, 12, 12).box(0, 0, 0, 6, 6, H)
    for box in extra_boxes:
        scene = scene.box(*box)
    return scene.arrays()


def tower_items():
    """A hand-hold ledge on the south face (y = 0) ending 0.5 m short of both corners, a
    pipe on the west face 0.5 m from the south-west corner and a ladder on the east face
    0.5 m from the south-east corner, both 0.1 m off the wall, foot to top."""
    return [seg("s-ledge", CLIMB_LEDGE, (0.5, 0, Z), (5.5, 0, Z)),
            seg("w-pipe", CLIMB_PIPE, (-0.1, 0.5, 0), (-0.1, 0.5, H)),
            seg("e-ladder", CLIMB_LADDER, (6.1, 0.5, 0), (6.1, 0.5, H))]


def node_at(g, p) -> int:
    d = np.linalg.norm(g.node_position - np.asarray(p, np.float64), axis=1)
    k = int(np.argmin(d))
    assert d[k] < 1e-9, (p, d[k])
    return k


def corner_edges(g) -> set:
    return {tuple(sorted(e)) for e in g.edge_nodes[g.edge_kind == CLIMB_EDGE_CORNER].tolist()}


def expected(g, pipe=True, ladder=True) -> set:
    """The corner edges of tower_items round the two corners (end -> C -> P)."""
    out = set()
    if pipe:
        a, c, p = (node_at(g, q) for q in ((0.5, 0, Z), (-0.1, 0, Z), (-0.1, 0.5, Z)))
        out |= {tuple(sorted((a, c))), tuple(sorted((c, p)))}
    if ladder:
        a, c, p = (node_at(g, q) for q in ((5.5, 0, Z), (6.1, 0, Z), (6.1, 0.5, Z)))
        out |= {tuple(sorted((a, c))), tuple(sorted((c, p)))}
    return out


def test_a_ledge_turns_the_corner_onto_a_pipe_and_a_ladder():
    g = C.build_climb_graph(elements(*tower_items()), C.ClimbParams(), *tower())
    assert corner_edges(g) == expected(g)
    # the pipe and the ladder have a node at the ledge's height, on their own line
    _, pipe, ladder = g.element_nodes
    assert node_at(g, (-0.1, 0.5, Z)) in pipe.tolist()
    assert node_at(g, (6.1, 0.5, Z)) in ladder.tolist()
    # the moves need both elements' abilities: shimmying and the pipe's / ladder's
    k = g.edge_kind == CLIMB_EDGE_CORNER
    on_pipe = np.isin(g.edge_nodes[k], pipe).any(axis=1) \
        | np.isin(g.edge_nodes[k], [node_at(g, (-0.1, 0, Z))]).any(axis=1)
    assert np.all(g.edge_abilities[k][on_pipe] == ABILITY_CLIMB | ABILITY_SHIMMY | ABILITY_PIPE)
    assert np.all(g.edge_abilities[k][~on_pipe]
                  == ABILITY_CLIMB | ABILITY_SHIMMY | ABILITY_LADDER)
    assert np.all(g.edge_bidirectional[k]) and np.all(g.edge_element[k] == -1)
    assert np.allclose(np.sort(g.edge_length[k]), [0.5, 0.5, 0.6, 0.6])
    # a rebuild gives the same graph
    again = C.build_climb_graph(elements(*tower_items()), C.ClimbParams(), *tower())
    for name in ("node_position", "edge_nodes", "edge_kind", "edge_abilities"):
        assert np.array_equal(getattr(again, name), getattr(g, name))


def test_a_post_at_the_corner_blocks_the_pivot_and_removing_it_restores_it():
    items = elements(*tower_items())
    free = C.build_climb_graph(items, C.ClimbParams(), *tower())
    # a post 0.3 m across on the south-west corner's diagonal: the body pivoting round
    # the corner meets it, nothing along the faces does
    post = (-0.6, -0.6, 0, -0.3, -0.3, H + 1)
    blocked = C.build_climb_graph(items, C.ClimbParams(), *tower(post))
    assert corner_edges(blocked) == expected(blocked, pipe=False)
    again = C.build_climb_graph(items, C.ClimbParams(), *tower())
    assert corner_edges(again) == corner_edges(free) == expected(free)
    for name in ("node_position", "edge_nodes", "edge_kind", "edge_abilities"):
        assert np.array_equal(getattr(again, name), getattr(free, name))


def test_no_corner_beyond_the_gap_without_along_moves_or_without_the_scene():
    far = [seg("s-ledge", CLIMB_LEDGE, (1.2, 0, Z), (4.8, 0, Z)), *tower_items()[1:]]
    assert corner_edges(C.build_climb_graph(elements(*far), C.ClimbParams(), *tower())) \
        == set()
    g = C.build_climb_graph(elements(*far), C.ClimbParams(corner_gap=1.5), *tower())
    assert len(corner_edges(g)) == 4
    # a pipe that cannot be climbed along has no corner (nor does a ledge without shimmy)
    opts = [(*it, ElementOptions(moves=ALL_MOVES & ~1)) if it[0] == "w-pipe" else it
            for it in tower_items()]
    el, _ = C.make_elements(opts)
    g = C.build_climb_graph(el, C.ClimbParams(), *tower())
    assert corner_edges(g) == expected(g, pipe=False)
    # a ledge above the pipe's top: none
    short = [tower_items()[0], seg("w-pipe", CLIMB_PIPE, (-0.1, 0.5, 0), (-0.1, 0.5, 2.0))]
    assert corner_edges(C.build_climb_graph(elements(*short), C.ClimbParams(), *tower())) \
        == set()
    # without the scene the walls are unknown: no corners
    assert corner_edges(C.build_climb_graph(elements(*tower_items()))) == set()


def test_an_inside_corner_gets_one_straight_corner_edge():
    # a room's south and west walls (inside faces y = 0 and x = 0); a ledge on the south
    # wall ending 0.7 m from the corner, a pipe on the west wall 0.8 m from it (the
    # hanging body, 1.2 m wide, fits beside the other wall at both holds)
    room = Scene().floor(-6, -6, 12, 12).box(-1, -1, 0, 7, 0, H).box(-1, 0, 0, 0, 7, H)
    items = [seg("s-ledge", CLIMB_LEDGE, (0.7, 0, Z), (5.5, 0, Z)),
             seg("w-pipe", CLIMB_PIPE, (0.1, 0.8, 0), (0.1, 0.8, H))]
    g = C.build_climb_graph(elements(*items), C.ClimbParams(), *room.arrays())
    assert corner_edges(g) == {tuple(sorted((node_at(g, (0.7, 0, Z)),
                                             node_at(g, (0.1, 0.8, Z)))))}
    k = g.edge_kind == CLIMB_EDGE_CORNER
    assert np.allclose(g.edge_length[k], np.hypot(0.6, 0.8))
    # an obstacle in the corner between the holds blocks it
    post = room.box(0.2, 0.2, 0, 0.6, 0.5, H)
    g = C.build_climb_graph(elements(*items), C.ClimbParams(), *post.arrays())
    assert corner_edges(g) == set()
    # nothing added but the pipe's node at the ledge's height
    assert g.node_position.shape[0] == sum(len(n) for n in g.element_nodes)


@pytest.mark.parametrize("ang, shift", [(0.61, (300.0, -40.0, 2.0)), (2.3, (-5.0, 7.0, 0.0))])
def test_turning_and_moving_the_tower_keeps_the_corners(ang, shift):
    c, s_ = np.cos(ang), np.sin(ang)
    rot = np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1.0]])
    v, t = tower()
    items = [(nm, k, p @ rot.T + shift) for nm, k, p in tower_items()]
    g = C.build_climb_graph(elements(*items), C.ClimbParams(), v @ rot.T + shift, t)
    base = C.build_climb_graph(elements(*tower_items()), C.ClimbParams(), v, t)

    def moves(graph, back):
        # each edge as its kind, abilities and its two ends' positions in the tower's frame
        # (a ledge turned past 90 degrees numbers its nodes from its other end)
        pos = np.round(back(graph.node_position), 6) + 0.0
        return sorted((int(k), int(ab), *sorted((tuple(pos[u]), tuple(pos[w]))))
                      for (u, w), k, ab in zip(graph.edge_nodes.tolist(),
                                               graph.edge_kind.tolist(),
                                               graph.edge_abilities.tolist(), strict=True))

    assert moves(g, lambda q: (q - shift) @ rot) == moves(base, lambda q: q)
    assert len(corner_edges(g)) == 4


def test_paths_from_the_ledge_to_the_top_go_round_the_corner_and_up_the_pipe():
    from blender_navjump.core.query import AgentFilter, find_path

    v, t = tower()
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm, warnings = C.add_climbing(bake(v, t, settings), tower_items(), v, t, settings)
    assert warnings == []
    pos = nm.climb_node_position
    start = pos[np.argmin(np.linalg.norm(pos - (2.0, 0, Z), axis=1))]  # on the ledge
    goal = np.array([1.5, 3.0, H])  # on the tower's top: reached only by climbing
    res = find_path(nm, start, goal, AgentFilter(abilities=("climb", "shimmy", "pipe",
                                                            "mount")))
    assert res.found
    names = res.flag_names
    assert "climb_corner" in names and "pipe_climb" in names and "mount" in names
    # round the south-west corner: through C and the pipe's node at the ledge's height
    for p in ((-0.1, 0, Z), (-0.1, 0.5, Z)):
        assert np.min(np.linalg.norm(res.points - p, axis=1)) < 1e-6
    # the same with a ladder: round the south-east corner
    res = find_path(nm, pos[np.argmin(np.linalg.norm(pos - (4.0, 0, Z), axis=1))],
                    np.array([4.5, 3.0, H]),
                    AgentFilter(abilities=("climb", "shimmy", "ladder", "mount")))
    assert res.found and "climb_corner" in res.flag_names and "ladder_climb" in res.flag_names
    assert np.min(np.linalg.norm(res.points - (6.1, 0.5, Z), axis=1)) < 1e-6
    # an agent that cannot shimmy, or cannot climb pipes and ladders, never takes them
    for abilities in (("climb", "pipe", "ladder", "mount"), ("climb", "shimmy", "mount")):
        other = find_path(nm, start, goal, AgentFilter(abilities=abilities))
        assert "climb_corner" not in other.flag_names
