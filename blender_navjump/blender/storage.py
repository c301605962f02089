"""Bake results inside the .blend: a ``NavJump`` collection with two mesh objects.

* ``NavJump Navmesh``: one face per navmesh polygon (face i = polygon i), face attributes
  ``stance``, ``area`` and ``region`` (int). Its mesh data also carries the complete
  NavMesh as an .npz blob (custom property ``navjump_npz``, int32 words) plus the bake
  settings, stats and warnings as JSON, so :func:`load_navmesh` works after save, reopen
  and undo.
* ``NavJump Links``: one edge per jump link (start-segment midpoint to end-segment
  midpoint), edge attributes ``kind`` (index into LINK_KINDS), ``bidirectional``,
  ``width`` (m) and ``cost``.
* A ``NavJump Report`` text datablock with a readable summary.

The new result is built completely before the old one is touched, so a failed or
cancelled bake leaves the previous result as it was; re-baking swaps mesh data into the
existing objects and removes the old meshes (no orphans).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import uuid

import bpy
import numpy as np
from bpy.app.handlers import persistent

from ..core.navmesh import LINK_KINDS, STANCE_NAMES, NavMesh
from .gather import RESULT_TAG

COLLECTION_NAME = "NavJump"
NAVMESH_NAME = "NavJump Navmesh"
LINKS_NAME = "NavJump Links"
REPORT_NAME = "NavJump Report"
KIND_COLLECTION, KIND_NAVMESH, KIND_LINKS = "collection", "navmesh", "links"
REPORT_KEY = "navjump_report"  # collection custom property: the report Text
# The navmesh object is lifted a little so it does not z-fight with the floor it lies on;
# its mesh coordinates (and the stored NavMesh) are the real positions.
DISPLAY_LIFT = 0.03
NAVMESH_COLOR = (0.15, 0.65, 0.9, 1.0)
LINKS_COLOR = (1.0, 0.55, 0.1, 1.0)

_report_cache: dict[str, dict] = {}


# ---------------------------------------------------------------- NavMesh <-> bytes
def navmesh_to_bytes(navmesh: NavMesh) -> bytes:
    # NavMesh.save writes to a path; go through a temporary file.
    fd, path = tempfile.mkstemp(suffix=".npz", prefix="navjump_")
    os.close(fd)
    try:
        navmesh.save(path)
        with open(path, "rb") as fh:
            return fh.read()
    finally:
        os.remove(path)


def navmesh_from_bytes(data: bytes) -> NavMesh:
    # Not checked here: the overlay draws what it can of a damaged blob and lists the invalid
    # parts itself; the path test and the exporters check the NavMesh (core/navmesh_check).
    return NavMesh.load(io.BytesIO(data), check=False)


def bytes_to_words(data: bytes) -> np.ndarray:
    """Bytes packed into int32 words (ID properties hold int arrays, not bytes)."""
    pad = (-len(data)) % 4
    return np.frombuffer(data + b"\0" * pad, dtype=np.int32).copy()


def words_to_bytes(words, size: int) -> bytes:
    return np.asarray(words, dtype=np.int32).tobytes()[:size]


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def to_json(value) -> str:
    return json.dumps(value, default=_json_default, sort_keys=True)


# ---------------------------------------------------------------- summaries
def summarize(navmesh: NavMesh) -> dict:
    """Numbers the panel and the scripts print: polygons, area per stance, links per kind."""
    stats = navmesh.stats or {}
    area = stats.get("area_by_stance_m2")
    if area is None:
        area = _area_by_stance(navmesh)
    kinds = np.asarray(navmesh.link_kind)
    return {
        "polygons": navmesh.polygon_count,
        "polygons_by_stance": {name: int((navmesh.polygon_stance == i).sum())
                               for i, name in enumerate(STANCE_NAMES)},
        "area_by_stance_m2": {k: float(v) for k, v in area.items()},
        "links": navmesh.link_count,
        "links_by_kind": {name: int((kinds == i).sum()) for i, name in enumerate(LINK_KINDS)},
        "timings_ms": dict(stats.get("timings_ms", {})),
    }


def _area_by_stance(navmesh: NavMesh) -> dict:
    polys = navmesh.polygons
    out = {name: 0.0 for name in STANCE_NAMES}
    if polys.shape[0] == 0:
        return out
    v = navmesh.vertices
    v0 = v[polys[:, 0]]
    per_poly = np.zeros(polys.shape[0])
    for i in range(1, polys.shape[1] - 1):
        ok = polys[:, i + 1] >= 0
        a = v[np.where(ok, polys[:, i], 0)] - v0
        b = v[np.where(ok, polys[:, i + 1], 0)] - v0
        per_poly += np.where(ok, 0.5 * np.linalg.norm(np.cross(a, b), axis=1), 0.0)
    for i, name in enumerate(STANCE_NAMES):
        out[name] = float(per_poly[navmesh.polygon_stance == i].sum())
    return out


def report_text(summary: dict, gather_info: dict, warnings: list[str]) -> str:
    lines = ["NavJump bake", ""]
    lines.append(f"Input: {gather_info.get('triangles', 0)} triangles from "
                 f"{gather_info.get('objects', 0)} objects "
                 f"(gathered in {gather_info.get('seconds', 0.0) * 1000:.0f} ms)")
    lines.append(f"Polygons: {summary['polygons']}")
    for name, area in summary["area_by_stance_m2"].items():
        lines.append(f"  {name}: {summary['polygons_by_stance'].get(name, 0)} polygons, "
                     f"{area:.1f} m2")
    lines.append(f"Links: {summary['links']}")
    for name, count in summary["links_by_kind"].items():
        lines.append(f"  {name}: {count}")
    if summary["timings_ms"]:
        lines.append("Time per stage (ms):")
        for name, ms in summary["timings_ms"].items():
            lines.append(f"  {name}: {ms:.0f}")
    if warnings:
        lines.append("Warnings:")
        lines.extend(f"  {w}" for w in warnings)
    return "\n".join(lines) + "\n"


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


def load_navmesh(scene) -> NavMesh | None:
    """The NavMesh stored by the last bake of this scene, or None."""
    obj = result_object(scene, KIND_NAVMESH)
    if obj is None or obj.type != 'MESH':
        return None
    mesh = obj.data
    words = mesh.get("navjump_npz")
    size = mesh.get("navjump_npz_size")
    if words is None or size is None:
        return None
    return navmesh_from_bytes(words_to_bytes(words, int(size)))


def read_report(scene) -> dict | None:
    """Stored bake metadata (settings, stats, summary, gather info, warnings), cached."""
    obj = result_object(scene, KIND_NAVMESH)
    if obj is None or obj.type != 'MESH':
        return None
    mesh = obj.data
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
def build_navmesh_mesh(navmesh: NavMesh, name: str = NAVMESH_NAME):
    mesh = bpy.data.meshes.new(name)
    try:
        polys = navmesh.polygons
        counts = (polys >= 0).sum(axis=1)
        mesh.vertices.add(navmesh.vertices.shape[0])
        mesh.vertices.foreach_set("co", navmesh.vertices.astype(np.float32).ravel())
        loops = polys[polys >= 0].astype(np.int32)  # row-major: polygon by polygon
        mesh.loops.add(loops.shape[0])
        mesh.loops.foreach_set("vertex_index", loops)
        mesh.polygons.add(polys.shape[0])
        starts = np.zeros(polys.shape[0], np.int32)
        if polys.shape[0]:
            starts[1:] = np.cumsum(counts)[:-1]
        mesh.polygons.foreach_set("loop_start", starts)
        mesh.update(calc_edges=True)
        for attr_name, values in (("stance", navmesh.polygon_stance),
                                  ("area", navmesh.polygon_area),
                                  ("region", navmesh.polygon_region)):
            attr = mesh.attributes.new(attr_name, 'INT', 'FACE')
            attr.data.foreach_set("value", np.asarray(values, dtype=np.int32))
    except Exception:
        bpy.data.meshes.remove(mesh)
        raise
    return mesh


def build_links_mesh(navmesh: NavMesh, name: str = LINKS_NAME):
    mesh = bpy.data.meshes.new(name)
    try:
        n = navmesh.link_count
        start_mid = navmesh.link_start.mean(axis=1) if n else np.zeros((0, 3))
        end_mid = navmesh.link_end.mean(axis=1) if n else np.zeros((0, 3))
        points = np.empty((2 * n, 3), np.float32)
        points[0::2] = start_mid
        points[1::2] = end_mid
        mesh.vertices.add(2 * n)
        mesh.vertices.foreach_set("co", points.ravel())
        mesh.edges.add(n)
        mesh.edges.foreach_set("vertices", np.arange(2 * n, dtype=np.int32))
        mesh.update()
        width = (np.linalg.norm(navmesh.link_start[:, 1] - navmesh.link_start[:, 0], axis=1)
                 if n else np.zeros(0))
        for attr_name, kind, field, values in (
                ("kind", 'INT', "value", np.asarray(navmesh.link_kind, np.int32)),
                ("bidirectional", 'BOOLEAN', "value",
                 np.asarray(navmesh.link_bidirectional, np.bool_)),
                ("width", 'FLOAT', "value", width.astype(np.float32)),
                ("cost", 'FLOAT', "value", np.asarray(navmesh.link_cost, np.float32))):
            attr = mesh.attributes.new(attr_name, kind, 'EDGE')
            attr.data.foreach_set(field, values)
    except Exception:
        bpy.data.meshes.remove(mesh)
        raise
    return mesh


def _store_blob(mesh, navmesh: NavMesh, gather_info: dict, warnings: list[str]) -> dict:
    data = navmesh_to_bytes(navmesh)
    mesh["navjump_npz"] = bytes_to_words(data)
    mesh["navjump_npz_size"] = len(data)
    mesh["navjump_bake_id"] = uuid.uuid4().hex
    summary = summarize(navmesh)
    mesh["navjump_settings"] = to_json(navmesh.settings)
    mesh["navjump_stats"] = to_json(navmesh.stats)
    mesh["navjump_summary"] = to_json(summary)
    mesh["navjump_gather"] = to_json(gather_info)
    mesh["navjump_warnings"] = to_json(list(warnings))
    return summary


# ---------------------------------------------------------------- write / clear
def write_result(scene, navmesh: NavMesh, gather_info: dict | None = None,
                 warnings: list[str] | None = None):
    """Store a bake in the scene, replacing the previous one. Returns the collection."""
    gather_info = dict(gather_info or {})
    warnings = list(warnings or [])
    # 1. Build everything new first: any failure here leaves the old result intact.
    new_meshes = {}
    try:
        new_meshes[KIND_NAVMESH] = build_navmesh_mesh(navmesh)
        summary = _store_blob(new_meshes[KIND_NAVMESH], navmesh, gather_info, warnings)
        new_meshes[KIND_LINKS] = build_links_mesh(navmesh)
        text_body = report_text(summary, gather_info, warnings)
    except Exception:
        for mesh in new_meshes.values():
            bpy.data.meshes.remove(mesh)
        raise

    # 2. Swap them in.
    coll = result_collection(scene)
    if coll is None:
        coll = bpy.data.collections.new(COLLECTION_NAME)
        coll[RESULT_TAG] = KIND_COLLECTION
        coll.hide_render = True
        scene.collection.children.link(coll)
    existing = {obj.get(RESULT_TAG): obj for obj in coll.objects if obj.get(RESULT_TAG)}
    for kind, name, color in ((KIND_NAVMESH, NAVMESH_NAME, NAVMESH_COLOR),
                              (KIND_LINKS, LINKS_NAME, LINKS_COLOR)):
        mesh = new_meshes[kind]
        obj = existing.get(kind)
        if obj is not None and obj.type == 'MESH':
            old = obj.data
            obj.data = mesh
            if old.users == 0:
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
    return coll


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
    _report_cache.clear()


def register():
    bpy.app.handlers.load_post.append(_on_load_post)


def unregister():
    if _on_load_post in bpy.app.handlers.load_post:
        bpy.app.handlers.load_post.remove(_on_load_post)
    _report_cache.clear()
