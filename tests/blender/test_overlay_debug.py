"""Debug layers of the overlay in real Blender: baked with Debug Data, stored with the
result, drawn offscreen (pixels matched against the layers' own colours)."""


import navmesh_builders
import numpy as np
import pytest

pytest.importorskip("bpy", reason="Blender's bpy module is not installed")

from tests.blender.test_overlay import _blend, _count, _rect, hand_level  # noqa: E402

SIZE = (380, 240)
# Two floors: A (0..10 x 0..10) and B (14..18 x 0..4), apart: two regions at least.
FLOORS = ((0, 0, 10, 10), (14, 0, 18, 4))
VIEW_BOUNDS = [[-1, -1, 0], [19, 11, 0]]


@pytest.fixture(scope="module")
def ext(navjump):
    sub = navjump.sub

    class Ext:
        overlay = sub("blender.overlay")
        batches = sub("blender.overlay_geometry")
        debug = sub("blender.overlay_debug")
        offscreen = sub("blender.offscreen")
        camera = sub("blender.camera")
        build = navmesh_builders.for_package(navjump.module)
        storage = navjump.storage
    return Ext


@pytest.fixture(scope="module")
def gpu_on(bpy, navjump, ext):
    try:
        ext.offscreen.ensure_gpu()
    except ext.offscreen.GPUUnavailable as exc:
        pytest.skip(f"the GPU cannot start here: {exc}")
    return True


@pytest.fixture
def debug_baked(bpy, scene):
    for i, (x0, y0, x1, y1) in enumerate(FLOORS):
        mesh = bpy.data.meshes.new(f"Floor{i}")
        mesh.from_pydata([(x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0)], [],
                         [(0, 1, 2, 3)])
        obj = bpy.data.objects.new(f"Floor{i}", mesh)
        scene.collection.objects.link(obj)
    scene.navjump.links_enabled = False
    scene.navjump.keep_debug = True
    assert bpy.ops.navjump.bake() == {'FINISHED'}
    return scene


def render(ext, scene, layers):
    cam = ext.camera.fit_camera(VIEW_BOUNDS, SIZE, "top")
    pixels, view, proj = ext.offscreen.render_overlay_pixels(
        scene, size=SIZE, camera=cam, layers=set(layers), draw_scene=False, path=None)
    return pixels, view, proj


def npx(rect):
    """Pixels in ``rect`` as ``_count`` crops it."""
    x0, y0, x1, y1 = (int(round(v)) for v in rect)
    return (x1 - x0) * (y1 - y0)


def rgb(color, alpha=1.0, bg=None):
    if bg is None:
        return np.round(np.array(color[:3]) * 255)
    return _blend(color, alpha, bg)


def test_debug_data_is_stored_with_the_bake_and_survives_reload(bpy, ext, debug_baked,
                                                               tmp_path):
    debug = ext.storage.load_debug(debug_baked)
    assert debug is not None and debug.spans.shape[0] > 1000
    walk = debug.spans["area"] > 0
    assert len(np.unique(debug.spans["region"][walk])) >= 2 and debug.contour_count >= 2
    path = tmp_path / "debug.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    again = ext.storage.load_debug(bpy.context.scene)
    assert np.array_equal(again.spans, debug.spans)
    assert np.array_equal(again.contour_points, debug.contour_points)
    # a bake without Debug Data stores none
    bpy.context.scene.navjump.keep_debug = False
    bpy.ops.navjump.bake()
    assert ext.storage.load_debug(bpy.context.scene) is None


