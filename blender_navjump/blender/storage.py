"""Bake results inside the .blend: a ``NavJump`` collection with two mesh objects.

* ``NavJump Navmesh``: one face per navmesh polygon (face i = polygon i), face attributes
  ``stance``, ``area`` and ``region`` (int). Its mesh data also carries the complete
  NavMesh as an .npz blob (custom property ``navjump_npz``, int32 words) plus the bake
  settings, stats and warnings as JSON, so :func:`load_navmesh` works after save, reopen
  and undo; with the "Debug Data" bake setting, the bake's debug data too (``navjump_debug``,
  :func:`load_debug`). The blob is zlib-compressed (:data:`STORE_COMPRESSED`) by the Bake
  button and the batch; Auto re-bake stores it uncompressed (``navjump_npz_compressed`` 0:
  much faster to store, see ``scripts/bench_live.py``) and it is compressed when the
  .blend is saved.
* ``NavJump Links``: one edge per jump link (start-segment midpoint to end-segment
  midpoint), edge attributes ``kind`` (index into LINK_KINDS), ``bidirectional``,
  ``width`` (m), ``cost`` and ``area`` (the link's area id, ``NavMesh.link_area``).
* A ``NavJump Report`` text datablock with a readable summary.

The new result is computed completely (arrays, blobs, report) before the old one is
touched, so a failed or cancelled bake leaves the previous result as it was; re-baking
rewrites the existing result meshes in place (no datablock added or removed, so Blender
does not rebuild the scene's dependency graph, and no orphans).
"""

from __future__ import annotations

import hashlib
import io
import json
import uuid
from typing import TYPE_CHECKING

import bpy
import numpy as np
from bpy.app.handlers import persistent

from ..core.debug import BakeDebug
from ..core.navmesh import NavMesh
from . import result_mesh, storage_agents
from .gather import RESULT_TAG
from .summary import (
    bytes_to_words,
    navmesh_from_bytes,
    navmesh_to_bytes,
    report_text,
    summarize,
    to_json,
    words_to_bytes,
)

if TYPE_CHECKING:  # a name the stubs give Blender's enum (it exists in no running Blender)
    from bpy.stub_internal.rna_enums import AttributeTypeItems

COLLECTION_NAME = "NavJump"
NAVMESH_NAME = "NavJump Navmesh"
LINKS_NAME = "NavJump Links"
REPORT_NAME = "NavJump Report"
KIND_COLLECTION, KIND_NAVMESH, KIND_LINKS = "collection", "navmesh", "links"
REPORT_KEY = "navjump_report"  # collection custom property: the report Text
DEBUG_KEY = "navjump_debug"  # navmesh mesh custom property: the bake's debug data (.npz)
# The navmesh object is lifted a little so it does not z-fight with the floor it lies on;
# its mesh coordinates (and the stored NavMesh) are the real positions.
DISPLAY_LIFT = 0.03
NAVMESH_COLOR = (0.15, 0.65, 0.9, 1.0)
LINKS_COLOR = (1.0, 0.55, 0.1, 1.0)

_report_cache: dict[str, dict] = {}
# Store the blob compressed at bake time. False stores it ~25x faster at 100 k polygons
# (compressed when the .blend is saved), but a .blend save cut short by a file-size limit
# then fails differently (tests/blender/test_bad_input_batch.py): kept on until checked.
STORE_COMPRESSED = True


# ---------------------------------------------------------------- finding results
def result_collection(scene):
    """The scene's NavJump result collection, or None."""
    for coll in scene.collection.children_recursive:
        if coll.get(RESULT_TAG) == KIND_COLLECTION:
            return coll
    return None


def result_object(scene, kind: str):
    coll = result_collection(scene)
    if coll is None:
        return None
    for obj in coll.objects:
        if obj.get(RESULT_TAG) == kind:
            return obj
    return None


def has_result(scene) -> bool:
    return result_object(scene, KIND_NAVMESH) is not None


def _navmesh_data(scene):
    """The mesh data of the stored navmesh object, or None."""
    obj = result_object(scene, KIND_NAVMESH)
    if obj is None or obj.type != 'MESH':
        return None
    return obj.data


# The NavMesh the last write_result stored, with its bake id and blob words: the overlay
# takes it instead of decoding the blob it was just written to (load_navmesh(...,
# shared=True)) while the mesh still holds that very blob.
_last_written: tuple[str, np.ndarray, NavMesh] | None = None


