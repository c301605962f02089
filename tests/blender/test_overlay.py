"""Viewport overlay: cached state, bad stored data, and offscreen GPU drawing.

The GPU tests draw into a ``GPUOffScreen`` after the tiny Workbench render that starts
Blender's GPU backend in background mode; they skip (with the reason) only when the GPU
cannot start. Pixels are matched against the overlay's own colour table, blended over
the background the way the GPU blends them.
"""

import dataclasses
import importlib
import io
import json

import navmesh_builders
import numpy as np
import pytest

pytest.importorskip("bpy", reason="Blender's bpy module is not installed")

# Hand-made level (metres, Z up). Row y 0..4: stand | crouch | prone. Row y 7..11 across a
# 3 m gap: stand at z 0 (wide two-way jump across from x 1..3), stand at z 1 (narrow jump
# up at x 6) and stand at z -2 (drop at x 9..11). A fourth link leaves the top of the
# first far polygon towards y 13 and lands on no polygon.
GAP_Y = (4.0, 7.0)
JUMP_ACROSS_X = (1.0, 3.0)
JUMP_UP_X = 6.0
DROP_X = (9.0, 11.0)


def hand_level(build):
    verts, polys = [], []

    def quad(x0, y0, x1, y1, z):
        ids = []
        for corner in ((x0, y0, z), (x1, y0, z), (x1, y1, z), (x0, y1, z)):
            if corner not in verts:  # shared corners make polygons neighbours
                verts.append(corner)
            ids.append(verts.index(corner))
        polys.append(ids)

    for i in range(3):
        quad(4 * i, 0, 4 * i + 4, 4, 0.0)
    for i, z in enumerate((0.0, 1.0, -2.0)):
        quad(4 * i, 7, 4 * i + 4, 11, z)
    nm = build.navmesh_from_polygons(verts, polys,
                                     stances=["stand", "crouch", "prone", "stand", "stand",
                                              "stand"])
    return build.with_links(
        nm, ["jump_across", "jump_up", "drop", "jump_across"],
        [[[1, 4, 0], [3, 4, 0]], [[6, 4, 0], [6, 4, 0]], [[9, 4, 0], [11, 4, 0]],
         [[1, 11, 0], [3, 11, 0]]],
        [[[1, 7, 0], [3, 7, 0]], [[6, 7, 1], [6, 7, 1]], [[9, 7, -2], [11, 7, -2]],
         [[1, 13, 0], [3, 13, 0]]],
        bidirectional=[True, False, False, False],
        start_polys=[0, 1, 2, 3], end_polys=[3, 4, 5, -1], costs=[4.5, 6.0, 3.0, 3.0])


def cache_stats(ov) -> dict:
    """What the overlay module ``ov`` holds in its caches now."""
    return {"bake_states": len(ov._caches.bake), "path_states": len(ov._caches.path),
            "gpu_sets": len(ov._caches.gpu), "clears": ov._caches.clears}


@pytest.fixture(scope="module")
def ext(navjump):
    sub = navjump.sub

    class Ext:
        overlay = sub("blender.overlay")
        geometry = sub("blender.overlay_geometry")
        props = sub("blender.overlay_props")
        offscreen = sub("blender.offscreen")
        camera = sub("blender.camera")
        png = sub("blender.png")
        storage = navjump.storage
        build = navmesh_builders.for_package(navjump.module)
        navmesh_mod = sub("core.navmesh")
    return Ext


@pytest.fixture(scope="module")
def level(ext):
    return hand_level(ext.build)


@pytest.fixture
def baked(scene, ext, level):
    ext.storage.write_result(scene, level)
    return scene


def _attached(level):
    """The level without its loose link: path queries refuse a link that ends on no
    polygon (issue 12); the overlay still draws it (red end) from the stored bake."""
    return dataclasses.replace(level, **{f: getattr(level, f)[:3] for f in level.array_fields()
                                         if f.startswith("link_")})


@pytest.fixture(scope="module")
def gpu_on(bpy, navjump, ext):
    try:
        ext.offscreen.ensure_gpu()
    except ext.offscreen.GPUUnavailable as exc:
        pytest.skip(f"the GPU cannot start here: {exc}")
    return True


# ------------------------------------------------------------------ pixel helpers
def _blend(rgba, alpha, bg):
    c = np.array(rgba[:3]) * alpha + np.array(bg[:3]) * (1 - alpha)
    return np.round(c * 255)


