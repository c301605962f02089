"""Bake bounds in real Blender: only what lies inside the bounds object is baked."""

import math

import numpy as np
import pytest

pytest.importorskip("bpy", reason="Blender's bpy module is not installed")


def add_floor(bpy, size=20.0):
    h = size / 2
    mesh = bpy.data.meshes.new("Floor")
    mesh.from_pydata([(-h, -h, 0), (h, -h, 0), (h, h, 0), (-h, h, 0)], [], [(0, 1, 2, 3)])
    mesh.update()
    obj = bpy.data.objects.new("Floor", mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def no_erosion(pg):
    # radius 0: polygons reach right to the cut; small cells to see it
    pg.agent_radius = 0.0
    pg.auto_cell_size = False
    pg.cell_size = 0.1
    pg.cell_height = 0.05
    pg.links_enabled = False


def local_points(obj, points, box_fn):
    box = box_fn(obj)
    inv = np.linalg.inv(box)
    return np.asarray(points) @ inv[:3, :3].T + inv[:3, 3]


def test_only_the_inside_of_a_rotated_empty_is_baked(bpy, navjump, scene):
    add_floor(bpy)
    bounds = bpy.data.objects.new("Bounds", None)
    bounds.empty_display_type = 'CUBE'
    bounds.location = (3.0, 2.0, 0.0)
    bounds.rotation_euler = (0.0, 0.0, math.radians(30))
    bounds.scale = (4.0, 3.0, 2.0)
    scene.collection.objects.link(bounds)
    pg = scene.navjump
    no_erosion(pg)
    pg.bounds_object = bounds
    assert bpy.ops.navjump.bake() == {'FINISHED'}
    nm = navjump.storage.load_navmesh(scene)
    assert nm.polygon_count > 0
    p = local_points(bounds, nm.vertices, navjump.gather.bounds_box)
    cell = 0.1 / 3.0  # a cell in the box's frame (its smallest half-size is 3 m)
    # no polygon outside: every vertex inside the box, up to a voxel
    assert np.abs(p[:, :2]).max() <= 1 + 1.5 * cell
    # the floor crossing the box was clipped, not dropped: polygons reach its four sides
    for axis in (0, 1):
        assert p[:, axis].max() >= 1 - 3 * cell and p[:, axis].min() <= -1 + 3 * cell
    # the area is the box's footprint (8 x 6 m)
    assert nm.stats["walkable_area_m2"] == pytest.approx(48.0, rel=0.03)
    report = navjump.storage.read_report(scene)
    assert report["gather"]["objects"] == 1  # the floor; the empty is no geometry


def test_a_mesh_bounds_object_is_not_baked_itself(bpy, navjump, scene):
    add_floor(bpy)
    mesh = bpy.data.meshes.new("Box")
    mesh.from_pydata([(x, y, z) for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)], [],
                     [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4),
                      (1, 5, 7, 3)])
    box = bpy.data.objects.new("Bounds Box", mesh)
    box.location = (-4.0, -4.0, 0.5)
    box.scale = (3.0, 3.0, 1.0)
    scene.collection.objects.link(box)
    pg = scene.navjump
    no_erosion(pg)
    pg.bounds_object = box
    assert bpy.ops.navjump.bake() == {'FINISHED'}
    nm = navjump.storage.load_navmesh(scene)
    # only the floor (z 0) inside x, y in -7..-1; the box's own top (z 1.5) is not walked
    assert np.abs(nm.vertices[:, 2]).max() < 0.1
    assert nm.vertices[:, 0].min() >= -7.05 and nm.vertices[:, 0].max() <= -0.95
    # the floor inside (6 x 6 m, less the half cell Recast loses along a border); the box's
    # top would add 36 m2 more
    assert nm.stats["walkable_area_m2"] == pytest.approx(36.0, rel=0.05)
    # the cut through the floor's diagonal leaves no zero-area sliver to warn about
    assert not any("zero-area" in w for w in navjump.storage.read_report(scene)["warnings"])


def test_a_bounds_object_with_no_volume_is_refused_and_the_result_kept(bpy, navjump, scene):
    add_floor(bpy)
    pg = scene.navjump
    no_erosion(pg)
    assert bpy.ops.navjump.bake() == {'FINISHED'}
    before = navjump.storage.load_navmesh(scene)
    flat = bpy.data.objects.new("Flat Bounds", None)
    flat.scale = (5.0, 5.0, 0.0)
    scene.collection.objects.link(flat)
    pg.bounds_object = flat
    with pytest.raises(RuntimeError, match=r"Bake bounds 'Flat Bounds' has no volume "
                                           r"\(box 10 x 10 x 0 m"):
        bpy.ops.navjump.bake()
    assert navjump.storage.load_navmesh(scene).equals(before)
    # only meshes and empties can be chosen
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    assert not navjump.props._bounds_poll(pg, cam)
    assert navjump.props._bounds_poll(pg, flat)
