"""Climb objects as core items, per-object settings and the climbing overlay geometry
(plain numpy: no bpy needed; blender/climb_items.py, blender/overlay_climb.py)."""

import dataclasses
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blender_navjump.blender import climb_items as ci
from blender_navjump.blender import overlay_climb as oc
from blender_navjump.core import bake, kinds
from blender_navjump.core.settings import BakeSettings


# ------------------------------------------------------------------ which objects
@pytest.mark.parametrize("name, kind", [
    ("Wall-ledge", kinds.CLIMB_LEDGE), ("Wall-Ledge.001", kinds.CLIMB_LEDGE),
    ("fire-ladder.012", kinds.CLIMB_LADDER), ("Drain-pipe", kinds.CLIMB_PIPE),
    ("Ledge", None), ("pipe", None), ("Wall-ledge.1", None), ("x-ledge-2", None)])
def test_name_suffixes_with_or_without_a_duplicate_number(name, kind):
    assert ci.name_kind(name) == kind


def test_role_wins_over_the_name_and_ignored_wins_over_both():
    assert ci.climb_kind('LADDER', "Wall-ledge") == kinds.CLIMB_LADDER
    assert ci.climb_kind('WALKABLE', "Wall-ledge") == kinds.CLIMB_LEDGE
    assert ci.climb_kind('OBSTACLE', "Wall-pipe") == kinds.CLIMB_PIPE
    assert ci.climb_kind('IGNORED', "Wall-ledge") is None
    assert ci.climb_kind('WALKABLE', "Wall") is None


def test_ability_masks_name_an_unknown_ability():
    assert ci.abilities_mask(["ladder", "climb"]) == kinds.ABILITY_LADDER | kinds.ABILITY_CLIMB
    with pytest.raises(ValueError, match="'fly'"):
        ci.abilities_mask(["fly"])


# ------------------------------------------------------------------ wire ledges
def _chain(points):
    pts = np.array(points, np.float64)
    return pts, np.array([(i, i + 1) for i in range(len(points) - 1)])


def test_straight_runs_split_at_bends_and_branches_not_along_lines():
    pts, edges = _chain([(0, 0, 3), (1, 0, 3), (2, 0.05, 3), (2, 2, 3), (0, 2, 3)])
    runs = ci.straight_runs(pts, edges)
    assert [r.tolist() for r in runs] == [[0, 1, 2], [2, 3], [3, 4]]
    # a T: three edges at one vertex never join
    pts = np.array([(0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)], np.float64)
    runs = ci.straight_runs(pts, np.array([(0, 1), (1, 2), (1, 3)]))
    assert len(runs) == 3


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-175, 175).filter(lambda t: abs(abs(t) - ci.BEND_DEG) > 0.5),
                min_size=1, max_size=8),
       st.lists(st.floats(0.2, 3.0), min_size=9, max_size=9), st.booleans())
def test_a_polyline_has_one_run_per_sharp_bend_plus_one(turns, lengths, flip):
    """Property: a chain turning by the given angles (degrees, horizontal) gives one run
    more than the number of turns sharper than BEND_DEG (a fold back included), whatever
    the direction of its edges, and every vertex is in a run."""
    heading, p = 0.0, np.zeros(3)
    pts = [p.copy()]
    for turn, length in zip([0.0] + turns, lengths, strict=False):
        heading += np.radians(turn)
        p = p + length * np.array([np.cos(heading), np.sin(heading), 0.0])
        pts.append(p.copy())
    pts, edges = _chain(pts)
    if flip:  # a mesh's edges point either way
        edges[::2] = edges[::2, ::-1]
    sharp = sum(1 for t in turns if abs(t) > ci.BEND_DEG)
    runs = ci.straight_runs(pts, edges)
    assert len(runs) == sharp + 1
    assert set(np.concatenate(runs).tolist()) == set(range(pts.shape[0]))


def test_object_items_name_runs_and_keep_faced_meshes_whole():
    pts, edges = _chain([(0, 0, 3), (2, 0, 3), (2, 2, 3)])
    items = ci.object_items("Roof", kinds.CLIMB_LEDGE, pts, edges, has_faces=False)
    assert [i.name for i in items] == ["Roof[0]", "Roof[1]"]
    assert ci.item_object("Roof[1]") == "Roof" and ci.item_object("Roof") == "Roof"
    items = ci.object_items("Roof", kinds.CLIMB_LEDGE, pts, edges, has_faces=True)
    assert len(items) == 1 and items[0].points.shape == (3, 3)
    items = ci.object_items("L", kinds.CLIMB_LADDER, pts, edges, has_faces=False)
    assert len(items) == 1  # a ladder is one element from its bounds