def _count(pixels, rgb, rect=None, tol=6):
    """Pixels within ``tol`` of ``rgb`` (0..255), inside rect (x0, y0, x1, y1) if given."""
    img = pixels
    if rect is not None:
        x0, y0, x1, y1 = (int(round(v)) for v in rect)
        img = pixels[max(y0, 0):y1, max(x0, 0):x1]
    diff = np.abs(img[..., :3].astype(int) - np.asarray(rgb, int)).max(axis=-1)
    return int((diff <= tol).sum())


def _rect(ext, view, proj, size, x0, y0, x1, y1):
    """Pixel rectangle of a world XY rectangle (top view)."""
    corners = ext.camera.project([[x0, y0, 0], [x1, y1, 0]], view, proj, size)
    (ax, ay), (bx, by) = corners
    return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


def _render(ext, scene, size=(360, 360), **kw):
    kw.setdefault("camera", "top")
    kw.setdefault("draw_scene", False)
    kw.setdefault("path", None)
    return ext.offscreen.render_overlay_pixels(scene, size=size, **kw)


def _link_colors(ext, kind, bg):
    ob = ext.geometry
    return [np.round(np.array(ob.LINK_COLORS[kind][:3]) * 255),
            _blend(ob.LINK_COLORS[kind], ob.RIBBON_ALPHA, bg)]


def _count_any(pixels, colors, rect=None):
    return sum(_count(pixels, c, rect) for c in colors)


# ------------------------------------------------------------------ offscreen drawing
def test_stance_fills_and_link_colours_where_they_belong(ext, baked, gpu_on):
    ob, bg = ext.geometry, ext.offscreen.BACKGROUND
    size = (360, 360)
    pixels, view, proj = _render(ext, baked, size)
    fills = {s: _blend(ob.STANCE_COLORS[s], ob.FILL_ALPHA, bg) for s in ("stand", "crouch",
                                                                         "prone")}
    areas = {"stand": (0.5, 0.5, 3.5, 3.5), "crouch": (4.5, 0.5, 7.5, 3.5),
             "prone": (8.5, 0.5, 11.5, 3.5)}
    for name, world in areas.items():
        rect = _rect(ext, view, proj, size, *world)
        n_pixels = (rect[2] - rect[0]) * (rect[3] - rect[1])
        assert _count(pixels, fills[name], rect) > 0.9 * n_pixels, name
        for other in fills:
            if other != name:
                assert _count(pixels, fills[other], rect) == 0, (name, other)

    gap = {kind: _rect(ext, view, proj, size, x0, GAP_Y[0] + 0.4, x1, GAP_Y[1] - 0.4)
           for kind, (x0, x1) in (("jump_across", (JUMP_ACROSS_X[0] - 0.3,
                                                   JUMP_ACROSS_X[1] + 0.3)),
                                  ("jump_up", (JUMP_UP_X - 0.5, JUMP_UP_X + 0.5)),
                                  ("drop", (DROP_X[0] - 0.3, DROP_X[1] + 0.3)))}
    for kind, rect in gap.items():
        mine = _count_any(pixels, _link_colors(ext, kind, bg), rect)
        assert mine > 20, kind
        for other in gap:
            if other != kind:
                assert _count_any(pixels, _link_colors(ext, other, bg), rect) == 0, (kind, other)
        for fill in fills.values():  # no navmesh in the gap
            assert _count(pixels, fill, rect) == 0
    # the wide jump across is a ribbon: its tint fills the space between its arcs
    inner = _rect(ext, view, proj, size, 1.3, 4.6, 2.7, 6.4)
    ribbon = _blend(ob.LINK_COLORS["jump_across"], ob.RIBBON_ALPHA, bg)
    assert _count(pixels, ribbon, inner) > 0.8 * (inner[2] - inner[0]) * (inner[3] - inner[1])
    # the loose end (y 13) is red; attached ends are not
    red = np.round(np.array(ob.UNATTACHED_COLOR[:3]) * 255)
    assert _count(pixels, red, _rect(ext, view, proj, size, 0.5, 12.5, 3.5, 13.5)) > 20
    assert _count(pixels, red, _rect(ext, view, proj, size, 0, 0, 12, GAP_Y[1] - 0.3)) == 0


