"""Scene gathering against an independent per-object reference (bmesh + mathutils).

The reference reads each object's evaluated mesh (``to_mesh``), triangulates it with
bmesh and transforms every vertex with mathutils matrices, one at a time. Triangulations
differ between the two paths, so they are compared on quantities every triangulation of
the same surface shares: the set of vertex positions, the area, the area centroid and the
signed volume (whose sign also checks the winding).
"""

import math

import numpy as np
import pytest


def _box_mesh(bpy, name, lo=(0, 0, 0), hi=(1, 1, 1)):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    verts = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
             (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return mesh


def _add(bpy, name, data, collection=None, **attrs):
    obj = bpy.data.objects.new(name, data)
    (collection or bpy.context.scene.collection).objects.link(obj)
    for key, value in attrs.items():
        setattr(obj, key, value)
    return obj


def _reference_triangles(bpy, obj, matrix):
    """World triangles (T, 3, 3) of an object's evaluated mesh, without numpy transforms."""
    import bmesh

    depsgraph = bpy.context.evaluated_depsgraph_get()
    obj_eval = obj.evaluated_get(depsgraph)
    mesh = obj_eval.to_mesh()
    bm = bmesh.new()
    try:
        bm.from_mesh(mesh)
        bmesh.ops.triangulate(bm, faces=bm.faces[:])
        tris = [[tuple(matrix @ v.co) for v in face.verts] for face in bm.faces]
    finally:
        bm.free()
        obj_eval.to_mesh_clear()
    if matrix.determinant() < 0:  # a mirror turns faces inside out unless reversed
        tris = [[t[0], t[2], t[1]] for t in tris]
    return np.array(tris, dtype=np.float64).reshape(-1, 3, 3)


def _invariants(tris):
    """Quantities every triangulation of the same surface shares."""
    cross = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    areas = 0.5 * np.linalg.norm(cross, axis=1)
    centroid = (areas[:, None] * tris.mean(axis=1)).sum(axis=0) / areas.sum()
    signed_volume = np.einsum("ij,ij->i", tris[:, 0], np.cross(tris[:, 1], tris[:, 2])).sum() / 6
    verts = np.unique(np.round(tris.reshape(-1, 3), 6), axis=0)
    return areas.sum(), centroid, signed_volume, verts


def _gathered_tris(result, name):
    sl = result.object_slices()[name]
    return result.vertices[result.triangles[sl]]


def _assert_same_surface(got, want):
    g_area, g_centroid, g_volume, g_verts = _invariants(got)
    w_area, w_centroid, w_volume, w_verts = _invariants(want)
    assert g_area == pytest.approx(w_area, rel=1e-5)
    np.testing.assert_allclose(g_centroid, w_centroid, atol=1e-4)
    assert g_volume == pytest.approx(w_volume, rel=1e-4, abs=1e-6)
    # Same vertex positions both ways (mathutils works in float32: allow 1e-4).
    dist = np.linalg.norm(g_verts[:, None, :] - w_verts[None, :, :], axis=2)
    assert dist.min(axis=1).max() < 1e-4 and dist.min(axis=0).max() < 1e-4


@pytest.fixture
def tricky_scene(bpy, scene):
    """Modifiers, a collection instance, a mirror, a parent chain, a curve and a text."""
    from mathutils import Matrix

    objs = {}
    # Array (3 copies along x) + Mirror (across the object's y axis).
    arrayed = _add(bpy, "Arrayed", _box_mesh(bpy, "Arrayed", (0, 1, 0), (1, 2, 0.5)),
                   location=(0, 10, 0))
    array = arrayed.modifiers.new("Array", 'ARRAY')
    array.count = 3
    array.relative_offset_displace = (1.5, 0, 0)
    mirror = arrayed.modifiers.new("Mirror", 'MIRROR')
    mirror.use_axis = (False, True, False)
    objs["Arrayed"] = (arrayed, arrayed.matrix_world)

    # A collection instance: the source collection is not linked to the scene.
    source = bpy.data.collections.new("Source")
    source.instance_offset = (0.5, 0.0, 0.0)
    crate = _add(bpy, "Crate", _box_mesh(bpy, "Crate"), collection=source,
                 location=(0, 0, 1), rotation_euler=(0, 0, 0.3))
    empty = _add(bpy, "Instancer", None, location=(20, 0, 0), rotation_euler=(0, 0, 1.0),
                 scale=(2, 2, 2))
    empty.instance_type = 'COLLECTION'
    empty.instance_collection = source

    # Negative scale: a mirrored box must keep outward-facing triangles.
    mirrored = _add(bpy, "Mirrored", _box_mesh(bpy, "Mirrored", (0, 0, 0), (2, 1, 1)),
                    location=(-10, 0, 0), scale=(-1, 1, 1))

    # Parent chain: a rotated, scaled empty with a child box.
    parent = _add(bpy, "Parent", None, location=(0, -10, 1), rotation_euler=(0.2, 0, 0.7),
                  scale=(1.5, 1.5, 1.5))
    child = _add(bpy, "Child", _box_mesh(bpy, "Child"), location=(2, 0, 0))
    child.parent = parent

    # A closed 2D curve, filled and extruded, and an extruded text.
    curve = bpy.data.curves.new("Curve", 'CURVE')
    curve.dimensions = '2D'
    curve.fill_mode = 'BOTH'
    curve.extrude = 0.25
    spline = curve.splines.new('POLY')
    square = [(0, 0), (3, 0), (3, 2), (0, 2)]
    spline.points.add(len(square) - 1)
    for point, (x, y) in zip(spline.points, square, strict=True):
        point.co = (x, y, 0, 1)
    spline.use_cyclic_u = True
    curve_obj = _add(bpy, "Curve", curve, location=(10, -10, 0))
    text = bpy.data.curves.new("Text", 'FONT')
    text.body = "NJ"
    text.extrude = 0.1
    text_obj = _add(bpy, "Text", text, location=(-10, -10, 0))

    bpy.context.view_layer.update()
    instance_matrix = (empty.matrix_world @ Matrix.Translation(-source.instance_offset)
                       @ crate.matrix_world)
    objs.update({
        "Instancer/Crate": (crate, instance_matrix),
        "Mirrored": (mirrored, mirrored.matrix_world),
        "Child": (child, child.matrix_world),
        "Curve": (curve_obj, curve_obj.matrix_world),
        "Text": (text_obj, text_obj.matrix_world),
    })
    return objs


def _gather(bpy, navjump, collection=None):
    return navjump.gather.gather(bpy.context.evaluated_depsgraph_get(),
                                 bpy.context.view_layer, collection)


def test_gather_matches_independent_reference(bpy, navjump, tricky_scene):
    result = _gather(bpy, navjump)
    assert sorted(result.object_names) == sorted(tricky_scene)
    assert result.vertices.dtype == np.float64 and result.triangles.dtype == np.int32
    assert result.walkable.all()
    for name, (obj, matrix) in tricky_scene.items():
        _assert_same_surface(_gathered_tris(result, name),
                             _reference_triangles(bpy, obj, matrix))


def test_modifiers_instances_and_parents_are_applied(bpy, navjump, tricky_scene):
    result = _gather(bpy, navjump)
    # Array x3 and Mirror x2 of a 12-triangle box.
    assert result.object_slices()["Arrayed"].stop - result.object_slices()["Arrayed"].start \
        == 12 * 3 * 2
    arrayed = _gathered_tris(result, "Arrayed").reshape(-1, 3)
    assert arrayed[:, 0].max() == pytest.approx(1.5 * 2 + 1)
    assert arrayed[:, 1].min() == pytest.approx(10 - 2) and arrayed[:, 1].max() == \
        pytest.approx(10 + 2)
    # The instance: a unit cube scaled by 2 about the instancer.
    crate = _gathered_tris(result, "Instancer/Crate").reshape(-1, 3)
    extent = crate.max(axis=0) - crate.min(axis=0)
    assert extent[2] == pytest.approx(2.0)
    assert np.linalg.norm(crate.mean(axis=0)[:2] - [20, 0]) < 4
    # The child inherits the parent's scale.
    child = _gathered_tris(result, "Child").reshape(-1, 3)
    assert (child.max(axis=0) - child.min(axis=0)).max() > 1.5


def test_negative_scale_keeps_triangles_facing_out(bpy, navjump, tricky_scene):
    result = _gather(bpy, navjump)
    tris = _gathered_tris(result, "Mirrored")
    normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    box_centre = np.array([-11.0, 0.5, 0.5])  # x from -12 to -10 after the mirror
    outward = tris.mean(axis=1) - box_centre
    assert (np.einsum("ij,ij->i", normals, outward) > 0).all()


def test_roles_visibility_and_collection_source(bpy, navjump, scene):
    level = bpy.data.collections.new("Level")
    scene.collection.children.link(level)
    floor = _add(bpy, "Floor", _box_mesh(bpy, "Floor", (0, 0, -1), (10, 10, 0)), level)
    crate = _add(bpy, "Crate", _box_mesh(bpy, "Crate", (1, 1, 0), (2, 2, 1)), level)
    crate.navjump_role = 'OBSTACLE'
    decor = _add(bpy, "Decor", _box_mesh(bpy, "Decor", (3, 3, 0), (4, 4, 1)), level)
    decor.navjump_role = 'IGNORED'
    hidden = _add(bpy, "Hidden", _box_mesh(bpy, "Hidden", (5, 5, 0), (6, 6, 1)), level)
    hidden.hide_set(True)
    outside = _add(bpy, "Outside", _box_mesh(bpy, "Outside", (20, 0, 0), (21, 1, 1)))
    empty = _add(bpy, "Empty", None)
    assert empty.type == 'EMPTY'
    del floor

    result = _gather(bpy, navjump)
    assert sorted(result.object_names) == ["Crate", "Floor", "Outside"]
    slices = result.object_slices()
    assert not result.walkable[slices["Crate"]].any()
    assert result.walkable[slices["Floor"]].all() and result.walkable[slices["Outside"]].all()
    assert result.obstacle_count == 12

    # A collection source takes that collection's visible objects only.
    result = _gather(bpy, navjump, collection=level)
    assert sorted(result.object_names) == ["Crate", "Floor"]
    hidden.hide_set(False)
    result = _gather(bpy, navjump, collection=level)
    assert sorted(result.object_names) == ["Crate", "Floor", "Hidden"]
    del outside


def test_result_objects_are_never_gathered(bpy, navjump, scene):
    _add(bpy, "Floor", _box_mesh(bpy, "Floor", (0, 0, -1), (10, 10, 0)))
    fake = _add(bpy, "Old result", _box_mesh(bpy, "Old", (0, 0, 5), (1, 1, 6)))
    fake[navjump.gather.RESULT_TAG] = "navmesh"
    result = _gather(bpy, navjump)
    assert result.object_names == ["Floor"]


def test_loose_geometry_and_empty_meshes_add_no_vertices(bpy, navjump, scene):
    mesh = _box_mesh(bpy, "Floor", (0, 0, -1), (10, 10, 0))
    mesh.vertices.add(1)
    mesh.vertices[-1].co = (1000.0, 1000.0, 1000.0)  # a stray vertex far away
    _add(bpy, "Floor", mesh)
    _add(bpy, "Nothing", bpy.data.meshes.new("Nothing"))
    result = _gather(bpy, navjump)
    assert result.object_names == ["Floor"]
    assert result.vertices.shape == (8, 3)
    assert np.abs(result.vertices).max() == pytest.approx(10.0)


def test_gather_from_context_needs_a_collection_when_asked(bpy, navjump, scene):
    scene.navjump.source = 'COLLECTION'
    with pytest.raises(ValueError, match="collection"):
        navjump.gather.gather_from_context(bpy.context)


def test_transform_flips_winding_only_for_mirrors(navjump):
    co = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float64)
    tris = np.array([[0, 1, 2]], np.int32)
    rot = np.eye(4)
    c, s = math.cos(0.5), math.sin(0.5)
    rot[:2, :2] = [[c, -s], [s, c]]
    _, same = navjump.gather.transform(co, tris, rot)
    assert same.tolist() == [[0, 1, 2]]
    mirror = np.diag([1.0, -1.0, 1.0, 1.0])
    world, flipped = navjump.gather.transform(co, tris, mirror)
    assert flipped.tolist() == [[0, 2, 1]]
    normal = np.cross(world[flipped[0, 1]] - world[flipped[0, 0]],
                      world[flipped[0, 2]] - world[flipped[0, 0]])
    assert normal[2] > 0  # still facing up


