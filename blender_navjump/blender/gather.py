"""Scene gathering: world-space triangles of the evaluated scene, as numpy arrays.

Reads the evaluated depsgraph, so modifiers, curves, text and instances (collection
instances, instancing, geometry nodes) are seen as Blender shows them. Mesh data is read
with ``foreach_get``; transforms are applied with numpy, never per vertex in Python.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

# Object types whose evaluated geometry can become a mesh.
GEOMETRY_TYPES = frozenset({'MESH', 'CURVE', 'SURFACE', 'FONT', 'META'})
RESULT_TAG = "navjump_kind"  # custom property on our own result objects: never gathered


@dataclass
class GatherResult:
    vertices: np.ndarray  # (N, 3) float64, world, Z up
    triangles: np.ndarray  # (M, 3) int32
    walkable: np.ndarray  # (M,) bool; False = obstacle (blocks, never walked on)
    # One entry per gathered object or instance ("Empty/Source" for instances), with its
    # triangle count; triangles are concatenated in this order.
    object_names: list[str] = field(default_factory=list)
    object_triangle_counts: list[int] = field(default_factory=list)
    seconds: float = 0.0
    # climb objects (climb_items.py): never triangles; items for core.climb.add_climbing
    # and per-object settings by object name
    climb: list = field(default_factory=list)
    climb_settings: dict = field(default_factory=dict)
    # per gathered object (object_names order): may its wall tops become found ledges
    object_find_ledges: list[bool] = field(default_factory=list)
    # modifier volumes, hand-placed links and agents (gather_nav.NavObjects), or None
    nav: Any = None

    def object_slices(self) -> dict[str, slice]:
        """Name -> triangle range; repeated names (several instances of one source from
        the same instancer) get " #2", " #3"..."""
        out, start = {}, 0
        for name, count in zip(self.object_names, self.object_triangle_counts, strict=True):
            key, k = name, 1
            while key in out:
                k += 1
                key = f"{name} #{k}"
            out[key] = slice(start, start + count)
            start += count
        return out

    @property
    def triangle_count(self) -> int:
        return int(self.triangles.shape[0])

    @property
    def obstacle_count(self) -> int:
        return int((~self.walkable).sum())


def mesh_arrays(mesh) -> tuple[np.ndarray, np.ndarray]:
    """Local vertex positions (V, 3) float64 and triangles (T, 3) int32 of a mesh.

    Vertices no triangle uses (loose vertices and edges) are dropped, so they cannot
    stretch the bake's bounds.
    """
    calc = getattr(mesh, "calc_loop_triangles", None)  # gone in 5.0: triangles are lazy
    if calc is not None:
        calc()
    n_tris = len(mesh.loop_triangles)
    if n_tris == 0:
        return np.zeros((0, 3), np.float64), np.zeros((0, 3), np.int32)
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    tris = np.empty(n_tris * 3, np.int32)
    mesh.loop_triangles.foreach_get("vertices", tris)
    co = co.reshape(-1, 3).astype(np.float64)
    tris = tris.reshape(-1, 3)
    used = np.zeros(co.shape[0], np.bool_)
    used[tris] = True
    if not used.all():
        remap = np.cumsum(used, dtype=np.int64) - 1
        co = co[used]
        tris = remap[tris].astype(np.int32)
    return co, tris


def transform(co: np.ndarray, tris: np.ndarray, matrix) -> tuple[np.ndarray, np.ndarray]:
    """Apply a 4x4 world matrix; mirrored transforms flip winding to keep faces outward."""
    m = np.asarray(matrix, dtype=np.float64).reshape(4, 4)
    world = co @ m[:3, :3].T + m[:3, 3]
    if np.linalg.det(m[:3, :3]) < 0.0:
        tris = tris[:, [0, 2, 1]]
    return world, tris


def object_role(obj) -> str:
    return getattr(obj, "navjump_role", 'WALKABLE')


def combined_role(*objects) -> str:
    """An instance is ignored (or an obstacle) if its instancer or its source object is."""
    roles = {object_role(o) for o in objects if o is not None}
    if 'IGNORED' in roles:
        return 'IGNORED'
    if 'OBSTACLE' in roles:
        return 'OBSTACLE'
    return 'WALKABLE'


def is_nav_object(obj) -> bool:
    """A modifier volume or a hand-placed link (``object.navjump_nav``, gather_nav.py):
    not walkable geometry."""
    s = getattr(obj, "navjump_nav", None)
    return s is not None and (s.volume != 'NONE' or s.is_link)


def is_climb_object(obj) -> bool:
    """A ledge, ladder or pipe (role or name suffix; see climb_items.py)."""
    from .climb_items import climb_kind

    return obj is not None and climb_kind(object_role(obj), obj.name) is not None


def is_result_object(obj) -> bool:
    return obj is not None and obj.get(RESULT_TAG) is not None


def _evaluated_arrays(obj_eval):
    if obj_eval.type == 'MESH':
        return mesh_arrays(obj_eval.data)
    mesh = obj_eval.to_mesh()
    try:
        if mesh is None:
            return np.zeros((0, 3), np.float64), np.zeros((0, 3), np.int32)
        return mesh_arrays(mesh)
    finally:
        obj_eval.to_mesh_clear()


class _Entry(NamedTuple):
    """One object's gathered triangles, valid while its key is unchanged."""

    key: tuple  # (object pointer, data pointer, world matrix bytes, role)
    world: np.ndarray  # (V, 3) float64 world positions
    triangles: np.ndarray  # (T, 3) int32, indices into ``world``