def load_navmesh(scene, agent: str | None = None, shared: bool = False) -> NavMesh | None:
    """The NavMesh stored by the last bake of this scene, or None. A bake of several
    agents: the agent ``agent`` (default: the shown one, :mod:`.storage_agents`).
    ``shared``: the caller only reads it; when it is the one this session just stored,
    that object is returned (not decoded from the blob again)."""
    mesh = _navmesh_data(scene)
    if mesh is None:
        return None
    if storage_agents.baked_names(mesh):
        return storage_agents.load(mesh, agent or storage_agents.shown_name(scene, mesh))
    last = _last_written
    if shared and last is not None and mesh.get("navjump_bake_id") == last[0] \
            and _same_words(mesh.get("navjump_npz"), last[1]):
        return last[2]
    words = mesh.get("navjump_npz")
    size = mesh.get("navjump_npz_size")
    if words is None or size is None:
        return None
    return navmesh_from_bytes(words_to_bytes(words, int(size)))


def _same_words(words, written: np.ndarray) -> bool:
    """The stored blob is still the one written (compared through the buffer: no copy)."""
    if words is None:
        return False
    try:
        now = np.asarray(words, dtype=np.int32)
    except (TypeError, ValueError):
        return False
    return bool(np.array_equal(now, written))


def load_debug(scene) -> BakeDebug | None:
    """The debug data stored with the last bake (None: the bake kept none). ValueError
    when it cannot be read."""
    obj = result_object(scene, KIND_NAVMESH)
    if obj is None or obj.type != 'MESH':
        return None
    words = obj.data.get(DEBUG_KEY)
    size = obj.data.get(f"{DEBUG_KEY}_size")
    if words is None or size is None:
        return None
    try:
        with np.load(io.BytesIO(words_to_bytes(words, int(size))), allow_pickle=False) as data:
            return BakeDebug.from_arrays({name: data[name] for name in data.files})
    except ValueError:
        raise
    except Exception as exc:  # a damaged archive raises anything
        raise ValueError(f"the stored debug data cannot be read ({type(exc).__name__}: "
                         f"{exc})") from None


def read_report(scene) -> dict | None:
    """Stored bake metadata (settings, stats, summary, gather info, warnings), cached."""
    mesh = _navmesh_data(scene)
    if mesh is None:
        return None
    bake_id = mesh.get("navjump_bake_id")
    if bake_id is None:
        return None
    cached = _report_cache.get(bake_id)
    if cached is None:
        cached = {key: json.loads(mesh.get(f"navjump_{key}", "null"))
                  for key in ("settings", "stats", "summary", "gather", "warnings")}
        cached["bake_id"] = bake_id
        if len(_report_cache) > 16:
            _report_cache.clear()
        _report_cache[bake_id] = cached
    return cached


# ---------------------------------------------------------------- building meshes
def _check_lengths(what: str, domain: str, n: int, attributes: dict[str, np.ndarray]):
    """ValueError when an attribute does not have one value per element (checked before
    anything in the scene is touched)."""
    for attr_name, values in attributes.items():
        if values.shape[0] != n:
            raise ValueError(f"{what}: attribute {attr_name!r} has {values.shape[0]} values "
                             f"for {n} {domain}")


GEOMETRY_HASH_KEY = "navjump_geometry_hash"  # result mesh: what its geometry was written from