def test_voxel_tops_show_walkable_by_stance_and_the_eroded_border(ext, debug_baked, gpu_on):
    pixels, view, proj = render(ext, debug_baked, {"debug_voxels"})
    stand = rgb(ext.debug.STANCE_COLORS["stand"])
    unwalkable = rgb(ext.debug.UNWALKABLE_COLOR)
    inner = _rect(ext, view, proj, SIZE, 2, 2, 8, 8)
    area = (inner[2] - inner[0]) * (inner[3] - inner[1])
    # squares of 80 % of a cell: most of the inside is the stand colour, none dark red
    assert _count(pixels, stand, inner) > 0.5 * area
    assert _count(pixels, unwalkable, inner) == 0
    # the floor's outer 0.4 m (the agent radius) is eroded: dark red, not blue
    edge = _rect(ext, view, proj, SIZE, 0.02, 2, 0.3, 8)
    assert _count(pixels, unwalkable, edge) > 0.3 * (edge[2] - edge[0]) * (edge[3] - edge[1])
    assert _count(pixels, stand, edge) == 0
    # nothing between the floors
    gap = _rect(ext, view, proj, SIZE, 11, 1, 13, 3)
    bg = rgb(ext.offscreen.BACKGROUND)
    assert _count(pixels, bg, gap) == npx(gap)


def test_regions_are_drawn_in_their_own_colours(ext, debug_baked, gpu_on):
    debug = ext.storage.load_debug(debug_baked)
    pixels, view, proj = render(ext, debug_baked, {"debug_regions"})
    sp = debug.spans
    seen = []
    for x, y in ((5.1, 5.1), (16.1, 2.1)):
        here = (np.abs(sp["x"] - x) < 0.11) & (np.abs(sp["y"] - y) < 0.11) & (sp["area"] > 0)
        region = int(sp["region"][here][0])
        color = rgb(ext.debug.id_colors([region])[0])
        rect = _rect(ext, view, proj, SIZE, x - 0.8, y - 0.8, x + 0.8, y + 0.8)
        assert _count(pixels, color, rect) > 0.3 * (rect[2] - rect[0]) * (rect[3] - rect[1])
        seen.append(region)
    assert seen[0] != seen[1]
    # the eroded border has no region: not drawn
    edge = _rect(ext, view, proj, SIZE, 0.02, 2, 0.3, 8)
    bg = rgb(ext.offscreen.BACKGROUND)
    assert _count(pixels, bg, edge) == npx(edge)


def test_contours_outline_the_regions(ext, debug_baked, gpu_on):
    debug = ext.storage.load_debug(debug_baked)
    pixels, view, proj = render(ext, debug_baked, {"debug_contours"})
    colors = ext.debug.id_colors(debug.contour_region)
    colors[:, :3] *= ext.debug.CONTOUR_DARKEN
    drawn = {tuple(rgb(c)) for c in colors}
    # island B is one region with one contour: its outline, about 0.4 m in from its edge
    b = [i for i in range(debug.contour_count)
         if debug.contour_points[debug.contour_start[i], 0] > 12]
    assert len(b) == 1
    color = rgb(colors[b[0]])
    left = _rect(ext, view, proj, SIZE, 14.2, 1, 14.7, 3)
    assert _count(pixels, color, left, tol=10) > 5
    middle = _rect(ext, view, proj, SIZE, 15.2, 1.2, 16.8, 2.8)
    assert all(_count(pixels, c, middle, tol=10) == 0 for c in drawn)


def test_polygon_ids_colour_every_polygon(ext, scene, gpu_on):
    level = hand_level(ext.build)
    ext.storage.write_result(scene, level)
    bg = ext.offscreen.BACKGROUND
    cam = ext.camera.fit_camera([[-1, -1, 0], [13, 12, 0]], SIZE, "top")
    pixels, view, proj = ext.offscreen.render_overlay_pixels(
        scene, size=SIZE, camera=cam, layers={"debug_polygons"}, draw_scene=False, path=None)
    colors = ext.debug.id_colors(np.arange(level.polygon_count))
    for p in range(level.polygon_count):
        c = level.vertices[level.polygons[p][level.polygons[p] >= 0]].mean(axis=0)
        rect = _rect(ext, view, proj, SIZE, c[0] - 1, c[1] - 1, c[0] + 1, c[1] + 1)
        n = (rect[2] - rect[0]) * (rect[3] - rect[1])
        mine = rgb(colors[p], ext.debug.POLYGON_ALPHA, bg)
        assert _count(pixels, mine, rect) > 0.9 * n, p
        for q in range(level.polygon_count):
            if q != p:
                assert _count(pixels, rgb(colors[q], ext.debug.POLYGON_ALPHA, bg), rect) == 0


