"""Agent types, area types, modifier volumes and hand-placed links in Blender (issue 14):
real bpy, the extension loaded as in the other Blender tests."""

import json

import numpy as np
import pytest

pytest.importorskip("bpy", reason="Blender's bpy module is not installed")


def add_mesh(bpy, name, verts, faces=(), edges=()):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(map(float, v)) for v in verts], list(edges), list(faces))
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def add_floor(bpy, name, x0, y0, x1, y1, z=0.0):
    return add_mesh(bpy, name, [(x0, y0, z), (x1, y0, z), (x1, y1, z), (x0, y1, z)],
                    faces=[(0, 1, 2, 3)])


def add_box(bpy, name, lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    v = [(x, y, z) for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)]
    f = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    return add_mesh(bpy, name, v, faces=f)


def set_up(scene, links=False):
    s = scene.navjump
    s.multi_stance = False
    s.links_enabled = links
    s.agent_radius = 0.4  # auto cell size 0.2 for every agent
    s.agent_max_climb = 0.4


def add_agent(bpy, scene, name, radius):
    assert bpy.ops.navjump.agent_add() == {'FINISHED'}
    pg = scene.navjump_agents
    agent = pg.agents[pg.active_agent]
    agent.name = name
    agent.agent_radius = radius
    return agent


def bake(bpy):
    assert bpy.ops.navjump.bake() == {'FINISHED'}


def polygon_centroids(nm):
    out = np.zeros((nm.polygon_count, 3))
    for i, poly in enumerate(nm.polygons):
        out[i] = nm.vertices[poly[poly >= 0]].mean(axis=0)
    return out


# ---------------------------------------------------------------- agents
def test_two_agents_bake_their_own_radius_and_survive_save(bpy, navjump, scene, tmp_path):
    set_up(scene)
    add_floor(bpy, "Floor", 0, 0, 10, 8)
    add_box(bpy, "Pillar", (4, 3, 0), (6, 5, 2))
    add_agent(bpy, scene, "small", 0.2)
    add_agent(bpy, scene, "big", 0.8)
    bake(bpy)
    storage = navjump.storage
    small = storage.load_navmesh(scene, "small")
    big = storage.load_navmesh(scene, "big")
    cs = small.settings["cell_size"]
    assert cs == big.settings["cell_size"] == pytest.approx(0.2)
    for nm, r in ((small, 0.2), (big, 0.8)):
        assert nm.settings["agent_radius"] == pytest.approx(r)
        lo, hi = nm.vertices[:, :2].min(axis=0), nm.vertices[:, :2].max(axis=0)
        # eroded from the open floor edges by the radius (to a cell)
        np.testing.assert_allclose(lo, [r, r], atol=cs + 1e-6)
        np.testing.assert_allclose(hi, [10 - r, 8 - r], atol=cs + 1e-6)
    assert small.polygon_count and big.polygon_count
    assert not np.array_equal(small.vertices.shape, big.vertices.shape) or \
        not np.allclose(small.vertices, big.vertices)

    # each agent's navmesh is the one a bake of its own settings gives
    gathered = navjump.gather.gather_from_context(bpy.context)
    base = navjump.props.to_bake_settings(scene.navjump)
    for nm, r in ((small, 0.2), (big, 0.8)):
        direct = navjump.pipeline.bake(gathered.vertices, gathered.triangles,
                                       base.with_values(agent_radius=r),
                                       walkable=gathered.walkable)
        np.testing.assert_array_equal(nm.polygons, direct.polygons)
        np.testing.assert_allclose(nm.vertices, direct.vertices)

    # the overlay and the path test show the chosen agent
    overlay = navjump.sub("blender.overlay")
    scene.navjump_agents.shown = "small"
    assert overlay.bake_state(scene).navmesh.polygon_count == small.polygon_count
    scene.navjump_agents.shown = "big"
    state = overlay.bake_state(scene)
    np.testing.assert_allclose(state.navmesh.vertices, big.vertices)
    assert not state.warnings, state.warnings

    # save and reopen: agents, their settings and both results stay
    path = tmp_path / "agents.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    scene = bpy.context.scene
    pg = scene.navjump_agents
    assert [a.name for a in pg.agents] == ["small", "big"]
    assert [round(a.agent_radius, 3) for a in pg.agents] == [0.2, 0.8]
    assert pg.shown == "big"
    np.testing.assert_allclose(navjump.storage.load_navmesh(scene, "small").vertices,
                               small.vertices)
    np.testing.assert_allclose(navjump.storage.load_navmesh(scene).vertices, big.vertices)

    # export every agent: one set of files per agent, as the command line's --agent
    out = tmp_path / "level.json"
    assert bpy.ops.navjump.export(filepath=str(out), formats={"json"},
                                  agents='ALL') == {'FINISHED'}
    for name, r in (("small", 0.2), ("big", 0.8)):
        data = json.loads((tmp_path / f"level.{name}.json").read_text())
        assert data["settings"]["agent_radius"] == pytest.approx(r)
    assert not out.exists()