def _geometry_hash(vertices: np.ndarray, topology: tuple[np.ndarray, ...],
                   attributes: dict[str, np.ndarray]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for arr in (vertices, *topology):
        h.update(str(arr.shape).encode())
        h.update(np.ascontiguousarray(arr).tobytes())
    for name in sorted(attributes):
        h.update(f"{name}:{attributes[name].dtype.str}".encode())
        h.update(np.ascontiguousarray(attributes[name]).tobytes())
    return h.hexdigest()


def _unchanged(mesh, digest: str, vertices: np.ndarray, n_edges: int | None,
               n_faces: int) -> bool:
    """The mesh already holds this geometry: written from the same arrays (``digest``) and
    not edited since (same counts, same vertex positions). Rewriting it anyway would make
    Blender evaluate the scene again (~40-90 ms in a scene of 3,000 objects)."""
    if mesh.get(GEOMETRY_HASH_KEY) != digest or len(mesh.vertices) != vertices.shape[0] \
            or len(mesh.polygons) != n_faces \
            or (n_edges is not None and len(mesh.edges) != n_edges):
        return False
    co = np.empty(vertices.shape[0] * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    return bool(np.array_equal(co, vertices.astype(np.float32, copy=False).ravel()))


def _set_face_mesh(mesh, faces: result_mesh.FaceMesh) -> None:
    """Replace the geometry and face attributes of ``mesh`` (in place: the mesh datablock,
    its users and its custom properties stay); left alone when it already holds them."""
    digest = _geometry_hash(faces.vertices, (faces.loops, faces.loop_starts),
                            faces.attributes)
    if _unchanged(mesh, digest, faces.vertices, None, faces.loop_starts.shape[0]):
        return
    if GEOMETRY_HASH_KEY in mesh:
        del mesh[GEOMETRY_HASH_KEY]
    mesh.clear_geometry()
    mesh.vertices.add(faces.vertices.shape[0])
    mesh.vertices.foreach_set("co", faces.vertices.ravel())
    mesh.loops.add(faces.loops.shape[0])
    mesh.loops.foreach_set("vertex_index", faces.loops)
    mesh.polygons.add(faces.loop_starts.shape[0])
    mesh.polygons.foreach_set("loop_start", faces.loop_starts)
    mesh.update(calc_edges=True)
    for attr_name, values in faces.attributes.items():
        attr = mesh.attributes.new(attr_name, 'INT', 'FACE')
        assert isinstance(attr, bpy.types.IntAttribute)
        attr.data.foreach_set("value", values)
    mesh[GEOMETRY_HASH_KEY] = digest


def _face_mesh(navmesh: NavMesh) -> result_mesh.FaceMesh:
    faces = result_mesh.navmesh_faces(navmesh)
    _check_lengths("the navmesh", "polygons", faces.loop_starts.shape[0], faces.attributes)
    return faces


def build_navmesh_mesh(navmesh: NavMesh, name: str = NAVMESH_NAME):
    faces = _face_mesh(navmesh)
    mesh = bpy.data.meshes.new(name)
    try:
        _set_face_mesh(mesh, faces)
    except Exception:
        bpy.data.meshes.remove(mesh)
        raise
    return mesh


_ATTRIBUTE_TYPES: dict[np.dtype, AttributeTypeItems] = {
    np.dtype(np.int32): 'INT', np.dtype(np.bool_): 'BOOLEAN', np.dtype(np.float32): 'FLOAT'}


def _set_edge_mesh(mesh, edges: result_mesh.EdgeMesh) -> None:
    """Replace the geometry and edge attributes of ``mesh`` in place (left alone when it
    already holds them)."""
    digest = _geometry_hash(edges.vertices, (edges.edges,), edges.attributes)
    if _unchanged(mesh, digest, edges.vertices, edges.edges.shape[0] // 2, 0):
        return
    if GEOMETRY_HASH_KEY in mesh:
        del mesh[GEOMETRY_HASH_KEY]
    mesh.clear_geometry()
    mesh.vertices.add(edges.vertices.shape[0])
    mesh.vertices.foreach_set("co", edges.vertices.ravel())
    mesh.edges.add(edges.edges.shape[0] // 2)
    mesh.edges.foreach_set("vertices", edges.edges)
    mesh.update()
    for attr_name, values in edges.attributes.items():
        attr = mesh.attributes.new(attr_name, _ATTRIBUTE_TYPES[values.dtype], 'EDGE')
        assert isinstance(attr, (bpy.types.IntAttribute, bpy.types.BoolAttribute,
                                 bpy.types.FloatAttribute))
        attr.data.foreach_set("value", values)
    mesh[GEOMETRY_HASH_KEY] = digest


def _edge_mesh(navmesh: NavMesh) -> result_mesh.EdgeMesh:
    edges = result_mesh.link_edges(navmesh)
    _check_lengths("the links", "links", edges.edges.shape[0] // 2, edges.attributes)
    return edges


def build_links_mesh(navmesh: NavMesh, name: str = LINKS_NAME):
    edges = _edge_mesh(navmesh)
    mesh = bpy.data.meshes.new(name)
    try:
        _set_edge_mesh(mesh, edges)
    except Exception:
        bpy.data.meshes.remove(mesh)
        raise
    return mesh


def _blob_props(navmesh: NavMesh, compress: bool) -> dict:
    data = navmesh_to_bytes(navmesh, compress=compress)
    return {"navjump_npz": bytes_to_words(data), "navjump_npz_size": len(data),
            "navjump_npz_compressed": int(compress)}


def set_prop(idblock, key: str, value) -> None:
    """``idblock[key] = value``, the old value deleted first: assigning an array to an
    existing array property of another length corrupts memory in bpy 5.0.1 (a crash, at
    once or later)."""
    if key in idblock:
        del idblock[key]
    idblock[key] = value


def _set_blob(mesh, navmesh: NavMesh, compress: bool) -> None:
    for key, value in _blob_props(navmesh, compress).items():
        set_prop(mesh, key, value)


def _result_props(navmesh: NavMesh, gather_info: dict, warnings: list[str],
                  debug: BakeDebug | None, agents: dict | None,
                  compress: bool) -> tuple[dict, dict]:
    """Every custom property of the navmesh mesh for this bake (the blob, the bake id, the
    report, debug data, every agent's blob), and the summary."""
    props = _blob_props(navmesh, compress)
    props["navjump_bake_id"] = uuid.uuid4().hex
    summary = summarize(navmesh)
    props["navjump_settings"] = to_json(navmesh.settings)
    props["navjump_stats"] = to_json(navmesh.stats)
    props["navjump_summary"] = to_json(summary)
    props["navjump_gather"] = to_json(gather_info)
    props["navjump_warnings"] = to_json(list(warnings))
    if debug is not None:
        props.update(_debug_props(debug))
    if agents:
        props.update(storage_agents.blob_props(agents, str(navmesh.stats.get("agent", ""))))
    return props, summary


def _debug_props(debug: BakeDebug) -> dict:
    buf = io.BytesIO()
    np.savez_compressed(buf, **debug.to_arrays())
    data = buf.getvalue()
    return {DEBUG_KEY: bytes_to_words(data), f"{DEBUG_KEY}_size": len(data)}


def _replace_props(mesh, props: dict) -> None:
    """The navmesh mesh's NavJump properties become ``props`` (a previous bake's debug
    data or agents, absent from this one, go)."""
    for key in [k for k in mesh.keys() if k.startswith("navjump_") and k not in props
                and k != GEOMETRY_HASH_KEY]:
        del mesh[key]
    for key, value in props.items():
        set_prop(mesh, key, value)


# ---------------------------------------------------------------- write / clear
def write_result(scene, navmesh: NavMesh, gather_info: dict | None = None,
                 warnings: list[str] | None = None, debug: BakeDebug | None = None,
                 agents: dict | None = None, compress: bool | None = None):
    """Store a bake (and its debug data, if any) in the scene, replacing the previous one.
    ``agents``: every agent's NavMesh of a bake of several (``navmesh`` is the shown one).
    ``compress`` (default :data:`STORE_COMPRESSED`): zlib the blob now; False (Auto
    re-bake) stores it as is, compressed when the .blend is saved. Returns the collection.

    Everything is computed first (a failure leaves the previous result as it was). Existing
    result objects are updated in place, their mesh data rewritten: no datablock is added
    or removed, so Blender does not rebuild the scene's dependency graph (on a level of
    3,000 objects that rebuild alone took ~0.9 s per re-bake).
    """
    gather_info = dict(gather_info or {})
    warnings = list(warnings or [])
    compress = STORE_COMPRESSED if compress is None else bool(compress)
    # 1. Compute everything first: any failure here leaves the old result intact.
    faces = _face_mesh(navmesh)
    edges = _edge_mesh(navmesh)
    props, summary = _result_props(navmesh, gather_info, warnings, debug, agents, compress)
    text_body = report_text(summary, gather_info, warnings)

    # 2. Put them in.
    coll = result_collection(scene)
    existing = {} if coll is None else \
        {obj.get(RESULT_TAG): obj for obj in coll.objects if obj.get(RESULT_TAG)}
    targets = {}
    for kind in (KIND_NAVMESH, KIND_LINKS):
        obj = existing.get(kind)
        mesh = obj.data if obj is not None and obj.type == 'MESH' else None
        targets[kind] = (obj, mesh if isinstance(mesh, bpy.types.Mesh) and mesh.users == 1
                         else None)
    new_meshes = {}
    try:
        for kind, name in ((KIND_NAVMESH, NAVMESH_NAME), (KIND_LINKS, LINKS_NAME)):
            if targets[kind][1] is None:
                new_meshes[kind] = bpy.data.meshes.new(name)
        for kind, (_obj, mesh) in targets.items():
            mesh = new_meshes.get(kind, mesh)
            if kind == KIND_NAVMESH:
                _set_face_mesh(mesh, faces)
                _replace_props(mesh, props)
            else:
                _set_edge_mesh(mesh, edges)
    except Exception:
        for mesh in new_meshes.values():
            bpy.data.meshes.remove(mesh)
        raise
    if coll is None:
        coll = bpy.data.collections.new(COLLECTION_NAME)
        coll[RESULT_TAG] = KIND_COLLECTION
        coll.hide_render = True
        scene.collection.children.link(coll)
    for kind, name, color in ((KIND_NAVMESH, NAVMESH_NAME, NAVMESH_COLOR),
                              (KIND_LINKS, LINKS_NAME, LINKS_COLOR)):
        mesh = new_meshes.get(kind)
        if mesh is None:
            continue  # rewritten in place
        obj = existing.get(kind)
        if obj is not None and obj.type == 'MESH':
            old = obj.data
            obj.data = mesh
            if isinstance(old, bpy.types.Mesh) and old.users == 0:  # a MESH object's data
                bpy.data.meshes.remove(old)
                mesh.name = name  # the new mesh got "<name>.001" while the old one lived
        else:
            if obj is not None:  # a tagged object of the wrong type: replace it
                _remove_object(obj)
            obj = bpy.data.objects.new(name, mesh)
            obj[RESULT_TAG] = kind
            obj.hide_select = True
            obj.hide_render = True
            obj.color = color
            if kind == KIND_NAVMESH:
                obj.location.z = DISPLAY_LIFT
                obj.show_wire = True
            coll.objects.link(obj)

    text = coll.get(REPORT_KEY)
    if not isinstance(text, bpy.types.Text):
        text = bpy.data.texts.new(REPORT_NAME)
        coll[REPORT_KEY] = text
    text.clear()
    text.write(text_body)
    global _last_written
    _last_written = None if agents else (
        props["navjump_bake_id"], np.asarray(props["navjump_npz"], np.int32), navmesh)
    return coll


def show_agent(scene) -> bool:
    """Make the result objects show the agent the scene shows
    (``scene.navjump_agents.shown``, :func:`.storage_agents.shown_name`): their meshes are
    rewritten in place from that agent's stored NavMesh. True when they changed; False
    when they already show it, or the result holds one agent only."""
    mesh = _navmesh_data(scene)
    names = storage_agents.baked_names(mesh)
    if mesh is None or not names:
        return False
    shown = storage_agents.shown_name(scene, mesh)
    if shown == storage_agents.drawn_name(mesh) or shown not in names:
        return False
    navmesh = storage_agents.load(mesh, shown)
    if navmesh is None:
        return False
    faces = _face_mesh(navmesh)
    edges = _edge_mesh(navmesh)
    _set_face_mesh(mesh, faces)
    links = result_object(scene, KIND_LINKS)
    if links is not None and links.type == 'MESH' and isinstance(links.data, bpy.types.Mesh):
        _set_edge_mesh(links.data, edges)
    set_prop(mesh, storage_agents.DRAWN_KEY, shown)
    return True


def _remove_object(obj):
    data = obj.data
    bpy.data.objects.remove(obj)
    if data is not None and data.users == 0 and isinstance(data, bpy.types.Mesh):
        bpy.data.meshes.remove(data)


def clear_result(scene) -> bool:
    """Remove the scene's NavJump result (objects, meshes, report). True if there was one."""
    coll = result_collection(scene)
    if coll is None:
        return False
    text = coll.get(REPORT_KEY)
    for obj in list(coll.objects):
        if obj.get(RESULT_TAG) is not None:
            _remove_object(obj)
    if coll.objects or coll.children:
        # The user put their own things in it: keep the collection, drop our tag.
        del coll[RESULT_TAG]
        if REPORT_KEY in coll:
            del coll[REPORT_KEY]
    else:
        bpy.data.collections.remove(coll)
    if isinstance(text, bpy.types.Text):
        bpy.data.texts.remove(text)
    return True


# ---------------------------------------------------------------- handlers
@persistent
def _on_load_post(*_args):
    global _last_written
    _report_cache.clear()
    _last_written = None


def compress_stored(scene) -> bool:
    """Compress the scene's stored navmesh blob if a bake left it uncompressed; True if
    it did. The NavMesh (and its bake id) stay the same."""
    mesh = _navmesh_data(scene)
    if mesh is None or mesh.get("navjump_npz_compressed", 1):
        return False
    navmesh = load_navmesh(scene)
    if navmesh is None:
        return False
    _set_blob(mesh, navmesh, compress=True)
    return True


@persistent
def _on_save_pre(*_args):
    for scene in bpy.data.scenes:
        compress_stored(scene)


_HANDLERS = (("load_post", _on_load_post), ("save_pre", _on_save_pre))


def register():
    for name, fn in _HANDLERS:
        getattr(bpy.app.handlers, name).append(fn)


def unregister():
    for name, fn in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        if fn in handlers:
            handlers.remove(fn)
    _report_cache.clear()
