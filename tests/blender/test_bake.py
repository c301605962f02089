"""Baking through ``bpy.ops.navjump.bake`` and the results stored in the .blend."""

import io
import zipfile

import numpy as np
import pytest


def _bake(bpy):
    assert bpy.ops.navjump.bake() == {'FINISHED'}


def _navjump_ids(bpy):
    """Names of every datablock a bake creates, to spot leftovers and orphans."""
    return {
        "objects": sorted(o.name for o in bpy.data.objects if o.get("navjump_kind")),
        "meshes": sorted(m.name for m in bpy.data.meshes if m.name.startswith("NavJump")),
        "texts": sorted(t.name for t in bpy.data.texts if t.name.startswith("NavJump")),
        "collections": sorted(c.name for c in bpy.data.collections
                              if c.get("navjump_kind")),
    }


def _bake_id(navjump, scene):
    obj = navjump.storage.result_object(scene, navjump.storage.KIND_NAVMESH)
    return None if obj is None else obj.data["navjump_bake_id"]


def test_operator_bake_matches_core_bake_on_the_same_triangles(bpy, navjump, demo_scene):
    _bake(bpy)
    stored = navjump.storage.load_navmesh(demo_scene)
    assert stored is not None

    gathered = navjump.gather.gather_from_context(bpy.context)
    settings = navjump.props.to_bake_settings(demo_scene.navjump)
    direct = navjump.pipeline.bake(gathered.vertices, gathered.triangles, settings,
                                   walkable=gathered.walkable)
    climb_items = navjump.sub("blender.climb_items")
    direct, climb_warnings = climb_items.add_gathered_climbing(direct, gathered, settings)
    assert climb_warnings == []
    assert stored.equals(direct)
    # the climbing wall: a ladder, a pipe and two ledges, joined to the navmesh; besides
    # them, ledges found on wall tops of the right height (auto_ledges), named after walls
    names = [str(n) for n in stored.climb_element_name]
    authored = [n for n in names if " auto-ledge " not in n]
    assert sorted(authored) == ["Drain-pipe", "Hand-hold ledge", "Tower ladder",
                                "Wall top ledge"]
    found = stored.stats["climb_found_ledges"]
    assert found > 0 and len(names) == 4 + found
    assert stored.climb_link_kind.shape[0] > 0
    assert stored.settings == settings.to_dict()
    np.testing.assert_array_equal(stored.polygon_stance, direct.polygon_stance)
    np.testing.assert_array_equal(stored.link_kind, direct.link_kind)

    # The demo level exercises every stance and every kind of link.
    summary = navjump.storage.summarize(stored)
    assert all(n > 0 for n in summary["polygons_by_stance"].values()), summary
    # (every generated kind: the demo level has no hand-placed link)
    assert all(summary["links_by_kind"][k] > 0
               for k in ("drop", "jump_across", "jump_up")), summary
    report = navjump.storage.read_report(demo_scene)
    assert report["gather"]["obstacle_triangles"] == 12  # the crate
    assert "Lamp post (ignored)" not in gathered.object_names


def test_result_meshes_carry_the_navmesh(bpy, navjump, demo_scene):
    _bake(bpy)
    nm = navjump.storage.load_navmesh(demo_scene)
    coll = navjump.storage.result_collection(demo_scene)
    assert coll.name == "NavJump" and coll.hide_render
    navmesh_obj = navjump.storage.result_object(demo_scene, "navmesh")
    links_obj = navjump.storage.result_object(demo_scene, "links")
    assert navmesh_obj.hide_select and links_obj.hide_select

    mesh = navmesh_obj.data
    assert len(mesh.polygons) == nm.polygon_count
    for name, expected in (("stance", nm.polygon_stance), ("area", nm.polygon_area),
                           ("region", nm.polygon_region)):
        values = np.empty(len(mesh.polygons), np.int32)
        mesh.attributes[name].data.foreach_get("value", values)
        np.testing.assert_array_equal(values, expected)
    loops = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("vertex_index", loops)
    np.testing.assert_array_equal(loops, nm.polygons[nm.polygons >= 0])
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    np.testing.assert_allclose(co.reshape(-1, 3), nm.vertices, atol=1e-4)

    links = links_obj.data
    assert len(links.edges) == nm.link_count
    kinds = np.empty(len(links.edges), np.int32)
    links.attributes["kind"].data.foreach_get("value", kinds)
    np.testing.assert_array_equal(kinds, nm.link_kind)
    co = np.empty(len(links.vertices) * 3, np.float32)
    links.vertices.foreach_get("co", co)
    np.testing.assert_allclose(co.reshape(-1, 3)[0::2], nm.link_start.mean(axis=1), atol=1e-4)
    assert set(links.attributes.keys()) >= {"kind", "bidirectional", "width", "cost"}