# ------------------------------------------------------------------ baked with settings
def _tower_scene():
    """A floor and a 3 m block (x 4..6), a ladder at its west wall and a ledge on top."""
    v = np.array([[0, 0, 0], [10, 0, 0], [10, 6, 0], [0, 6, 0],
                  [4, 0, 3], [6, 0, 3], [6, 6, 3], [4, 6, 3]], np.float64)
    t = np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]])
    items = [ci.ClimbItem("Lad", kinds.CLIMB_LADDER,
                          np.array([[3.8, 1.0, 0.0], [3.9, 1.2, 3.0]])),
             ci.ClimbItem("Rim[0]", kinds.CLIMB_LEDGE,
                          np.array([[4.0, 3.0, 3.0], [4.0, 5.5, 3.0]]))]
    return v, t, items


@pytest.fixture(scope="module")
def tower():
    v, t, items = _tower_scene()
    s = BakeSettings(climbing_enabled=True, agent_radius=0.3, cell_size=0.15,
                     cell_height=0.1)
    nm = bake(v, t, s)
    gathered = types.SimpleNamespace(vertices=v, triangles=t, climb=items, climb_settings={})
    out, warnings = ci.add_gathered_climbing(nm, gathered, s)
    assert warnings == []
    return nm, gathered, s, out


def _with_settings(tower, by_object):
    nm, gathered, s, _out = tower
    out, warnings = ci.add_gathered_climbing(
        nm, types.SimpleNamespace(**{**vars(gathered), "climb_settings": by_object}), s)
    assert warnings == []
    return out


def test_no_settings_change_nothing_and_climbing_off_adds_nothing(tower):
    nm, gathered, s, out = tower
    assert out.climb_element_count == 2
    same = _with_settings(tower, {"Lad": ci.ClimbObjectSettings()})
    assert same.equals(out)
    off, warnings = ci.add_gathered_climbing(nm, gathered,
                                             dataclasses.replace(s, climbing_enabled=False))
    assert off is nm and warnings == []


def test_core_items_carry_each_objects_settings():
    _v, _t, items = _tower_scene()
    lad = ci.ClimbObjectSettings(abilities=kinds.ABILITY_PIPE)
    got = ci.core_items(items, {"Lad": lad})
    assert [(i[0], i[3]) for i in got] == [("Lad", lad), ("Rim[0]", ci.ClimbObjectSettings())]
    assert ci.moves_mask(["along", "drop"]) == 1 | 4


def test_custom_abilities_and_link_kinds_apply_to_their_element_only(tower):
    out = tower[3]
    k = kinds
    got = _with_settings(tower, {
        "Lad": ci.ClimbObjectSettings(abilities=k.ABILITY_PIPE),
        "Rim": ci.ClimbObjectSettings(links=ci.link_kinds_mask(["hang"]))})
    names = [str(n) for n in got.climb_element_name]
    lad, rim = names.index("Lad"), names.index("Rim[0]")
    assert got.climb_element_abilities[lad] == k.ABILITY_PIPE
    assert got.climb_element_abilities[rim] == out.climb_element_abilities[rim]
    assert (got.climb_edge_abilities[got.climb_edge_element == lad] == k.ABILITY_PIPE).all()
    rim_edges = out.climb_edge_element == rim
    np.testing.assert_array_equal(got.climb_edge_abilities[rim_edges],
                                  out.climb_edge_abilities[rim_edges])
    # the implicit edges between the ladder and the rim need the ladder's abilities now
    implicit = got.climb_edge_kind != k.CLIMB_EDGE_ALONG
    assert implicit.any()
    assert np.all(got.climb_edge_abilities[implicit] == k.ABILITY_CLIMB | k.ABILITY_PIPE)
    assert np.all(out.climb_edge_abilities[out.climb_edge_kind != k.CLIMB_EDGE_ALONG]
                  == k.ABILITY_CLIMB | k.ABILITY_LADDER)
    rim_nodes = np.unique(out.climb_edge_nodes[rim_edges])
    lad_nodes = np.unique(out.climb_edge_nodes[out.climb_edge_element == lad])
    only_rim = np.setdiff1d(rim_nodes, lad_nodes)
    before = np.isin(out.climb_link_node, only_rim)
    after = np.isin(got.climb_link_node, only_rim)
    assert (out.climb_link_kind[before] == k.CLIMB_LINK_MOUNT).any()
    assert set(got.climb_link_kind[after].tolist()) <= {k.CLIMB_LINK_HANG}
    # the ladder's links are untouched
    np.testing.assert_array_equal(got.climb_link_kind[~after], out.climb_link_kind[~before])
    assert got.stats["climb_links"] == got.climb_link_kind.shape[0]


