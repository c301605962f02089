"""Climbing (core/climb.py, docs/climbing.md): climb elements, the climb graph, its join to
the navmesh, the OBJ roles, the settings and the file round trips."""

import json
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from climb_items import elements, random_segment, seg
from hypothesis import given, settings
from hypothesis import strategies as st
from scenes import Scene
from script_modules import load_script

from blender_navjump.core import bake
from blender_navjump.core import climb as C
from blender_navjump.core.kinds import (
    ABILITY_BACK_JUMP,
    CLIMB_EDGE_ALONG,
    CLIMB_EDGE_BACK_JUMP,
    CLIMB_EDGE_DROP,
    CLIMB_EDGE_JUMP,
    CLIMB_LADDER,
    CLIMB_LEDGE,
    CLIMB_LINK_HANG,
    CLIMB_LINK_LADDER_FOOT,
    CLIMB_LINK_MOUNT,
    CLIMB_PIPE,
)
from blender_navjump.core.kinds import LINK_KINDS as LINK_KIND_NAMES
from blender_navjump.core.navmesh import CLIMB_ARRAYS, NavMesh
from blender_navjump.core.objio import read_obj_scene
from blender_navjump.core.settings import BakeSettings, SettingsError
from blender_navjump.export.navjump_json import read_json, write_json

ROOT = pathlib.Path(__file__).resolve().parents[2]


def along_degree(g):
    along = g.edge_nodes[g.edge_kind == CLIMB_EDGE_ALONG]
    return np.bincount(along.ravel(), minlength=g.node_position.shape[0])


# ------------------------------------------------------------------ nodes
@pytest.mark.parametrize("length", [0.12, 0.5, 1.0, 2.0, 4.5, 10.0])
def test_lone_element_has_the_documented_node_count(length):
    g = C.build_climb_graph(elements(seg("a-ledge", CLIMB_LEDGE, (1, 2, 3), (1 + length, 2, 3))))
    n = max(3, math.ceil(length / C.NODE_SPACING) + 1)
    assert C.node_count(length) == n
    assert g.node_position.shape[0] == n
    nodes = g.element_nodes[0]
    assert np.allclose(g.node_position[nodes[0]], (1, 2, 3))
    assert np.allclose(g.node_position[nodes[-1]], (1 + length, 2, 3))
    gaps = np.diff(g.node_position[nodes, 0])
    assert np.all(gaps > 0) and gaps.max() <= C.NODE_SPACING + 1e-9
    assert np.allclose(gaps, gaps[0])  # evenly spaced
    assert g.edge_nodes.shape[0] == n - 1 and np.all(g.edge_kind == CLIMB_EDGE_ALONG)
    assert np.allclose(g.edge_length.sum(), length)


def test_vertical_element_runs_bottom_to_top_of_its_bounds():
    pts = [(2, 3, 0.5), (2.4, 3.2, 4.5), (2.4, 3, 0.5), (2, 3.2, 4.5)]
    s, msg = C.element_from_points("l-ladder", CLIMB_LADDER, pts)
    assert msg is None
    assert np.allclose(s, [(2.2, 3.1, 0.5), (2.2, 3.1, 4.5)])


def test_ledge_is_the_top_line_of_its_points():
    # a 0.1 m deep box: the ledge is the middle of its top face, along its length
    pts = [(x, y, z) for x in (0, 5) for y in (-0.1, 0) for z in (2.4, 2.5)]
    s, msg = C.element_from_points("b-ledge", CLIMB_LEDGE, pts)
    assert msg is None
    assert np.allclose(sorted(s.tolist()), [(0, -0.05, 2.5), (5, -0.05, 2.5)])


# ------------------------------------------------------------------ explicit joins
def test_touching_elements_share_one_node():
    g = C.build_climb_graph(elements(seg("a-ledge", CLIMB_LEDGE, (0, 0, 2), (3, 0, 2)),
                                     seg("b-ledge", CLIMB_LEDGE, (3.03, 0, 2), (3.03, 2, 2))))
    a, b = (set(n.tolist()) for n in g.element_nodes)
    assert len(a & b) == 1
    assert g.node_position.shape[0] == 4 + 3 - 1
    shared = (a & b).pop()
    assert np.allclose(g.node_position[shared], (3.015, 0, 2))
    assert along_degree(g)[shared] == 2


def test_apart_elements_share_no_node():
    g = C.build_climb_graph(elements(seg("a-ledge", CLIMB_LEDGE, (0, 0, 2), (3, 0, 2)),
                                     seg("b-ledge", CLIMB_LEDGE, (3.2, 0, 2), (3.2, 2, 2))))
    a, b = (set(n.tolist()) for n in g.element_nodes)
    assert not a & b and g.node_position.shape[0] == 7


@pytest.mark.parametrize("height", [2.0, 1.3, 3.71])
def test_crossing_gives_one_node_of_degree_4(height):
    g = C.build_climb_graph(elements(seg("a-ledge", CLIMB_LEDGE, (-2, 0, height), (2.5, 0, height)),
                                     seg("p-pipe", CLIMB_PIPE, (0, 0, 0), (0, 0, 4))))
    a, b = (set(n.tolist()) for n in g.element_nodes)
    assert len(a & b) == 1
    x = (a & b).pop()
    assert np.allclose(g.node_position[x], (0, 0, height))
    deg = along_degree(g)
    assert deg[x] == 4
    assert sorted(deg.tolist()).count(4) == 1
    # the crossing splits both elements: each still runs end to end through it
    for nodes, e in zip(g.element_nodes, range(2), strict=True):
        assert x in nodes.tolist()[1:-1]
        assert np.all(g.edge_element[np.isin(g.edge_nodes, nodes).all(axis=1)
                                     & (g.edge_kind == CLIMB_EDGE_ALONG)] == e)


def test_t_junction_joins_the_end_to_the_middle():
    g = C.build_climb_graph(elements(seg("a-ledge", CLIMB_LEDGE, (0, 0, 2), (4, 0, 2)),
                                     seg("p-pipe", CLIMB_PIPE, (1.7, 0, 0), (1.7, 0, 2))))
    a, b = (set(n.tolist()) for n in g.element_nodes)
    x = (a & b).pop()
    assert np.allclose(g.node_position[x], (1.7, 0, 2)) and along_degree(g)[x] == 3


