"""Auto re-bake: change detection, debounce (newer change replaces a pending bake), the
bake beside the UI (a worker thread; a newer change cancels it), the per-object gather
cache, undo/load safety, and the latency from a slider change to a new overlay.

Timers never fire in background mode, so the tests run what the timers run
(``live_rebake.fire_pending`` starts the worker, ``live_rebake.finish`` takes its
result) after checking that the timer was registered.
"""

import sys
import threading
import time

import numpy as np
import pytest

pytest.importorskip("bpy", reason="Blender's bpy module is not installed")


_LIVE = ""


@pytest.fixture(scope="module")
def mods(navjump):
    global _LIVE
    _LIVE = f"{navjump.module}.blender.live_rebake"

    class M:
        live = navjump.sub("blender.live_rebake")
        overlay = navjump.sub("blender.overlay")
        offscreen = navjump.sub("blender.offscreen")
    return M


def _box(bpy, scene, name, x0, y0, z0, x1, y1, z1):
    verts = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
             (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(obj)
    return obj


def _bake_id(navjump, scene):
    return navjump.storage.result_object(scene, "navmesh").data["navjump_bake_id"]


@pytest.fixture
def small_level(bpy, navjump, scene, mods):
    """A 12 x 8 m floor with a box on it, baked once."""
    _box(bpy, scene, "Floor", 0, 0, -0.2, 12, 8, 0)
    _box(bpy, scene, "Box", 5, 3, 0, 7, 5, 1.5)
    scene.navjump.links_enabled = False  # keep these bakes small
    assert bpy.ops.navjump.bake() == {'FINISHED'}
    mods.live.cancel()
    yield scene
    mods.live.cancel()


def _update(bpy):
    """What Blender does after an edit in the UI: evaluate the depsgraph (running
    depsgraph_update_post) and deliver property messages (no event loop here, so the
    message-bus callback is called directly)."""
    bpy.context.scene.update_tag()  # Python-set custom properties do not tag it
    bpy.context.view_layer.update()
    live = sys.modules[_LIVE]
    live._on_settings_message()


def test_off_by_default(bpy, mods, small_level):
    assert not small_level.navjump_overlay.auto_rebake
    small_level.navjump.agent_radius = 0.3
    _update(bpy)
    assert not mods.live.pending()


def test_slider_change_rebakes_once_after_the_last_change(bpy, navjump, mods, small_level):
    live = mods.live
    scene = small_level
    scene.navjump_overlay.auto_rebake = True
    before_id = _bake_id(navjump, scene)
    before_state = mods.overlay.bake_state(scene)

    scene.navjump.agent_radius = 0.3
    _update(bpy)
    assert live.pending() and live.status()["reason"] == "settings changed"
    assert bpy.app.timers.is_registered(live._on_timer)
    generation = live.status()["generation"]
    scene.navjump.agent_radius = 0.25  # a newer change replaces the pending bake
    _update(bpy)
    assert live.status()["generation"] == generation + 1
    assert bpy.app.timers.is_registered(live._on_timer)
    assert _bake_id(navjump, scene) == before_id  # nothing baked yet

    assert live.fire_pending() and not live.pending()
    timings = live.finish()
    assert timings is not None
    assert not bpy.app.timers.is_registered(live._on_timer)
    assert _bake_id(navjump, scene) != before_id
    assert navjump.storage.load_navmesh(scene).settings["agent_radius"] == pytest.approx(0.25)
    state = mods.overlay.bake_state(scene)
    assert state.version > before_state.version and state.geometry is not None
    assert live.status()["bakes"] >= 1
    assert timings["total_ms"] >= timings["bake_ms"] > 0

    # the bake's own result objects changed: that is not a reason to bake again
    _update(bpy)
    assert not live.pending()


def test_unrelated_changes_do_not_rebake(bpy, mods, small_level):
    scene = small_level
    scene.navjump_overlay.auto_rebake = True
    scene.navjump_overlay.show_drop = False
    scene.frame_current = 7
    bpy.data.objects["Box"].select_set(True)
    _update(bpy)
    assert not mods.live.pending()


def test_geometry_and_role_edits_rebake(bpy, navjump, mods, small_level):
    live = mods.live
    scene = small_level
    scene.navjump_overlay.auto_rebake = True
    floor = bpy.data.objects["Floor"]
    floor.location.z = 0.5
    _update(bpy)
    assert live.pending() and "Floor" in live.status()["reason"]
    live.rebake_pending()
    nm = navjump.storage.load_navmesh(scene)
    assert nm.vertices[:, 2].max() == pytest.approx(0.5, abs=0.2)

    bpy.data.objects["Box"].navjump_role = 'IGNORED'
    _update(bpy)
    assert live.pending() and "role of Box" in live.status()["reason"]
    before = navjump.storage.load_navmesh(scene).surface_area()
    live.rebake_pending()
    assert navjump.storage.load_navmesh(scene).surface_area() > before  # box gone

    _box(bpy, scene, "Crate", 1, 1, 0.5, 2, 2, 1.5)
    _update(bpy)
    assert live.pending() and "added or removed" in live.status()["reason"]


def test_undo_or_load_drops_a_pending_bake(bpy, mods, small_level):
    live = mods.live
    scene = small_level
    scene.navjump_overlay.auto_rebake = True
    scene.navjump.agent_radius = 0.35
    _update(bpy)
    assert live.pending()
    for fn in bpy.app.handlers.undo_post:
        if fn is live._on_restore:
            fn(scene, None)
    assert not live.pending() and not bpy.app.timers.is_registered(live._on_timer)
    # the restored state is adopted: re-evaluating it does not schedule a bake
    _update(bpy)
    assert not live.pending()


def test_switching_auto_off_cancels(bpy, mods, small_level):
    live = mods.live
    scene = small_level
    scene.navjump_overlay.auto_rebake = True
    scene.navjump.agent_max_climb = 0.3
    _update(bpy)
    assert live.pending()
    scene.navjump_overlay.auto_rebake = False
    assert not live.pending()


def test_invalid_settings_are_reported_not_raised(bpy, navjump, mods, small_level):
    live = mods.live
    scene = small_level
    scene.navjump_overlay.auto_rebake = True
    before = _bake_id(navjump, scene)
    scene.navjump.auto_cell_size = False
    scene.navjump.cell_size = 0.001  # far too many cells for the level
    scene.navjump.memory_limit_gb = 0.001
    _update(bpy)
    assert live.pending()
    assert live.rebake_pending() is None
    assert live.status()["error"]
    assert _bake_id(navjump, scene) == before  # the previous result is kept


def test_latency_on_the_demo_level(bpy, navjump, mods, demo_scene):
    """Slider change -> new overlay: debounce + bake + store + overlay rebuild (+ GPU
    upload when the GPU can start). Printed for the report; the aim is < 200 ms.

    Jump links are switched off here: their search dominates a bake of this level and
    is measured by the links' own benchmarks; with them on the latency is the bake time
    plus the same overhead."""
    live = mods.live
    scene = demo_scene
    scene.navjump.links_enabled = False
    assert bpy.ops.navjump.bake() == {'FINISHED'}  # warm: kernels loaded
    scene.navjump_overlay.auto_rebake = True
    scene.navjump_overlay.path_test = False
    runs = []
    for radius in (0.35, 0.4):
        scene.navjump.agent_radius = radius
        t0 = time.perf_counter()
        _update(bpy)
        assert live.pending()
        time.sleep(live.DEBOUNCE_SECONDS)  # what the timer waits
        timings = live.rebake_pending()
        assert timings is not None, live.status()
        upload_ms = 0.0
        try:
            mods.offscreen.ensure_gpu()
            t1 = time.perf_counter()
            visible = {"navmesh", "stance_stand", "stance_crouch", "stance_prone",
                       "links_drop", "links_jump_across", "links_jump_up"}
            mods.overlay.scene_batches(scene, visible)
            upload_ms = (time.perf_counter() - t1) * 1000.0
        except mods.offscreen.GPUUnavailable:
            pass
        total = (time.perf_counter() - t0) * 1000.0
        runs.append((total, timings, upload_ms))
    total, timings, upload_ms = min(runs, key=lambda r: r[0])
    nm = mods.overlay.bake_state(scene).navmesh
    print(f"\nauto re-bake latency on the demo level, links off ({nm.polygon_count} "
          f"polygons): {total:.0f} ms = debounce "
          f"{live.DEBOUNCE_SECONDS * 1000:.0f} + bake {timings['bake_ms']:.0f} + overlay "
          f"{timings['overlay_ms']:.0f} + GPU upload {upload_ms:.0f}")
    assert total < 30_000


def _arrays_equal(navjump, a, b):
    for name in a.array_fields():
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and (x == y).all(), name


def test_a_change_during_a_running_rebake_cancels_it(bpy, navjump, mods, small_level):
    """The bake runs in a worker thread: the handler and the timer return before it is
    done; a newer change cancels it, nothing of it is stored, and the stored result is
    the bake of the newest state."""
    live = mods.live
    scene = small_level
    scene.navjump_overlay.auto_rebake = True
    before_id = _bake_id(navjump, scene)
    cancelled = live.status()["cancelled"]
    gate = live._state.gate = threading.Event()  # holds the worker at its first stage
    try:
        scene.navjump.agent_radius = 0.3
        _update(bpy)
        assert live.pending() and not live.running()  # the handler only scheduled
        assert live.fire_pending()  # what the timer does: gather, start the worker
        assert live.running() and live.finish(wait=False) is None
        assert _bake_id(navjump, scene) == before_id  # not baked in the caller
        scene.navjump.agent_radius = 0.25  # a newer change during the bake
        _update(bpy)
        assert live.pending()
    finally:
        gate.set()
        live._state.gate = None
    assert live.finish() is None  # the running bake was cancelled, not stored
    assert live.status()["cancelled"] == cancelled + 1
    assert _bake_id(navjump, scene) == before_id
    timings = live.rebake_pending()
    assert timings is not None, live.status()
    stored = navjump.storage.load_navmesh(scene)
    assert stored.settings["agent_radius"] == pytest.approx(0.25)
    scene.navjump_overlay.auto_rebake = False
    assert bpy.ops.navjump.bake() == {'FINISHED'}  # the same state, baked by the button
    _arrays_equal(navjump, stored, navjump.storage.load_navmesh(scene))


def test_only_changed_objects_are_gathered_again(bpy, navjump, mods, small_level):
    live = mods.live
    scene = small_level
    _box(bpy, scene, "Crate", 1, 1, 0, 2, 2, 1)
    scene.navjump_overlay.auto_rebake = True  # starts with an empty object cache
    assert live.rebake(scene) is not None
    assert live.status()["last"]["gather"] == {"objects": 3, "reads": 3, "hits": 0}

    floor = bpy.data.objects["Floor"]
    floor.location.z = 0.5  # moved
    _update(bpy)
    timings = live.rebake_pending()
    assert timings["gather"] == {"objects": 3, "reads": 1, "hits": 2}
    nm = navjump.storage.load_navmesh(scene)
    assert nm.vertices[:, 2].max() == pytest.approx(0.5, abs=0.2)  # its new position

    for v in floor.data.vertices:  # edited geometry, same transform
        v.co.z -= 0.5
    floor.data.update()
    _update(bpy)
    assert live.rebake_pending()["gather"] == {"objects": 3, "reads": 1, "hits": 2}
    assert navjump.storage.load_navmesh(scene).vertices[:, 2].max() == pytest.approx(
        0.0, abs=0.2)

    bpy.data.objects.remove(bpy.data.objects["Crate"])  # deleted
    _update(bpy)
    assert live.rebake_pending()["gather"] == {"objects": 2, "reads": 0, "hits": 2}
    _box(bpy, scene, "Crate2", 9, 1, 0, 10, 2, 1)  # added
    _update(bpy)
    assert live.rebake_pending()["gather"] == {"objects": 3, "reads": 1, "hits": 2}
    gathered = navjump.gather.gather_from_context(bpy.context)  # no cache: all read
    stored = navjump.storage.read_report(scene)["gather"]
    assert stored["triangles"] == gathered.triangle_count


def test_a_cached_gather_equals_a_full_gather(bpy, navjump, small_level):
    gather = navjump.gather
    cache = gather.ObjectCache()
    gather.gather_from_context(bpy.context, object_cache=cache)
    assert cache.stats() == {"objects": 2, "reads": 2, "hits": 0}
    bpy.data.objects["Box"].location.x += 1.5
    bpy.data.objects["Floor"].navjump_role = 'OBSTACLE'  # a role is part of the key
    bpy.context.view_layer.update()
    cached = gather.gather_from_context(bpy.context, object_cache=cache)
    assert cache.stats() == {"objects": 2, "reads": 2, "hits": 0}
    bpy.data.objects["Floor"].navjump_role = 'WALKABLE'
    bpy.context.view_layer.update()
    cached = gather.gather_from_context(bpy.context, object_cache=cache)
    assert cache.stats() == {"objects": 2, "reads": 1, "hits": 1}
    full = gather.gather_from_context(bpy.context)
    for name in ("vertices", "triangles", "walkable"):
        assert (getattr(cached, name) == getattr(full, name)).all(), name
    assert cached.object_names == full.object_names
    assert cached.walkable.all()


def test_tiled_auto_rebake_bakes_only_the_tiles_an_edit_touches(bpy, navjump, mods, scene):
    """With tile_size > 0, moving a crate re-gathers that crate only and re-bakes the tiles
    its old and new bounds touch; the stored navmesh equals a bake of every tile."""
    live = mods.live
    _box(bpy, scene, "Floor", 0, 0, -0.2, 40, 8, 0)
    _box(bpy, scene, "Box", 5, 3, 0, 7, 5, 1.5)
    crate = _box(bpy, scene, "Crate", 33, 3, 0, 34, 4, 1.2)
    scene.navjump.links_enabled = False
    scene.navjump.tile_size = 32  # 7 x 2 tiles at the default cell size
    scene.navjump_overlay.auto_rebake = True
    try:
        first = live.rebake(scene)
        n_tiles = first["tiles_rebaked"]  # nothing cached yet: every tile
        assert n_tiles == 14
        storage = navjump.storage
        meshes = {kind: storage.result_object(scene, kind).data.as_pointer()
                  for kind in ("navmesh", "links")}
        n_meshes = len(bpy.data.meshes)
        crate.location.x -= 1.0
        _update(bpy)
        timings = live.rebake_pending()
        assert timings["gather"] == {"objects": 3, "reads": 1, "hits": 2}
        assert timings["gather_patched"]  # only the crate was read, nothing walked
        assert 1 <= timings["tiles_rebaked"] <= 4, timings  # the crate's end of the floor
        # the result meshes were rewritten in place: no datablock added or removed (that
        # would make Blender rebuild the dependency graph of the whole scene)
        assert {kind: storage.result_object(scene, kind).data.as_pointer()
                for kind in ("navmesh", "links")} == meshes
        assert len(bpy.data.meshes) == n_meshes
        stored = navjump.storage.load_navmesh(scene)
        # stored uncompressed by Auto re-bake; compressed (the same NavMesh) when saved
        mesh = storage.result_object(scene, "navmesh").data
        assert mesh["navjump_npz_compressed"] == 0
        assert storage.compress_stored(scene) and mesh["navjump_npz_compressed"] == 1
        assert navjump.storage.load_navmesh(scene).equals(stored)
        settings = navjump.props.to_bake_settings(scene.navjump)
        g = navjump.gather.gather_from_context(bpy.context)
        from importlib import import_module

        core = import_module(f"{navjump.module}.core")
        full = core.bake(g.vertices, g.triangles, settings, walkable=g.walkable)
        assert stored.tiled and stored.equals(full)
        # an edit far from the crate re-bakes other tiles
        bpy.data.objects["Box"].location.x += 0.5
        _update(bpy)
        assert live.rebake_pending()["tiles_rebaked"] <= 4
        g = navjump.gather.gather_from_context(bpy.context)
        full = core.bake(g.vertices, g.triangles, settings, walkable=g.walkable)
        assert navjump.storage.load_navmesh(scene).equals(full)
    finally:
        live.cancel()


def test_a_patched_rebake_keeps_links_and_follows_a_moved_link(bpy, navjump, mods, scene):
    """With a hand-placed link in the scene, moving a box re-reads the box only and takes
    the link again without reading every object's navigation settings; moving the link
    itself reads it again: the stored link follows."""
    live = mods.live
    _box(bpy, scene, "Floor", 0, 0, -0.2, 20, 8, 0)
    box = _box(bpy, scene, "Box", 5, 3, 0, 7, 5, 1.5)
    mesh = bpy.data.meshes.new("Door")
    mesh.from_pydata([(2.0, 1.0, 0.0), (12.0, 1.0, 0.0)], [(0, 1)], [])
    door = bpy.data.objects.new("Door", mesh)
    scene.collection.objects.link(door)
    door.navjump_nav.is_link = True
    scene.navjump.links_enabled = False
    scene.navjump_overlay.auto_rebake = True
    try:
        assert live.rebake(scene) is not None
        box.location.x += 0.5
        _update(bpy)
        timings = live.rebake_pending()
        assert timings["gather_patched"] and timings["gather"]["reads"] == 1
        nm = navjump.storage.load_navmesh(scene)
        assert nm.link_count == 1
        np.testing.assert_allclose(nm.link_end[0].mean(axis=0)[:2], [12.0, 1.0], atol=0.05)
        door.location.y += 2.0
        _update(bpy)
        assert live.rebake_pending()["gather_patched"]
        nm = navjump.storage.load_navmesh(scene)
        np.testing.assert_allclose(nm.link_end[0].mean(axis=0)[:2], [12.0, 3.0], atol=0.05)
        # the same as a bake from scratch
        assert bpy.ops.navjump.bake() == {'FINISHED'}
        assert navjump.storage.load_navmesh(scene).equals(nm)
    finally:
        live.cancel()