def test_layers_switched_off_in_the_panel_are_not_drawn(ext, baked, gpu_on):
    ob, bg = ext.geometry, ext.offscreen.BACKGROUND
    pg = baked.navjump_overlay
    pg.show_prone = False
    pg.show_drop = False
    layers = ext.geometry.visible_layers(pg)
    assert "stance_prone" not in layers and "links_drop" not in layers
    pixels, view, proj = _render(ext, baked, layers=layers)
    prone = _blend(ob.STANCE_COLORS["prone"], ob.FILL_ALPHA, bg)
    assert _count(pixels, prone) == 0
    assert _count_any(pixels, _link_colors(ext, "drop", bg)) == 0
    # the others are still there
    assert _count(pixels, _blend(ob.STANCE_COLORS["crouch"], ob.FILL_ALPHA, bg)) > 1000
    assert _count_any(pixels, _link_colors(ext, "jump_up", bg)) > 20
    pg.show_overlay = False
    assert ext.geometry.visible_layers(pg) == set()
    pixels, _v, _p = _render(ext, baked, layers=ext.geometry.visible_layers(pg))
    assert _count(pixels, np.round(np.array(bg[:3]) * 255)) == pixels.shape[0] * pixels.shape[1]


def test_path_crosses_the_gap_where_the_link_is(ext, baked, level, gpu_on):
    ext.storage.write_result(baked, _attached(level))
    ob = ext.geometry
    pg = baked.navjump_overlay
    pg.path_test = True
    pg.path_start = (2.0, 1.0, 0.0)
    pg.path_goal = (2.5, 10.0, 0.0)
    path = ext.overlay.path_state(baked)
    assert path.result is not None and path.result.found, path.message
    size = (360, 360)
    pixels, view, proj = _render(ext, baked, size, path=path.result)
    colors = [np.round(np.array(ob.PATH_COLOR[:3]) * 255),
              np.round(np.array(ob.PATH_JUMP_COLOR[:3]) * 255)]
    at_link = _rect(ext, view, proj, size, JUMP_ACROSS_X[0], GAP_Y[0] + 0.4, JUMP_ACROSS_X[1],
                    GAP_Y[1] - 0.4)
    elsewhere = _rect(ext, view, proj, size, 3.6, GAP_Y[0] + 0.2, 12.5, GAP_Y[1] - 0.2)
    left = _rect(ext, view, proj, size, -1.0, GAP_Y[0] + 0.2, 0.9, GAP_Y[1] - 0.2)
    assert _count_any(pixels, colors, at_link) > 20
    assert _count_any(pixels, colors, elsewhere) == 0
    assert _count_any(pixels, colors, left) == 0
    # and with the path layer off, no path pixels at all
    pg.show_path = False
    pixels, _v, _p = _render(ext, baked, size, path=None,
                             layers=ext.geometry.visible_layers(pg))
    assert _count_any(pixels, colors) == 0


def test_scene_overlay_draws_with_the_scene_cache_and_depth(bpy, ext, baked, gpu_on):
    """The viewport's own drawing function, into an offscreen buffer: a floor drawn first
    hides nothing of the (lifted) navmesh; without x-ray a box above a polygon hides it."""
    import gpu
    from mathutils import Matrix

    ob, bg = ext.geometry, ext.offscreen.BACKGROUND
    size = (200, 200)
    view, proj = ext.camera.fit_camera(ext.overlay.bake_state(baked).geometry.bounds, size,
                                          "top")
    off = gpu.types.GPUOffScreen(*size)
    results = {}
    try:
        for xray in (False, True):
            baked.navjump_overlay.xray = xray
            with off.bind():
                fb = gpu.state.active_framebuffer_get()
                fb.clear(color=bg, depth=1.0)
                with gpu.matrix.push_pop(), gpu.matrix.push_pop_projection():
                    gpu.matrix.load_matrix(Matrix(view.tolist()))
                    gpu.matrix.load_projection_matrix(Matrix(proj.tolist()))
                    # an occluder 2 m above the crouch polygon, drawn into depth only
                    gpu.state.depth_test_set('LESS_EQUAL')
                    gpu.state.depth_mask_set(True)
                    gpu.state.color_mask_set(False, False, False, False)
                    tri = np.array([[4, 0, 2], [8, 0, 2], [8, 4, 2], [4, 0, 2], [8, 4, 2],
                                    [4, 4, 2]], np.float32)
                    ext.offscreen._draw_solid(tri, np.ones((6, 4), np.float32))
                    gpu.state.color_mask_set(True, True, True, True)
                    ext.overlay.draw_scene_overlay(baked, size)
                buf = fb.read_color(0, 0, size[0], size[1], 4, 0, 'UBYTE')
            buf.dimensions = size[0] * size[1] * 4
            results[xray] = np.asarray(buf, np.uint8).reshape(size[1], size[0], 4)[::-1]
    finally:
        off.free()
        gpu.state.depth_test_set('NONE')
    crouch = _blend(ob.STANCE_COLORS["crouch"], ob.FILL_ALPHA, bg)
    stand = _blend(ob.STANCE_COLORS["stand"], ob.FILL_ALPHA, bg)
    assert _count(results[False], crouch) == 0  # hidden under the occluder
    assert _count(results[True], crouch) > 1000  # x-ray draws through it
    assert _count(results[False], stand) > 1000
    # the scene cache made the batches once and reused them for the second frame
    visible = ext.geometry.visible_layers(baked.navjump_overlay)
    first = ext.overlay.scene_batches(baked, visible)
    assert ext.overlay.scene_batches(baked, visible)["stance_stand"] is first["stance_stand"]