def test_contradicting_agent_is_refused_naming_it_and_the_result_kept(bpy, navjump, scene):
    set_up(scene)
    add_floor(bpy, "Floor", 0, 0, 10, 8)
    add_agent(bpy, scene, "human", 0.4)
    bake(bpy)
    before = navjump.storage.result_object(scene, "navmesh").data["navjump_bake_id"]
    dog = add_agent(bpy, scene, "dog", 0.3)
    dog.agent_height = 0.5
    dog.agent_max_climb = 0.9  # climb above the agent's height
    with pytest.raises(RuntimeError, match=r"agent_max_climb.*agent 'dog'"):
        bpy.ops.navjump.bake()
    dog.agent_max_climb = 0.2
    dog.agent_radius = 30.0  # wider than the level
    with pytest.raises(RuntimeError, match=r"agent 'dog'.*larger than the level"):
        bpy.ops.navjump.bake()
    dog.agent_radius = 0.3
    dog.name = "human"
    with pytest.raises(RuntimeError, match=r"agent 'human': two agents"):
        bpy.ops.navjump.bake()
    assert navjump.storage.result_object(scene, "navmesh").data["navjump_bake_id"] == before


# ---------------------------------------------------------------- areas
def add_area_type(bpy, scene, name, cost=1.0):
    assert bpy.ops.navjump.area_add() == {'FINISHED'}
    pg = scene.navjump_agents
    area = pg.areas[pg.active_area]
    area.name = name
    area.cost = cost
    return area


def make_volume(obj, area):
    obj.navjump_nav.volume = 'AREA'
    obj.navjump_nav.area = area
    return obj


def test_volume_changes_the_areas_of_exactly_the_polygons_inside(bpy, navjump, scene):
    set_up(scene)
    add_floor(bpy, "Floor", 0, 0, 10, 8)
    add_area_type(bpy, scene, "water")
    make_volume(add_box(bpy, "Pool", (3, 2, -0.5), (6, 5, 1)), "water")
    bake(bpy)
    nm = navjump.storage.load_navmesh(scene)
    names = [str(n) for n in nm.area_names]
    assert "water" in names
    inside = [names[a] == "water" for a in nm.polygon_area]
    c = polygon_centroids(nm)
    in_box = (c[:, 0] > 3) & (c[:, 0] < 6) & (c[:, 1] > 2) & (c[:, 1] < 5)
    np.testing.assert_array_equal(inside, in_box)
    assert in_box.any() and (~in_box).any()
    # the volume itself is not walkable geometry: no polygon on its top (z = 1)
    assert nm.vertices[:, 2].max() < 0.5


def path_through(bpy, navjump, scene, start, goal):
    ov = scene.navjump_overlay
    ov.path_test = True
    ov.path_start = start
    ov.path_goal = goal
    overlay = navjump.sub("blender.overlay")
    return overlay.path_state(scene)


