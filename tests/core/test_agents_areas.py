"""Issue 14, core half: several agents, areas and modifier volumes, area costs in queries,
hand-placed links and no-links volumes, bad input. Small real bakes, no bpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from link_levels import ledge
from scenes import Scene

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.agents import Agent, bake_agents, parse_agent
from blender_navjump.core.areas import Volume, check_volume, points_inside
from blender_navjump.core.custom_links import CustomLink, add_custom_links
from blender_navjump.core.kinds import LINK_CUSTOM, USER_AREA_FIRST
from blender_navjump.core.query.filter import AgentFilter
from blender_navjump.core.query.path import find_path

BASE = BakeSettings(cell_size=0.2, cell_height=0.1, agent_radius=0.4, agent_max_climb=0.4,
                    agent_height=1.8)


def box_volume(name, x0, y0, z0, x1, y1, z1, kind="area", area="water"):
    v, t = Scene().box(x0, y0, z0, x1, y1, z1).arrays()
    return check_volume(Volume(name, kind, area, np.asarray(v, float), np.asarray(t)))


def centroid(nm, p):
    return nm.polygon_vertices(p).mean(axis=0)


def area_name(nm, p):
    return str(nm.area_names[nm.polygon_area[p]])


# ------------------------------------------------------------------------ agents


def test_two_agents_erode_by_their_own_radius_and_share_work():
    v, t = Scene().floor(0, 0, 10, 10).arrays()
    agents = [Agent("human", BASE), Agent("dog", BASE.with_values(agent_radius=0.8))]
    out = bake_agents(v, t, agents)
    for agent in agents:
        nm = out[agent.name]
        lo = nm.vertices.min(axis=0)
        hi = nm.vertices.max(axis=0)
        r = agent.settings.agent_radius
        # the walkable area stops one radius (rounded to whole cells) from every edge
        assert lo[0] == pytest.approx(r, abs=0.21) and lo[1] == pytest.approx(r, abs=0.21)
        assert hi[0] == pytest.approx(10 - r, abs=0.21)
        assert hi[1] == pytest.approx(10 - r, abs=0.21)
        # sharing the heightfields changes nothing: the same as a bake of its own
        assert nm.equals(bake(v, t, agent.settings))
    assert not out["human"].equals(out["dog"])
    # the eroded widths differ by exactly the difference of the radii (whole cells here)
    widths = {k: float(np.ptp(nm.vertices[:, 0])) for k, nm in out.items()}
    assert widths["human"] - widths["dog"] == pytest.approx(2 * (0.8 - 0.4), abs=1e-6)
    # the second agent reused the first one's filtered, compact heightfield
    assert out["dog"].stats["timings_ms"]["compact"] == 0.0
    assert out["human"].stats["timings_ms"]["compact"] > 0.0


def test_agent_with_contradicting_settings_is_named():
    with pytest.raises(ValueError, match=r"agent 'dog': agent_max_climb: 2 m is not below"):
        parse_agent("dog:agent_max_climb=2,agent_height=1.5", BASE)
    with pytest.raises(ValueError, match=r"agent 'dog': agent_radius: .*outside"):
        parse_agent("dog:agent_radius=-1", BASE)
    with pytest.raises(ValueError, match=r"agent 'dog': .*unknown setting"):
        parse_agent("dog:no_such_field=1", BASE)
    v, t = Scene().floor(0, 0, 10, 10).arrays()
    with pytest.raises(ValueError, match=r"agent_radius: agent 'giant': a radius of 6 m is "
                                         r"larger than the level"):
        bake_agents(v, t, [Agent("giant", BASE.with_values(agent_radius=6.0))])


# ------------------------------------------------------------------------- areas


def test_modifier_volume_changes_exactly_the_polygons_inside():
    v, t = Scene().floor(0, 0, 10, 10).arrays()
    vol = box_volume("pool-area-water", 3.0, 2.0, -1, 6.0, 7.0, 1)
    plain = bake(v, t, BASE)
    nm = bake(v, t, BASE, volumes=[vol])
    assert plain.area_names.tolist() == nm.area_names.tolist()[:USER_AREA_FIRST]
    assert nm.area_names[USER_AREA_FIRST] == "water"
    water = [p for p in range(nm.polygon_count) if area_name(nm, p) == "water"]
    assert water and len(water) < nm.polygon_count
    for p in range(nm.polygon_count):
        pts = nm.polygon_vertices(p)
        inside = points_inside(vol, pts.mean(axis=0)[None] + [0, 0, 0.1])[0]
        assert (area_name(nm, p) == "water") == inside
        if inside:  # polygons are cut along the volume: all of it lies inside (a cell)
            assert pts[:, 0].min() >= 3.0 - 0.21 and pts[:, 0].max() <= 6.0 + 0.21
            assert pts[:, 1].min() >= 2.0 - 0.21 and pts[:, 1].max() <= 7.0 + 0.21
        else:
            assert area_name(nm, p) == "stand"
    got = nm.polygon_surface_areas()[water].sum()
    assert got == pytest.approx(3.0 * 5.0, rel=0.1)
    # the stance of every polygon is kept, the total walkable area too
    assert (nm.polygon_stance == 0).all()
    assert nm.surface_area() == pytest.approx(plain.surface_area(), rel=1e-6)


def test_later_volume_wins_where_volumes_overlap():
    v, t = Scene().floor(0, 0, 10, 10).arrays()
    a = box_volume("a-area-water", 2, 2, -1, 6, 8, 1, area="water")
    b = box_volume("b-area-mud", 4, 2, -1, 8, 8, 1, area="mud")

    def x_range(nm, name):
        xs = np.concatenate([nm.polygon_vertices(p)[:, 0] for p in range(nm.polygon_count)
                             if area_name(nm, p) == name])
        return xs.min(), xs.max()

    nm = bake(v, t, BASE, volumes=[a, b])
    assert x_range(nm, "water") == pytest.approx((2, 4), abs=0.01)  # mud took 4..6
    assert x_range(nm, "mud") == pytest.approx((4, 8), abs=0.01)
    nm = bake(v, t, BASE, volumes=[b, a])
    assert x_range(nm, "water") == pytest.approx((2, 6), abs=0.01)  # water took 4..6
    assert x_range(nm, "mud") == pytest.approx((6, 8), abs=0.01)


def test_volume_without_volume_is_refused_with_its_name():
    flat_v = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
    flat_t = np.array([[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]])
    with pytest.raises(ValueError, match=r"volume 'flat-area-water': encloses 0 m3"):
        check_volume(Volume("flat-area-water", "area", "water", flat_v, flat_t))
    open_v, open_t = Scene().floor(0, 0, 1, 1).arrays()
    with pytest.raises(ValueError, match=r"volume 'lid-area-water': 2 triangles enclose no"):
        check_volume(Volume("lid-area-water", "area", "water", np.asarray(open_v, float),
                            np.asarray(open_t)))
    with pytest.raises(ValueError, match=r"volume 'x-area-stand': area name 'stand' is "
                                         r"empty or reserved"):
        box_volume("x-area-stand", 0, 0, 0, 1, 1, 1, area="stand")


def _corridor_areas(nm, r):
    return {area_name(nm, p) for p in r.corridor}


def test_path_avoids_an_expensive_area_when_a_detour_exists():
    v, t = Scene().floor(0, 0, 10, 10).arrays()
    # water across most of the width: a detour round its end at y > 8
    nm = bake(v, t, BASE, volumes=[box_volume("pool-area-water", 4, -1, -1, 6, 8, 1)])
    cheap = find_path(nm, (1, 3, 0), (9, 3, 0))
    assert "water" in _corridor_areas(nm, cheap)
    assert "area_change" in cheap.flag_names
    dear = find_path(nm, (1, 3, 0), (9, 3, 0), AgentFilter(area_cost={"water": 10}))
    assert dear.found and "water" not in _corridor_areas(nm, dear)
    assert dear.points[:, 1].max() >= 8.0 - 1e-6  # round the end of the pool
    banned = find_path(nm, (1, 3, 0), (9, 3, 0), AgentFilter(area_cost="water=inf"))
    assert banned.found and "water" not in _corridor_areas(nm, banned)


def test_path_crosses_an_expensive_area_when_there_is_no_detour():
    v, t = Scene().floor(0, 0, 10, 10).arrays()
    nm = bake(v, t, BASE, volumes=[box_volume("pool-area-water", 4, -1, -1, 6, 11, 1)])
    dear = find_path(nm, (1, 3, 0), (9, 3, 0), AgentFilter(area_cost={"water": 10}))
    assert dear.found and "water" in _corridor_areas(nm, dear)
    # 2 m of water at 10 plus 6 m of ground at 1, on a straight line
    assert dear.cost == pytest.approx(2 * 10 + 6, rel=1e-3)
    banned = find_path(nm, (1, 3, 0), (9, 3, 0), AgentFilter(area_cost={"water": -1}))
    assert not banned.found and banned.status == "partial"
    # the cost stored in the navmesh is the default; the filter overrides it
    nm.area_cost[USER_AREA_FIRST] = math.inf
    assert not find_path(nm, (1, 3, 0), (9, 3, 0)).found
    with pytest.raises(ValueError, match="area 'lava' is not in this navmesh"):
        find_path(nm, (1, 3, 0), (9, 3, 0), AgentFilter(area_cost={"lava": 2}))


# ------------------------------------------------------------------------- links


def islands():
    return Scene().floor(0, 0, 8, 8).floor(12, 0, 20, 8, z=1.0).arrays()


def test_hand_placed_link_joins_two_islands_and_a_path_uses_it():
    v, t = islands()
    nm = bake(v, t, BASE)
    assert not find_path(nm, (2, 4, 0), (18, 4, 1)).found
    link = CustomLink("door-link", (7.9, 4.0, 0.0), (12.3, 4.2, 1.3), width=1.0)
    joined = add_custom_links(nm, [link])
    assert joined.link_count == nm.link_count + 1
    assert joined.link_kind[-1] == LINK_CUSTOM and joined.link_bidirectional[-1]
    # snapped onto the navmesh: the ends lie on their polygons' surfaces
    assert joined.link_start[-1, :, 2] == pytest.approx([0.0, 0.0], abs=0.15)
    assert joined.link_end[-1, :, 2] == pytest.approx([1.0, 1.0], abs=0.15)
    assert np.linalg.norm(joined.link_start[-1, 1] - joined.link_start[-1, 0]) == \
        pytest.approx(1.0)
    there = find_path(joined, (2, 4, 0), (18, 4, 1))
    back = find_path(joined, (18, 4, 1), (2, 4, 0))
    assert there.found and back.found
    assert there.links_used().tolist() == [joined.link_count - 1]
    assert "jump_start" in there.flag_names
    # one way: only from start to end; the filter can forbid the kind
    oneway = add_custom_links(nm, [link._replace(bidirectional=False)])
    assert find_path(oneway, (2, 4, 0), (18, 4, 1)).found
    assert not find_path(oneway, (18, 4, 1), (2, 4, 0)).found
    no_custom = AgentFilter(links="drop,jump_across,jump_up")
    assert not find_path(joined, (2, 4, 0), (18, 4, 1), no_custom).found


def test_link_end_far_from_the_navmesh_is_named():
    v, t = islands()
    nm = bake(v, t, BASE)
    far = CustomLink("teleporter-link", (2, 4, 0), (10, 4, 30.0))
    with pytest.raises(ValueError, match=r"link 'teleporter-link': its end \(10\.0, 4\.0, "
                                         r"30\.0\) is .* m from the navmesh"):
        add_custom_links(nm, [far])
    with pytest.raises(ValueError, match=r"link 'loop-link': its two ends are at the same"):
        add_custom_links(nm, [CustomLink("loop-link", (2, 4, 0), (2, 4, 0))])


def ledge_scene():
    return ledge(1.5).arrays()


def test_nolinks_volume_removes_generated_links_and_they_stay_gone():
    v, t = ledge_scene()
    st_ = BakeSettings(links_enabled=True, cell_size=0.2, cell_height=0.05)
    nm = bake(v, t, st_)
    assert nm.link_count > 0
    mids = np.concatenate([nm.link_start.mean(axis=1), nm.link_end.mean(axis=1)])
    # a volume over the ledge's edge
    vol = box_volume("edge-nolinks", 8, -1, -2, 12, 11, 3, kind="nolinks", area="")
    for _ in range(2):  # a re-bake gives the same: the links stay gone
        cut = bake(v, t, st_, volumes=[vol])
        ends = np.concatenate([cut.link_start.mean(axis=1), cut.link_end.mean(axis=1)])
        assert not points_inside(vol, ends).any()
        assert cut.stats["links_removed_by_volumes"] > 0
        assert cut.link_count == nm.link_count - cut.stats["links_removed_by_volumes"]
    assert points_inside(vol, mids).any()
    # a custom link inside the volume is kept (only generated links are removed)
    agents = bake_agents(v, t, [Agent("a", st_)], volumes=[vol], custom_links=[
        CustomLink("stairs-link", (9.0, 2.0, 1.5), (11.0, 2.0, 0.0))])
    kinds = agents["a"].link_kind.tolist()
    assert kinds.count(LINK_CUSTOM) == 1


# ---------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None)
@given(lo=st.tuples(*[st.floats(-5, 5)] * 3), size=st.tuples(*[st.floats(0.1, 4)] * 3),
       pts=st.lists(st.tuples(*[st.floats(-10, 10)] * 3), min_size=1, max_size=30))
def test_points_inside_a_box_volume_is_the_box_test(lo, size, pts):
    hi = tuple(a + b for a, b in zip(lo, size, strict=True))
    vol = box_volume("b-area-x", *lo, *hi, area="x")
    p = np.array(pts)
    margin = 1e-5  # away from the faces (the test nudges points by < 1e-6)
    clear = ((np.abs(p - lo) > margin) & (np.abs(p - hi) > margin)).all(axis=1)
    want = ((p > lo) & (p < hi)).all(axis=1)
    assert (points_inside(vol, p)[clear] == want[clear]).all()


@settings(max_examples=15, deadline=None)
@given(cost=st.floats(0.2, 20.0), x0=st.floats(2.0, 6.0), w=st.floats(0.6, 2.0))
def test_area_cost_scales_exactly_the_distance_walked_inside(cost, x0, w):
    """On a straight corridor the path cost is the ground length plus cost x the length
    inside the area (the area boundary splits the path there)."""
    v, t = Scene().floor(0, 0, 10, 2).arrays()
    nm = _cached_bake(v, t, round(x0, 1), round(w, 1))
    xs = sorted(nm.vertices[:, 0][np.isin(np.arange(nm.vertices.shape[0]),
                                          nm.polygons[nm.polygon_area >= USER_AREA_FIRST])])
    inside = xs[-1] - xs[0]
    r = find_path(nm, (1, 1, 0), (9, 1, 0), AgentFilter(area_cost={"water": cost}))
    assert r.found
    assert r.cost == pytest.approx((8 - inside) + cost * inside, rel=1e-6)


_BAKES: dict = {}


def _cached_bake(v, t, x0, w):
    key = (x0, w)
    if key not in _BAKES:
        _BAKES[key] = bake(v, t, BASE, volumes=[box_volume("p-area-water", x0, -1, -1, x0 + w,
                                                           3, 1)])
    return _BAKES[key]


# ---------------------------------------------------------------------- OBJ input


def test_obj_links_volumes_and_climb_objects_are_kept_apart(tmp_path):
    from blender_navjump.core.objio import read_obj_scene

    path = tmp_path / "level.obj"
    box = Scene().box(4, -1, -1, 6, 11, 2)
    lines = ["o floor", "v 0 0 0", "v 10 0 0", "v 10 10 0", "v 0 10 0", "f 1 2 3 4",
             "o wall-ledge", "v 0 0 2", "v 3 0 2", "l 5 6",
             "o pool-area-water"]
    lines += [f"v {x} {y} {z}" for x, y, z in box.verts]
    lines += [f"f {a + 7} {b + 7} {c + 7}" for a, b, c in box.tris]
    lines += ["o gate-link-oneway", "v 1 1 0", "v 9 9 0", "l -2 -1",
              "o stop-nolinks"]
    lines += [f"v {x} {y} {z}" for x, y, z in box.verts]
    lines += [f"f {a + 33} {b + 33} {c + 33}" for a, b, c in box.tris]
    path.write_text("\n".join(lines) + "\n")
    scene = read_obj_scene(path)
    assert scene.vertices.shape == (4, 3) and scene.triangles.shape == (2, 3)
    assert [(name, kind) for name, kind, _pts in scene.climb] == [("wall-ledge", 0)]
    assert scene.climb[0][2].tolist() == [[0, 0, 2], [3, 0, 2]]
    assert [(v.name, v.kind, v.area) for v in scene.volumes] == [
        ("pool-area-water", "area", "water"), ("stop-nolinks", "nolinks", "")]
    (link,) = scene.links
    assert link.name == "gate-link-oneway" and not link.bidirectional
    assert link.start.tolist() == [1, 1, 0] and link.end.tolist() == [9, 9, 0]
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\no door-link\nl 1 2\nl 2 3\n")
    with pytest.raises(ValueError, match=r"bad.obj: link 'door-link': a link object holds "
                                         r"exactly one line element"):
        read_obj_scene(bad)


def test_custom_link_area_scales_its_cost_per_agent_or_leaves_it_out():
    from blender_navjump.core.agents import Agent, bake_agents

    v = np.array([(0, 0, 0), (6, 0, 0), (6, 6, 0), (0, 6, 0),
                  (9, 0, 0), (15, 0, 0), (15, 6, 0), (9, 6, 0)], float)
    t = np.array([(0, 1, 2), (0, 2, 3), (4, 5, 6), (4, 6, 7)])
    s = BakeSettings(cell_size=0.3, cell_height=0.2, agent_radius=0.3)
    link = CustomLink("ferry", (5.0, 3.0, 0.0), (10.0, 3.0, 0.0), cost=4.0, area="boat")
    out = bake_agents(v, t, [Agent("walker", s), Agent("rich", s, {"boat": 2.5}),
                             Agent("cat", s, {"boat": math.inf})], custom_links=[link])
    assert out["walker"].link_cost.tolist() == [4.0]
    assert out["rich"].link_cost.tolist() == [10.0]
    assert out["cat"].link_count == 0
    assert out["cat"].stats["custom_links_excluded"] == 1
    with pytest.raises(ValueError, match="link 'x': area 'stand' is reserved"):
        add_custom_links(out["walker"], [link._replace(name="x", area="stand")])