# ------------------------------------------------------------------ determinism
def random_elements(rng, n, extent=6.0):
    items = []
    for i in range(n):
        kind, ends = random_segment(rng, extent)
        items.append((f"e{i}-{('ledge', 'ladder', 'pipe')[kind]}", kind, ends))
    return items


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 25))
def test_rebuilding_gives_an_identical_graph(seed, n):
    items = random_elements(np.random.default_rng(seed), n)
    el, _ = C.make_elements(items)
    g1 = C.build_climb_graph(el)
    g2 = C.build_climb_graph(C.make_elements(items)[0])
    for name in ("node_position", "edge_nodes", "edge_kind", "edge_element", "edge_length",
                 "edge_abilities", "edge_bidirectional"):
        a, b = getattr(g1, name), getattr(g2, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    # the graph is well formed: no self loops, no duplicate pair, indices in range
    nn = g1.node_position.shape[0]
    assert np.all(g1.edge_nodes[:, 0] != g1.edge_nodes[:, 1])
    pairs = {tuple(sorted(p)) for p in g1.edge_nodes.tolist()}
    assert len(pairs) == g1.edge_nodes.shape[0]
    assert g1.edge_nodes.size == 0 or (g1.edge_nodes.min() >= 0 and g1.edge_nodes.max() < nn)


# ------------------------------------------------------------------ implicit links
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.5, 4.0), st.floats(10.0, 90.0), st.floats(0.5, 5.0))
def test_implicit_links_respect_max_distance_and_angle(seed, dist, angle, drop):
    items = random_elements(np.random.default_rng(seed), 20, extent=4.0)
    el, _ = C.make_elements(items)
    params = C.ClimbParams(max_link_distance=dist, max_link_angle=angle, max_drop_height=drop)
    g = C.build_climb_graph(el, params)
    p = g.node_position
    d = p[g.edge_nodes[:, 1]] - p[g.edge_nodes[:, 0]]
    horiz = np.hypot(d[:, 0], d[:, 1])
    jump = np.isin(g.edge_kind, (CLIMB_EDGE_JUMP, CLIMB_EDGE_BACK_JUMP))
    assert np.all(g.edge_length[jump] <= dist + 1e-9)
    elev = np.degrees(np.arctan2(np.abs(d[jump, 2]), horiz[jump]))
    assert np.all(elev <= angle + 1e-6)
    assert np.all(d[jump, 2] >= 0)  # stored from the lower end
    drops = g.edge_kind == CLIMB_EDGE_DROP
    assert np.all(d[drops, 2] < 0) and np.all(-d[drops, 2] <= drop + 1e-9)
    assert np.all(horiz[drops] <= dist + 1e-9) and not g.edge_bidirectional[drops].any()
    assert np.all(g.edge_element[~(g.edge_kind == CLIMB_EDGE_ALONG)] == -1)


def test_link_appears_inside_the_thresholds_only():
    def links(gap, **kw):
        g = C.build_climb_graph(elements(seg("a-ledge", CLIMB_LEDGE, (0, 0, 2), (2, 0, 2)),
                                         seg("b-ledge", CLIMB_LEDGE, (2 + gap, 0, 2),
                                             (4 + gap, 0, 2))),
                                C.ClimbParams(**kw))
        return g.edge_kind[g.edge_kind != CLIMB_EDGE_ALONG].tolist()

    assert links(1.9, max_link_distance=2.0) == [CLIMB_EDGE_JUMP]
    assert links(2.1, max_link_distance=2.0) == []

    def up(rise, angle):
        g = C.build_climb_graph(elements(seg("a-ledge", CLIMB_LEDGE, (0, 0, 2), (2, 0, 2)),
                                         seg("b-ledge", CLIMB_LEDGE, (3, 0, 2 + rise),
                                             (5, 0, 2 + rise))),
                                C.ClimbParams(max_link_distance=3.0, max_link_angle=angle,
                                              max_drop_height=0.5))
        return g.edge_kind[g.edge_kind != CLIMB_EDGE_ALONG].tolist()

    assert up(0.9, 45.0) == [CLIMB_EDGE_JUMP]  # 42 degrees up
    assert up(1.1, 45.0) == []  # 48 degrees up; too high a drop back (0.5 m)
    assert up(1.1, 50.0) == [CLIMB_EDGE_JUMP]


def test_drop_is_one_way_and_back_jump_needs_its_ability():
    g = C.build_climb_graph(
        elements(seg("high-ledge", CLIMB_LEDGE, (0, 0, 5), (2, 0, 5)),
                 seg("low-ledge", CLIMB_LEDGE, (0, 0.5, 2), (2, 0.5, 2)),
                 seg("back-ledge", CLIMB_LEDGE, (0, 2.5, 5), (2, 2.5, 5))),
        C.ClimbParams(max_link_distance=3.0, max_link_angle=45.0, max_drop_height=4.0))
    hi, lo, back = (set(n.tolist()) for n in g.element_nodes)
    for (a, b), k, bid in zip(g.edge_nodes.tolist(), g.edge_kind, g.edge_bidirectional,
                              strict=True):
        if {a, b} & hi and {a, b} & lo:
            assert k == CLIMB_EDGE_DROP and a in hi and b in lo and not bid
    kinds = g.edge_kind.tolist()
    assert kinds.count(CLIMB_EDGE_DROP) >= 1 and kinds.count(CLIMB_EDGE_BACK_JUMP) >= 1
    bj = g.edge_kind == CLIMB_EDGE_BACK_JUMP
    assert np.all(g.edge_abilities[bj] & ABILITY_BACK_JUMP)
    for a, b in g.edge_nodes[bj].tolist():
        assert {a, b} & hi and {a, b} & back


def test_blocking_collider_removes_a_link_and_removing_it_restores_it():
    el = elements(seg("a-ledge", CLIMB_LEDGE, (0, 0, 2), (2, 0, 2)),
                  seg("b-ledge", CLIMB_LEDGE, (3.5, 0, 2), (5.5, 0, 2)))
    # the walls the ledges lie on do not block
    v, t = Scene().box(-0.2, -1, 0, 2.2, 0, 2).box(3.3, -1, 0, 5.7, 0, 2).arrays()
    free = C.build_climb_graph(el, C.ClimbParams(), v, t)
    assert (free.edge_kind == CLIMB_EDGE_JUMP).sum() == 1
    v2, t2 = Scene().box(-0.2, -1, 0, 2.2, 0, 2).box(3.3, -1, 0, 5.7, 0, 2) \
        .box(2.6, -0.5, 1, 2.9, 0.5, 3).arrays()
    blocked = C.build_climb_graph(el, C.ClimbParams(), v2, t2)
    assert (blocked.edge_kind == CLIMB_EDGE_JUMP).sum() == 0
    again = C.build_climb_graph(el, C.ClimbParams(), v, t)
    assert np.array_equal(again.edge_nodes, free.edge_nodes)