def test_a_patched_gather_equals_a_full_gather(bpy, navjump, scene):
    """The per-object gather of a live edit (``ObjectCache.touch``: what the depsgraph
    handler reports) reads only the touched objects and writes them into the last
    gather's arrays; whatever the edit, the result equals a full gather, and an edit the
    patch cannot follow (another triangle count, a hidden object, an unknown change)
    walks every object instead."""
    import numpy as np

    gather = navjump.gather
    objs = {}
    for i, name in enumerate(("Floor", "Box", "Crate")):
        mesh = bpy.data.meshes.new(name)
        size = 10.0 if name == "Floor" else 1.0
        mesh.from_pydata([(0, 0, 0), (size, 0, 0), (size, size, 0), (0, size, 0),
                          (0, 0, 1), (size, 0, 1)], [], [(0, 1, 2, 3), (0, 1, 5, 4)])
        objs[name] = bpy.data.objects.new(name, mesh)
        objs[name].location = (0, 0, 0) if name == "Floor" else (2.0 * i, 2.0, 0.0)
        scene.collection.objects.link(objs[name])
    bpy.context.view_layer.update()
    cache = gather.ObjectCache(patching=True)

    def check(patched: bool):
        cached = gather.gather_from_context(bpy.context, object_cache=cache)
        assert cache.patched is patched
        full = gather.gather_from_context(bpy.context)
        for name in ("vertices", "triangles", "walkable"):
            np.testing.assert_array_equal(getattr(cached, name), getattr(full, name), name)
        assert cached.object_names == full.object_names
        assert cached.object_triangle_counts == full.object_triangle_counts
        return cached

    check(patched=False)  # the first gather walks every object
    before = objs["Box"].matrix_world.translation.copy()
    objs["Box"].location.x += 1.5
    bpy.context.view_layer.update()
    cache.touch("Box")
    check(patched=True)
    assert cache.stats() == {"objects": 3, "reads": 1, "hits": 2}
    # the edited boxes: the box's old and new bounds
    (lo0, hi0), (lo1, hi1) = cache.changed
    assert lo0[0] == pytest.approx(before.x) and lo1[0] == pytest.approx(before.x + 1.5)
    assert hi1[0] - lo1[0] == pytest.approx(1.0)

    objs["Crate"].data.vertices[4].co.z = 2.0  # geometry, same counts
    objs["Crate"].data.update()
    bpy.context.view_layer.update()
    cache.invalidate("Crate")
    assert check(patched=True).vertices[:, 2].max() == pytest.approx(2.0)

    objs["Crate"].data.vertices.add(3)  # loose vertices are dropped: same triangles
    objs["Box"].modifiers.new("more", 'SUBSURF')  # more triangles: a full walk
    bpy.context.view_layer.update()
    cache.invalidate("Box")
    check(patched=False)

    objs["Crate"].hide_set(True)  # no object update reports it: the scene signature does
    bpy.context.view_layer.update()
    assert check(patched=False).object_names == ["Floor", "Box"]
    objs["Crate"].hide_set(False)
    bpy.context.view_layer.update()
    check(patched=False)

    objs["Floor"].location.z = 0.25
    bpy.context.view_layer.update()
    cache.touch("Floor")
    cache.mark_unknown()  # e.g. a role or a NavJump object setting changed
    check(patched=False)
    objs["Floor"].location.z = 0.5
    bpy.context.view_layer.update()
    cache.touch("Floor")
    floor = check(patched=True)
    tris = floor.triangles[floor.object_slices()["Floor"]]
    np.testing.assert_allclose(floor.vertices[tris][..., 2].min(), 0.5)