class ObjectCache:
    """Per-object gathered triangles for repeated gathers of one scene (Auto re-bake).

    An object (not an instance) whose name, data, world matrix and role are unchanged
    and that was not :meth:`invalidate`-d since (its geometry changed: the caller learns
    that from the depsgraph's ``is_updated_geometry``) is not read again. ``reads`` and
    ``hits`` count the objects read and reused by the last gather.

    ``changed`` lists the world boxes ``(min xyz, max xyz)`` where the last gather differs
    from the one before: the old and new bounds of every object read again, added or
    removed, and of every instance that moved, appeared or went (instances are read every
    time and compared by their bounds). None after the first gather or a :meth:`clear`:
    nothing to compare with. A tiled bake re-bakes only the tiles these boxes touch
    (``core.tiles.TileCache``).

    **Patching** (``patching=True``: the per-object gather of a live edit) the owner reports every
    object the depsgraph updated (:meth:`touch`: transform or geometry) and every change
    the depsgraph does not show as an object update (:meth:`mark_unknown`: a role, an
    object's NavJump settings). When nothing unknown happened since the last gather, the
    scene holds the same objects (:func:`scene_signature`: the view layer's object names
    and the number of evaluated instances, so a hidden, shown, added, removed or renamed
    object is seen) and the last gather had no instances, the next gather reads only the
    touched objects and writes them into the last gather's arrays (:func:`gather`;
    ``patched`` True) instead of walking every object of the scene. The result is the
    same as a full gather (``tests/blender/test_gather.py``).
    """

    def __init__(self, patching: bool = False):
        self.entries: dict[str, _Entry] = {}
        # the owner reports every depsgraph object update (touch): see the class notes
        self.patching = patching
        self.dirty: set[str] = set()
        self.reads = 0
        self.hits = 0
        self.changed: list[tuple[np.ndarray, np.ndarray]] | None = None
        self.instances: dict[tuple, int] = {}  # (name, box bytes) -> count
        self.gathered = False
        # patching (see the class notes)
        self.touched: set[str] = set()
        self.unknown = True
        self.signature: tuple | None = None
        self.last: GatherResult | None = None
        self.slots: dict[str, _Slot] = {}
        self.patched = False
        self.patched_names: list[str] = []  # the objects the last patch was told of

    def invalidate(self, name: str) -> None:
        self.dirty.add(name)
        self.touched.add(name)

    def touch(self, name: str) -> None:
        """The depsgraph updated this object (its transform or geometry)."""
        self.touched.add(name)

    def mark_unknown(self) -> None:
        """Something changed that the depsgraph updates do not name: walk every object."""
        self.unknown = True

    def clear(self) -> None:
        self.entries.clear()
        self.dirty.clear()
        self.instances.clear()
        self.changed = None
        self.gathered = False
        self.touched.clear()
        self.unknown = True
        self.signature = None
        self.last = None
        self.slots.clear()

    def stats(self) -> dict:
        return {"objects": len(self.entries), "reads": self.reads, "hits": self.hits}