# ------------------------------------------------------------------ bad input
def test_bad_elements_get_a_message_naming_the_object_and_the_rest_is_kept():
    items = [seg("good-ledge", CLIMB_LEDGE, (0, 0, 2), (3, 0, 2)),
             seg("zero-ledge", CLIMB_LEDGE, (1, 1, 2), (1, 1, 2)),
             seg("flat-ladder", CLIMB_LADDER, (1, 1, 2), (2, 1, 2)),
             seg("copy-ledge", CLIMB_LEDGE, (1, 0, 2), (2.5, 0, 2)),
             seg("far-pipe", CLIMB_PIPE, (5000, 0, 0), (5000, 0, 3)),
             ("empty-pipe", CLIMB_PIPE, np.zeros((0, 3))),
             seg("nan-ledge", CLIMB_LEDGE, (0, 0, np.nan), (1, 0, 2))]
    el, warnings = C.make_elements(items, scene_bounds=(np.zeros(3), np.array([10, 10, 5.0])))
    assert el.name.tolist() == ["good-ledge"]
    assert len(warnings) == 6
    for name, word in (("zero-ledge", "long"), ("flat-ladder", "long"),
                       ("copy-ledge", "overlaps 'good-ledge'"), ("far-pipe", "5000 m"),
                       ("empty-pipe", "no points"), ("nan-ledge", "NaN")):
        assert any(f"'{name}'" in w and word in w for w in warnings), (name, warnings)


def test_ladder_inside_a_wall_is_refused_by_name_and_the_rest_is_kept():
    """A ladder buried in a closed box is refused (its name in the message); one against
    the box's face is kept, as is a ledge on its top edge."""
    wall = Scene().floor(-10, -10, 10, 10).box(-4, 0, 0, 4, 1, 3)
    v, t = np.array(wall.verts, np.float64), np.array(wall.tris, np.int64)
    items = [seg("inside-ladder", CLIMB_LADDER, (0, 0.5, 0), (0, 0.5, 3)),
             seg("front-ladder", CLIMB_LADDER, (2, -0.1, 0), (2, -0.1, 3)),
             seg("top-ledge", CLIMB_LEDGE, (-3, 0, 3), (3, 0, 3))]
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm, warnings = C.add_climbing(bake(v, t, settings), items, v, t, settings)
    assert nm.climb_element_name.tolist() == ["front-ladder", "top-ledge"]
    assert any("'inside-ladder'" in w and "inside solid geometry" in w for w in warnings)
    assert not any("front-ladder" in w or "top-ledge" in w for w in warnings)
    grid = C.triangle_grid(v, t)
    assert C.inside_solid([(0, 0.5, 1.5), (-3.9, 0.9, 0.1)], grid).tolist() == [True, True]
    assert C.inside_solid([(0, -0.5, 1.5), (0, 0.5, 3.5), (9, 9, 1)], grid).tolist() == \
        [False, False, False]
    # open single-sided walls (a room of quads facing in) enclose nothing
    room = Scene().floor(-5, -5, 5, 5)
    room.quad((-5, -5, 0), (-5, 5, 0), (-5, 5, 3), (-5, -5, 3))
    room.quad((5, 5, 0), (5, -5, 0), (5, -5, 3), (5, 5, 3))
    room.quad((5, -5, 0), (-5, -5, 0), (-5, -5, 3), (5, -5, 3))
    room.quad((-5, 5, 0), (5, 5, 0), (5, 5, 3), (-5, 5, 3))
    open_grid = C.triangle_grid(np.array(room.verts, np.float64), np.array(room.tris))
    assert not C.inside_solid([(0, 0, 1.5), (4.8, 4.8, 1)], open_grid).any()


# ------------------------------------------------------------------ the wall scene
def wall_scene_objects():
    """Ground, a 2.5 m platform with a ledge on its front edge and a ladder on its side,
    a ledge in the open far from any ground, and a pipe 5 km away."""
    ground = Scene().floor(-10, -10, 10, 10)
    platform = Scene().box(-4, 0, 0, 4, 4, 2.5)
    return [("ground", ground), ("wall", platform),
            ("front-ledge", Scene().box(-3, -0.1, 2.4, 3, 0, 2.5)),
            ("side-ladder", Scene().box(4, 1.5, 0, 4.2, 2.5, 2.5)),
            ("sky-ledge", Scene().box(-9, -9, 40, -7, -8.9, 40.1)),
            ("far-pipe", Scene().box(5000, 0, 0, 5000.2, 0.2, 3))]


def write_named_obj(path, objects):
    lines, base = [], 1
    for name, scene in objects:
        lines.append(f"o {name}")
        lines += [f"v {x!r} {y!r} {z!r}" for x, y, z in scene.verts]
        lines += [f"f {a + base} {b + base} {c + base}" for a, b, c in scene.tris]
        base += len(scene.verts)
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def wall(tmp_path_factory):
    path = tmp_path_factory.mktemp("climb") / "wall.obj"
    write_named_obj(path, wall_scene_objects())
    scene = read_obj_scene(path)
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm = bake(scene.vertices, scene.triangles, settings)
    out, warnings = C.add_climbing(nm, scene.climb, scene.vertices, scene.triangles, settings)
    return path, scene, nm, out, warnings


def test_obj_climb_objects_are_elements_and_not_walkable(wall):
    _path, scene, _nm, _out, _ = wall
    assert [(n, k) for n, k, _ in scene.climb] == [
        ("front-ledge", CLIMB_LEDGE), ("side-ladder", CLIMB_LADDER), ("sky-ledge", CLIMB_LEDGE),
        ("far-pipe", CLIMB_PIPE)]
    walk = Scene().floor(-10, -10, 10, 10).box(-4, 0, 0, 4, 4, 2.5).arrays()
    assert scene.triangles.shape[0] == walk[1].shape[0]
    assert np.array_equal(scene.vertices, walk[0])  # climb-only vertices are left out