def _enters(points, lo, hi, steps=50):
    p = np.asarray(points)
    for a, b in zip(p[:-1], p[1:], strict=True):
        for t in np.linspace(0, 1, steps):
            q = a + t * (b - a)
            if lo[0] < q[0] < hi[0] and lo[1] < q[1] < hi[1]:
                return True
    return False


def test_path_test_avoids_an_expensive_area_unless_it_must_cross(bpy, navjump, scene):
    set_up(scene)
    add_floor(bpy, "Floor", 0, 0, 12, 10)
    add_area_type(bpy, scene, "mud", cost=50.0)
    pool = make_volume(add_box(bpy, "Mud", (5, -1, -0.5), (7, 6, 1)), "mud")
    bake(bpy)
    path = path_through(bpy, navjump, scene, (1.5, 2.0, 0.0), (10.5, 2.0, 0.0))
    assert path.result is not None and path.result.found, path.message
    assert not _enters(path.result.points, (5.2, -1), (6.8, 6)), path.result.points
    # no detour: the mud spans the whole floor
    pool.scale = (1.0, 2.0, 1.0)  # y -2 .. 12
    bake(bpy)
    path = path_through(bpy, navjump, scene, (1.5, 2.0, 0.0), (10.5, 2.0, 0.0))
    assert path.result is not None and path.result.found, path.message
    assert _enters(path.result.points, (5.2, -2), (6.8, 12))
    # "not walkable" for this agent: the path ends before the mud
    agent = navjump_agent_with_cost(bpy, scene, "mud", not_walkable=True)
    assert agent.name == "agent"
    bake(bpy)
    path = path_through(bpy, navjump, scene, (1.5, 2.0, 0.0), (10.5, 2.0, 0.0))
    assert path.result is not None and not path.result.found
    assert path.result.points[:, 0].max() < 5.3


def navjump_agent_with_cost(bpy, scene, area, not_walkable=False, cost=1.0):
    assert bpy.ops.navjump.agent_add() == {'FINISHED'}
    assert bpy.ops.navjump.agent_cost_add() == {'FINISHED'}
    pg = scene.navjump_agents
    agent = pg.agents[pg.active_agent]
    c = agent.area_costs[agent.active_cost]
    assert c.area == area
    c.cost = cost
    c.not_walkable = not_walkable
    return agent


def test_volume_with_an_unknown_area_is_refused_naming_it(bpy, navjump, scene):
    set_up(scene)
    add_floor(bpy, "Floor", 0, 0, 10, 8)
    make_volume(add_box(bpy, "Lava pit", (3, 2, -0.5), (6, 5, 1)), "lava")
    with pytest.raises(RuntimeError, match=r"volume 'Lava pit': Area 'lava' is not an area"):
        bpy.ops.navjump.bake()
    assert navjump.storage.load_navmesh(scene) is None