def test_debug_toggles_and_the_viewport_cache(ext, debug_baked, gpu_on):
    pg = debug_baked.navjump_overlay
    assert ext.debug.visible_debug_layers(pg) == set()  # off by default
    pg.show_debug_voxels = True
    pg.show_debug_contours = True
    assert ext.debug.visible_debug_layers(pg) == {"debug_voxels", "debug_contours"}
    pg.show_overlay = False
    assert ext.debug.visible_debug_layers(pg) == set()
    pg.show_overlay = True
    # the viewport path: built once per bake, then served from the cache
    ext.overlay.clear_caches()
    first = ext.overlay.scene_batches(debug_baked, {"debug_voxels", "debug_contours"})
    state = ext.overlay.bake_state(debug_baked)
    assert set(state.debug_ms) == {"debug_voxels", "debug_contours"}
    assert first["debug_voxels"] and first["debug_contours"]
    again = ext.overlay.scene_batches(debug_baked, {"debug_voxels", "debug_contours"})
    assert again["debug_voxels"] is first["debug_voxels"]


@pytest.fixture
def links_debug_baked(bpy, scene):
    # floors A and B are 4 m apart: more than max_jump_distance (3 m), so every jump across
    # from A's right border to B is refused as too far
    for i, (x0, y0, x1, y1) in enumerate(FLOORS):
        mesh = bpy.data.meshes.new(f"Floor{i}")
        mesh.from_pydata([(x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0)], [],
                         [(0, 1, 2, 3)])
        obj = bpy.data.objects.new(f"Floor{i}", mesh)
        scene.collection.objects.link(obj)
    scene.navjump.links_enabled = True
    scene.navjump.keep_debug = True
    # (with 0.2 m cells the search's reach, 2 run-ups + the jump distance, ends short of B:
    # then A's right border has no candidate at all, "no landing")
    scene.navjump.auto_cell_size = False
    scene.navjump.cell_size = 0.3
    assert bpy.ops.navjump.bake() == {'FINISHED'}
    return scene


def test_refused_links_are_drawn_in_their_reason_colours(ext, links_debug_baked, gpu_on):
    from blender_navjump.core.debug import REJECT_NO_LANDING, REJECT_TOO_FAR

    debug = ext.storage.load_debug(links_debug_baked)
    rej = debug.link_rejects
    far = rej[rej["reason"] == REJECT_TOO_FAR]
    assert far.shape[0] >= 2
    # both ways across the gap
    assert (np.minimum(far["x"], far["tx"]) < 10).all()
    assert (np.maximum(far["x"], far["tx"]) > 14).all()
    assert (rej["reason"] == REJECT_NO_LANDING).sum() >= 5
    pixels, view, proj = render(ext, links_debug_baked, {"debug_link_rejects"})
    too_far = rgb(ext.debug.REJECT_COLORS["too_far"])
    no_landing = rgb(ext.debug.REJECT_COLORS["no_landing"])
    # the refused jumps' lines cross the gap between the floors
    gap = _rect(ext, view, proj, SIZE, 11, 0.5, 13, 3.5)
    assert _count(pixels, too_far, gap, tol=10) > 20
    # A's left border (facing nothing) has samples with no landing at all
    left = _rect(ext, view, proj, SIZE, -0.2, 1, 1.0, 9)
    assert _count(pixels, no_landing, left, tol=10) > 20
    # and nothing is drawn in the middle of floor A
    middle = _rect(ext, view, proj, SIZE, 3, 3, 7, 7)
    bg = rgb(ext.offscreen.BACKGROUND)
    assert _count(pixels, bg, middle) == npx(middle)
    # the layer is off unless asked for
    plain, _v, _p = render(ext, links_debug_baked, set())
    assert _count(plain, too_far, gap, tol=10) == 0