def test_obj_groups_and_polylines_make_elements(tmp_path):
    path = tmp_path / "g.obj"
    path.write_text("v 0 0 0\nv 4 0 0\nv 4 4 0\nf 1 2 3\n"
                    "g rail-ledge\nv 0 1 2\nv 1.5 1 2\nv 3 1 2\nl 4 5 6\n"
                    "g walk\nv 0 0 1\nv 1 0 1\nv 1 1 1\nf -3 -2 -1\n")
    scene = read_obj_scene(path)
    assert [n for n, _, _ in scene.climb] == ["rail-ledge"]
    assert scene.triangles.shape[0] == 2
    s, _ = C.element_from_points("rail-ledge", CLIMB_LEDGE, scene.climb[0][2])
    assert np.allclose(sorted(s.tolist()), [(0, 1, 2), (3, 1, 2)])


def test_navmesh_join_links_ground_to_the_elements(wall):
    _path, _scene, nm, out, warnings = wall
    assert out.climb_element_name.tolist() == ["front-ledge", "side-ladder", "sky-ledge"]
    assert nm.polygon_count == out.polygon_count and np.array_equal(nm.polygons, out.polygons)
    kind, node = out.climb_link_kind, out.climb_link_node
    pos = out.climb_node_position
    ledge_nodes = set(out.climb_edge_nodes[out.climb_edge_element == 0].ravel().tolist())
    ladder = out.climb_edge_nodes[out.climb_edge_element == 1].ravel()
    bottom = int(ladder[np.argmin(pos[ladder, 2])])
    top = int(ladder[np.argmax(pos[ladder, 2])])
    # every ledge node: mount to the platform top, hang to the ground (2.5 m: both ways)
    for k, z, bid in ((CLIMB_LINK_MOUNT, 2.5, True), (CLIMB_LINK_HANG, 0.0, True)):
        rows = kind == k
        linked = set(node[rows].tolist()) & ledge_nodes
        assert linked == ledge_nodes, k
        sel = rows & np.isin(node, list(ledge_nodes))
        assert np.all(np.abs(out.climb_link_point[sel, 2] - z) < 0.35)
        assert np.all(out.climb_link_bidirectional[sel] == bid)
    assert node[kind == CLIMB_LINK_LADDER_FOOT].tolist() == [bottom]
    assert top in node[kind == CLIMB_LINK_MOUNT].tolist()
    # link points lie on the polygon they name (within its XY bounds)
    for p, poly in zip(out.climb_link_point, out.climb_link_poly, strict=True):
        vs = out.polygon_vertices(int(poly))
        assert np.all(p[:2] >= vs[:, :2].min(axis=0) - 1e-6)
        assert np.all(p[:2] <= vs[:, :2].max(axis=0) + 1e-6)
    assert np.all(out.climb_link_length <= np.hypot(C.ClimbParams.from_settings(
        BakeSettings()).reach, 4.0) + 1e-6)
    assert any("'sky-ledge'" in w and "no walkable ground" in w for w in warnings)
    assert any("'far-pipe'" in w for w in warnings)


def test_hang_is_one_way_above_max_climb_height(wall):
    _path, scene, nm, _out, _ = wall
    low = BakeSettings(climbing_enabled=True, max_climb_height=2.0, auto_ledges=False)
    out, _ = C.add_climbing(nm, scene.climb, scene.vertices, scene.triangles, low)
    hang = out.climb_link_kind == CLIMB_LINK_HANG
    assert hang.any() and not out.climb_link_bidirectional[hang].any()


def test_rebuilding_on_the_navmesh_is_identical(wall):
    _path, scene, nm, out, _ = wall
    again, _ = C.add_climbing(nm, scene.climb, scene.vertices, scene.triangles,
                              BakeSettings(climbing_enabled=True, auto_ledges=False))
    assert again.equals(out)
    for name in CLIMB_ARRAYS:
        assert getattr(again, name).dtype == getattr(out, name).dtype


# ------------------------------------------------------------------ files
def test_npz_and_json_round_trips_keep_the_climb_graph(wall, tmp_path):
    out = wall[3]
    assert out.climb_edge_kind.shape[0] > 0
    out.save(tmp_path / "a.npz")
    assert NavMesh.load(tmp_path / "a.npz").equals(out)
    write_json(out, tmp_path / "a.json")
    back = read_json(tmp_path / "a.json")
    assert back.equals(out)
    doc = json.loads((tmp_path / "a.json").read_text())
    assert [e["name"] for e in doc["climb"]["elements"]] == out.climb_element_name.tolist()
    assert doc["climb"]["elements"][0]["abilities"] == ["climb", "shimmy"]
    assert {e["kind"] for e in doc["climb"]["edges"]} <= {"along", "jump", "drop",
                                                          "back_jump"}


def test_gltf_extras_carry_the_climb_graph(wall, tmp_path):
    from blender_navjump.export._common import y_up_to_z_up
    from blender_navjump.export.gltf import read_glb, write_glb

    out = wall[3]
    extras = read_glb(write_glb(out, tmp_path / "w.glb")).navmesh_node()["extras"]["navjump"]
    climb = extras["climb"]
    assert [e["name"] for e in climb["elements"]] == out.climb_element_name.tolist()
    assert np.allclose(y_up_to_z_up(np.array(climb["nodes"])), out.climb_node_position)
    assert np.allclose(y_up_to_z_up(np.array([c["point"] for c in climb["links"]])),
                       out.climb_link_point)
    assert [e["nodes"] for e in climb["edges"]] == out.climb_edge_nodes.tolist()
    assert "climb" not in read_glb(write_glb(wall[2], tmp_path / "n.glb")).navmesh_node()[
        "extras"]["navjump"]


def test_files_without_climbing_still_load(wall, tmp_path):
    nm = wall[2]
    nm.save(tmp_path / "old.npz")
    with np.load(tmp_path / "old.npz") as data:  # an archive written before climbing
        arrays = {k: data[k] for k in data.files if not k.startswith("climb_")}
    np.savez_compressed(tmp_path / "older.npz", **arrays)
    old = NavMesh.load(tmp_path / "older.npz")
    assert old.climb_element_count == 0 and old.equals(nm)
    write_json(nm, tmp_path / "old.json")
    assert "climb" not in json.loads((tmp_path / "old.json").read_text())
    assert read_json(tmp_path / "old.json").climb_node_position.shape == (0, 3)