# ---------------------------------------------------------------- links
def test_hand_placed_link_joins_two_islands_and_the_path_uses_it(bpy, navjump, scene):
    set_up(scene)
    add_floor(bpy, "A", 0, 0, 5, 5)
    add_floor(bpy, "B", 8, 0, 13, 5, z=1.0)
    link = add_mesh(bpy, "Door", [(4.0, 2.5, 0.0), (9.0, 2.5, 1.0)], edges=[(0, 1)])
    link.navjump_nav.is_link = True
    link.navjump_nav.link_width = 0.5
    bake(bpy)
    nm = navjump.storage.load_navmesh(scene)
    kinds = navjump.core.kinds if hasattr(navjump.core, "kinds") else None
    assert nm.link_count == 1
    assert int(nm.link_kind[0]) == 3  # LINK_KINDS.index("custom")
    path = path_through(bpy, navjump, scene, (1.0, 2.5, 0.0), (12.0, 2.5, 1.0))
    assert path.result.found, path.message
    assert (np.asarray(path.result.point_links) >= 0).any()
    del kinds

    # the link's area: an agent for which it is not walkable gets no link
    add_area_type(bpy, scene, "door")
    link.navjump_nav.link_area = "door"
    navjump_agent_with_cost(bpy, scene, "door", not_walkable=True).name = "ghost"
    navjump_agent_with_cost(bpy, scene, "door", cost=3.0).name = "slow"
    bake(bpy)
    assert navjump.storage.load_navmesh(scene, "ghost").link_count == 0
    slow = navjump.storage.load_navmesh(scene, "slow")
    assert slow.link_count == 1
    assert slow.link_cost[0] == pytest.approx(3.0 * nm.link_cost[0])
    link.navjump_nav.link_area = "nope"
    with pytest.raises(RuntimeError, match=r"link 'Door': Link Area 'nope' is not"):
        bpy.ops.navjump.bake()
    link.navjump_nav.link_area = ""

    # an end nowhere near the navmesh: refused naming the object, the result kept
    before = navjump.storage.result_object(scene, "navmesh").data["navjump_bake_id"]
    link.location.z = 30.0
    with pytest.raises(RuntimeError, match=r"link 'Door'.*from the navmesh"):
        bpy.ops.navjump.bake()
    assert navjump.storage.result_object(scene, "navmesh").data["navjump_bake_id"] == before


def test_no_links_volume_removes_generated_links_for_good(bpy, navjump, scene):
    set_up(scene, links=True)
    add_floor(bpy, "Low", 0, 0, 6, 8)
    for name, y0, y1 in (("South", 0, 3), ("North", 5, 8)):  # two ledges: two links
        add_floor(bpy, name, 6, y0, 10, y1, z=1.0)
        add_box(bpy, f"{name} step", (6, y0, 0), (10, y1, 1)).navjump_role = 'OBSTACLE'
    bake(bpy)
    nm = navjump.storage.load_navmesh(scene)
    assert nm.link_count > 0
    lo, hi = np.array([4, -1, -1]), np.array([8, 4, 3])

    def in_box(nm):
        ends = np.stack([nm.link_start.mean(axis=1), nm.link_end.mean(axis=1)])
        return (((ends > lo) & (ends < hi)).all(axis=2)).any(axis=0)

    hit = in_box(nm)
    assert hit.any() and (~hit).any()
    kept = {tuple(np.round(nm.link_start[i].mean(axis=0), 3)) for i in np.nonzero(~hit)[0]}
    vol = add_box(bpy, "Keep off", tuple(lo), tuple(hi))
    vol.navjump_nav.volume = 'NOLINKS'
    for _ in range(2):  # and after a re-bake
        bake(bpy)
        after = navjump.storage.load_navmesh(scene)
        assert not in_box(after).any()
        assert after.stats["links_removed_by_volumes"] == int(hit.sum())
        assert {tuple(np.round(s.mean(axis=0), 3)) for s in after.link_start} == kept


def test_object_area_and_overlapping_volumes(bpy, navjump, scene):
    set_up(scene)
    add_floor(bpy, "Floor", 0, 0, 6, 8)
    ramp = add_floor(bpy, "Deck", 6, 0, 10, 8)  # a walkable object with its own area
    add_area_type(bpy, scene, "wood")
    add_area_type(bpy, scene, "water")
    add_area_type(bpy, scene, "oil")
    ramp.navjump_nav.area = "wood"
    # two volumes overlapping in x 2..4: the name that sorts last ("b ...") wins there
    make_volume(add_box(bpy, "a water", (0.5, 2, -0.5), (4, 5, 1)), "water")
    make_volume(add_box(bpy, "b oil", (2, 2, -0.5), (5, 5, 1)), "oil")
    bake(bpy)
    nm = navjump.storage.load_navmesh(scene)
    names = [str(n) for n in nm.area_names]
    area = np.array([names[a] for a in nm.polygon_area])
    c = polygon_centroids(nm)
    on_deck = c[:, 0] > 6
    in_y = (c[:, 1] > 2) & (c[:, 1] < 5)
    assert on_deck.any() and (area[on_deck] == "wood").all()
    assert not (area[~on_deck] == "wood").any()
    oil = ~on_deck & in_y & (c[:, 0] > 2) & (c[:, 0] < 5)
    water = ~on_deck & in_y & (c[:, 0] > 0.5) & (c[:, 0] < 2)
    assert oil.any() and water.any()
    assert (area[oil] == "oil").all() and (area[water] == "water").all()
    assert set(area[~on_deck & ~oil & ~water]) <= {"stand"}


