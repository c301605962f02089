"""Path-test gizmo group: registration, snapping and the property -> query path.

Dragging needs a window; the gizmos write the end points through ``gizmo.set_end`` and
the properties' update callback recomputes the path, so both are exercised directly.
"""


import navmesh_builders
import numpy as np
import pytest

pytest.importorskip("bpy", reason="Blender's bpy module is not installed")


def _level(build):
    """Stand | crouch | prone squares in a row (y 0..4), and a stand square across a 3 m
    gap (y 7..11) reached by a two-way jump across at x 1..3; a lone island at x 20."""
    verts, polys = [], []

    def quad(x0, y0, x1, y1, z=0.0):
        ids = []
        for corner in ((x0, y0, z), (x1, y0, z), (x1, y1, z), (x0, y1, z)):
            if corner not in verts:  # shared corners make polygons neighbours
                verts.append(corner)
            ids.append(verts.index(corner))
        polys.append(ids)

    for i in range(3):
        quad(4 * i, 0, 4 * i + 4, 4)
    quad(0, 7, 4, 11)
    quad(20, 0, 24, 4)
    nm = build.navmesh_from_polygons(verts, polys,
                                     stances=["stand", "crouch", "prone", "stand", "stand"])
    return build.with_links(nm, ["jump_across"], [[[1, 4, 0], [3, 4, 0]]],
                            [[[1, 7, 0], [3, 7, 0]]], bidirectional=True, costs=[4.5])


@pytest.fixture(scope="module")
def mods(navjump):
    class M:
        gizmo = navjump.sub("blender.gizmo")
        overlay = navjump.sub("blender.overlay")
        build = navmesh_builders.for_package(navjump.module)
    return M


@pytest.fixture
def tested(scene, navjump, mods):
    navjump.storage.write_result(scene, _level(mods.build))
    scene.navjump_overlay.path_test = True
    return scene


def test_gizmo_group_is_registered_and_polls_on_the_path_test(bpy, mods, scene):
    group = mods.gizmo.NAVJUMP_GGT_path_test
    assert "bl_rna" in group.__dict__  # set by register_class
    assert group.bl_space_type == 'VIEW_3D' and 'PERSISTENT' in group.bl_options
    pg = scene.navjump_overlay
    pg.path_test = False
    assert not group.poll(bpy.context)
    pg.path_test = True
    assert group.poll(bpy.context)
    pg.show_overlay = False
    assert not group.poll(bpy.context)


def test_dragged_points_snap_onto_the_navmesh_and_drive_the_query(mods, tested):
    gz, ov = mods.gizmo, mods.overlay
    pg = tested.navjump_overlay
    assert gz.set_end(tested, "path_start", (2.0, 2.0, 1.5))  # above polygon 0
    assert tuple(pg.path_start) == pytest.approx((2.0, 2.0, 0.0))
    assert gz.set_end(tested, "path_goal", (2.5, 12.0, 0.3))  # past the far edge
    assert tuple(pg.path_goal) == pytest.approx((2.5, 11.0, 0.0))
    assert gz.get_end(tested, "path_goal") == pytest.approx((2.5, 11.0, 0.0))
    path = ov.path_state(tested)
    assert path.result is not None and path.result.found, path.message
    assert path.counts["jumps"] == 1 and path.counts["drops"] == 0
    straight = np.hypot(0.5, 9.0)
    assert straight - 1e-9 <= path.result.length < straight + 0.05
    # the query runs between the two dragged ends (not a stale or default pair)
    assert path.result.points[0] == pytest.approx((2.0, 2.0, 0.0), abs=1e-6)
    assert path.result.points[-1] == pytest.approx((2.5, 11.0, 0.0), abs=1e-6)
    # the path test follows every move (no explicit refresh)
    gz.set_end(tested, "path_goal", (10.0, 2.0, 0.0))
    moved = ov.path_state(tested)
    assert moved is not path and moved.result.found
    assert moved.counts == {"jumps": 0, "drops": 0, "stance_changes": 2}
    assert moved.result.length == pytest.approx(8.0, abs=1e-6)