def test_png_of_a_real_scene_three_quarter_view(bpy, ext, baked, level, gpu_on, tmp_path):
    """Scene geometry (a floor mesh) is drawn flat-shaded under the overlay."""
    ext.storage.write_result(baked, _attached(level))
    ob, bg = ext.geometry, ext.offscreen.BACKGROUND
    mesh = bpy.data.meshes.new("Floor")
    mesh.from_pydata([(-2, -2, -0.02), (14, -2, -0.02), (14, 13, -0.02), (-2, 13, -0.02)], [],
                     [(0, 1, 2, 3)])
    baked.collection.objects.link(bpy.data.objects.new("Floor", mesh))
    path = tmp_path / "level.png"
    out = ext.offscreen.render_overlay_png(baked, size=(320, 200), filepath=path)
    assert out == path and path.is_file()
    pixels = ext.png.read_png(path)
    assert pixels.shape == (200, 320, 4)
    floor_px = (np.abs(pixels[..., :3].astype(int) - np.round(
        ext.offscreen.GROUND_COLOR * 255 * 0.35)).max(-1) > 0)  # not the background
    background = np.round(np.array(bg[:3]) * 255)
    assert _count(pixels, background) < 0.9 * pixels.shape[0] * pixels.shape[1]
    assert floor_px.sum() > 0
    # the fills are blended over the floor now: find the stance hues by dominant channel
    blue = (pixels[..., 2].astype(int) - pixels[..., 0] > 60).sum()
    assert blue > 200  # stand polygons, seen over the floor
    # the auto path across the level was drawn (white or pink pixels)
    # the legend's swatches, top left, in the overlay's own (opaque) colours
    for name in ("stand", "crouch", "prone"):
        swatch = np.round(np.array(ob.STANCE_COLORS[name][:3]) * 255)
        assert _count(pixels, swatch, (0, 0, 40, 90), tol=2) > 50, name
    white = (pixels[..., :3].min(axis=-1) > 235).sum()
    pink = _count(pixels, np.round(np.array(ob.PATH_JUMP_COLOR[:3]) * 255), tol=12)
    assert white + pink > 20


# ------------------------------------------------------------------ cached state
def test_state_is_cached_until_the_bake_changes(ext, baked, level):
    level = _attached(level)
    ext.storage.write_result(baked, level)
    ov = ext.overlay
    first = ov.bake_state(baked)
    assert first.ok and not first.errors and not first.warnings
    assert ov.bake_state(baked) is first
    assert first.navmesh.equals(level)
    ext.storage.write_result(baked, ext.build.with_links(level, ["drop"], [[[0, 0, 0]] * 2],
                                                         [[[1, 1, 0]] * 2],
                                                         start_polys=[0], end_polys=[0]))
    second = ov.bake_state(baked)
    assert second is not first and second.version > first.version
    assert second.navmesh.link_count == level.link_count + 1


def _our_handlers(bpy, ext, name):
    prefix = ext.overlay.__name__.rpartition(".")[0]
    return [fn for fn in getattr(bpy.app.handlers, name)
            if getattr(fn, "__module__", "").startswith(prefix)]