def test_empty_pair_link_and_no_generated_links_switch(bpy, navjump, scene):
    set_up(scene, links=True)
    add_floor(bpy, "Low", 0, 0, 6, 8)
    for name, y0, y1 in (("South", 0, 3), ("North", 5, 8)):
        add_floor(bpy, name, 6, y0, 10, y1, z=1.0)
        add_box(bpy, f"{name} step", (6, y0, 0), (10, y1, 1)).navjump_role = 'OBSTACLE'
    bake(bpy)
    before = navjump.storage.load_navmesh(scene)
    assert before.link_count >= 2
    south = bpy.data.objects["South"]
    south.navjump_nav.no_links = True

    a = bpy.data.objects.new("Tele", None)
    b = bpy.data.objects.new("Tele end", None)
    for obj, loc in ((a, (1.0, 1.0, 0.0)), (b, (9.0, 7.0, 1.0))):
        obj.location = loc
        scene.collection.objects.link(obj)
    a.navjump_nav.is_link = True
    a.navjump_nav.link_end = b
    a.navjump_nav.link_bidirectional = False
    a.navjump_nav.link_cost = 3.0
    bake(bpy)
    nm = navjump.storage.load_navmesh(scene)
    custom = np.nonzero(nm.link_kind == 3)[0]
    assert custom.size == 1
    i = int(custom[0])
    assert not nm.link_bidirectional[i] and nm.link_cost[i] == pytest.approx(3.0)
    np.testing.assert_allclose(nm.link_start[i].mean(axis=0)[:2], [1, 1], atol=0.3)
    np.testing.assert_allclose(nm.link_end[i].mean(axis=0)[:2], [9, 7], atol=0.3)
    generated = np.nonzero(nm.link_kind != 3)[0]
    ends = np.concatenate([nm.link_start[generated].mean(axis=1),
                           nm.link_end[generated].mean(axis=1)])
    on_south = (ends[:, 0] > 5.9) & (ends[:, 1] < 3.01) & (ends[:, 2] > 0.5)
    assert not on_south.any()
    assert generated.size > 0 and nm.stats["links_removed_by_volumes"] > 0


def test_headless_batch_bakes_every_agent_with_volumes_and_links(bpy, navjump, scene,
                                                                   tmp_path):
    set_up(scene)
    add_floor(bpy, "A", 0, 0, 5, 5)
    add_floor(bpy, "B", 8, 0, 13, 5)
    link = add_mesh(bpy, "Bridge", [(4.0, 2.5, 0.0), (9.0, 2.5, 0.0)], edges=[(0, 1)])
    link.navjump_nav.is_link = True
    add_area_type(bpy, scene, "water")
    make_volume(add_box(bpy, "Pool", (1, 1, -0.5), (3, 3, 1)), "water")
    add_agent(bpy, scene, "small", 0.2)
    add_agent(bpy, scene, "big", 0.6)
    blend = tmp_path / "level.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    headless = navjump.sub("blender.headless")
    result = headless.bake_file(str(blend), {"out": str(tmp_path / "out"),
                                             "formats": ["json"], "save": True},
                                reuse_open=True)
    assert result["ok"], result
    for name, r in (("small", 0.2), ("big", 0.6)):
        data = json.loads((tmp_path / "out" / f"level.navjump.{name}.json").read_text())
        assert data["settings"]["agent_radius"] == pytest.approx(r)
        nm = navjump.storage.load_navmesh(bpy.context.scene, name)
        assert nm.link_count == 1 and "water" in [str(n) for n in nm.area_names]