class _Slot(NamedTuple):
    """Where one object's triangles are in the last gather's arrays."""

    first_vertex: int
    vertices: int
    first_triangle: int
    triangles: int


def scene_signature(depsgraph, view_layer=None, collection=None, exclude=()) -> tuple:
    """What must be unchanged for a gather to be patched (:class:`ObjectCache`): the
    objects that may be read, by name, and how many instances the depsgraph evaluates
    (hiding or showing an object changes it). About 1 ms for 3,000 objects."""
    objects = collection.all_objects if collection is not None else \
        (view_layer.objects if view_layer is not None else ())
    # NavJump's own result objects (created by the first bake, never gathered) not counted
    ours = [o for coll in depsgraph.scene.collection.children_recursive
            if coll.get(RESULT_TAG) is not None for o in coll.all_objects]
    our_names = {o.name for o in ours}
    shown = sum(1 for o in ours if view_layer is None or o.visible_get(view_layer=view_layer))
    return (collection.name if collection is not None else "",
            tuple(o.name for o in exclude if o is not None),
            len(depsgraph.object_instances) - shown,
            tuple(n for n in (o.name for o in objects) if n not in our_names))


def _matrix_key(matrix) -> bytes:
    return np.asarray(matrix, dtype=np.float64).tobytes()