def test_rebake_replaces_the_result_without_orphans(bpy, navjump, demo_scene):
    user_objects = sorted(o.name for o in bpy.data.objects if not o.get("navjump_kind"))
    _bake(bpy)
    first = _navjump_ids(bpy)
    first_id = _bake_id(navjump, demo_scene)
    _bake(bpy)
    assert _navjump_ids(bpy) == first == {
        "objects": ["NavJump Links", "NavJump Navmesh"],
        "meshes": ["NavJump Links", "NavJump Navmesh"],
        "texts": ["NavJump Report"],
        "collections": ["NavJump"]}
    assert _bake_id(navjump, demo_scene) != first_id
    assert all(m.users > 0 for m in bpy.data.meshes)
    # The bake never touches the user's objects.
    assert sorted(o.name for o in bpy.data.objects if not o.get("navjump_kind")) \
        == user_objects


def _blob_compression(navjump, scene) -> set[int]:
    """The zip compression types of the stored navmesh blob's members."""
    mesh = navjump.storage.result_object(scene, "navmesh").data
    data = navjump.package.blender.summary.words_to_bytes(mesh["navjump_npz"],
                                                         mesh["navjump_npz_size"])
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {info.compress_type for info in zf.infolist()}


def test_save_reopen_and_load(bpy, navjump, demo_scene, tmp_path):
    _bake(bpy)
    before = navjump.storage.load_navmesh(demo_scene)
    bake_id = _bake_id(navjump, demo_scene)
    # stored compressed (see storage.STORE_COMPRESSED); saving keeps the same NavMesh
    assert _blob_compression(navjump, demo_scene) == {zipfile.ZIP_DEFLATED}
    path = tmp_path / "baked.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)
    assert _blob_compression(navjump, demo_scene) == {zipfile.ZIP_DEFLATED}
    assert _bake_id(navjump, demo_scene) == bake_id
    assert navjump.storage.load_navmesh(demo_scene).equals(before)
    bpy.ops.wm.read_homefile(use_empty=True)
    assert navjump.storage.load_navmesh(bpy.context.scene) is None
    bpy.ops.wm.open_mainfile(filepath=str(path))
    after = navjump.storage.load_navmesh(bpy.context.scene)
    assert after is not None and after.equals(before)
    assert after.stats == before.stats
    assert _blob_compression(navjump, bpy.context.scene) == {zipfile.ZIP_DEFLATED}
    assert _bake_id(navjump, bpy.context.scene) == bake_id
    report = navjump.storage.read_report(bpy.context.scene)
    assert report["summary"]["polygons"] == before.polygon_count


def test_undo_restores_the_previous_state(bpy, navjump, demo_scene):
    # Operators called from a background script push no undo step of their own (the UI
    # does that for 'UNDO' operators), so the steps are pushed here as the UI would.
    bpy.ops.ed.undo_push(message="before bakes")
    _bake(bpy)
    bpy.ops.ed.undo_push(message="bake 1")
    first_id = _bake_id(navjump, demo_scene)
    first = navjump.storage.load_navmesh(demo_scene)
    bpy.context.scene.navjump.agent_radius = 0.6
    _bake(bpy)
    bpy.ops.ed.undo_push(message="bake 2")
    assert _bake_id(navjump, bpy.context.scene) != first_id

    assert bpy.ops.ed.undo() == {'FINISHED'}  # back to the first bake
    scene = bpy.context.scene
    assert _bake_id(navjump, scene) == first_id
    assert navjump.storage.load_navmesh(scene).equals(first)
    assert scene.navjump.agent_radius != pytest.approx(0.6)
    assert bpy.ops.ed.undo() == {'FINISHED'}  # before any bake
    scene = bpy.context.scene
    assert navjump.storage.result_collection(scene) is None
    assert navjump.storage.load_navmesh(scene) is None
    assert _navjump_ids(bpy)["meshes"] == []
    assert bpy.ops.ed.redo() == {'FINISHED'}
    assert _bake_id(navjump, bpy.context.scene) == first_id


def test_bad_settings_report_the_setting_and_change_nothing(bpy, navjump, demo_scene):
    before = _navjump_ids(bpy)
    n_objects, n_meshes = len(bpy.data.objects), len(bpy.data.meshes)
    demo_scene.navjump.crouch_height = 2.5  # above standing height
    with pytest.raises(RuntimeError, match=r"crouch_height"):
        bpy.ops.navjump.bake()
    assert navjump.storage.result_collection(demo_scene) is None
    assert _navjump_ids(bpy) == before
    assert (len(bpy.data.objects), len(bpy.data.meshes)) == (n_objects, n_meshes)

    # With a previous result: it stays exactly as it was.
    demo_scene.navjump.crouch_height = 1.2
    _bake(bpy)
    kept_id = _bake_id(navjump, demo_scene)
    ids = _navjump_ids(bpy)
    # An error found inside the core (grid too big for the memory limit).
    demo_scene.navjump.memory_limit_gb = 1e-6
    with pytest.raises(RuntimeError, match=r"cell_size"):
        bpy.ops.navjump.bake()
    assert _bake_id(navjump, demo_scene) == kept_id
    assert _navjump_ids(bpy) == ids