def test_moves_of_an_object_remove_its_edges(tower):
    out = tower[3]
    k = kinds
    assert (out.climb_edge_kind == k.CLIMB_EDGE_JUMP).any()
    got = _with_settings(tower, {
        "Rim": ci.ClimbObjectSettings(moves=ci.moves_mask(["drop", "back_jump"]))})
    names = [str(n) for n in got.climb_element_name]
    rim = names.index("Rim[0]")
    assert not (got.climb_edge_element == rim).any()  # no shimmying along it
    assert not (got.climb_edge_kind == k.CLIMB_EDGE_JUMP).any()  # no jumps to or from it
    lad = names.index("Lad")
    np.testing.assert_array_equal(got.climb_edge_nodes[got.climb_edge_element == lad],
                                  out.climb_edge_nodes[out.climb_edge_element == lad])


# ------------------------------------------------------------------ overlay geometry
def test_climb_layers_have_one_piece_per_element_node_edge_and_link(tower):
    out = tower[3]
    layers = oc.build_climb_layers(out, lift=0.05)
    assert set(layers) == set(oc.CLIMB_LAYERS)
    el = layers["climb_elements"].lines[0]
    assert el.count == out.climb_element_count
    drawn = sorted(map(tuple, np.round(el.positions[0::2].astype(float), 4).tolist()))
    want = sorted(map(tuple, np.round(out.climb_element_ends[:, 0] + [0, 0, 0.05], 4).tolist()))
    assert drawn == want  # grouped by kind, so compared as sets of rows
    assert layers["climb_nodes"].lines[0].count == 3 * out.climb_node_position.shape[0]
    implicit = int((out.climb_edge_kind != kinds.CLIMB_EDGE_ALONG).sum())
    edges = layers["climb_edges"].lines[0]
    # a shaft and two arrow wings per edge, two more wings per two-way edge
    two_way = int(out.climb_edge_bidirectional[out.climb_edge_kind != 0].sum())
    assert edges.count == 3 * implicit + 2 * two_way
    links = layers["climb_links"].lines[0]
    nl = out.climb_link_kind.shape[0]
    assert links.count == 3 * nl + 2 * int(out.climb_link_bidirectional.sum())
    colours = {tuple(np.round(c, 3)) for c in links.colors.tolist()}
    assert colours <= {tuple(np.round(c, 3)) for c in kinds.CLIMB_LINK_COLORS.values()}


def test_bad_climb_arrays_are_skipped_and_named_not_raised(tower):
    out = tower[3]
    bad = dataclasses.replace(out, climb_edge_nodes=out.climb_edge_nodes + 10_000)
    issues = []
    layers = oc.build_climb_layers(bad, issues)
    assert any("climb edges with invalid nodes" in i for i in issues)
    assert layers["climb_edges"].empty and not layers["climb_elements"].empty
    issues = []
    layers = oc.build_climb_layers(dataclasses.replace(out, climb_link_kind=np.zeros(1, np.int8)),
                                   issues)
    assert any("climb link arrays do not match" in i for i in issues)
    assert layers["climb_links"].empty


def test_path_climbing_segments_follow_the_flags():
    names = ["walk", "ladder_on", "ladder_climb", "ladder_climb", "mount", "walk", "walk"]
    flags = [kinds.FLAG_NAMES.index(n) for n in names]
    np.testing.assert_array_equal(oc.climbing_segments(flags), [1, 2, 3, 4])
    pts = np.arange(21, dtype=float).reshape(7, 3)
    lines = oc.path_climb_lines(pts, flags, lift=0.0)
    assert lines[0].count == 4
    np.testing.assert_allclose(lines[0].positions[0::2], pts[1:5])
    # the smoothed curve: a thin line from the path's first point to its last, through
    # every point (a straight path here: on the line itself)
    curve = lines[-1]
    assert curve.width == oc.PATH_CURVE_WIDTH and curve.count > len(pts)
    np.testing.assert_allclose(curve.positions[[0, -1]], pts[[0, -1]], atol=1e-5)
    chain = curve.positions.astype(float)
    np.testing.assert_allclose(chain[1:-1:2], chain[2::2], atol=1e-6)  # joined end to end
    assert len(oc.path_climb_lines(pts, flags, lift=0.0, curve=False)) == 2
    s = oc.path_climb_summary(flags)
    assert s == {"climb_moves": 4, "climb_by_move": {"ladder_on": 1, "ladder_climb": 2,
                                                     "mount": 1}}
    assert oc.path_climb_lines(pts, [0] * 7) == []
    assert oc.visible_climb_layers(types.SimpleNamespace(
        show_climb_elements=True, show_climb_nodes=False, show_climb_edges=True,
        show_climb_links=False)) == {"climb_elements", "climb_edges"}