def test_undo_and_redo_handlers_clear_the_caches(bpy, ext, baked):
    ov = ext.overlay
    before = ov.bake_state(baked)
    baked.navjump_overlay.path_test = True
    ov.path_state(baked)
    assert cache_stats(ov)["bake_states"] == 1 and cache_stats(ov)["path_states"] == 1
    # Undo cannot run without a window here: call what Blender calls after it.
    for name in ("undo_post", "redo_post"):
        handlers = _our_handlers(bpy, ext, name)
        assert ov._clear_on_undo in handlers
        clears = cache_stats(ov)["clears"]
        for fn in handlers:
            fn(baked, None)
        stats = cache_stats(ov)
        assert stats["clears"] == clears + 1
        assert stats["bake_states"] == stats["path_states"] == stats["gpu_sets"] == 0
    after = ov.bake_state(baked)
    assert after is not before and after.version > before.version
    assert after.navmesh.equals(before.navmesh)


def test_reload_clears_and_rebuilds_from_the_file(bpy, ext, baked, tmp_path):
    ov = ext.overlay
    before = ov.bake_state(baked)
    baked.navjump_overlay.path_start = (1.5, 2.5, 0.0)
    path = tmp_path / "saved.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    clears = cache_stats(ov)["clears"]
    bpy.ops.wm.open_mainfile(filepath=str(path))
    assert cache_stats(ov)["clears"] > clears
    assert cache_stats(ov)["bake_states"] == 0
    scene = bpy.context.scene
    after = ov.bake_state(scene)
    assert after.ok and after.navmesh.equals(before.navmesh)
    assert tuple(scene.navjump_overlay.path_start) == pytest.approx((1.5, 2.5, 0.0))


# ------------------------------------------------------------------ bad stored data
def test_no_bake_yet(ext, scene):
    state = ext.overlay.bake_state(scene)
    assert not state.ok and "Not baked yet" in state.errors[0]
    ext.overlay._draw_callback()  # background mode: returns without touching the GPU


def test_bake_from_another_version_is_reported_not_raised(ext, baked, gpu_on):
    mesh = ext.storage.result_object(baked, "navmesh").data
    meta = json.dumps({"format": ext.navmesh_mod.NAVMESH_FORMAT, "version": 99,
                       "settings": {}, "stats": {}})
    buf = io.BytesIO()
    np.savez(buf, __meta__=np.frombuffer(meta.encode(), np.uint8))
    data = buf.getvalue()
    del mesh["navjump_npz"]  # assigning over an int array keeps its old length
    mesh["navjump_npz"] = ext.storage.bytes_to_words(data)
    mesh["navjump_npz_size"] = len(data)
    state = ext.overlay.bake_state(baked)
    assert not state.ok and "version 99" in state.errors[0] and "bake again" in state.errors[0]
    pixels, _v, _p = _render(ext, baked, navmesh=ext.overlay.bake_state(baked).navmesh)
    assert pixels.shape[2] == 4  # nothing to draw, nothing raised


def test_deleted_and_hand_edited_result_objects(bpy, ext, baked):
    import bmesh

    ov, storage = ext.overlay, ext.storage
    links = storage.result_object(baked, "links")
    bpy.data.objects.remove(links)
    state = ov.bake_state(baked)
    assert state.ok and any("Links object was deleted" in w for w in state.warnings)

    mesh = storage.result_object(baked, "navmesh").data
    bm = bmesh.new()
    bm.from_mesh(mesh)
    bm.faces.ensure_lookup_table()
    bmesh.ops.delete(bm, geom=[bm.faces[0]], context="FACES")
    bm.to_mesh(mesh)
    bm.free()
    state = ov.bake_state(baked)
    assert state.ok and any("edited by hand" in w for w in state.warnings)
    assert state.navmesh.polygon_count == 6  # the baked data is still drawn

    bpy.data.objects.remove(storage.result_object(baked, "navmesh"))
    state = ov.bake_state(baked)
    assert not state.ok and "deleted" in state.errors[0]