def test_json_with_a_bad_climb_node_index_is_refused(wall, tmp_path):
    write_json(wall[3], tmp_path / "a.json")
    doc = json.loads((tmp_path / "a.json").read_text())
    doc["climb"]["edges"][0]["nodes"] = [0, 10_000]
    (tmp_path / "b.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="climb_edge_nodes"):
        read_json(tmp_path / "b.json")


# ------------------------------------------------------------------ settings and CLI
def test_climb_settings_are_validated():
    s = BakeSettings()
    assert s.climbing_enabled is False and s.max_climb_height > 0
    assert BakeSettings.parse_value("climbing_enabled", "yes") is True
    assert BakeSettings.parse_value("max_climb_height", "2.5") == 2.5
    for bad in (0.0, -1.0, 101.0, float("nan")):
        with pytest.raises(SettingsError, match="max_climb_height"):
            BakeSettings(max_climb_height=bad).validate()
    with pytest.raises(SettingsError, match="climbing_enabled"):
        BakeSettings(climbing_enabled="on").validate()


def run(*args):
    return subprocess.run([sys.executable, "-m", "blender_navjump", *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_cli_bake_with_climbing(wall, tmp_path):
    path = wall[0]
    r = run("bake", path, "--out", tmp_path / "on.json", "--set", "climbing_enabled=true",
            "--set", "max_climb_height=2.8")
    assert r.returncode == 0, r.stderr
    assert "'far-pipe'" in r.stderr and "'sky-ledge'" in r.stderr
    doc = json.loads((tmp_path / "on.json").read_text())
    names = [e["name"] for e in doc["climb"]["elements"]]
    assert names[:3] == ["front-ledge", "side-ladder", "sky-ledge"]
    assert len(names) > 3 and all(n.startswith("auto-ledge") for n in names[3:])
    # found ledges switched off with --set: only the authored elements
    r = run("bake", path, "--out", tmp_path / "authored.json", "--set", "climbing_enabled=true",
            "--set", "max_climb_height=2.8", "--set", "auto_ledges=false")
    assert r.returncode == 0, r.stderr
    authored = json.loads((tmp_path / "authored.json").read_text())
    assert [e["name"] for e in authored["climb"]["elements"]] == names[:3]
    assert doc["settings"]["max_climb_height"] == 2.8
    assert {k["kind"] for k in doc["climb"]["links"]} == {"mount", "ladder_foot", "hang"}
    # off: the climb objects are still not walkable, and the navmesh is the same
    r = run("bake", path, "--out", tmp_path / "off.json")
    assert r.returncode == 0, r.stderr
    off = json.loads((tmp_path / "off.json").read_text())
    assert "climb" not in off and off["polygons"] == doc["polygons"]
    r = run("bake", path, "--out", tmp_path / "bad.json", "--set", "max_climb_height=-1")
    assert r.returncode == 2 and "max_climb_height" in r.stderr
    assert not (tmp_path / "bad.json").exists()


# ------------------------------------------------------------------ climbing in the path queries
@pytest.fixture(scope="module")
def islands(tmp_path_factory):
    """Ground and a 4 m platform (two navmesh islands) joined only by a ladder."""
    path = tmp_path_factory.mktemp("climb") / "islands.obj"
    write_named_obj(path, [("ground", Scene().floor(-10, -10, 10, 10)),
                           ("tower", Scene().box(-4, 0, 0, 4, 4, 4)),
                           ("east-ladder", Scene().box(4, 1.5, 0, 4.2, 2.5, 4))])
    scene = read_obj_scene(path)
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm = bake(scene.vertices, scene.triangles, settings)
    out, warnings = C.add_climbing(nm, scene.climb, scene.vertices, scene.triangles, settings)
    assert warnings == []
    return out


def joined_graph(query, agent, penalty):
    """The joined graph of docs/climbing.md built here in Python, with its edge costs for
    an agent: the port graph's nodes (portals, jump-link ends), the climb nodes and two
    ground nodes per climb link, one to get on by, one to get off to (a ground point is
    not a waypoint of a walk); walking between two nodes of one polygon (from any but a
    getting-on node, to any but a getting-off node), jump links, climb edges (length +
    penalty) and climb links. Returns (positions, {node: [(to, cost)]}, the polygon of
    each node or -1, nodes of each polygon, the stance cost of walking a polygon or None,
    the getting-on and getting-off nodes)."""
    from blender_navjump.core.climb import link_ability_masks

    nm, d = query.navmesh, query.data
    stances = ("stand", "crouch", "prone")
    mask = agent.ability_mask()
    n_port = d.node_pos.shape[0]
    n_climb = nm.climb_node_position.shape[0]
    n_link = nm.climb_link_kind.shape[0]
    pos = np.concatenate([d.node_pos, nm.climb_node_position, nm.climb_link_point,
                          nm.climb_link_point])
    get_on = n_port + n_climb + np.arange(n_link)
    get_off = get_on + n_link
    poly_nodes = {p: list(d.ports[d.port_start[p]:d.port_start[p + 1]])
                  for p in range(nm.polygon_count)}
    for c, p in enumerate(nm.climb_link_poly):
        poly_nodes[int(p)] += [int(get_on[c]), int(get_off[c])]
    adj = {v: [] for v in range(pos.shape[0])}
    on_set, off_set = set(get_on.tolist()), set(get_off.tolist())

    def walk_mult(p):
        st_ = stances[int(nm.polygon_stance[p])]
        return agent.stance_cost[stances.index(st_)] if st_ in agent.stances else None

    for p, nodes in poly_nodes.items():
        m = walk_mult(p)
        if m is None:
            continue
        for u in nodes:
            for v in nodes:
                if u != v and u not in on_set and v not in off_set:
                    adj[u].append((v, m * float(np.linalg.norm(pos[u] - pos[v]))))
    for k in range(nm.link_count):
        kind = int(nm.link_kind[k])
        if LINK_KIND_NAMES[kind] not in agent.links:
            continue
        a, b = int(d.link_node_start[k]), int(d.link_node_end[k])
        ends = [(a, b, int(nm.link_end_poly[k]))]
        if nm.link_bidirectional[k]:
            ends.append((b, a, int(nm.link_start_poly[k])))
        for u, v, into in ends:
            if walk_mult(into) is not None:
                length = float(np.linalg.norm(pos[u] - pos[v]))
                adj[u].append((v, max(float(nm.link_cost[k]) * agent.link_cost_scale[kind],
                                      length)))
    for k, (a, b) in enumerate(nm.climb_edge_nodes):
        if int(nm.climb_edge_abilities[k]) & ~mask:
            continue
        c = float(nm.climb_edge_length[k]) + penalty[k]
        adj[n_port + int(a)].append((n_port + int(b), c))
        if nm.climb_edge_bidirectional[k]:
            adj[n_port + int(b)].append((n_port + int(a), c))
    for c, abil in enumerate(link_ability_masks(nm)):
        if int(abil) & ~mask:
            continue
        node = n_port + int(nm.climb_link_node[c])
        adj[node].append((int(get_off[c]), float(nm.climb_link_length[c])))
        if nm.climb_link_bidirectional[c]:
            adj[int(get_on[c])].append((node, float(nm.climb_link_length[c])))
    node_poly = np.full(pos.shape[0], -1)
    node_poly[get_on] = nm.climb_link_poly
    node_poly[get_off] = nm.climb_link_poly
    return pos, adj, node_poly, poly_nodes, walk_mult, get_on, get_off


def straight_cost(query, agent, p, a, q, b):
    """The ordinary search's straight start -> goal edge (query/raycast.py), or inf."""
    from blender_navjump.core.query.raycast import straight_walk

    d = query.data
    allowed, cost = query._filter_arrays(agent)[:2]
    n = 2 * d.polygons.shape[0] + 8
    c, _ = straight_walk(d.vertices, d.polygons, d.neighbours, d.poly_nv, d.poly_stance,
                         allowed, cost, p, np.asarray(a, np.float64), q,
                         np.asarray(b, np.float64), np.zeros(n, np.int64), np.zeros((n, 3)),
                         np.zeros((n, 3)))
    return c


def _dijkstra(adj, src, dst, keep=None):
    """Least cost from src to dst over adj (heapq, no heuristic), only through nodes
    ``keep`` accepts."""
    import heapq

    dist = {src: 0.0}
    heap = [(0.0, src)]
    while heap:
        du, u = heapq.heappop(heap)
        if u == dst:
            return du
        if du > dist[u]:
            continue
        for v, c in adj[u]:
            if (keep is None or v == dst or keep(v)) and du + c < dist.get(v, np.inf):
                dist[v] = du + c
                heapq.heappush(heap, (du + c, v))
    return np.inf


def dijkstra_joined_cost(query, agent, penalty, start, goal):
    """Brute-force Dijkstra over :func:`joined_graph` from ``start`` to ``goal``, each
    ("node", climb node) or ("poly", polygon, point on it), as docs/climbing.md defines
    the answer: an end on a polygon joins that polygon's nodes; the walking part from a
    point (the start, or the ground point of a link off the graph when the start is on a
    climb node) to a point (the goal, or the ground point of a link onto the graph) also
    has the straight walk between the two when it stays on usable polygons; an end on a
    climb node climbs (climb edges only) to or from those links."""
    from blender_navjump.core.climb import link_ability_masks

    nm = query.navmesh
    pos, adj, node_poly, poly_nodes, walk_mult, get_on, get_off = joined_graph(
        query, agent, penalty)
    n_port = query.data.node_pos.shape[0]
    n_climb = nm.climb_node_position.shape[0]

    def on_graph(v):
        return n_port <= v < n_port + n_climb

    ok = ~(link_ability_masks(nm).astype(np.int64) & ~agent.ability_mask()
           ).astype(bool) & np.array([walk_mult(int(p)) is not None
                                      for p in nm.climb_link_poly], bool)
    length = nm.climb_link_length
    # (node or None for the end's point, point, polygon, cost to / from the end)
    if start[0] == "node":
        s_rows = [(int(get_off[c]), pos[get_off[c]], int(node_poly[get_off[c]]),
                   _dijkstra(adj, n_port + start[1], n_port + int(nm.climb_link_node[c]),
                             on_graph) + length[c]) for c in np.nonzero(ok)[0]]
    else:
        s_rows = [(None, start[2], start[1], 0.0)]
    if goal[0] == "node":
        g_rows = [(int(get_on[c]), pos[get_on[c]], int(node_poly[get_on[c]]),
                   length[c] + _dijkstra(adj, n_port + int(nm.climb_link_node[c]),
                                         n_port + goal[1], on_graph))
                  for c in np.nonzero(ok & nm.climb_link_bidirectional)[0]]
    else:
        g_rows = [(None, goal[2], goal[1], 0.0)]
    best = np.inf
    if start[0] == "node" and goal[0] == "node":
        best = _dijkstra(adj, n_port + start[1], n_port + goal[1], on_graph)
    src, dst = len(adj), len(adj) + 1
    for su, sa, sp, sc in s_rows:
        for gv, gb, gp, gc in g_rows:
            if not np.isfinite(sc + gc):
                continue
            a = dict(adj)
            a[src], a[dst] = [], []
            s_node = src if su is None else su
            if su is None and walk_mult(sp) is not None:
                a[src] = [(v, walk_mult(sp) * float(np.linalg.norm(pos[v] - sa)))
                          for v in poly_nodes[sp]]
            if gv is None:
                if walk_mult(gp) is not None:
                    for v in poly_nodes[gp]:
                        a[v] = a[v] + [(dst, walk_mult(gp) * float(np.linalg.norm(gb - pos[v])))]
            else:
                a[gv] = a[gv] + [(dst, 0.0)]
            if sp == gp:
                direct = np.inf if walk_mult(sp) is None else \
                    walk_mult(sp) * float(np.linalg.norm(gb - sa))
            else:
                direct = straight_cost(query, agent, sp, sa, gp, gb)
            a[s_node] = a[s_node] + [(dst, direct)]
            best = min(best, sc + _dijkstra(a, s_node, dst) + gc)
    return best


def climbing_flags(res):
    words = ("climb", "ladder", "pipe", "hang", "shimmy", "mount")
    return [f for f in res.flag_names if any(w in f for w in words)]


def test_islands_joined_by_a_ladder(islands):
    """The main path API walks, climbs the ladder and walks on; its cost is its length
    (standing walk: 1 per metre; climbing: its length)."""
    from blender_navjump.core.query import AgentFilter, find_path

    start, goal = (8.0, 8.0, 0.0), (0.0, 2.0, 4.0)
    res = find_path(islands, start, goal)
    assert res.found and res.climbing
    flags = climbing_flags(res)
    assert flags[0] == "ladder_on" and flags[-1] == "mount" and "ladder_climb" in flags
    ladder = np.nonzero(islands.climb_edge_element == 0)[0]
    assert sorted(res.climb_edges.tolist()) == sorted(ladder.tolist())  # the whole ladder
    # the ends are placed on the navmesh surface (a cell above the floor at most)
    assert np.abs(res.points[0] - start).max() <= 0.3
    assert np.abs(res.points[-1] - goal).max() <= 0.3
    assert res.cost == pytest.approx(res.length, rel=1e-9)
    assert res.length == pytest.approx(np.linalg.norm(np.diff(res.points, axis=0),
                                                      axis=1).sum(), rel=1e-9)
    # the ladder's part: its nodes in order, up
    on = np.isin(res.flag_names, ["ladder_climb", "mount"])
    assert np.all(np.diff(res.points[on][:, 2]) >= -1e-9)
    down = find_path(islands, goal, start)
    assert down.found and "ladder_off" in down.flag_names
    everything = ("climb", "ladder", "pipe", "shimmy", "mount", "back_jump")
    for missing in ("ladder", "mount"):
        agent = AgentFilter(abilities=[a for a in everything if a != missing])
        res = find_path(islands, start, goal, agent)
        assert not res.found and not res.climbing, missing
    walker = AgentFilter(abilities=())
    res = find_path(islands, start, (-8.0, -8.0, 0.0), walker)
    assert res.found and not res.climbing


def test_start_mid_climb_reaches_both_ends(islands):
    from blender_navjump.core.query import find_path

    nodes = islands.climb_edge_nodes[islands.climb_edge_element == 0].ravel()
    mid = islands.climb_node_position[nodes[np.argsort(islands.climb_node_position[nodes, 2])]
                                      [len(nodes) // 2]]
    assert 1.0 < mid[2] < 3.0
    for goal, off in (((8.0, 8.0, 0.0), "ladder_off"), ((0.0, 2.0, 4.0), "mount")):
        res = find_path(islands, mid, goal)
        assert res.found and res.climbing
        assert res.points[0].tolist() == pytest.approx(mid.tolist())
        assert res.flag_names[0] == "ladder_climb"
        assert off in res.flag_names and "ladder_on" not in res.flag_names
        assert np.abs(res.points[-1] - goal).max() <= 0.3


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000))
def test_astar_equals_brute_force_dijkstra(wall, seed):
    """The search over the ways through the climb graph (one batch call) against a
    brute-force Dijkstra over the whole joined graph, with random abilities, stance costs
    and climb penalties, ends on polygons or on climb nodes."""
    check_search_against_dijkstra(wall[3], seed)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000))
def test_astar_on_islands_equals_brute_force_dijkstra(islands, seed):
    """The same on the platform reached by one ladder."""
    check_search_against_dijkstra(islands, seed)


def check_search_against_dijkstra(nm, seed):
    from blender_navjump.core.query import AgentFilter

    rng = np.random.default_rng(seed)
    agent = AgentFilter(abilities=[a for a in ("climb", "ladder", "shimmy", "mount")
                                   if rng.random() < 0.7],
                        stance_cost=tuple(rng.uniform(1.0, 3.0, 3)))
    penalty = rng.uniform(0, 2, nm.climb_edge_kind.shape[0]) * (rng.random() < 0.5)
    n_climb = nm.climb_node_position.shape[0]
    ends = []
    for _ in range(2):
        if rng.random() < 0.3:
            ends.append(("node", int(rng.integers(n_climb))))
        else:
            p = int(rng.integers(nm.polygon_count))
            ends.append(nm.polygon_vertices(p).mean(axis=0))
    check_search(nm, agent, penalty, ends)


def check_search(nm, agent, penalty, ends):
    """The search against :func:`dijkstra_joined_cost` for one query; ``ends``: each a
    point (placed on the navmesh first) or ("node", climb node). Returns the answer."""
    from blender_navjump.core.query.batch_kernel import NO_BOUNDS, SUM_SEARCH_COST, solve_batch
    from blender_navjump.core.query.climb import climb_solver
    from blender_navjump.core.query.path import NavQuery

    query = NavQuery(nm)
    query.climb_penalty = penalty
    ends = [e if isinstance(e, tuple) else ("poly", *query.nearest_polygon(e, agent)[:2])
            for e in ends]
    want = dijkstra_joined_cost(query, agent, penalty, ends[0], ends[1])
    points = [nm.climb_node_position[e[1]] if e[0] == "node" else e[2] for e in ends]
    if ends[0][0] == "poly" and ends[1][0] == "poly":
        # the search itself, without the ordinary answer's bound
        solver = climb_solver(query, agent)
        raw = solve_batch(solver.data, *solver.arrays, query.extents,
                          points[0].reshape(1, 3), points[1].reshape(1, 3), solver.workspace,
                          0, NO_BOUNDS, solver.landmarks)
        got = raw[0][0, SUM_SEARCH_COST] if raw[0][0, 0] == 0 else np.inf
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9) if np.isfinite(want) \
            else not np.isfinite(got)
    res = query.find_paths(points[0], points[1], agent, on_error="status").path(0)
    if np.isfinite(want):
        assert res.found
        if ends[0][0] == "node" or ends[1][0] == "node":
            assert res.search_cost == pytest.approx(want, rel=1e-9, abs=1e-9)
        else:  # a climbing answer must cost less than the walking one it replaces
            assert res.search_cost >= want - 1e-9 * max(want, 1.0)
        # never an edge needing an ability the agent lacks
        used = res.climb_edges
        assert not np.any(nm.climb_edge_abilities[used] & ~agent.ability_mask())
    elif res.found:  # not from a climb node: the ordinary answer for the points
        assert res.start_polygon >= 0 and res.goal_polygon >= 0
    return res