def gather(depsgraph, view_layer=None, collection=None, exclude=(),
           object_cache: ObjectCache | None = None) -> GatherResult:
    """Triangles of the evaluated scene.

    What the viewport shows is what is baked: hidden, disabled and excluded objects are
    left out (the depsgraph does not list them). collection None: every visible object
    of the view layer; a collection: only its visible objects and those of its child
    collections (instances count by their instancer). Objects with role IGNORED and
    NavJump's own result objects are skipped; OBSTACLE triangles come back with
    walkable False. Objects in ``exclude`` (e.g. the bake bounds) are skipped too.
    ``object_cache`` given: unchanged objects are taken from it (see
    :class:`ObjectCache`), the others read and stored in it.
    """
    t0 = time.perf_counter()
    signature = None
    if object_cache is not None:
        signature = scene_signature(depsgraph, view_layer, collection, exclude)
        patched = _patch(depsgraph, object_cache, signature)
        object_cache.patched = patched is not None
        if patched is not None:
            patched.seconds = time.perf_counter() - t0
            return patched
    excluded = {o.original.as_pointer() for o in exclude if o is not None}
    scope = None
    if collection is not None:
        scope = {o.original.as_pointer() for o in collection.all_objects}
    parts_v, parts_t, parts_w = [], [], []
    names, counts = [], []
    find_ledges: list[bool] = []
    cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}  # instanced source
    # object -> local arrays, shared by all its instances
    n_verts = 0
    n_tris = 0
    slots: dict[str, _Slot] = {}
    seen: dict[str, _Entry] = {}
    changed: list[tuple[np.ndarray, np.ndarray]] = []
    instances: dict[tuple, int] = {}
    if object_cache is not None:
        object_cache.reads = object_cache.hits = 0
    # Curves, text and surfaces are listed twice: as themselves, and as an instance of
    # the mesh they evaluate to. Keep the mesh when there is one.
    self_meshed = set()
    for inst in depsgraph.object_instances:
        if inst.is_instance and inst.object.type == 'MESH' and \
                inst.object.original.as_pointer() == inst.parent.original.as_pointer():
            self_meshed.add(inst.parent.original.as_pointer())
    for inst in depsgraph.object_instances:
        obj = inst.object
        if obj.type not in GEOMETRY_TYPES:
            continue
        if not inst.is_instance and not inst.show_self:
            continue
        source = obj.original
        top = inst.parent.original if inst.is_instance else source
        if not inst.is_instance and obj.type != 'MESH' and top.as_pointer() in self_meshed:
            continue
        if is_result_object(top) or is_result_object(source) or is_nav_object(top):
            continue
        if top.as_pointer() in excluded:
            continue
        if scope is not None:
            if top.as_pointer() not in scope:
                continue
        elif view_layer is not None and not top.visible_get(view_layer=view_layer):
            continue
        role = combined_role(top, source) if inst.is_instance else object_role(top)
        if role == 'IGNORED' or is_climb_object(top) or is_climb_object(source):
            continue  # climb objects are never walkable geometry (gathered below)
        if object_cache is not None and not inst.is_instance:
            entry_key = (source.as_pointer(), source.data.as_pointer() if source.data else 0,
                         _matrix_key(inst.matrix_world), role)
            entry = object_cache.entries.get(source.name)
            if entry is None or entry.key != entry_key or source.name in object_cache.dirty:
                object_cache.reads += 1
                co, local_tris = _evaluated_arrays(obj)
                world, tris = transform(co, local_tris, inst.matrix_world)
                if entry is not None:
                    changed.extend(_boxes(entry.world, entry.triangles))
                entry = _Entry(entry_key, world, tris)
                changed.extend(_boxes(world, tris))
            else:
                object_cache.hits += 1
            seen[source.name] = entry
            world, tris = entry.world, entry.triangles
        else:
            world, tris = _instance_arrays(inst, obj, source, top, cache)
            if object_cache is not None:
                for lo, hi in _boxes(world, tris):
                    key = (f"{top.name}/{source.name}", lo.tobytes() + hi.tobytes())
                    instances[key] = instances.get(key, 0) + 1
        if tris.shape[0] == 0:
            continue
        if object_cache is not None and not inst.is_instance:
            slots[source.name] = _Slot(n_verts, world.shape[0], n_tris, tris.shape[0])
        n_tris += tris.shape[0]
        parts_v.append(world)
        parts_t.append(tris + n_verts)
        parts_w.append(np.full(tris.shape[0], role == 'WALKABLE', np.bool_))
        n_verts += world.shape[0]
        own = source.as_pointer() == top.as_pointer()
        names.append(top.name if own else f"{top.name}/{source.name}")
        counts.append(int(tris.shape[0]))
        find_ledges.append(bool(getattr(top, "navjump_find_ledges", True))
                           and bool(getattr(source, "navjump_find_ledges", True)))
    if object_cache is not None:  # deleted or hidden objects leave the cache
        for name, entry in object_cache.entries.items():
            if name not in seen:
                changed.extend(_boxes(entry.world, entry.triangles))
        before = object_cache.instances
        for key in set(before) | set(instances):
            if before.get(key, 0) != instances.get(key, 0):
                box = np.frombuffer(key[1], np.float64).reshape(2, 3)
                changed.append((box[0].copy(), box[1].copy()))
        object_cache.changed = changed if object_cache.gathered else None
        object_cache.gathered = True
        object_cache.entries = seen
        object_cache.instances = instances
        object_cache.dirty.clear()
    from .gather_climb import gather_climb

    climb, climb_settings = gather_climb(depsgraph, view_layer, scope, excluded)
    if parts_t:
        vertices = np.concatenate(parts_v)
        triangles = np.concatenate(parts_t).astype(np.int32, copy=False)
        walkable = np.concatenate(parts_w)
    else:
        vertices = np.zeros((0, 3), np.float64)
        triangles = np.zeros((0, 3), np.int32)
        walkable = np.zeros(0, np.bool_)
    result = GatherResult(vertices, triangles, walkable, names, counts,
                          time.perf_counter() - t0, climb, climb_settings,
                          object_find_ledges=find_ledges)
    if object_cache is not None:
        object_cache.touched.clear()
        object_cache.unknown = False
        object_cache.signature = signature
        # patched in place by the next gather (see _patch)
        object_cache.last = result if not instances else None
        object_cache.slots = slots
    return result