def test_nothing_to_bake_is_an_error(bpy, navjump, scene):
    with pytest.raises(RuntimeError, match="Nothing to bake"):
        bpy.ops.navjump.bake()
    assert navjump.storage.result_collection(scene) is None


def test_invoke_runs_synchronously_in_background_mode(bpy, navjump, demo_scene):
    assert bpy.app.background
    assert bpy.ops.navjump.bake('INVOKE_DEFAULT') == {'FINISHED'}
    assert navjump.storage.has_result(demo_scene)


def test_clear_removes_everything(bpy, navjump, demo_scene):
    assert not bpy.ops.navjump.clear.poll()
    _bake(bpy)
    assert bpy.ops.navjump.clear() == {'FINISHED'}
    assert _navjump_ids(bpy) == {"objects": [], "meshes": [], "texts": [], "collections": []}
    assert navjump.storage.load_navmesh(demo_scene) is None
    assert not bpy.ops.navjump.clear.poll()


def test_failed_store_keeps_the_previous_result(bpy, navjump, demo_scene):
    _bake(bpy)
    kept_id = _bake_id(navjump, demo_scene)
    ids = _navjump_ids(bpy)
    broken = navjump.storage.load_navmesh(demo_scene)
    broken.polygon_stance = broken.polygon_stance[:-1]  # one value short
    with pytest.raises((RuntimeError, ValueError, TypeError)):
        navjump.storage.write_result(demo_scene, broken)
    assert _bake_id(navjump, demo_scene) == kept_id
    assert _navjump_ids(bpy) == ids


def test_background_thread_job_and_cancel(bpy, navjump, demo_scene):
    gathered = navjump.gather.gather_from_context(bpy.context)
    settings = navjump.props.to_bake_settings(demo_scene.navjump)
    job_cls = navjump.ops_bake.BakeJob

    job = job_cls(navjump.pipeline, gathered, settings)
    job.start()
    assert job.wait(timeout=300)
    assert job.error is None and not job.cancelled
    sync = navjump.pipeline.bake(gathered.vertices, gathered.triangles, settings,
                                 walkable=gathered.walkable)
    climb_items = navjump.sub("blender.climb_items")
    sync, _warnings = climb_items.add_gathered_climbing(sync, gathered, settings)
    assert job.result.equals(sync)
    assert job.result.climb_element_count == 4 + job.result.stats["climb_found_ledges"]

    stages = []

    def cancel_after_compact(stage, _fraction):
        stages.append(stage)
        if stage == "compact":
            job.cancel()

    job = job_cls(navjump.pipeline, gathered, settings, on_progress=cancel_after_compact)
    job.start()
    assert job.wait(timeout=300)
    assert job.cancelled and job.result is None and job.error is None
    assert stages[-1] == "compact"
    assert job.stage != "compact"  # stopped when the next stage began


def test_storing_the_same_result_again_leaves_the_result_meshes_alone(bpy, navjump,
                                                                      demo_scene):
    """Rewriting a result mesh makes Blender evaluate the scene again (tens of ms on a big
    level), so a store whose navmesh or links are those the meshes already show leaves them
    as they are; a mesh edited by hand since is written again."""
    storage = navjump.storage
    _bake(bpy)
    nm = storage.load_navmesh(demo_scene)
    meshes = [storage.result_object(demo_scene, kind).data
              for kind in (storage.KIND_NAVMESH, storage.KIND_LINKS)]
    for mesh in meshes:  # a probe layer: rewriting the geometry drops it
        mesh.attributes.new("probe", 'INT', 'POINT')
    storage.write_result(demo_scene, nm, {}, [])
    assert all("probe" in mesh.attributes for mesh in meshes)
    assert storage.load_navmesh(demo_scene).equals(nm)
    navmesh_mesh, links_mesh = meshes
    navmesh_mesh.vertices[0].co.x += 1.0  # edited by hand
    storage.write_result(demo_scene, nm, {}, [])
    assert "probe" not in navmesh_mesh.attributes and "probe" in links_mesh.attributes
    co = np.empty(len(navmesh_mesh.vertices) * 3, np.float32)
    navmesh_mesh.vertices.foreach_get("co", co)
    assert np.allclose(co.reshape(-1, 3), nm.vertices, atol=1e-5)
    # another navmesh (its first link dropped) rewrites the links mesh
    fewer = storage.load_navmesh(demo_scene)
    assert fewer.link_count > 1
    for name in [f for f in fewer.array_fields() if f.startswith("link_")]:
        setattr(fewer, name, getattr(fewer, name)[1:])
    storage.write_result(demo_scene, fewer, {}, [])
    assert "probe" not in links_mesh.attributes
    assert len(links_mesh.edges) == fewer.link_count
    assert storage.load_navmesh(demo_scene).equals(fewer)