def test_shimmying_beats_dear_walking_on_the_same_polygon(wall):
    """Walking the platform's top costs 3 per metre: hanging down, shimmying along the
    ledge (1 per metre) and mounting again is cheaper, so the ways that start and end on
    the top's polygon must be kept where walking does not beat them."""
    from blender_navjump.core.query import AgentFilter

    nm = wall[3]
    agent = AgentFilter(stance_cost=(3.0, 3.0, 3.0))
    res = check_search(nm, agent, np.zeros(nm.climb_edge_kind.shape[0]),
                       [np.array([-2.8, 0.8, 2.5]), np.array([2.8, 0.8, 2.5])])
    assert res.found and "shimmy" in res.flag_names
    assert res.flag_names.count("climb_down_from_mount") == 1


def test_answers_that_do_not_climb_are_the_ordinary_ones(islands):
    """A climbing agent's answer that does not climb is the walker's, point for point."""
    from blender_navjump.core.query import AgentFilter, NavQuery, random_navmesh_points

    query = NavQuery(islands)
    starts = random_navmesh_points(islands, 60, 3)
    goals = random_navmesh_points(islands, 60, 4)
    climber = query.find_paths(starts, goals)
    walker = query.find_paths(starts, goals, AgentFilter(abilities=()))
    n_climbing = 0
    for q in range(60):
        a, b = climber.path(q), walker.path(q)
        if a.climbing:
            n_climbing += 1
            assert a.found and (not b.found or a.search_cost < b.cost)
            continue
        assert a.status == b.status and np.array_equal(a.points, b.points)
        assert a.flag_names == b.flag_names and a.cost == b.cost
    assert 0 < n_climbing < 60