def test_invalid_parts_are_skipped_and_the_rest_drawn(ext, scene, level, gpu_on):
    import dataclasses

    polys = level.polygons.copy()
    polys[2, 1] = 999  # the prone polygon points at a missing vertex
    start = level.link_start.copy()
    start[1, 0, 0] = np.nan  # the jump up is broken
    bad = dataclasses.replace(level, polygons=polys, link_start=start)
    # write_result refuses broken data: store a good bake, then swap in the broken blob
    ext.storage.write_result(scene, level)
    data = ext.storage.navmesh_to_bytes(bad)
    mesh = ext.storage.result_object(scene, "navmesh").data
    del mesh["navjump_npz"]  # assigning over an int array keeps its old length
    mesh["navjump_npz"] = ext.storage.bytes_to_words(data)
    mesh["navjump_npz_size"] = len(data)
    state = ext.overlay.bake_state(scene)
    assert state.ok
    text = " ".join(state.warnings)
    assert "1 polygons" in text and "1 links" in text
    ob, bg = ext.geometry, ext.offscreen.BACKGROUND
    pixels, _v, _p = _render(ext, scene, navmesh=state.navmesh)
    assert _count(pixels, _blend(ob.STANCE_COLORS["prone"], ob.FILL_ALPHA, bg)) == 0
    assert _count(pixels, _blend(ob.STANCE_COLORS["crouch"], ob.FILL_ALPHA, bg)) > 1000
    assert _count_any(pixels, _link_colors(ext, "jump_up", bg)) == 0
    assert _count_any(pixels, _link_colors(ext, "drop", bg)) > 20


def test_panels_hang_under_the_main_panel(bpy, ext, navjump):
    panels = navjump.sub("blender.panel_overlay")
    for cls in panels.classes:
        assert cls.is_registered
        assert cls.bl_parent_id == "NAVJUMP_PT_main"
    pg = bpy.context.scene.navjump_overlay
    # the legend swatches show the overlay's own colours
    assert tuple(pg.legend_crouch) == pytest.approx(ext.geometry.STANCE_COLORS["crouch"][:3])
    assert tuple(pg.legend_drop) == pytest.approx(ext.geometry.LINK_COLORS["drop"][:3])


class _RecordingLayout:
    """Stands in for UILayout (which only exists while Blender draws a region): records
    labels, and checks every property and operator a panel asks for really exists."""

    def __init__(self, bpy, log=None):
        self._bpy = bpy
        self.log = log if log is not None else {"labels": [], "props": [], "ops": []}

    def _child(self, *_a, **_k):
        return _RecordingLayout(self._bpy, self.log)

    row = column = box = split = _child

    def label(self, text="", icon='NONE'):
        self.log["labels"].append(text)

    def prop(self, data, name, **_k):
        assert name in data.bl_rna.properties, name
        self.log["props"].append(name)

    def operator(self, idname, **_k):
        group, _, name = idname.partition(".")
        assert hasattr(getattr(self._bpy.ops, group), name), idname
        self.log["ops"].append(idname)

    def menu(self, *_a, **_k):
        pass


def _draw_panels(bpy, module):
    panels = importlib.import_module(f"{module}.blender.panel_overlay")
    layout = _RecordingLayout(bpy)
    for cls in panels.classes:
        fake = type("P", (), {"layout": layout})()
        cls.draw_header(fake, bpy.context)
        cls.draw(fake, bpy.context)
    return layout.log


def test_panels_say_what_is_wrong(bpy, navjump, ext, scene, level):
    log = _draw_panels(bpy, navjump.module)
    assert any("Not baked yet" in t for t in log["labels"])
    assert any("Bake first" in t for t in log["labels"])

    ext.storage.write_result(scene, _attached(level))
    pg = scene.navjump_overlay
    pg.path_test = True
    pg.path_start = (2.0, 2.0, 0.0)
    pg.path_goal = (40.0, 40.0, 0.0)
    log = _draw_panels(bpy, navjump.module)
    text = " ".join(log["labels"])
    assert "off the navmesh" in text
    assert "navjump.path_test_place" in log["ops"]
    assert {"show_stand", "show_drop", "xray", "test_prone", "auto_rebake"} <= set(log["props"])

    pg.path_goal = (2.5, 10.0, 0.0)
    text = " ".join(_draw_panels(bpy, navjump.module)["labels"])
    assert "Path found" in text and "Jumps: 1" in text and "Query:" in text