def test_updates_recompute_eagerly_and_cache_between_reads(mods, tested):
    ov = mods.overlay
    pg = tested.navjump_overlay
    pg.path_start = (2.0, 2.0, 0.0)
    first = ov._caches.path[ov._scene_uid(tested)]  # computed by the update callback
    pg.path_goal = (6.0, 2.0, 0.0)
    second = ov._caches.path[ov._scene_uid(tested)]
    assert second is not first and second.result.found
    assert ov.path_state(tested) is second  # nothing changed: no new query


def test_off_mesh_end_is_explained(mods, tested):
    gz, ov = mods.gizmo, mods.overlay
    pg = tested.navjump_overlay
    gz.set_end(tested, "path_start", (2.0, 2.0, 0.0))
    assert not gz.set_end(tested, "path_goal", (60.0, 60.0, 0.0))
    assert tuple(pg.path_goal) == pytest.approx((60.0, 60.0, 0.0))  # kept as dragged
    path = ov.path_state(tested)
    assert path.result is None
    assert "goal" in path.message.lower() and "off the navmesh" in path.message
    # the drawn layer still marks both ends
    assert path.layer is not None and path.layer.lines[1].count > 0


def test_test_agent_capabilities_filter_the_path(mods, tested):
    ov = mods.overlay
    pg = tested.navjump_overlay
    pg.path_start = (2.0, 2.0, 0.0)
    pg.path_goal = (2.0, 9.0, 0.0)
    assert ov.path_state(tested).result.found
    pg.test_jump_across = False
    path = ov.path_state(tested)
    assert not path.result.found and "cannot be reached" in path.message
    pg.test_jump_across = True
    pg.path_goal = (10.0, 2.0, 0.0)
    assert ov.path_state(tested).result.found
    pg.test_prone = False  # the goal polygon is prone: the goal moves to the crouch one
    path = ov.path_state(tested)
    assert path.result.found and path.result.points[-1][0] == pytest.approx(8.0)
    assert "goal was moved 2.00 m" in path.message
    pg.path_goal = (11.5, 2.0, 0.0)  # 3.5 m from the crouch polygon: outside the box
    path = ov.path_state(tested)
    assert path.result is None and "off the navmesh" in path.message
    for name in ("stand", "crouch", "prone"):
        setattr(pg, f"test_{name}", False)
    assert "at least one stance" in ov.path_state(tested).message


def test_island_goal_gives_a_partial_path_with_reason(mods, tested):
    pg = tested.navjump_overlay
    pg.path_start = (2.0, 2.0, 0.0)
    pg.path_goal = (22.0, 2.0, 0.0)
    path = mods.overlay.path_state(tested)
    assert path.result is not None and not path.result.found
    assert path.result.status == "partial" and "nearest the goal" in path.message


def test_place_operator_puts_both_points_on_one_island(bpy, mods, tested):
    assert bpy.ops.navjump.path_test_place() == {'FINISHED'}
    pg = tested.navjump_overlay
    start, goal = np.array(pg.path_start), np.array(pg.path_goal)
    assert np.linalg.norm(start - goal) > 4.0
    path = mods.overlay.path_state(tested)
    assert path.result.found, path.message


def test_place_operator_needs_a_bake(bpy, scene):
    assert not bpy.ops.navjump.path_test_place.poll()


def test_points_are_saved_with_the_file(bpy, mods, tested, tmp_path):
    pg = tested.navjump_overlay
    pg.path_start = (1.0, 1.0, 0.0)
    pg.path_goal = (3.0, 9.0, 0.0)
    pg.test_crouch = False
    target = tmp_path / "points.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(target))
    bpy.ops.wm.open_mainfile(filepath=str(target))
    pg = bpy.context.scene.navjump_overlay
    assert tuple(pg.path_goal) == pytest.approx((3.0, 9.0, 0.0))
    assert pg.path_test and not pg.test_crouch
    path = mods.overlay.path_state(bpy.context.scene)  # rebuilt after the reload
    assert path.result.found and path.counts["jumps"] == 1