class _Layout:
    """Records what a panel draws (UILayout exists only while Blender draws a region) and
    checks every property, list and operator it names exists."""

    def __init__(self, bpy, log=None):
        self._bpy = bpy
        self.log = log if log is not None else {"labels": [], "props": [], "ops": []}

    def _child(self, *_a, **_k):
        return _Layout(self._bpy, self.log)

    row = column = box = split = _child

    def label(self, text="", icon='NONE'):
        self.log["labels"].append(text)

    def prop(self, data, name, **_k):
        assert name in data.bl_rna.properties, name
        self.log["props"].append(name)

    def prop_search(self, data, name, search_data, search_name, **_k):
        assert name in data.bl_rna.properties, name
        assert search_name in search_data.bl_rna.properties, search_name
        self.log["props"].append(name)

    def template_list(self, list_id, _list_name, data, name, active_data, active_name,
                      **_k):
        assert name in data.bl_rna.properties and active_name in active_data.bl_rna.properties
        assert list_id in dir(self._bpy.types), list_id
        self.log["props"].append(name)

    def operator(self, idname, **_k):
        group, _, name = idname.partition(".")
        assert hasattr(getattr(self._bpy.ops, group), name), idname
        self.log["ops"].append(idname)
        return type("Props", (), {})()


def test_agent_and_object_panels_draw(bpy, navjump, scene):
    set_up(scene)
    add_floor(bpy, "Floor", 0, 0, 10, 8)
    add_agent(bpy, scene, "small", 0.2)
    add_agent(bpy, scene, "big", 0.8)
    add_area_type(bpy, scene, "water")
    bake(bpy)  # the result objects show the first agent
    scene.navjump_agents.shown = "big"
    link = add_mesh(bpy, "Door", [(1, 1, 0), (2, 1, 0)], edges=[(0, 1)])
    link.navjump_nav.is_link = True
    bpy.context.view_layer.objects.active = link
    panels = navjump.sub("blender.panel_agents")

    def draw():
        layout = _Layout(bpy)
        for cls in panels.classes:
            if issubclass(cls, bpy.types.Panel):
                assert cls.is_registered and cls.bl_parent_id == "NAVJUMP_PT_main"
                cls.draw(type("P", (), {"layout": layout})(), bpy.context)
        return layout, " ".join(layout.log["labels"])

    layout, text = draw()
    assert "Baked: small, big" in text
    assert "result objects:" not in text  # they follow the shown agent
    # a result whose objects show another agent (stored before they followed it)
    navjump.storage.result_object(scene, "navmesh").data["navjump_agent_drawn"] = "small"
    layout, text = draw()
    assert "Overlay: big; result objects: small" in text
    assert {"agents", "shown", "agent_radius", "area_costs", "areas", "is_link",
            "link_kind", "link_area"} <= set(layout.log["props"])
    assert {"navjump.agent_add", "navjump.area_add", "navjump.agent_cost_add"} <= \
        set(layout.log["ops"])