def _patch(depsgraph, cache: ObjectCache, signature: tuple) -> GatherResult | None:
    """The last gather with the touched objects read again (see :class:`ObjectCache`), or
    None when it cannot be patched (then every object is walked)."""
    last = cache.last
    if not cache.patching or last is None or cache.unknown or not cache.gathered \
            or cache.signature != signature:
        return None
    import bpy

    reads: list[tuple[str, _Entry]] = []
    for name in sorted(cache.touched):
        entry = cache.entries.get(name)
        obj = bpy.data.objects.get(name)
        if entry is None:
            if obj is not None and obj.type in GEOMETRY_TYPES and not (
                    is_climb_object(obj) or is_nav_object(obj) or is_result_object(obj)
                    or object_role(obj) == 'IGNORED'):
                return None  # a geometry object the last gather did not read: walk all
            continue  # an empty, a climb or nav object (read elsewhere), an ignored one
        if obj is None or is_climb_object(obj) or obj.instance_type != 'NONE':
            return None
        ev = obj.evaluated_get(depsgraph)
        key = (obj.as_pointer(), obj.data.as_pointer() if obj.data else 0,
               _matrix_key(ev.matrix_world), object_role(obj))
        if key[:2] != entry.key[:2] or key[3] != entry.key[3]:
            return None  # another data block or role: walk all
        if key == entry.key and name not in cache.dirty:
            continue
        co, local_tris = _evaluated_arrays(ev)
        world, tris = transform(co, local_tris, ev.matrix_world)
        reads.append((name, _Entry(key, world, tris)))
    for name, entry in reads:
        slot = cache.slots.get(name)
        if slot is None or (slot.vertices, slot.triangles) != (entry.world.shape[0],
                                                               entry.triangles.shape[0]):
            return None  # its triangle count changed: walk all (the arrays are rebuilt)
    changed: list[tuple[np.ndarray, np.ndarray]] = []
    for name, entry in reads:
        old = cache.entries[name]
        changed.extend(_boxes(old.world, old.triangles))
        changed.extend(_boxes(entry.world, entry.triangles))
        cache.entries[name] = entry
        slot = cache.slots[name]
        # in place: no bake runs while Auto re-bake gathers (live_rebake.start), and the
        # core keeps no reference to its input arrays
        last.vertices[slot.first_vertex:slot.first_vertex + slot.vertices] = entry.world
        last.triangles[slot.first_triangle:slot.first_triangle + slot.triangles] = \
            entry.triangles + slot.first_vertex
    cache.reads, cache.hits = len(reads), len(cache.entries) - len(reads)
    cache.changed = changed
    cache.patched_names = sorted(cache.touched)
    cache.touched.clear()
    cache.dirty.clear()
    return dataclasses.replace(last, object_names=list(last.object_names),
                               object_triangle_counts=list(last.object_triangle_counts),
                               object_find_ledges=list(last.object_find_ledges), nav=None)