def test_tile_borders_drawn_when_switched_on(bpy, ext, scene, gpu_on):
    """A tiled bake's tile squares are drawn in the tile-border colour along the tile
    lines when ``show_tiles`` is on, and not at all when it is off (the default)."""
    core = importlib.import_module(f"{ext.navmesh_mod.__name__.rsplit('.', 2)[0]}.core")
    verts = np.array([[0, 0, 0], [12, 0, 0], [12, 12, 0], [0, 12, 0]], np.float64)
    tiled = core.bake(verts, np.array([[0, 1, 2], [0, 2, 3]], np.int32),
                      core.BakeSettings(cell_size=0.2, tile_size=30))
    assert tiled.tiled and tiled.stats["tiles"] == [3, 3]
    ext.storage.write_result(scene, tiled)
    pg = scene.navjump_overlay
    assert not pg.show_tiles and "tiles" not in ext.geometry.visible_layers(pg)
    size = (360, 360)
    yellow = np.round(np.array(ext.geometry.TILE_BORDER_COLOR[:3]) * 255)
    pixels, _v, _p = _render(ext, scene, size, layers=ext.geometry.visible_layers(pg))
    assert _count(pixels, yellow) == 0
    pg.show_tiles = True
    layers = ext.geometry.visible_layers(pg)
    assert "tiles" in layers
    pixels, view, proj = _render(ext, scene, size, layers=layers)
    side = 30 * 0.2  # 6 m: the tile line between the two tiles with polygons is at 6 m
    on_x = _rect(ext, view, proj, size, side - 0.1, 1.0, side + 0.1, 11.0)
    on_y = _rect(ext, view, proj, size, 1.0, side - 0.1, 11.0, side + 0.1)
    assert _count(pixels, yellow, on_x) > 50
    assert _count(pixels, yellow, on_y) > 50
    for x0, y0 in ((1.0, 1.0), (7.0, 1.0), (1.0, 7.0), (7.0, 7.0)):  # lines only, no fill
        inside = _rect(ext, view, proj, size, x0, y0, x0 + 4.0, y0 + 4.0)
        assert _count(pixels, yellow, inside) == 0, (x0, y0)


def test_tile_border_geometry_with_and_without_the_grid(ext):
    """The tile layer (vectorised: a live re-bake rebuilds it): with the grid, one square
    per tile with polygons at its lowest polygon's height; without it, exactly the polygon
    edges where two tiles meet, every one on a tile line."""
    import dataclasses

    core = importlib.import_module(f"{ext.navmesh_mod.__name__.rsplit('.', 2)[0]}.core")
    verts = np.array([[0, 0, 0], [12, 0, 0], [12, 12, 0.5], [0, 12, 0.5]], np.float64)
    tiled = core.bake(verts, np.array([[0, 1, 2], [0, 2, 3]], np.int32),
                      core.BakeSettings(cell_size=0.2, tile_size=30))
    lines = ext.geometry.build_overlay(tiled, lift=0.05).layers["tiles"].lines[0]
    squares = lines.positions.reshape(-1, 4, 2, 3)  # 4 edges (2 ends) per tile square
    n_tiles = np.unique(tiled.polygon_tile).size
    assert squares.shape[0] == n_tiles
    for sq, k in zip(squares, np.unique(tiled.polygon_tile), strict=True):
        own = tiled.polygons[tiled.polygon_tile == k]
        low = tiled.vertices[own[own >= 0], 2].min()
        np.testing.assert_allclose(sq[..., 2], low + 0.05, atol=1e-5)
        np.testing.assert_allclose(sq[0, 0, :2], [(k % 3) * 6.0, (k // 3) * 6.0], atol=1e-4)

    stats = {k: v for k, v in tiled.stats.items() if k != "tile_grid"}
    edges = ext.geometry.build_overlay(dataclasses.replace(tiled, stats=stats),
                                       lift=0.05).layers["tiles"].lines[0]
    ends = edges.positions.reshape(-1, 2, 3)
    want = 0  # every shared edge between two tiles, counted once
    for p in range(tiled.polygon_count):
        for o in tiled.neighbours[p]:
            want += int(o > p and tiled.polygon_tile[o] != tiled.polygon_tile[p])
    assert ends.shape[0] == want > 0
    on_line = np.isclose(np.remainder(ends[..., :2] + 1e-4, 6.0), 1e-4, atol=1e-3)
    assert (on_line[..., 0].all(axis=1) | on_line[..., 1].all(axis=1)).all()