def test_auto_rebake_follows_agent_area_and_object_settings(bpy, navjump, scene):
    """With Auto re-bake on, adding an agent, changing its radius and marking an object as
    a modifier volume each schedule a re-bake whose stored result follows the change."""
    live = navjump.sub("blender.live_rebake")
    set_up(scene)
    add_floor(bpy, "Floor", 0, 0, 10, 8)
    bake(bpy)
    live.cancel()
    try:
        scene.navjump_overlay.auto_rebake = True
        assert not live.pending()
        add_agent(bpy, scene, "small", 0.2)
        assert live.pending() and "agent" in live.status()["reason"]
        live.rebake_pending()
        small = navjump.storage.load_navmesh(scene, "small")
        assert small is not None and small.settings["agent_radius"] == pytest.approx(0.2)
        lo_before = small.vertices[:, :2].min(axis=0)
        scene.navjump_agents.agents["small"].agent_radius = 0.6
        assert live.pending()
        live.rebake_pending()
        small = navjump.storage.load_navmesh(scene, "small")
        assert small.settings["agent_radius"] == pytest.approx(0.6)
        assert (small.vertices[:, :2].min(axis=0) > lo_before + 0.3).all()
        # an object becomes an area volume: its name is in the reason, the area is baked
        assert bpy.ops.navjump.area_add() == {'FINISHED'}
        assert live.pending()
        live.rebake_pending()
        area = scene.navjump_agents.areas[0].name
        vol = add_box(bpy, "Mud", (2, 2, -1), (5, 5, 1))
        if live.pending():  # the depsgraph handler may have seen the new object
            live.rebake_pending()
        vol.navjump_nav.area = area
        vol.navjump_nav.volume = 'AREA'
        assert live.pending() and "Mud navigation settings" in live.status()["reason"]
        live.rebake_pending()
        nm = navjump.storage.load_navmesh(scene, "small")
        assert area in [str(a) for a in nm.area_names], nm.area_names
    finally:
        scene.navjump_overlay.auto_rebake = False
        live.cancel()


def test_result_objects_and_path_test_follow_the_shown_agent(bpy, navjump, scene):
    """Choosing another agent to show rewrites the NavJump Navmesh / Links objects from
    that agent's stored navmesh (in place), and the path test queries that agent: a gap
    the small agent walks through is closed for the big one."""
    set_up(scene)
    add_floor(bpy, "Floor", 0, 0, 10, 8)
    add_box(bpy, "Wall south", (4.8, 0, 0), (5.2, 3.5, 2))
    add_box(bpy, "Wall north", (4.8, 4.5, 0), (5.2, 8, 2))  # a 1 m gap at y 3.5-4.5
    add_agent(bpy, scene, "small", 0.2)
    add_agent(bpy, scene, "big", 0.8)
    scene.navjump_agents.shown = "big"
    bake(bpy)
    storage = navjump.storage
    overlay = navjump.sub("blender.overlay")
    small = storage.load_navmesh(scene, "small")
    big = storage.load_navmesh(scene, "big")
    assert small.polygon_count != big.polygon_count or \
        not np.allclose(small.vertices, big.vertices)
    pg = scene.navjump_overlay
    pg.path_test = True
    pg.path_start = (2.0, 4.0, 0.0)
    pg.path_goal = (8.0, 4.0, 0.0)
    navmesh_obj = storage.result_object(scene, "navmesh")
    mesh = navmesh_obj.data

    def shows(nm):
        assert len(mesh.polygons) == nm.polygon_count
        co = np.empty(len(mesh.vertices) * 3, np.float32)
        mesh.vertices.foreach_get("co", co)
        np.testing.assert_allclose(co.reshape(-1, 3), nm.vertices, atol=1e-5)
        assert len(storage.result_object(scene, "links").data.edges) == nm.link_count
        assert not overlay.bake_state(scene).warnings

    shows(big)
    assert not overlay.path_state(scene).result.found  # too wide for the gap
    scene.navjump_agents.shown = "small"
    assert storage.result_object(scene, "navmesh").data == mesh  # rewritten in place
    shows(small)
    assert mesh["navjump_agent_drawn"] == "small"
    assert overlay.path_state(scene).result.found
    scene.navjump_agents.shown = ""  # empty: the first agent
    shows(small)
    scene.navjump_agents.shown = "big"
    shows(big)
    assert not overlay.path_state(scene).result.found
    assert storage.load_navmesh(scene).equals(big)