def _boxes(world: np.ndarray, tris: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The world box of an object's used vertices (none when it has no triangles)."""
    if tris.shape[0] == 0:
        return []
    used = world[tris.reshape(-1)]
    return [(used.min(axis=0), used.max(axis=0))]


def _instance_arrays(inst, obj, source, top, cache):
    """World triangles of one object or instance. Instances of a separate object
    (collection instances, instancing) share its local arrays through ``cache``;
    geometry generated by the instancer itself (geometry nodes) does not have a stable
    identity, so it is read every time."""
    key = None
    if inst.is_instance and source.as_pointer() != top.as_pointer():
        key = (source.as_pointer(), obj.data.as_pointer() if obj.data else 0)
    arrays = cache.get(key) if key is not None else None
    if arrays is None:
        arrays = _evaluated_arrays(obj)
        if key is not None:
            cache[key] = arrays
    co, tris = arrays
    return transform(co, tris, inst.matrix_world)


def gather_from_context(context, settings_pg=None,
                        object_cache: ObjectCache | None = None) -> GatherResult:
    """Gather what the scene's NavJump settings point at."""
    settings_pg = settings_pg if settings_pg is not None else context.scene.navjump
    depsgraph = context.evaluated_depsgraph_get()
    collection = None
    if settings_pg.source == 'COLLECTION':
        collection = settings_pg.source_collection
        if collection is None:
            raise ValueError("Source is set to a collection, but no collection is chosen")
    bounds = getattr(settings_pg, "bounds_object", None)
    box = check_box(bounds_box(bounds), bounds.name) if bounds is not None else None
    g = gather(depsgraph, context.view_layer, collection, exclude=(bounds,),
               object_cache=object_cache)
    if box is None:
        return g
    t0 = time.perf_counter()
    clipped = clip_gathered(g, box)
    clipped.seconds = g.seconds + time.perf_counter() - t0
    return clipped


def bounds_box(obj) -> np.ndarray:
    """The box of a bounds object as a 4 x 4 matrix taking [-1, 1]^3 to the world: an
    empty's display cube (``empty_display_size``), a mesh's local bounding box, each under
    the object's world transform."""
    m = np.array(obj.matrix_world, np.float64).reshape(4, 4)
    if obj.type == 'EMPTY':
        local = np.diag([obj.empty_display_size] * 3 + [1.0])
    else:
        corners = np.array([tuple(c) for c in obj.bound_box], np.float64).reshape(-1, 3)
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        local = np.diag(list((hi - lo) / 2.0) + [1.0])
        local[:3, 3] = (hi + lo) / 2.0
    return m @ local


# ---------------------------------------------------------------- bake bounds
# A bounds box thinner than this (m) along any of its axes has no volume to bake in.
MIN_BOUNDS_SIZE = 1.0e-4
# A clipped triangle whose height is below this fraction of its longest edge is dropped.
SLIVER_RATIO = 1.0e-9
# Most vertices of a triangle clipped by the six faces of a box (3 + one per face).
_MAX_CLIPPED = 9


@dataclass
class ClippedTriangles:
    vertices: np.ndarray  # (N, 3) float64, world
    triangles: np.ndarray  # (M, 3) int32
    source: np.ndarray  # (M,) int64: the input triangle each output triangle comes from


def box_size(box) -> np.ndarray:
    """Full lengths (m) of the three edges of the box ``box`` (a 4 x 4 matrix taking the
    cube [-1, 1]^3 to the world)."""
    m = np.asarray(box, np.float64).reshape(4, 4)
    return 2.0 * np.linalg.norm(m[:3, :3], axis=0)


def check_box(box, name: str) -> np.ndarray:
    """The box as a float64 4 x 4 matrix; ValueError naming ``name`` when it has no volume
    (an edge shorter than ``MIN_BOUNDS_SIZE``, or flat: its axes in one plane)."""
    m = np.asarray(box, np.float64).reshape(4, 4)
    size = box_size(m)
    if not np.isfinite(m).all():
        raise ValueError(f"Bake bounds '{name}': its transform is not finite")
    # flat: the three axes (nearly) in one plane, however long each is
    flat = abs(float(np.linalg.det(m[:3, :3]))) < 1e-6 * float(np.prod(size / 2.0))
    if size.min() < MIN_BOUNDS_SIZE or flat:
        raise ValueError(f"Bake bounds '{name}' has no volume (box {size[0]:.4g} x "
                         f"{size[1]:.4g} x {size[2]:.4g} m{', flat' if flat else ''}; at "
                         f"least {MIN_BOUNDS_SIZE:g} m needed on every axis): scale it up "
                         f"or clear Bounds")
    return m


def _clip_plane(poly: np.ndarray, count: np.ndarray, axis: int, sign: float):
    """Clip convex polygons (N, K, 3) with ``count`` vertices each against the half-space
    ``sign * p[axis] <= 1``; returns (N, K + 1, 3) polygons and their counts."""
    n, k = poly.shape[0], poly.shape[1]
    cols = np.arange(k)
    valid = cols[None, :] < count[:, None]
    nxt_idx = np.where(cols[None, :] + 1 < count[:, None], cols[None, :] + 1, 0)
    nxt = np.take_along_axis(poly, nxt_idx[:, :, None], axis=1)
    dc = 1.0 - sign * poly[:, :, axis]
    dn = 1.0 - sign * nxt[:, :, axis]
    keep = valid & (dc >= 0.0)
    crossing = valid & ((dc >= 0.0) != (dn >= 0.0))
    t = np.where(crossing, dc / np.where(crossing, dc - dn, 1.0), 0.0)
    inter = poly + (nxt - poly) * t[:, :, None]
    emitted = keep.astype(np.int64) + crossing
    offset = np.cumsum(emitted, axis=1) - emitted
    out = np.zeros((n, k + 1, 3))
    rows = np.broadcast_to(np.arange(n)[:, None], (n, k))
    out[rows[keep], offset[keep]] = poly[keep]
    at = offset + keep
    out[rows[crossing], at[crossing]] = inter[crossing]
    return out, emitted.sum(axis=1)


def clip_triangles_to_box(vertices, triangles, box) -> ClippedTriangles:
    """The parts of the triangles inside an oriented box (bpy-free, vectorised).

    ``box``: a 4 x 4 matrix taking the cube [-1, 1]^3 to the world (any affine map: a
    rotated, scaled, even sheared box). Triangles inside are kept as they are (same
    vertices); triangles outside are dropped; triangles crossing a face are clipped
    (Sutherland-Hodgman against the six faces, in the box's own frame) and the convex
    rest is fanned into triangles. Vertices no triangle uses are dropped.
    """
    v = np.asarray(vertices, np.float64).reshape(-1, 3)
    t = np.asarray(triangles, np.int64).reshape(-1, 3)
    m = np.asarray(box, np.float64).reshape(4, 4)
    inv = np.linalg.inv(m)
    local = v @ inv[:3, :3].T + inv[:3, 3]
    tl = local[t]  # (T, 3, 3)
    inside = (np.abs(tl) <= 1.0).all(axis=(1, 2))
    outside = ((tl > 1.0).all(axis=1) | (tl < -1.0).all(axis=1)).any(axis=1)
    crossing = np.nonzero(~inside & ~outside)[0]
    kept = np.nonzero(inside)[0]

    poly = np.zeros((crossing.size, 3, 3))
    poly[:] = tl[crossing]
    count = np.full(crossing.size, 3, np.int64)
    for axis in range(3):
        for sign in (1.0, -1.0):
            poly, count = _clip_plane(poly, count, axis, sign)
    assert poly.shape[1] <= _MAX_CLIPPED + 1
    # fan (0, i, i + 1) of every clipped polygon with at least 3 vertices
    fans = np.maximum(count - 2, 0)
    owner = np.repeat(np.arange(crossing.size), fans)
    rank = np.arange(int(fans.sum())) - np.repeat(np.cumsum(fans) - fans, fans)
    corners_local = np.stack([poly[owner, 0], poly[owner, rank + 1], poly[owner, rank + 2]],
                             axis=1)  # (F, 3, 3)
    new_world = corners_local.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]
    # a cut through a vertex or along an edge leaves slivers of no area: not baked (the
    # bake would skip them anyway, and warn about triangles the user never made)
    tri = new_world.reshape(-1, 3, 3)
    edges = np.linalg.norm(tri - tri[:, [1, 2, 0]], axis=2).max(axis=1)
    twice_area = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    solid = twice_area > SLIVER_RATIO * edges * edges
    new_world = tri[solid].reshape(-1, 3)
    owner = owner[solid]

    used = np.zeros(v.shape[0], np.bool_)
    used[t[kept]] = True
    remap = np.cumsum(used) - 1
    base = int(used.sum())
    out_v = np.concatenate([v[used], new_world])
    out_t = np.concatenate([remap[t[kept]],
                            base + np.arange(new_world.shape[0]).reshape(-1, 3)])
    source = np.concatenate([kept, crossing[owner]]).astype(np.int64)
    return ClippedTriangles(out_v, np.ascontiguousarray(out_t, np.int32), source)


def clip_gathered(g: GatherResult, box) -> GatherResult:
    """``g`` limited to the box (see :func:`clip_triangles_to_box`); per-object triangle
    counts follow (an object wholly outside keeps its name with 0 triangles)."""
    clipped = clip_triangles_to_box(g.vertices, g.triangles, box)
    owner = np.repeat(np.arange(len(g.object_names)), g.object_triangle_counts)
    counts = np.bincount(owner[clipped.source], minlength=len(g.object_names)) \
        if len(g.object_names) else np.zeros(0, np.int64)
    # triangles come out kept-first: order them by object again so the slices hold
    order = np.argsort(owner[clipped.source], kind="stable")
    return GatherResult(clipped.vertices, clipped.triangles[order],
                        g.walkable[clipped.source][order], list(g.object_names),
                        [int(c) for c in counts], g.seconds, g.climb, g.climb_settings,
                        object_find_ledges=list(g.object_find_ledges))
