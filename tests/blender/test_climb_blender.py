"""Climbing in Blender: object roles and name suffixes gathered as climb elements (never
walkable), per-object settings, bad objects named and left out, the path test climbing,
the climbing overlay's pixels, and save/reopen keeping roles and the baked climb graph.

The scene: a 20 x 10 m floor and a 3.5 m tower (x 10..14) too high to jump up (the panel's
jump height is 1 m), with a ladder in front of its west wall, a ledge along that wall's top
and a pipe further along: the tower top is reached only by climbing.
"""


import numpy as np
import pytest

pytest.importorskip("bpy", reason="Blender's bpy module is not installed")

TOWER_X, TOWER_H = 10.0, 3.5


@pytest.fixture(scope="module")
def ext(navjump):
    sub = navjump.sub

    class Ext:
        overlay = sub("blender.overlay")
        offscreen = sub("blender.offscreen")
        climb_overlay = sub("blender.overlay_climb")
        camera = sub("blender.camera")
        kinds = sub("core.kinds")
        query = sub("core.query")
        gather = navjump.gather
        storage = navjump.storage
    return Ext


def _box(bpy, name, lo, hi, role=None):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    verts = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
             (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    if role:
        obj.navjump_role = role
    return obj


def _wire(bpy, name, points, role=None):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(points, [(i, i + 1) for i in range(len(points) - 1)], [])
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    if role:
        obj.navjump_role = role
    return obj


def _climbing_wall(bpy):
    _box(bpy, "Floor", (0, 0, -0.2), (20, 10, 0))
    _box(bpy, "Tower", (TOWER_X, 0, 0), (14, 10, TOWER_H))
    _box(bpy, "Ladder", (9.7, 2, 0), (9.95, 2.6, TOWER_H), role='LADDER')
    # a wire along the wall's top edge, bent at a right angle round the tower's corner:
    # two straight runs, two ledges
    _wire(bpy, "Top", [(TOWER_X, 5, TOWER_H), (TOWER_X, 6.5, TOWER_H), (TOWER_X, 9.9, TOWER_H),
                       (12, 9.9, TOWER_H)], role='LEDGE')
    _box(bpy, "Drain-pipe.001", (9.8, 8.0, 0.3), (9.95, 8.15, 3.3))  # by its name


def _bake(bpy, scene):
    scene.navjump.climbing_enabled = True
    assert bpy.ops.navjump.bake() == {'FINISHED'}


def test_roles_and_suffixes_are_gathered_as_climb_items_not_triangles(bpy, ext, scene):
    _climbing_wall(bpy)
    _box(bpy, "Crate", (3, 3, 0), (4, 4, 1), role='IGNORED')
    _box(bpy, "Crate-ladder", (5, 3, 0), (5.2, 3.2, 2), role='IGNORED')  # ignored wins
    g = ext.gather.gather_from_context(bpy.context)
    assert g.object_names == ["Floor", "Tower"]
    assert g.triangle_count == 24  # two boxes: the climb objects are not walkable
    names = [i.name for i in g.climb]
    kinds = [ext.kinds.CLIMB_ELEMENT_KINDS[i.kind] for i in g.climb]
    assert names == ["Drain-pipe.001", "Ladder", "Top[0]", "Top[1]"]
    assert kinds == ["pipe", "ladder", "ledge", "ledge"]
    runs = {i.name: i.points for i in g.climb}
    # the first run is the three collinear points along the wall, the second the corner
    np.testing.assert_allclose(np.sort(runs["Top[0]"][:, 1]), [5.0, 6.5, 9.9])
    assert np.allclose(runs["Top[0]"][:, 0], TOWER_X)
    np.testing.assert_allclose(np.sort(runs["Top[1]"][:, 0]), [TOWER_X, 12.0])
    assert set(g.climb_settings) == {"Drain-pipe.001", "Ladder", "Top"}


def test_bake_builds_the_climb_graph_and_the_path_test_climbs(bpy, ext, scene):
    _climbing_wall(bpy)
    _bake(bpy, scene)
    nm = ext.storage.load_navmesh(scene)
    kinds = ext.kinds
    names = [str(n) for n in nm.climb_element_name]
    assert names == ["Drain-pipe.001", "Ladder", "Top[0]", "Top[1]"]
    ladder = nm.climb_element_ends[names.index("Ladder")]
    np.testing.assert_allclose(ladder, [[9.825, 2.3, 0.0], [9.825, 2.3, TOWER_H]], atol=1e-5)
    link_kinds = {kinds.CLIMB_LINK_KINDS[k] for k in nm.climb_link_kind}
    assert {"mount", "ladder_foot", "hang"} <= link_kinds
    report = ext.storage.read_report(scene)
    assert report["summary"]["climb"]["elements"] == 4
    assert report["summary"]["climb"]["links"] == nm.climb_link_kind.shape[0]
    # the path test: floor -> tower top climbs (no jump reaches 3.5 m)
    pg = scene.navjump_overlay
    pg.path_test = True
    pg.path_start = (5.0, 2.5, 0.0)
    pg.path_goal = (12.0, 2.5, TOWER_H)
    path = ext.overlay.path_state(scene)
    assert path.result is not None and path.result.found, path.message
    assert path.result.climbing and path.counts["climb_moves"] >= 2
    flags = [kinds.FLAG_NAMES[f] for f in path.result.flags]
    assert any(("climb" in f or "ladder" in f or "mount" in f or "hang" in f) for f in flags)
    # the path layer carries the climbing colour; an agent without abilities finds no way up
    amber = np.array(kinds.PATH_CLIMB_COLOR, np.float32)
    assert any(np.isclose(s.colors, amber).all(axis=1).any() for s in path.layer.lines)
    scene.navjump_climb.test_abilities = set()
    path = ext.overlay.path_state(scene)
    assert path.result is None or not path.result.found
    assert path.result is None or not path.result.climbing


def test_climbing_off_gives_no_graph_and_the_objects_stay_unwalkable(bpy, ext, scene):
    _climbing_wall(bpy)
    scene.navjump.climbing_enabled = False
    assert bpy.ops.navjump.bake() == {'FINISHED'}
    nm = ext.storage.load_navmesh(scene)
    assert nm.climb_element_count == 0
    # nothing of the ladder box (0.25 m wide, 3.5 m tall) became a polygon
    on_ladder = (nm.vertices[:, 0] > 9.6) & (nm.vertices[:, 0] < 10.0) & \
        (nm.vertices[:, 2] > 0.5)
    assert not on_ladder.any()


def test_bad_climb_objects_are_named_and_the_rest_is_baked(bpy, ext, scene):
    _climbing_wall(bpy)
    _bake(bpy, scene)
    good = ext.storage.load_navmesh(scene)
    _box(bpy, "Flat-ladder", (2, 8, 1.0), (2.3, 8.3, 1.0))            # zero height
    _box(bpy, "Far-pipe", (5000, 0, 0), (5000.2, 0.2, 3))              # 5 km away
    _box(bpy, "Buried", (11, 4, 0.5), (11.2, 4.2, 3.0), role='LADDER')  # inside the tower
    _wire(bpy, "Bent", [(1, 1, 1), (1, 1, 1)], role='LEDGE')           # zero length
    _bake(bpy, scene)
    nm = ext.storage.load_navmesh(scene)
    warnings = ext.storage.read_report(scene)["warnings"]
    for name in ("Flat-ladder", "Far-pipe", "Buried", "Bent"):
        assert any(repr(name) in w for w in warnings), (name, warnings)
    assert [str(n) for n in nm.climb_element_name] == \
        [str(n) for n in good.climb_element_name]
    for f in ("climb_element_ends", "climb_node_position", "climb_edge_nodes",
              "climb_link_kind", "polygons", "vertices"):
        np.testing.assert_array_equal(getattr(nm, f), getattr(good, f), err_msg=f)


def test_per_object_abilities_and_ground_links(bpy, ext, scene):
    _climbing_wall(bpy)
    ladder = bpy.data.objects["Ladder"]
    ladder.navjump_climb_custom = True
    ladder.navjump_climb_abilities = {"ladder", "back_jump"}
    top = bpy.data.objects["Top"]
    top.navjump_climb_links = {"hang"}  # no mounting from these ledges
    _bake(bpy, scene)
    nm = ext.storage.load_navmesh(scene)
    k = ext.kinds
    names = [str(n) for n in nm.climb_element_name]
    e = names.index("Ladder")
    want = k.ABILITY_LADDER | k.ABILITY_BACK_JUMP
    assert int(nm.climb_element_abilities[e]) == want
    along = nm.climb_edge_element == e
    assert along.any() and (nm.climb_edge_abilities[along] == want).all()
    ledge_nodes = set()
    for i, n in enumerate(names):
        if n.startswith("Top"):
            ledge_nodes |= set(nm.climb_edge_nodes[nm.climb_edge_element == i].ravel().tolist())
    at_ledge = np.isin(nm.climb_link_node, list(ledge_nodes))
    kinds_at_ledge = {k.CLIMB_LINK_KINDS[x] for x in nm.climb_link_kind[at_ledge]}
    assert kinds_at_ledge == {"hang"}
    # the ladder's own mount link (its top) is still there
    assert k.CLIMB_LINK_MOUNT in set(nm.climb_link_kind[~at_ledge].tolist())


def _nodes_of(nm, names, name):
    return set().union(*[set(n.tolist()) for n in _element_nodes(nm, names.index(name))])


def _element_nodes(nm, e):
    """The nodes of element e: its along edges' ends, or its segment's ends when it has
    none (a ladder with no along moves)."""
    along = nm.climb_edge_nodes[nm.climb_edge_element == e]
    if along.size:
        return [along.ravel()]
    ends = nm.climb_element_ends[e]
    d = np.linalg.norm(nm.climb_node_position[:, None, :] - ends[None], axis=2).min(axis=1)
    return [np.nonzero(d < 1e-6)[0]]


def test_per_object_moves_and_abilities_change_the_implicit_edges(bpy, ext, scene):
    """The pipe's Moves without jumps and drops: no implicit edge at its nodes (its own
    climb stays); the ladder's custom abilities: every implicit edge at it needs them."""
    k = ext.kinds
    _climbing_wall(bpy)
    _bake(bpy, scene)
    before = ext.storage.load_navmesh(scene)
    names = [str(n) for n in before.climb_element_name]
    pipe = _nodes_of(before, names, "Drain-pipe.001")
    implicit = before.climb_edge_kind != k.CLIMB_EDGE_ALONG
    at_pipe = implicit & np.isin(before.climb_edge_nodes, list(pipe)).any(axis=1)
    assert at_pipe.any()  # the pipe's top is a jump from the ledge along the wall top
    pipe_obj = bpy.data.objects["Drain-pipe.001"]
    pipe_obj.navjump_climb_moves = {"along"}
    ladder = bpy.data.objects["Ladder"]
    ladder.navjump_climb_custom = True
    ladder.navjump_climb_abilities = {"ladder", "mount"}
    _bake(bpy, scene)
    nm = ext.storage.load_navmesh(scene)
    assert [str(n) for n in nm.climb_element_name] == names
    implicit = nm.climb_edge_kind != k.CLIMB_EDGE_ALONG
    assert not (implicit & np.isin(nm.climb_edge_nodes, list(pipe)).any(axis=1)).any()
    e = names.index("Drain-pipe.001")
    np.testing.assert_array_equal(nm.climb_edge_nodes[nm.climb_edge_element == e],
                                  before.climb_edge_nodes[before.climb_edge_element == e])
    lad = _nodes_of(nm, names, "Ladder")
    at_lad = implicit & np.isin(nm.climb_edge_nodes, list(lad)).any(axis=1)
    need = k.ABILITY_CLIMB | k.ABILITY_LADDER | k.ABILITY_MOUNT
    assert np.all(nm.climb_edge_abilities[at_lad] & need == need)
    # the other implicit edges are those of the first bake
    rest_before = implicit_rows(before, k, pipe | lad)
    assert implicit_rows(nm, k, pipe | lad) == rest_before


def implicit_rows(nm, k, away):
    rows = set()
    for (a, b), kind, abil in zip(nm.climb_edge_nodes.tolist(), nm.climb_edge_kind.tolist(),
                                  nm.climb_edge_abilities.tolist(), strict=True):
        if kind != k.CLIMB_EDGE_ALONG and a not in away and b not in away:
            rows.add((a, b, kind, abil))
    return rows


def test_save_and_reopen_keep_roles_settings_and_the_climb_graph(bpy, ext, scene, tmp_path):
    _climbing_wall(bpy)
    bpy.data.objects["Ladder"].navjump_climb_custom = True
    bpy.data.objects["Ladder"].navjump_climb_abilities = {"ladder"}
    bpy.data.objects["Top"].navjump_climb_links = {"mount", "hang"}
    bpy.data.objects["Drain-pipe.001"].navjump_climb_moves = {"along", "drop"}
    _bake(bpy, scene)
    before = ext.storage.load_navmesh(scene)
    path = tmp_path / "climb.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.wm.open_mainfile(filepath=str(path))
    scene = bpy.context.scene
    assert bpy.data.objects["Ladder"].navjump_role == 'LADDER'
    assert bpy.data.objects["Top"].navjump_role == 'LEDGE'
    assert bpy.data.objects["Ladder"].navjump_climb_custom
    assert set(bpy.data.objects["Ladder"].navjump_climb_abilities) == {"ladder"}
    assert set(bpy.data.objects["Top"].navjump_climb_links) == {"mount", "hang"}
    assert set(bpy.data.objects["Drain-pipe.001"].navjump_climb_moves) == {"along", "drop"}
    assert scene.navjump.climbing_enabled
    after = ext.storage.load_navmesh(scene)
    assert after.climb_element_count == 4
    for f in before.array_fields():
        if f.startswith("climb_"):
            np.testing.assert_array_equal(getattr(after, f), getattr(before, f), err_msg=f)


# ------------------------------------------------------------------ overlay pixels
@pytest.fixture(scope="module")
def gpu_on(bpy, navjump, ext):
    try:
        ext.offscreen.ensure_gpu()
    except ext.offscreen.GPUUnavailable as exc:
        pytest.skip(f"the GPU cannot start here: {exc}")
    return True


def _count(pixels, rgba, rect=None, tol=6):
    img = pixels
    if rect is not None:
        x0, y0, x1, y1 = (int(round(v)) for v in rect)
        img = pixels[max(y0, 0):y1, max(x0, 0):x1]
    rgb = np.round(np.array(rgba[:3]) * 255)
    return int((np.abs(img[..., :3].astype(int) - rgb.astype(int)).max(axis=-1) <= tol).sum())


def _rect(ext, view, proj, size, p0, p1):
    """Pixel rectangle spanned by two world points."""
    (ax, ay), (bx, by) = ext.camera.project([p0, p1], view, proj, size)
    return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


def _front_camera(ext):
    """Orthographic, looking east (+x) at the tower's west wall: image right is -y."""
    view = ext.camera.look_at((0.0, 5.0, 2.0), (10.0, 5.0, 2.0))
    return view, ext.camera.orthographic(6.0, 3.6, 0.1, 50.0)


def test_overlay_draws_climb_layers_in_their_colours_and_obeys_toggles(bpy, ext, scene,
                                                                       gpu_on):
    _climbing_wall(bpy)
    _bake(bpy, scene)
    k = ext.kinds
    oc = ext.climb_overlay
    size = (400, 240)
    camera = _front_camera(ext)
    pixels, view, proj = ext.offscreen.render_overlay_pixels(
        scene, size=size, camera=camera, draw_scene=False, path=None,
        layers=set(oc.CLIMB_LAYERS))
    ladder = _rect(ext, view, proj, size, (10, 2.0, 0.5), (10, 2.6, 3.0))
    pipe = _rect(ext, view, proj, size, (10, 7.8, 0.8), (10, 8.4, 3.0))
    ledge = _rect(ext, view, proj, size, (10, 5.5, 3.3), (10, 7.5, 3.8))
    assert _count(pixels, k.CLIMB_ELEMENT_COLORS["ladder"], ladder) > 20
    assert _count(pixels, k.CLIMB_ELEMENT_COLORS["pipe"], pipe) > 20
    assert _count(pixels, k.CLIMB_ELEMENT_COLORS["ledge"], ledge) > 20
    # each colour only where its element is
    far = _rect(ext, view, proj, size, (10, 0.0, -1.0), (10, 1.5, 5.0))
    for rgba in k.CLIMB_ELEMENT_COLORS.values():
        assert _count(pixels, rgba, far) == 0
    assert _count(pixels, k.CLIMB_ELEMENT_COLORS["ladder"], pipe) == 0
    assert _count(pixels, k.CLIMB_ELEMENT_COLORS["pipe"], ladder) == 0
    # nodes and ground links are drawn
    assert _count(pixels, k.CLIMB_NODE_COLOR) > 10
    link_pixels = sum(_count(pixels, c) for c in k.CLIMB_LINK_COLORS.values())
    assert link_pixels > 10
    # the panel's toggles decide what the viewport draws
    pg = scene.navjump_climb
    pg.show_climb_elements = False
    pg.show_climb_links = False
    visible = oc.visible_climb_layers(pg)
    assert visible == {"climb_nodes", "climb_edges"}
    pixels, _v, _p = ext.offscreen.render_overlay_pixels(
        scene, size=size, camera=camera, draw_scene=False, path=None, layers=visible)
    for rgba in list(k.CLIMB_ELEMENT_COLORS.values()) + list(k.CLIMB_LINK_COLORS.values()):
        assert _count(pixels, rgba) == 0
    assert _count(pixels, k.CLIMB_NODE_COLOR) > 10
    # the viewport's own drawing function draws the climbing layers from the scene cache
    state = ext.overlay.bake_state(scene)
    assert not state.geometry.layers["climb_elements"].empty
    assert set(oc.CLIMB_LAYERS) <= set(ext.overlay.DRAW_ORDER)


def test_overlay_path_climbing_colour_and_legend(bpy, ext, scene, gpu_on):
    _climbing_wall(bpy)
    _bake(bpy, scene)
    k = ext.kinds
    nm = ext.storage.load_navmesh(scene)
    result = ext.query.find_path(nm, np.array([5.0, 2.5, 0.0]), np.array([12.0, 2.5, TOWER_H]))
    assert result.found and result.climbing
    size = (400, 240)
    pixels, view, proj = ext.offscreen.render_overlay_pixels(
        scene, size=size, camera="top", draw_scene=False, path=result, layers={"path"})
    at_wall = _rect(ext, view, proj, size, (9.3, 1.5, 0), (10.8, 3.1, 0))
    assert _count(pixels, k.PATH_CLIMB_COLOR, at_wall) > 10
    open_floor = _rect(ext, view, proj, size, (0.0, 4.0, 0), (8.5, 10.0, 0))
    assert _count(pixels, k.PATH_CLIMB_COLOR, open_floor) == 0
    geometry = ext.offscreen.ob.build_overlay(nm)
    geometry.layers.update(ext.climb_overlay.build_climb_layers(nm))
    labels = [label for label, _c in ext.offscreen.legend_entries(
        set(ext.climb_overlay.CLIMB_LAYERS), geometry)]
    assert {"Ledge", "Ladder", "Pipe", "Climb node"} <= set(labels)


def test_demo_level_climbing_wall_is_climbed_to_its_top(bpy, ext, demo_scene):
    """The bundled level: its tower top is reached only by climbing, and the picture's
    automatic path (bake_demo.py) climbs."""
    assert demo_scene.navjump.climbing_enabled
    roles = {o.name: o.navjump_role for o in bpy.data.objects}
    assert roles["Tower ladder"] == 'LADDER' and roles["Wall top ledge"] == 'LEDGE'
    _bake(bpy, demo_scene)
    nm = ext.storage.load_navmesh(demo_scene)
    assert ext.storage.read_report(demo_scene)["warnings"] == []
    top = np.array([23.0, 12.0, 4.5])
    result = ext.query.find_path(nm, np.array([30.0, 2.0, 0.0]), top)
    assert result.found and result.climbing
    no_climb = ext.query.find_path(nm, np.array([30.0, 2.0, 0.0]), top,
                                   ext.query.AgentFilter(abilities=()))
    assert not no_climb.found
    picture = ext.offscreen.auto_path(nm)
    assert picture is not None and picture.found and picture.climbing


def test_auto_rebake_follows_climb_roles_and_per_object_settings(bpy, navjump, ext, scene):
    live = navjump.sub("blender.live_rebake")
    _climbing_wall(bpy)
    scene.navjump.links_enabled = False
    _bake(bpy, scene)
    live.cancel()
    try:
        scene.navjump_overlay.auto_rebake = True
        top = bpy.data.objects["Top"]
        top.navjump_climb_links = {"hang"}
        assert live.pending() and "Top climbing settings" in live.status()["reason"]
        live.rebake_pending()
        nm = ext.storage.load_navmesh(scene)
        names = [str(n) for n in nm.climb_element_name]
        ledge_nodes = set()
        for i, n in enumerate(names):
            if n.startswith("Top"):
                ledge_nodes |= set(nm.climb_edge_nodes[nm.climb_edge_element == i].ravel()
                                   .tolist())
        lad = names.index("Ladder")
        only_ledge = ledge_nodes - set(nm.climb_edge_nodes[nm.climb_edge_element == lad]
                                       .ravel().tolist())
        at = np.isin(nm.climb_link_node, list(only_ledge))
        assert at.any() and (nm.climb_link_kind[at] == ext.kinds.CLIMB_LINK_HANG).all()
        # a role change makes the ladder walkable geometry again: no ladder element
        bpy.data.objects["Ladder"].navjump_role = 'WALKABLE'
        bpy.context.view_layer.update()
        live._on_settings_message()
        assert live.pending()
        live.rebake_pending()
        assert "Ladder" not in [str(n) for n in ext.storage.load_navmesh(scene)
                                .climb_element_name]
    finally:
        scene.navjump_overlay.auto_rebake = False
        live.cancel()


def test_curves_become_ledges_and_ladders(bpy, ext, scene):
    """A poly curve bent at a right angle is two ledges; a vertical curve (moved by its
    object transform) a ladder from its points' bounds."""
    def curve(name, points, location=(0, 0, 0), role=None):
        data = bpy.data.curves.new(name, 'CURVE')
        data.dimensions = '3D'
        spline = data.splines.new('POLY')
        spline.points.add(len(points) - 1)
        for p, co in zip(spline.points, points, strict=True):
            p.co = (*co, 1.0)
        obj = bpy.data.objects.new(name, data)
        obj.location = location
        scene.collection.objects.link(obj)
        if role:
            obj.navjump_role = role
        return obj

    _box(bpy, "Floor", (0, 0, -0.2), (20, 10, 0))
    curve("Rim", [(10, 2, 3), (10, 6, 3), (13, 6, 3)], role='LEDGE')
    curve("Rope-ladder", [(0, 0, 0), (0, 0, 2.5)], location=(4, 4, 0))
    g = ext.gather.gather_from_context(bpy.context)
    assert g.object_names == ["Floor"]
    items = {i.name: i for i in g.climb}
    assert set(items) == {"Rim[0]", "Rim[1]", "Rope-ladder"}
    assert items["Rope-ladder"].kind == ext.kinds.CLIMB_LADDER
    np.testing.assert_allclose(items["Rope-ladder"].points[:, :2], [[4, 4]] * 2, atol=1e-6)
    np.testing.assert_allclose(np.sort(items["Rope-ladder"].points[:, 2]), [0, 2.5], atol=1e-6)
    for name in ("Rim[0]", "Rim[1]"):
        assert items[name].kind == ext.kinds.CLIMB_LEDGE
        assert np.allclose(items[name].points[:, 2], 3.0)


class _Layout:
    """Stands in for UILayout (it exists only while Blender draws): records labels and
    checks that every property a panel draws exists."""

    def __init__(self, log=None):
        self.log = log if log is not None else {"labels": [], "props": []}
        self.active = True
        self.use_property_split = False

    def _child(self, *_a, **_k):
        return _Layout(self.log)

    row = column = box = _child

    def label(self, text="", icon='NONE'):
        self.log["labels"].append(text)

    def prop(self, data, name, **_k):
        assert name in data.bl_rna.properties, name
        self.log["props"].append(name)


def _draw(bpy, navjump, name):
    panels = navjump.sub("blender.panel_climb")
    cls = getattr(panels, name)
    assert cls.is_registered
    if hasattr(cls, "poll") and not cls.poll(bpy.context):
        return None
    fake = type("P", (), {"layout": _Layout()})()
    cls.draw(fake, bpy.context)
    return fake.layout.log


def test_climbing_panels_draw_settings_counts_and_legend(bpy, navjump, ext, scene):
    _climbing_wall(bpy)
    floor = bpy.data.objects["Floor"]
    bpy.context.view_layer.objects.active = floor
    assert _draw(bpy, navjump, "NAVJUMP_PT_object_climb") is None  # not a climb object
    bpy.context.view_layer.objects.active = bpy.data.objects["Drain-pipe.001"]
    log = _draw(bpy, navjump, "NAVJUMP_PT_object_climb")
    assert any("Pipe (from its name)" in t for t in log["labels"])
    assert any("Climbing is off" in t for t in log["labels"])
    assert {"navjump_climb_custom", "navjump_climb_abilities", "navjump_climb_moves",
            "navjump_climb_links"} <= set(log["props"])
    assert _draw(bpy, navjump, "NAVJUMP_PT_result_climb") is None  # nothing baked yet
    _bake(bpy, scene)
    log = _draw(bpy, navjump, "NAVJUMP_PT_result_climb")
    assert "Elements: 4" in log["labels"]
    log = _draw(bpy, navjump, "NAVJUMP_PT_overlay_climb")
    assert {"show_climb_elements", "show_climb_links", "legend_ladder", "legend_hang",
            "test_abilities"} <= set(log["props"])
    # the swatches show the overlay's own colours
    pg = scene.navjump_climb
    assert tuple(pg.legend_ladder) == pytest.approx(ext.kinds.CLIMB_ELEMENT_COLORS["ladder"][:3])
    assert tuple(pg.legend_path_climb) == pytest.approx(ext.kinds.PATH_CLIMB_COLOR[:3])


def test_a_path_test_end_dragged_onto_a_ladder_starts_mid_climb(bpy, navjump, ext, scene):
    gizmo = navjump.sub("blender.gizmo")
    _climbing_wall(bpy)
    _bake(bpy, scene)
    nm = ext.storage.load_navmesh(scene)
    pg = scene.navjump_overlay
    pg.path_test = True
    pg.path_goal = (12.0, 2.5, TOWER_H)
    # dragged next to the ladder, half-way up: snapped onto its nearest node
    assert gizmo.set_end(scene, "path_start", (9.7, 2.35, 1.9))
    start = np.array(pg.path_start)
    assert np.min(np.linalg.norm(nm.climb_node_position - start, axis=1)) < 1e-5
    assert 1.0 < start[2] < 3.0
    up = ext.overlay.path_state(scene)
    assert up.result.found and up.result.climbing
    np.testing.assert_allclose(up.result.points[0], start, atol=1e-5)
    pg.path_goal = (5.0, 2.5, 0.0)  # and down to the floor
    down = ext.overlay.path_state(scene)
    assert down.result.found and down.result.climbing
    # a test agent that cannot climb is placed on the navmesh instead
    scene.navjump_climb.test_abilities = set()
    gizmo.set_end(scene, "path_start", (9.7, 2.35, 1.9))
    assert pg.path_start[2] < 0.5


def test_found_ledges_follow_the_objects_find_ledges_switch(bpy, ext, scene):
    """A 2 m block (above the 1 m jump, within the 3 m climb height) on a floor: with
    climbing and auto_ledges its wall tops become ledges named after it, with no climb
    object in the scene; its Find Ledges switch off, none; another block keeps its own."""
    _box(bpy, "Floor", (0, 0, -0.2), (30, 12, 0))
    block = _box(bpy, "Block", (5, 3, 0), (10, 8, 2.0))
    other = _box(bpy, "Other", (18, 3, 0), (23, 8, 2.0))
    scene.navjump.auto_ledges = True
    _bake(bpy, scene)
    nm = ext.storage.load_navmesh(scene)
    names = [str(n) for n in nm.climb_element_name]
    assert any(n.startswith("Block") for n in names), names
    assert any(n.startswith("Other") for n in names), names
    assert nm.stats["climb_found_ledges"] == len(names)
    block.navjump_find_ledges = False
    _bake(bpy, scene)
    names = [str(n) for n in ext.storage.load_navmesh(scene).climb_element_name]
    assert names and not any(n.startswith("Block") for n in names), names
    assert any(n.startswith("Other") for n in names), names
    other.navjump_find_ledges = False
    scene.navjump.auto_ledges = False
    block.navjump_find_ledges = True
    _bake(bpy, scene)
    assert ext.storage.load_navmesh(scene).climb_element_count == 0