def test_path_command_climbs_with_abilities(islands, tmp_path, capsys):
    from blender_navjump.path_cli import path_command

    write_json(islands, tmp_path / "islands.json")
    args = ["path", str(tmp_path / "islands.json"), "--start", "8", "8", "0",
            "--goal", "0", "2", "4"]
    assert path_command(args[1:]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["found"] and doc["climbing"]
    words = ("climb", "ladder", "pipe", "hang", "shimmy", "mount")
    climbing = [f for f in doc["flags"] if any(w in f for w in words)]
    assert "ladder_on" in climbing and "mount" in climbing
    assert len(doc["points"]) == len(doc["flags"])
    assert path_command(args[1:] + ["--abilities", "climb,shimmy,mount"]) == 0
    assert not json.loads(capsys.readouterr().out)["found"]
    assert path_command(args[1:] + ["--abilities", "fly"]) == 2
    assert "fly" in capsys.readouterr().err


def test_second_agent_takes_the_other_ascent_when_the_first_is_reserved(tmp_path):
    from blender_navjump.core.query import NavQuery
    from blender_navjump.core.query.climb import reserve

    path = tmp_path / "two.obj"
    write_named_obj(path, [("ground", Scene().floor(-10, -10, 10, 10)),
                           ("tower", Scene().box(-4, 0, 0, 4, 4, 4)),
                           ("east-ladder", Scene().box(4, 1.5, 0, 4.2, 2.5, 4)),
                           ("west-ladder", Scene().box(-4.2, 1.5, 0, -4, 2.5, 4))])
    scene = read_obj_scene(path)
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm, _ = C.add_climbing(bake(scene.vertices, scene.triangles, settings), scene.climb,
                           scene.vertices, scene.triangles, settings)
    east = set(np.nonzero(nm.climb_edge_element == 0)[0].tolist())
    west = set(np.nonzero(nm.climb_edge_element == 1)[0].tolist())
    query = NavQuery(nm)
    start, goal = (7.0, 2.0, 0.0), (0.0, 2.0, 4.0)  # the east ladder is nearer
    first = query.find_path(start, goal)
    assert set(first.climb_edges.tolist()) == east
    free = np.zeros(nm.climb_edge_kind.shape[0])
    query.climb_penalty = taken = reserve(free, first, 100.0)
    second = query.find_path(start, goal)
    assert second.found and set(second.climb_edges.tolist()) == west
    assert second.search_cost < first.search_cost + 100.0
    # batch: both answers at once, each agent's own path
    batch = query.find_paths([start, (-7.0, 2.0, 0.0)], [goal, goal])
    assert set(batch.path(0).climb_edges.tolist()) == west
    query.climb_penalty = released = reserve(taken, first, -100.0)
    assert np.array_equal(released, free)
    assert query.find_path(start, goal).climb_edges.tolist() == first.climb_edges.tolist()
    with pytest.raises(ValueError, match="climb_penalty"):
        query.climb_penalty = -free - 1


@pytest.fixture(scope="module")
def towers():
    """scripts/bench_climb.py's level, 3 x 3 towers (each a navmesh island on top, two
    ledges round an outside corner, a ladder and a pipe): the searches through the ways
    run with landmark bounds."""
    v, t, items = load_script("bench_climb").level(36)
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm, warnings = C.add_climbing(bake(v, t, settings), items, v, t, settings)
    assert warnings == [] and nm.climb_element_count == 36
    return nm


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000))
def test_astar_with_landmarks_on_towers_equals_brute_force_dijkstra(towers, seed):
    """On a level of towers whose tops are reached only by climbing, the search with
    landmark bounds (query/climb.py ``landmarks``) against the brute-force Dijkstra; the
    ends are mostly on tower tops or the ground far apart (searches the bounds prune)."""
    from blender_navjump.core.query import AgentFilter
    from blender_navjump.core.query.climb import climb_solver
    from blender_navjump.core.query.path import NavQuery

    rng = np.random.default_rng(seed)
    agent = AgentFilter(abilities=[a for a in ("climb", "ladder", "pipe", "shimmy", "mount")
                                   if rng.random() < 0.8],
                        stance_cost=tuple(rng.uniform(1.0, 2.0, 3)))
    penalty = rng.uniform(0, 2, towers.climb_edge_kind.shape[0]) * (rng.random() < 0.5)
    centres = np.array([towers.polygon_vertices(p).mean(axis=0)
                        for p in range(towers.polygon_count)])
    tops = np.nonzero(centres[:, 2] > 2.0)[0]
    assert tops.size == 9
    ends = [centres[int(rng.choice(tops))] if rng.random() < 0.5
            else centres[int(rng.integers(len(centres)))] for _ in range(2)]
    res = check_search(towers, agent, penalty, ends)
    query = NavQuery(towers)
    query.climb_penalty = penalty
    if agent.abilities:
        assert climb_solver(query, agent).landmarks.dist_from.shape[1] > 0
    assert res.status in ("found", "partial")
