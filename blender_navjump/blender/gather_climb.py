"""Gather the scene's climb objects (ledges, ladders, pipes) as core climb items.

Reads each climb object's evaluated geometry (modifiers, curves) with ``foreach_get``:
its world points, its edges and whether it has faces; :mod:`.climb_items` (no bpy) turns
them into items. The same visibility and scope rules as :func:`.gather.gather` apply;
instances of a climb object are not climb elements (and not walkable either).
"""

from __future__ import annotations

import numpy as np

from ..core.climb_options import ALL_MOVES
from .climb_items import (
    ALL_LINK_KINDS,
    ClimbItem,
    ClimbObjectSettings,
    abilities_mask,
    climb_kind,
    link_kinds_mask,
    moves_mask,
    object_items,
)


def object_settings(obj) -> ClimbObjectSettings:
    """The per-object climbing settings of ``obj`` (Object properties, props_climb.py)."""
    custom = bool(getattr(obj, "navjump_climb_custom", False))
    abilities = abilities_mask(getattr(obj, "navjump_climb_abilities", ())) if custom else None
    kinds = getattr(obj, "navjump_climb_links", None)
    moves = getattr(obj, "navjump_climb_moves", None)
    return ClimbObjectSettings(abilities, ALL_MOVES if moves is None else moves_mask(moves),
                               ALL_LINK_KINDS if kinds is None else link_kinds_mask(kinds))


def _wire_arrays(obj_eval):
    """(world points (V, 3), edges (E, 2), has faces) of an evaluated object."""
    mesh = obj_eval.to_mesh()
    try:
        if mesh is None:
            return np.zeros((0, 3)), np.zeros((0, 2), np.int64), False
        co = np.empty(len(mesh.vertices) * 3, np.float32)
        mesh.vertices.foreach_get("co", co)
        edges = np.empty(len(mesh.edges) * 2, np.int32)
        mesh.edges.foreach_get("vertices", edges)
        has_faces = len(mesh.polygons) > 0
    finally:
        obj_eval.to_mesh_clear()
    m = np.asarray(obj_eval.matrix_world, np.float64).reshape(4, 4)
    world = co.reshape(-1, 3).astype(np.float64) @ m[:3, :3].T + m[:3, 3]
    return world, edges.reshape(-1, 2).astype(np.int64), has_faces


def _bounds_points(obj_eval) -> np.ndarray:
    m = np.asarray(obj_eval.matrix_world, np.float64).reshape(4, 4)
    corners = np.array([tuple(c) for c in obj_eval.bound_box], np.float64).reshape(-1, 3)
    return corners @ m[:3, :3].T + m[:3, 3]


def gather_climb(depsgraph, view_layer=None, scope=None, excluded=frozenset()):
    """(items, settings by object name) of the visible climb objects.

    ``scope``: pointers of the objects a collection source allows (None: all visible);
    ``excluded``: pointers never gathered (the bake bounds). Items are ordered by object
    name, so a bake does not depend on the depsgraph's order."""
    found = []
    for obj_eval in depsgraph.objects:
        obj = obj_eval.original
        if obj is None or obj.get("navjump_kind") is not None:  # our own result objects
            continue
        kind = climb_kind(getattr(obj, "navjump_role", 'WALKABLE'), obj.name)
        if kind is None or obj.as_pointer() in excluded:
            continue
        if scope is not None:
            if obj.as_pointer() not in scope:
                continue
        elif view_layer is not None and not obj.visible_get(view_layer=view_layer):
            continue
        found.append((obj.name, kind, obj, obj_eval))
    items: list[ClimbItem] = []
    settings: dict[str, ClimbObjectSettings] = {}
    for name, kind, obj, obj_eval in sorted(found, key=lambda f: f[0]):
        if obj_eval.type in {'MESH', 'CURVE', 'SURFACE', 'FONT', 'META'}:
            points, edges, has_faces = _wire_arrays(obj_eval)
        else:  # an empty or anything else: its bounds (a ladder or pipe from a box)
            points, edges, has_faces = _bounds_points(obj_eval), None, True
        items.extend(object_items(name, kind, points, edges, has_faces))
        settings[name] = object_settings(obj)
    return items, settings
