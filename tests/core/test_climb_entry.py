"""Abilities of the links joining the climb graph to the navmesh (core/climb.py,
``join_navmesh`` / ``link_abilities``; docs/climbing.md "Joined to the navmesh"): each link
needs its kind's ability and the holding abilities of its element, so a pipe's foot needs
``pipe`` (not ``ladder``), a ladder top's mount ``mount`` and ``ladder``, and an agent
without the ability never gets on there."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core import climb as C
from blender_navjump.core.climb_options import ElementOptions
from blender_navjump.core.kinds import (
    ABILITY_BACK_JUMP,
    ABILITY_CLIMB,
    ABILITY_LADDER,
    ABILITY_MOUNT,
    ABILITY_PIPE,
    CLIMB_LADDER,
    CLIMB_LEDGE,
    CLIMB_LINK_HANG,
    CLIMB_LINK_LADDER_FOOT,
    CLIMB_LINK_MOUNT,
    CLIMB_PIPE,
)
from blender_navjump.core.settings import BakeSettings
from blender_navjump.export.navjump_json import read_json, write_json

EVERYTHING = ("climb", "ladder", "pipe", "shimmy", "mount", "back_jump")
TOP = 3.5


def level(kind, options=None, climb_height=3.0):
    """Ground and a 3.5 m tower (two navmesh islands; too high to jump up, and with the
    default ``climb_height`` to hang from the ground) joined only by one vertical element
    of ``kind`` on its east face, and a ledge along its south top edge (hang links below
    it, mount links on top)."""
    v, t = Scene().floor(-10, -10, 10, 10).box(-4, 0, 0, 4, 4, TOP).arrays()
    vertical = ("east", kind, np.array([(4.1, 2, 0), (4.1, 2, TOP)], np.float64))
    items = [vertical if options is None else (*vertical, options),
             ("south-ledge", CLIMB_LEDGE, np.array([(-3, 0, TOP), (3, 0, TOP)], np.float64))]
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False, max_climb_height=climb_height)
    nm, warnings = C.add_climbing(bake(v, t, settings), items, v, t, settings)
    assert warnings == []
    return nm


@pytest.fixture(scope="module")
def pipe_level():
    return level(CLIMB_PIPE)


def links_of(nm, element, kind):
    """Abilities of the links of ``kind`` at the nodes of ``element`` (its along edges)."""
    nodes = np.unique(nm.climb_edge_nodes[nm.climb_edge_element == element])
    sel = np.isin(nm.climb_link_node, nodes) & (nm.climb_link_kind == kind)
    return nm.climb_link_abilities[sel]


def test_each_link_needs_its_kind_and_its_element_holding_abilities(pipe_level):
    nm = pipe_level
    assert nm.climb_link_abilities.shape == nm.climb_link_kind.shape
    foot = links_of(nm, 0, CLIMB_LINK_LADDER_FOOT)
    top = links_of(nm, 0, CLIMB_LINK_MOUNT)
    assert foot.size == 1 and top.size == 1
    assert foot.tolist() == [ABILITY_PIPE]  # a pipe's foot: pipe, not ladder
    assert top.tolist() == [ABILITY_MOUNT | ABILITY_PIPE]
    hang = links_of(nm, 1, CLIMB_LINK_HANG)
    mount = links_of(nm, 1, CLIMB_LINK_MOUNT)
    assert hang.size and np.all(hang == ABILITY_CLIMB)  # hold a ledge: climb, no shimmy
    assert mount.size and np.all(mount == ABILITY_MOUNT | ABILITY_CLIMB)
    ladder = level(CLIMB_LADDER)
    assert links_of(ladder, 0, CLIMB_LINK_LADDER_FOOT).tolist() == [ABILITY_LADDER]
    assert links_of(ladder, 0, CLIMB_LINK_MOUNT).tolist() == [ABILITY_MOUNT | ABILITY_LADDER]
    # an element's custom abilities (all but shimmy) are needed to get on it too
    custom = level(CLIMB_PIPE, ElementOptions(abilities=ABILITY_PIPE | ABILITY_BACK_JUMP))
    assert links_of(custom, 0, CLIMB_LINK_LADDER_FOOT).tolist() == \
        [ABILITY_PIPE | ABILITY_BACK_JUMP]


@pytest.mark.parametrize("missing", ["pipe", "mount"])
def test_an_agent_without_the_ability_never_gets_that_entry(pipe_level, missing):
    from blender_navjump.core.query import AgentFilter, find_path

    start, goal = (8.0, 8.0, 0.0), (0.0, 2.0, TOP)
    res = find_path(pipe_level, start, goal, AgentFilter(abilities=EVERYTHING))
    assert res.found and res.flag_names.count("ladder_on") == 1  # on at the pipe's foot
    assert "pipe_climb" in res.flag_names
    agent = AgentFilter(abilities=[a for a in EVERYTHING if a != missing])
    res = find_path(pipe_level, start, goal, agent)
    assert not res.found and not res.climbing
    # nor any other way up: a ladder agent does not use the pipe's foot
    ladder_only = AgentFilter(abilities=("ladder", "mount"))
    assert not find_path(pipe_level, start, goal, ladder_only).found


def test_the_ledge_is_entered_from_the_floor_only_with_climb():
    from blender_navjump.core.query import AgentFilter, find_path

    # the ledge within reach of the ground (max_climb_height 4 m): from the ground under
    # it to a hang point on it (the plan ends on the climb graph) is a hang jump up, which
    # needs climb; to the tower's top, a hang jump up and a mount (climb and mount)
    nm = level(CLIMB_PIPE, climb_height=4.0)
    node = nm.climb_node_position[np.unique(nm.climb_edge_nodes[nm.climb_edge_element == 1])[2]]
    start = (node[0], -2.0, 0.0)
    got = find_path(nm, start, node, AgentFilter(abilities=("climb",)))
    assert got.found and "hang_jump_up" in got.flag_names
    up = find_path(nm, start, (node[0], 2.0, TOP), AgentFilter(abilities=("climb", "mount")))
    assert up.found and "hang_jump_up" in up.flag_names and "mount" in up.flag_names
    for agent in (AgentFilter(abilities=("shimmy", "mount", "pipe")), AgentFilter(abilities=())):
        res = find_path(nm, start, node, agent)
        assert "hang_jump_up" not in res.flag_names
    # without mount the top is reached by neither the ledge nor the pipe
    assert not find_path(nm, start, (node[0], 2.0, TOP),
                         AgentFilter(abilities=("climb", "pipe", "shimmy"))).found


def test_files_keep_link_abilities_and_old_files_mean_their_kinds(pipe_level, tmp_path):
    path = write_json(pipe_level, tmp_path / "nav.json")
    back = read_json(path)
    assert np.array_equal(back.climb_link_abilities, pipe_level.climb_link_abilities)
    npz = tmp_path / "nav.npz"
    pipe_level.save(npz)
    assert np.array_equal(type(pipe_level).load(npz).climb_link_abilities,
                          pipe_level.climb_link_abilities)
    # a file written before links had abilities: each link needs its kind's alone
    doc = json.loads(path.read_text())
    for link in doc["climb"]["links"]:
        del link["abilities"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    table = np.array([ABILITY_MOUNT, ABILITY_LADDER, ABILITY_CLIMB])
    assert np.array_equal(read_json(old).climb_link_abilities,
                          table[pipe_level.climb_link_kind.astype(int)])



def hollow_tower():
    """A 6 x 6 x 4 m tower on a floor, hollow to the voxels (Recast rasterises surfaces,
    not solids: a walkable floor lies inside its walls), with ledges along its south and
    west top edges, a ladder 0.1 m off its east face and a pipe off its north face."""
    v, t = Scene().floor(-6, -6, 12, 12).box(0, 0, 0, 6, 6, 4).arrays()
    items = [("s-ledge", CLIMB_LEDGE, np.array([(0.5, 0, 4), (5.5, 0, 4)], np.float64)),
             ("w-ledge", CLIMB_LEDGE, np.array([(0, 0.5, 4), (0, 5.5, 4)], np.float64)),
             ("e-ladder", CLIMB_LADDER, np.array([(6.1, 2, 0), (6.1, 2, 4)], np.float64)),
             ("n-pipe", CLIMB_PIPE, np.array([(3, 6.1, 0), (3, 6.1, 4)], np.float64))]
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    return bake(v, t, settings), items, v, t, settings


def test_no_link_reaches_ground_behind_a_wall():
    """Inside the tower is as near to its ledges as the ground outside, and the nearest to
    some of their nodes: every link goes to ground outside, which the hanging or climbing
    agent reaches without passing through a wall (``join_navmesh``'s probe); none is lost
    (each node's next nearest ground is outside)."""
    nm0, items, v, t, settings = hollow_tower()
    used = nm0.polygons >= 0
    centre = (np.where(used[..., None], nm0.vertices[np.maximum(nm0.polygons, 0)], 0.0)
              .sum(axis=1) / used.sum(axis=1)[:, None])
    assert np.any((centre[:, 0] > 0.5) & (centre[:, 0] < 5.5) & (centre[:, 1] > 0.5)
                  & (centre[:, 1] < 5.5) & (centre[:, 2] < 1.0))  # the floor inside
    nm, warnings = C.add_climbing(nm0, items, v, t, settings)
    assert warnings == []
    point, kind = nm.climb_link_point, nm.climb_link_kind
    low = point[:, 2] < 1.0  # hang and foot links (mounts are on the tower top)
    inside = (point[:, 0] > 0) & (point[:, 0] < 6) & (point[:, 1] > 0) & (point[:, 1] < 6)
    assert not np.any(low & inside), point[low & inside]
    # without the probe the same nodes link to the floor inside; with it, outside instead
    params = C.ClimbParams.from_settings(settings)
    elements, _ = C.make_elements(items)
    bare, _ = C.join_navmesh(nm0, elements, C.build_climb_graph(elements, params, v, t), params)
    bare_low = bare.point[:, 2] < 1.0
    bare_inside = ((bare.point[:, 0] > 0) & (bare.point[:, 0] < 6) & (bare.point[:, 1] > 0)
                   & (bare.point[:, 1] < 6))
    assert np.any(bare_low & bare_inside)
    assert int(low.sum()) == int(bare_low.sum())
    assert np.any(low & (kind == CLIMB_LINK_HANG)) and np.any(low & (kind ==
                                                                  CLIMB_LINK_LADDER_FOOT))
